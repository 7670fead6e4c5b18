"""The glue: the event's token is in Qt's environment while the window is shown, and only then;
a window still behind a moment later gets one notice saying where it is."""

from __future__ import annotations

import os
from typing import Any

import pytest
from PySide6.QtCore import QProcessEnvironment
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.platform.activation import TOKEN_ENV, event_token
from desktop.ui import window_activation
from desktop.ui.window_activation import WindowActivation, take_env_token


def env_token() -> str:
    return QProcessEnvironment.systemEnvironment().value(TOKEN_ENV, "")


@pytest.fixture
def on_wayland(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window_activation.QGuiApplication, "platformName", lambda: "wayland")


class Scene:
    """Two windows on a pretend Wayland, and what the activation said."""

    def __init__(self, qtbot: QtBot) -> None:
        self.target, self.other = QWidget(), QWidget()
        qtbot.addWidget(self.target)
        qtbot.addWidget(self.other)
        self.said: list[str] = []
        self.activation = WindowActivation(lambda: self.said.append("where"))


def counted_looks(activation: WindowActivation, monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """One entry per look taken at whether a window came forward (a look is ``_check``)."""
    looks: list[None] = []
    check = activation._check

    def look(*args: Any) -> None:
        looks.append(None)
        check(*args)

    monkeypatch.setattr(activation, "_check", look)
    return looks


@pytest.fixture
def scene(qtbot: QtBot, on_wayland: None) -> Scene:
    return Scene(qtbot)


def test_the_events_token_is_set_only_while_showing(scene: Scene) -> None:
    seen: list[str] = []
    with event_token.handling("tok-1"):
        scene.activation.bring_forward(scene.target, lambda: seen.append(env_token()))
    assert seen == ["tok-1"]
    assert env_token() == ""


def test_a_window_kept_behind_gets_one_notice(
    qtbot: QtBot, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, other, said, activation = scene.target, scene.other, scene.said, scene.activation
    looks = counted_looks(activation, monkeypatch)
    target.show()
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: other.isActiveWindow() and not target.isActiveWindow())
    activation.bring_forward(target, target.show)  # a show that does not activate
    qtbot.waitUntil(lambda: said == ["where"], timeout=3000)
    activation.bring_forward(target, target.show)  # again at once: not said twice
    qtbot.waitUntil(lambda: len(looks) == 2, timeout=3000)
    assert said == ["where"]


def test_only_a_request_the_window_never_came_forward_for_gets_a_notice(
    qtbot: QtBot, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, other = scene.target, scene.other
    said_at: list[int] = []  # which look said where the window is
    activation = WindowActivation(lambda: said_at.append(len(looks)))
    looks = counted_looks(activation, monkeypatch)
    other.show()
    activation.bring_forward(target, lambda: (target.show(), target.activateWindow()))
    qtbot.waitUntil(target.isActiveWindow)
    other.activateWindow()  # the person moves on to another window before the look
    qtbot.waitUntil(lambda: other.isActiveWindow() and not target.isActiveWindow())
    activation.bring_forward(target, target.show)  # asked again, and kept behind
    qtbot.waitUntil(lambda: len(looks) == 2, timeout=3000)
    assert said_at == [2]  # not for the first request (it came forward); for the second


def test_a_hosts_token_is_taken_out_of_the_environment() -> None:
    os.putenv(TOKEN_ENV, "from-the-panel")  # as Qt's ProvideXdgActivationToken does
    assert take_env_token() == "from-the-panel"
    assert env_token() == ""
    assert take_env_token() == ""

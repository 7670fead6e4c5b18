"""The tray-host rule: which host, whether the icon shows, and the tray's own window. Qt-free."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.model.tray_host import (
    NO_TRAY_WHAT,
    HostKind,
    TrayFallback,
    TrayProbe,
    install_advice,
    no_tray_notice,
    tray_host,
    window_note,
)

NO_HOST_X11 = TrayProbe(platform="xcb", qt_available=False, desktop="GNOME")
PANEL = TrayProbe(platform="xcb", watcher_owner=":1.7", qt_available=True)


def test_no_host_on_x11_means_the_own_window_with_gnome_advice() -> None:
    host = tray_host(NO_HOST_X11)
    assert host.kind is HostKind.NONE
    assert host.own_window
    assert "AppIndicator extension" in host.advice
    assert host.summary == "none: no StatusNotifierWatcher on the session bus"


def test_a_watcher_with_a_host_is_a_status_notifier_tray() -> None:
    host = tray_host(PANEL)
    assert (host.kind, host.own_window) == (HostKind.STATUS_NOTIFIER, False)
    assert host.advice == ""
    assert ":1.7" in host.summary


def test_a_watcher_without_a_host_is_no_tray() -> None:
    host = tray_host(TrayProbe(watcher_owner="w (:1.3)", host_registered=False, xembed=False))
    assert host.kind is HostKind.NONE
    assert host.own_window
    assert host.summary == "none: StatusNotifierWatcher w (:1.3) has no host registered"


def test_doctor_without_qt_counts_an_xembed_tray() -> None:
    host = tray_host(TrayProbe(xembed=True))
    assert (host.kind, host.own_window) == (HostKind.XEMBED, False)


def test_an_icon_built_before_any_watcher_shows_only_through_an_xembed_tray() -> None:
    """On xcb Qt builds an XEmbed icon when no watcher runs; waybar under Xwayland brings a
    watcher and no XEmbed tray, so the window stays and says to restart (seen on sway)."""
    sni_only = TrayProbe(platform="xcb", watcher_owner=":1.9", qt_available=True, xembed=False)
    host = tray_host(sni_only)
    assert (host.kind, host.own_window) == (HostKind.STATUS_NOTIFIER, True)
    assert "start it again" in host.advice
    assert window_note(host).startswith("The tray cannot show Hermes Tray's icon: ")
    assert not tray_host(replace(sni_only, xembed=True)).own_window
    assert not tray_host(replace(sni_only, icon_is_status_notifier=True)).own_window
    assert tray_host(replace(sni_only, platform="wayland")).own_window


@pytest.mark.parametrize("platform", ["offscreen", "minimal"])
def test_headless_platforms_never_get_a_window(platform: str) -> None:
    host = tray_host(TrayProbe(platform=platform, qt_available=False))
    assert (host.kind, host.own_window) == (HostKind.UNKNOWN, False)


def test_a_probe_that_could_not_ask_says_so_and_shows_nothing() -> None:
    host = tray_host(TrayProbe(unknown="no session bus (OSError)"))
    assert (host.kind, host.own_window) == (HostKind.UNKNOWN, False)
    assert host.summary == "not known: no session bus (OSError)"


@pytest.mark.parametrize(
    ("desktop", "platform", "word"),
    [
        ("ubuntu:GNOME", "wayland", "AppIndicator"),
        ("sway", "wayland", "waybar"),
        ("XFCE", "xcb", "Status Tray plugin"),
        ("KDE", "wayland", "System Tray widget"),
        ("", "wayland", "StatusNotifierItem"),
        ("", "xcb", "XEmbed"),
    ],
)
def test_advice_names_what_gives_this_desktop_a_tray(
    desktop: str, platform: str, word: str
) -> None:
    assert word in install_advice(desktop, platform)


def test_the_window_shows_once_per_loss_and_the_notice_once_per_run() -> None:
    fallback = TrayFallback()
    lost, found = tray_host(NO_HOST_X11), tray_host(PANEL)
    first = fallback.update(lost)
    assert (first.show_window, first.step_back, first.notify) == (True, False, True)
    again = fallback.update(lost)
    assert (again.show_window, again.step_back, again.notify) == (False, False, False)
    back = fallback.update(found)
    assert (back.show_window, back.step_back, back.notify) == (False, True, False)
    lost_again = fallback.update(lost)
    assert (lost_again.show_window, lost_again.notify) == (True, False)


def test_the_notice_and_the_note_say_why_and_what_to_install() -> None:
    host = tray_host(NO_HOST_X11)
    notice = no_tray_notice(host)
    assert (notice.level, notice.what) == ("warning", NO_TRAY_WHAT)
    assert notice.where == "Hermes Tray shows its own window"
    assert "AppIndicator" in notice.advice
    note = window_note(host)
    assert note.startswith("No system tray found: this window stands in for the tray icon.")
    assert "Launching Hermes Tray again brings it back." in note

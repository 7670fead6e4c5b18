"""The Settings dialog, offscreen: edits come back as a new Settings; tokens go to the store."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop.settings.codec import settings_to_json
from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
)
from desktop.settings.tokens import TokenStore
from desktop.ui import settings_dialog
from desktop.ui.settings_dialog import SettingsDialog
from tests.settings.fake_keyring import MemoryKeyring

CANARY = "canary-TOKEN-31c0"
HOME = GatewayConfig(
    id="home",
    name="Home",
    url="ws://127.0.0.1:9119/api/ws",
    token_ref="home",
    extra={"hermes_home": "/x"},
)
SETTINGS = Settings(
    gateways=(HOME,),
    notifications=NotificationPolicy(extra={"sound": "bell"}),
    staleness_margin_s=4.5,
    quiet_after_start_s=20.0,
    extra={"future": [1, 2]},
)


@pytest.fixture
def backend() -> MemoryKeyring:
    memory = MemoryKeyring()
    memory.passwords[("hermes-tray", "home")] = CANARY
    return memory


@pytest.fixture
def store(tmp_path: Path, backend: MemoryKeyring) -> TokenStore:
    return TokenStore(tmp_path, backend=backend)


@pytest.fixture(autouse=True)
def numbered_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """New gateways get gw-1, gw-2, … in each test (the dialog's own ids are random)."""
    ids = (f"gw-{n}" for n in itertools.count(1))
    monkeypatch.setattr(settings_dialog, "_new_gateway_id", lambda: next(ids))


def open_dialog(qtbot: QtBot, store: TokenStore, settings: Settings = SETTINGS) -> SettingsDialog:
    dialog = SettingsDialog(settings, store)
    qtbot.addWidget(dialog)
    dialog.present()  # open(): returns at once (exec() would block this test until timeout)
    assert dialog.isVisible()
    return dialog


def press_ok(qtbot: QtBot, dialog: SettingsDialog) -> Settings:
    with qtbot.waitSignal(dialog.settings_edited, timeout=2000) as blocker:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert not dialog.isVisible()
    (result,) = blocker.args
    assert isinstance(result, Settings)
    return result


def press_ok_expecting_error(qtbot: QtBot, dialog: SettingsDialog) -> str:
    with qtbot.assertNotEmitted(dialog.settings_edited):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.isVisible()
    assert dialog.error_label.isVisible()
    return dialog.error_label.text()


def test_shows_the_settings_and_never_the_stored_token(qtbot: QtBot, store: TokenStore) -> None:
    dialog = open_dialog(qtbot, store)
    assert dialog.gateway_list.count() == 1
    assert dialog.name_edit.text() == "Home"
    assert dialog.url_edit.text() == "ws://127.0.0.1:9119/api/ws"
    assert dialog.token_edit.text() == ""
    assert "stored" in dialog.token_edit.placeholderText()
    assert CANARY not in dialog.token_edit.placeholderText()
    assert dialog.margin_spin.value() == 4.5
    assert dialog.quiet_spin.value() == 20.0
    assert dialog.show_command_check.isChecked()
    assert not dialog.login_check.isChecked()
    assert dialog.fallback_warning.isHidden()


def test_ok_unchanged_gives_back_equal_settings_with_unknown_keys(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    result = press_ok(qtbot, open_dialog(qtbot, store))
    assert result == SETTINGS
    assert backend.passwords == {("hermes-tray", "home"): CANARY}  # untouched


def test_general_edits_come_back_in_the_new_settings(qtbot: QtBot, store: TokenStore) -> None:
    dialog = open_dialog(qtbot, store)
    dialog.show_command_check.setChecked(False)
    assert dialog.escalate_check.isChecked()  # the default: the reminder gets through
    dialog.escalate_check.setChecked(False)
    dialog.approve_combo.setCurrentIndex(dialog.approve_combo.findData("never"))
    dialog.margin_spin.setValue(7.25)
    dialog.quiet_spin.setValue(0)
    dialog.login_check.setChecked(True)
    assert dialog.follow_all_check.isChecked()  # the default: follow every session
    dialog.follow_all_check.setChecked(False)
    result = press_ok(qtbot, dialog)
    assert result.notifications.show_command_text is False
    assert result.notifications.escalate_through_do_not_disturb is False
    assert result.notifications.approve_from_notification is NotificationApproval.NEVER
    assert result.notifications.extra == {"sound": "bell"}
    assert (result.staleness_margin_s, result.quiet_after_start_s) == (7.25, 0.0)
    assert result.start_at_login is True
    assert result.follow_all_sessions is False


def test_a_typed_token_goes_to_the_store_and_never_into_settings(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store)
    qtbot.keyClicks(dialog.token_edit, "new-secret-value")
    result = press_ok(qtbot, dialog)
    assert backend.passwords[("hermes-tray", "home")] == "new-secret-value"
    assert result.gateways[0].token_ref == "home"
    assert "new-secret-value" not in json.dumps(settings_to_json(result))
    assert dialog.token_edit.text() == ""  # not kept in the widget after OK


def test_a_token_pasted_in_the_url_is_moved_to_the_store(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store, Settings())
    dialog.add_button.click()
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "Laptop")
    dialog.url_edit.setText("ws://127.0.0.1:9000/api/ws?token=pasted-token")
    result = press_ok(qtbot, dialog)
    (gateway,) = result.gateways
    assert (gateway.id, gateway.name, gateway.url) == (
        "gw-1",
        "Laptop",
        "ws://127.0.0.1:9000/api/ws",
    )
    assert gateway.token_ref == "gw-1"
    assert backend.passwords[("hermes-tray", "gw-1")] == "pasted-token"
    assert dialog.gateway_list.item(0).text() == "Laptop"


def test_forget_deletes_the_stored_token(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store)
    assert dialog.forget_token.isEnabled()
    dialog.forget_token.setChecked(True)
    result = press_ok(qtbot, dialog)
    assert result.gateways[0].token_ref is None
    assert backend.passwords == {}


def test_removing_a_gateway_deletes_its_token(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store)
    dialog.remove_button.click()
    assert dialog.gateway_list.count() == 0
    assert not dialog.editor.isEnabled()
    result = press_ok(qtbot, dialog)
    assert result.gateways == ()
    assert backend.passwords == {}


def test_a_long_gateway_name_is_cut_with_an_ellipsis_and_told_whole_by_its_tooltip(
    qtbot: QtBot, store: TokenStore
) -> None:
    dialog = open_dialog(qtbot, store)
    dialog.add_button.click()
    long_name = "The lab machine under the desk in the office on the second floor, by the window"
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, long_name + " <b>2</b>")
    qtbot.waitExposed(dialog)
    rows = [dialog.gateway_list.item(i) for i in range(dialog.gateway_list.count())]
    # whole, and never read as rich text (the look-alikes of < and >)
    assert [item.toolTip() for item in rows] == [
        "Home",
        f"{long_name} \u2039b\u203a2\u2039/b\u203a",
    ]
    assert not dialog.gateway_list.horizontalScrollBar().isVisible()
    assert dialog.gateway_list.textElideMode() is Qt.TextElideMode.ElideRight


def test_edits_survive_switching_between_gateways(qtbot: QtBot, store: TokenStore) -> None:
    dialog = open_dialog(qtbot, store)
    dialog.add_button.click()
    dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("demo"))
    assert not dialog.url_edit.isEnabled()  # the demo needs no URL or token
    dialog.gateway_list.setCurrentRow(0)
    dialog.url_edit.setText("wss://example.org/api/ws")
    dialog.gateway_list.setCurrentRow(1)
    result = press_ok(qtbot, dialog)
    assert result.gateways[0].url == "wss://example.org/api/ws"
    assert result.gateways[0].extra == {"hermes_home": "/x"}
    assert result.gateways[1].kind is GatewayKind.DEMO


def test_an_invalid_gateway_keeps_the_dialog_open_and_says_why(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store)
    qtbot.keyClicks(dialog.token_edit, "would-be-token")
    dialog.url_edit.setText("http://not-a-websocket/")
    message = press_ok_expecting_error(qtbot, dialog)
    assert "Home" in message
    assert "ws://" in message
    assert backend.passwords[("hermes-tray", "home")] == CANARY  # nothing stored on failure
    dialog.url_edit.setText("ws://127.0.0.1:1/api/ws")
    assert press_ok(qtbot, dialog).gateways[0].url == "ws://127.0.0.1:1/api/ws"


def test_cancel_emits_nothing_and_stores_nothing(
    qtbot: QtBot, store: TokenStore, backend: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot, store)
    qtbot.keyClicks(dialog.token_edit, "typed-then-cancelled")
    with qtbot.assertNotEmitted(dialog.settings_edited):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert not dialog.isVisible()
    assert backend.passwords == {("hermes-tray", "home"): CANARY}


def test_the_token_file_fallback_is_shown(qtbot: QtBot, tmp_path: Path) -> None:
    store = TokenStore(tmp_path, backend=keyring.backends.fail.Keyring())
    dialog = open_dialog(qtbot, store)
    assert dialog.fallback_warning.isVisible()
    assert str(tmp_path / "tokens.json") in dialog.fallback_warning.text()

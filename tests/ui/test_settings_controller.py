"""Settings at run time: a round trip through the real dialog -> the saved file -> live effects
(a gateway added and connected over 127.0.0.1, then removed; notification policy; start at
login; the token-file notice), and the tray's Start at login switch."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from desktop.gateway.endpoints import GatewayEndpoint
from desktop.model.snapshot import Link
from desktop.platform.autostart import XdgAutostart
from desktop.settings.model import GatewayConfig, GatewayKind, Settings
from desktop.settings.store import load_settings
from desktop.settings.tokens import TokenStore
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import SettingsController, client_factory_for
from tests.gatewaymodel import FakeGateway
from tests.ui.wired_app import WiredApp
from tests.waiting import holds, poll_until

OFFSCREEN_WINDOWS = pytest.mark.qt_log_ignore("This plugin does not support")


@pytest.fixture
def places(tmp_path):
    return {
        "settings": tmp_path / "config" / "settings.json",
        "autostart": XdgAutostart(tmp_path / "xdg", system_dirs=[]),
        "tokens": TokenStore(tmp_path / "config"),  # the "fail" keyring: the 0600 file is used
    }


def controller(places, bridge, settings=None):
    return SettingsController(
        settings or Settings(),
        places["tokens"],
        bridge,
        path=places["settings"],
        autostart_backend=places["autostart"],
    )


def press_ok(dialog):
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


@OFFSCREEN_WINDOWS
def test_settings_round_trip_through_the_dialog_applies_live(tray_app, qloop, arun, places):
    async def scenario():
        fake = await FakeGateway("B", speed=0.01).start()
        bridge = GatewayBridge(client_factory_for(lambda: control.settings))
        control = controller(places, bridge)
        app = WiredApp(fake, bridge=bridge, settings=control, add_gateway=False)
        assert app.shell.notifications.policy.settings.show_commands is True
        assert app.action("start-at-login").isChecked() is False

        app.action("settings").trigger()  # Settings… opens the dialog
        dialog = control.dialog
        await poll_until(dialog.isVisible)
        dialog.add_button.click()
        dialog.name_edit.setText("Lab")
        dialog.url_edit.setText(fake.base_url)
        dialog.token_edit.setText(fake.token)
        dialog.show_command_check.setChecked(False)
        dialog.margin_spin.setValue(9.5)
        dialog.login_check.setChecked(True)
        press_ok(dialog)
        await poll_until(lambda: control.dialog is None)

        saved = json.loads(places["settings"].read_text())
        assert fake.token not in places["settings"].read_text()  # tokens live elsewhere
        [gateway] = load_settings(places["settings"]).gateways
        assert (gateway.name, gateway.url, gateway.token_ref) == ("Lab", fake.base_url, gateway.id)
        assert saved["notifications"]["show_command_text"] is False
        assert saved["staleness_margin_s"] == 9.5
        assert saved["start_at_login"] is True

        # live: the new gateway connects with the stored token, over 127.0.0.1
        await holds(
            lambda: app.view(gateway.id) and app.view(gateway.id).link is Link.UP,
            app.bridge.snapshot_changed,
        )
        assert app.view(gateway.id).name == "Lab"
        assert app.shell.notifications.policy.settings.show_commands is False
        assert places["autostart"].is_enabled()
        assert app.action("start-at-login").isChecked()
        [notice] = app.problems  # said once: the token is in the 0600 file, not a keyring
        assert notice.what == "Gateway tokens are kept in a file, not in the system keyring"
        assert notice.where == str(places["tokens"].fallback_path)
        assert fake.token not in f"{notice.what} {notice.where} {notice.advice}"

        control.open_dialog()
        dialog = control.dialog
        dialog.remove_button.click()
        dialog.login_check.setChecked(False)
        press_ok(dialog)
        await holds(lambda: app.view(gateway.id) is None, app.bridge.snapshot_changed)
        await poll_until(lambda: not any(record.open for record in fake.connections))
        assert load_settings(places["settings"]).gateways == ()
        assert not places["autostart"].is_enabled()
        assert not app.action("start-at-login").isChecked()
        assert len(app.problems) == 1  # no second token notice
        await app.close()

    arun(scenario(), timeout=30)


def test_the_tray_switch_saves_and_applies_start_at_login(tray_app, qloop, arun, places):
    async def scenario():
        fake = await FakeGateway("B", speed=0.01).start()
        bridge = GatewayBridge(client_factory_for(Settings))
        control = controller(places, bridge, Settings(staleness_margin_s=7.0))
        app = WiredApp(fake, bridge=bridge, settings=control)
        app.action("start-at-login").trigger()  # checkable: now on
        assert places["autostart"].is_enabled()
        assert load_settings(places["settings"]).start_at_login is True
        assert load_settings(places["settings"]).staleness_margin_s == 7.0  # the rest kept
        assert app.action("start-at-login").isChecked()
        app.action("start-at-login").trigger()
        assert not places["autostart"].is_enabled()
        assert load_settings(places["settings"]).start_at_login is False
        await app.close()

    arun(scenario(), timeout=30)


def test_the_dialog_shows_what_the_os_will_do_at_login(qtbot, qloop, places):
    places["autostart"].enable(["hermes-tray"])  # e.g. enabled by a package, not by us
    bridge = GatewayBridge(client_factory_for(Settings))
    control = controller(places, bridge, Settings(start_at_login=False))
    control.open_dialog()
    try:
        assert control.dialog.login_check.isChecked()
    finally:
        control.dialog.close()
        bridge.deleteLater()


def test_a_failed_save_changes_nothing_and_says_so(qtbot, qloop, places, tmp_path):
    places["settings"] = tmp_path / "a-directory"
    places["settings"].mkdir()
    bridge = GatewayBridge(client_factory_for(Settings))
    control = controller(places, bridge)
    notices = []
    control.notice_raised.connect(notices.append)
    control.apply(Settings(start_at_login=True))
    assert [n.what for n in notices] == ["Settings were not saved"]
    assert control.settings == Settings()
    assert not places["autostart"].is_enabled()
    bridge.deleteLater()


def test_clients_are_built_with_the_current_staleness_margin(qloop):
    current = Settings(staleness_margin_s=12.0)
    factory = client_factory_for(lambda: current)
    endpoint = GatewayEndpoint("x", "X", GatewayKind.URL, url="ws://127.0.0.1:1/api/ws")
    client = factory(endpoint, listener=None)
    # GatewayClient has no public view of its core settings; this is the value it passes on.
    assert client._core_settings.staleness_margin == 12.0
    current = Settings(staleness_margin_s=3.0)
    assert factory(endpoint, None)._core_settings.staleness_margin == 3.0


def test_the_demo_kind_in_settings_is_not_started(qtbot, qloop, places):
    bridge = GatewayBridge(client_factory_for(Settings))
    control = controller(places, bridge)
    demo = GatewayConfig("demo2", "Demo", kind=GatewayKind.DEMO)
    control.apply(Settings(gateways=(demo,)))
    assert bridge.gateway_ids() == ()
    bridge.deleteLater()

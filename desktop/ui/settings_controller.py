"""Settings at run time: open the dialog, save what it returns, and apply it without a restart.

The app, not the dialog, saves and applies: saving can fail, start at login is the OS's, and
gateways are running clients; one owner keeps those effects in order. If saving fails nothing
else changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from desktop.gateway.client import GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint, endpoint_from_config
from desktop.gateway.status import GatewayListener
from desktop.model.bridge_events import Notice
from desktop.model.settings_apply import (
    core_settings,
    gateway_changes,
    notify_settings,
    uses_tokens,
)
from desktop.model.snapshot import Link
from desktop.platform import autostart
from desktop.settings.model import GatewayKind, Settings
from desktop.settings.store import save_settings
from desktop.settings.tokens import TokenStore
from desktop.ui.bridge import ClientFactory, GatewayBridge

if TYPE_CHECKING:
    from desktop.ui.settings_dialog import SettingsDialog

log = logging.getLogger(__name__)


def client_factory_for(current: Callable[[], Settings]) -> ClientFactory:
    """A bridge client factory building real clients with the settings current at creation."""

    def factory(endpoint: GatewayEndpoint, listener: GatewayListener) -> GatewayClient:
        settings = current()
        return GatewayClient(
            endpoint,
            listener=listener,
            core_settings=core_settings(settings),
            # The demo's sessions are another surface's: all there is to see, whatever the setting.
            follow_all=settings.follow_all_sessions or endpoint.kind is GatewayKind.DEMO,
        )

    return factory


class SettingsController(QObject):
    notify_settings_changed = Signal(object)  # NotifySettings
    notice_raised = Signal(object)  # Notice
    changed = Signal()  # the settings (or what the OS does at login) changed

    def __init__(
        self,
        settings: Settings,
        tokens: TokenStore,
        bridge: GatewayBridge,
        *,
        path: Path | None = None,
        autostart_backend: autostart.Autostart | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self._tokens = tokens
        self._bridge = bridge
        self._path = path
        self._autostart = autostart_backend
        self.dialog: SettingsDialog | None = None
        # What the OS will do at the next login (it is the truth, not the settings file).
        self.start_at_login = self._read_login()
        self._fallback_reported = False

    def report_token_storage(self) -> None:
        """A notice (once per run) when tokens are kept in the 0600 file, not the keyring."""
        if self._fallback_reported or not uses_tokens(self.settings):
            return
        if not self._tokens.using_fallback:
            return
        self._fallback_reported = True
        reason = self._tokens.fallback_reason or "no usable OS keyring"
        self.notice_raised.emit(
            Notice(
                "warning",
                "Gateway tokens are kept in a file, not in the system keyring",
                str(self._tokens.fallback_path),
                f"{reason}. Only your user can read the file; set up a keyring (Secret "
                "Service) and save Settings again to move them there.",
            )
        )

    def open_dialog(self) -> None:
        """Show the Settings dialog (one at a time; non-blocking ``open()``)."""
        if self.dialog is not None:
            self.dialog.present()
            return
        from desktop.ui.settings_dialog import SettingsDialog

        shown = replace(self.settings, start_at_login=self.start_at_login)
        dialog = SettingsDialog(shown, self._tokens)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.settings_edited.connect(self.apply)
        dialog.finished.connect(self._on_dialog_finished)
        self.dialog = dialog
        dialog.present()

    def set_start_at_login(self, on: bool) -> None:
        """The tray's checkable item: the same path as the dialog's checkbox."""
        if on != self.start_at_login or on != self.settings.start_at_login:
            self.apply(replace(self.settings, start_at_login=on))

    def apply(self, new: Settings) -> None:
        try:
            save_settings(new, self._path)
        except OSError as exc:
            log.error("Could not save settings: %s", exc)
            self.notice_raised.emit(
                Notice("error", "Settings were not saved", str(self._path or ""), f"{exc}.")
            )
            return
        old, self.settings = self.settings, new
        self.notify_settings_changed.emit(notify_settings(new))
        self._apply_login(new.start_at_login)
        self._apply_gateways(old, new)
        if new.staleness_margin_s != old.staleness_margin_s:
            log.info(
                "staleness margin %.1f s: applies to each gateway's client as it is created",
                new.staleness_margin_s,
            )
        if new.follow_all_sessions != old.follow_all_sessions:
            log.info(
                "follow %s: applies to each gateway's client as it is created",
                "all sessions" if new.follow_all_sessions else "only sessions the tray starts",
            )
        self.report_token_storage()
        self.changed.emit()

    def _on_dialog_finished(self) -> None:
        self.dialog = None  # WA_DeleteOnClose frees it

    def _read_login(self) -> bool:
        try:
            return autostart.is_enabled(backend=self._autostart)
        except OSError as exc:
            log.warning("Cannot tell whether Hermes Tray starts at login: %s", exc)
            return self.settings.start_at_login

    def _apply_login(self, wanted: bool) -> None:
        if wanted == self._read_login():
            self.start_at_login = wanted
            return
        try:
            autostart.set_enabled(wanted, backend=self._autostart)
        except OSError as exc:
            log.error("Could not change start at login: %s", exc)
            self.notice_raised.emit(
                Notice(
                    "error",
                    f"Could not {'enable' if wanted else 'disable'} start at login",
                    "",
                    f"{exc}. Check the autostart folder's permissions, then try again.",
                )
            )
        self.start_at_login = self._read_login()

    def _apply_gateways(self, old: Settings, new: Settings) -> None:
        changes = gateway_changes(old, new)
        running = set(self._bridge.gateway_ids())
        for gateway_id in changes.removed:
            if gateway_id in running:
                log.info("settings: stopping gateway %s", gateway_id)
                self._bridge.remove_gateway(gateway_id)
        for config in (*changes.changed, *changes.added):
            log.info("settings: (re)starting gateway %s", config.id)
            self._bridge.add_gateway(endpoint_from_config(config, self._tokens.get))
        for view in self._bridge.snapshot.gateways:
            if view.link is Link.FAILED and view.gateway_id in running:
                self._bridge.reconnect(view.gateway_id)  # a fixed token is read at the dial

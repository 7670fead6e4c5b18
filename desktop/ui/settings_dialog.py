"""The Settings dialog: edits a ``Settings`` and hands back a new one; the app saves and applies.

Tokens never travel inside ``Settings``: they go straight into the ``TokenStore`` on OK. A stored
token is never shown back (typing replaces it, "Forget" deletes it), and one pasted inside a URL
(``?token=``) is moved out of it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.model.plain_text import markup_safe
from desktop.settings.migrations import split_secret_query
from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
    SettingsError,
)
from desktop.settings.tokens import TokenStore

KIND_LABELS = {
    GatewayKind.URL: "An address and a token",
    GatewayKind.CANONICAL: "The Hermes on this computer (found automatically)",
    GatewayKind.OWNED: "Start Hermes myself (hermes serve)",
    GatewayKind.DASHBOARD: "A running Hermes dashboard",
    GatewayKind.DEMO: "Built-in demo",
}
APPROVAL_LABELS = {
    NotificationApproval.ONCE: "Approve once",
    NotificationApproval.NEVER: "Never (open the dialog instead)",
}
FOLLOW_ALL_TIP = (
    "Also show the approvals of sessions the Hermes window or another app started. Newer "
    "Hermes gateways show a session to every viewer, so following takes nothing away. On "
    "hermes-agent 0.20 the tray asks each session what waits instead of following it (there "
    "a session has one viewer). On 0.19.0 only the sessions the tray starts are followed. "
    "Applies to each gateway's next new connection."
)

# Platforms without window stacking; raise_() there only logs a Qt warning.
_NO_WINDOW_STACKING = frozenset({"offscreen", "minimal"})


def _new_gateway_id() -> str:
    return f"gw-{secrets.token_hex(4)}"


@dataclass
class _Draft:
    """One gateway while it is being edited (mutable; becomes a GatewayConfig on OK)."""

    id: str
    name: str = "New gateway"
    url: str = "ws://127.0.0.1:9119/api/ws"
    token_ref: str | None = None
    kind: GatewayKind = GatewayKind.URL
    allow_insecure_remote: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    new_token: str = ""
    forget_token: bool = False

    @classmethod
    def of(cls, gateway: GatewayConfig) -> _Draft:
        return cls(**{f.name: getattr(gateway, f.name) for f in fields(gateway)})


class SettingsDialog(QDialog):
    settings_edited = Signal(object)

    def __init__(self, settings: Settings, token_store: TokenStore) -> None:
        super().__init__()
        self.setObjectName("settings-dialog")
        self.setWindowTitle("Settings — Hermes Tray")
        self._original = settings
        self._tokens = token_store
        self._drafts = [_Draft.of(g) for g in settings.gateways]
        self._current = -1
        layout = QVBoxLayout(self)
        layout.addWidget(self._build_gateways())
        layout.addWidget(self._build_general(settings))
        reason = token_store.fallback_reason or "no usable OS keyring"
        self.fallback_warning = QLabel(
            f"Tokens are kept in {token_store.fallback_path} (readable by you only), "
            f"not in the system keyring: {reason}.",
            self,
        )
        self.fallback_warning.setObjectName("token-fallback-warning")
        self.fallback_warning.setWordWrap(True)
        self.fallback_warning.setVisible(token_store.using_fallback)
        layout.addWidget(self.fallback_warning)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("settings-error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b71c1c")
        self.error_label.hide()
        layout.addWidget(self.error_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._on_ok)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        for draft in self._drafts:
            self._list_gateway(draft.name)
        self.gateway_list.currentRowChanged.connect(self._on_row_changed)
        self.gateway_list.setCurrentRow(0 if self._drafts else -1)
        self._update_editor_enabled()

    def _build_gateways(self) -> QGroupBox:
        box = QGroupBox("Gateways", self)
        self.gateway_list = QListWidget(box)
        self.gateway_list.setObjectName("gateway-list")
        # A long name ends in "…" (its tooltip says it whole), not behind a scroll bar.
        self.gateway_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.gateway_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.add_button = QPushButton("Add", box)
        self.remove_button = QPushButton("Remove", box)
        self.add_button.clicked.connect(self._on_add)
        self.remove_button.clicked.connect(self._on_remove)
        self.name_edit = QLineEdit(box)
        self.name_edit.textEdited.connect(self._on_name_edited)
        self.kind_combo = QComboBox(box)
        for kind, label in KIND_LABELS.items():
            self.kind_combo.addItem(label, kind.value)  # plain strings compare reliably in Qt
        self.kind_combo.currentIndexChanged.connect(self._update_editor_enabled)
        self.url_edit = QLineEdit(box)
        self.token_edit = QLineEdit(box)
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.forget_token = QCheckBox("Forget the stored token", box)
        self.insecure_check = QCheckBox(
            "Allow an unencrypted connection (ws://) to another computer", box
        )
        self.insecure_check.setToolTip("The token would cross the network in clear text.")
        self.editor = QWidget(box)
        form = QFormLayout(self.editor)
        form.addRow("Name", self.name_edit)
        form.addRow("Connect by", self.kind_combo)
        form.addRow("Address", self.url_edit)
        form.addRow("Token", self.token_edit)
        form.addRow("", self.forget_token)
        form.addRow("", self.insecure_check)
        side = QVBoxLayout()
        side.addWidget(self.gateway_list)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        side.addLayout(row)
        outer = QHBoxLayout(box)
        outer.addLayout(side, 1)
        outer.addWidget(self.editor, 2)
        return box

    def _build_general(self, settings: Settings) -> QGroupBox:
        box = QGroupBox("Behaviour", self)
        policy = settings.notifications
        self.show_command_check = QCheckBox("Show the command text in notifications", box)
        self.show_command_check.setChecked(policy.show_command_text)
        self.escalate_check = QCheckBox(
            "Remind me 30 s before Hermes gives up, even in do-not-disturb", box
        )
        self.escalate_check.setChecked(policy.escalate_through_do_not_disturb)
        self.escalate_check.setToolTip(
            "The reminder is sent as urgent, which most desktops show even when notifications "
            "are silenced. Off: it is sent like any other notification."
        )
        self.approve_combo = QComboBox(box)
        for value, label in APPROVAL_LABELS.items():
            self.approve_combo.addItem(label, value.value)
        self.approve_combo.setCurrentIndex(
            self.approve_combo.findData(policy.approve_from_notification.value)
        )
        self.margin_spin = _seconds_spin(box, settings.staleness_margin_s, 300.0)
        self.margin_spin.setToolTip(
            "Do not answer an approval this close to its timeout. A change applies to each "
            "gateway's next new connection (a gateway you edit here, or the next start)."
        )
        self.quiet_spin = _seconds_spin(box, settings.quiet_after_start_s, 3600.0)
        self.quiet_spin.setToolTip(
            "Right after Hermes Tray starts, approvals that were already waiting are gathered "
            "into one notification after this long instead of one each."
        )
        self.login_check = QCheckBox("Start Hermes Tray when I log in", box)
        self.login_check.setChecked(settings.start_at_login)
        self.follow_all_check = QCheckBox("Follow all sessions, not only those I start", box)
        self.follow_all_check.setChecked(settings.follow_all_sessions)
        self.follow_all_check.setToolTip(FOLLOW_ALL_TIP)
        form = QFormLayout(box)
        form.addRow("", self.show_command_check)
        form.addRow("", self.escalate_check)
        form.addRow("From a notification", self.approve_combo)
        form.addRow("Stop answering this long before Hermes gives up", self.margin_spin)
        form.addRow("After start, wait this long before notifying", self.quiet_spin)
        form.addRow("", self.login_check)
        form.addRow("", self.follow_all_check)
        return box

    def _save_editor(self) -> None:
        if not 0 <= self._current < len(self._drafts):
            return
        draft = self._drafts[self._current]
        draft.name = self.name_edit.text()
        draft.kind = GatewayKind(self.kind_combo.currentData())
        draft.url = self.url_edit.text().strip()
        draft.new_token = self.token_edit.text().strip()
        draft.forget_token = self.forget_token.isChecked()
        draft.allow_insecure_remote = self.insecure_check.isChecked()

    def _load_editor(self, draft: _Draft | None) -> None:
        self.name_edit.setText(draft.name if draft else "")
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(draft.kind.value) if draft else 0)
        self.url_edit.setText(draft.url if draft else "")
        self.token_edit.setText(draft.new_token if draft else "")  # typed this session only
        stored = draft is not None and draft.token_ref is not None
        self.token_edit.setPlaceholderText(
            "a token is stored; type a new one to replace it" if stored else "no token stored"
        )
        self.forget_token.setChecked(bool(draft and draft.forget_token))
        self.forget_token.setEnabled(stored)
        self.insecure_check.setChecked(bool(draft and draft.allow_insecure_remote))
        self._update_editor_enabled()

    def _update_editor_enabled(self) -> None:
        has_gateway = 0 <= self._current < len(self._drafts)
        self.editor.setEnabled(has_gateway)
        self.remove_button.setEnabled(has_gateway)
        uses_url = self.kind_combo.currentData() == GatewayKind.URL.value
        for widget in (self.url_edit, self.token_edit, self.insecure_check):
            widget.setEnabled(has_gateway and uses_url)

    def _list_gateway(self, name: str) -> None:
        self.gateway_list.addItem(name)
        self.gateway_list.item(self.gateway_list.count() - 1).setToolTip(markup_safe(name))

    def _on_row_changed(self, row: int) -> None:
        self._save_editor()
        self._current = row
        self._load_editor(self._drafts[row] if 0 <= row < len(self._drafts) else None)

    def _on_name_edited(self, text: str) -> None:
        item = self.gateway_list.item(self._current)
        if item is not None:
            item.setText(text)
            item.setToolTip(markup_safe(text))

    def _on_add(self) -> None:
        taken = {d.id for d in self._drafts}
        new_id = _new_gateway_id()
        while new_id in taken:
            new_id = _new_gateway_id()
        self._drafts.append(_Draft(new_id))
        self._list_gateway(self._drafts[-1].name)
        self.gateway_list.setCurrentRow(len(self._drafts) - 1)

    def _on_remove(self) -> None:
        row = self._current
        if not 0 <= row < len(self._drafts):
            return
        self._current = -1  # the row is gone: nothing to save when the selection moves
        del self._drafts[row]
        self.gateway_list.takeItem(row)
        self._on_row_changed(self.gateway_list.currentRow())

    def _on_ok(self) -> None:
        self._save_editor()
        try:
            settings, writes, deletes = self._result()
            for ref, token in writes.items():
                self._tokens.set(ref, token)
            for ref in deletes:
                self._tokens.delete(ref)
        except (SettingsError, OSError) as exc:
            self.error_label.setText(str(exc))
            self.error_label.show()
            return
        for draft in self._drafts:
            draft.new_token = ""
        self.token_edit.clear()
        self.settings_edited.emit(settings)
        self.accept()

    def _result(self) -> tuple[Settings, dict[str, str], set[str]]:
        """The new Settings, tokens to store (ref -> token) and token refs to delete."""
        gateways: list[GatewayConfig] = []
        writes: dict[str, str] = {}
        deletes = {g.token_ref for g in self._original.gateways if g.token_ref}
        for index, draft in enumerate(self._drafts):
            url, url_token = split_secret_query(draft.url)
            token = draft.new_token or url_token or ""
            ref = draft.token_ref
            if token:
                ref = ref or draft.id
                writes[ref] = token
            elif draft.forget_token:
                ref = None
            try:
                gateways.append(
                    GatewayConfig(
                        draft.id,
                        draft.name.strip(),
                        url,
                        ref,
                        draft.kind,
                        draft.allow_insecure_remote,
                        extra=draft.extra,
                    )
                )
            except SettingsError as exc:
                self.gateway_list.setCurrentRow(index)
                raise SettingsError(f"Gateway “{draft.name}”: {exc}") from None
            if ref:
                deletes.discard(ref)
        settings = Settings(
            gateways=tuple(gateways),
            notifications=NotificationPolicy(
                show_command_text=self.show_command_check.isChecked(),
                approve_from_notification=NotificationApproval(self.approve_combo.currentData()),
                escalate_through_do_not_disturb=self.escalate_check.isChecked(),
                extra=self._original.notifications.extra,
            ),
            staleness_margin_s=self.margin_spin.value(),
            start_at_login=self.login_check.isChecked(),
            quiet_after_start_s=self.quiet_spin.value(),
            follow_all_sessions=self.follow_all_check.isChecked(),
            extra=self._original.extra,
        )
        return settings, writes, deletes

    def present(self) -> None:
        """Show the dialog window-modal without blocking (``open()``), and raise it."""
        self.open()
        if QGuiApplication.platformName() not in _NO_WINDOW_STACKING:
            self.raise_()
            self.activateWindow()


def _seconds_spin(parent: QWidget, value: float, maximum: float) -> QDoubleSpinBox:
    spin = QDoubleSpinBox(parent)
    spin.setRange(0.0, maximum)
    spin.setDecimals(2)
    spin.setSuffix(" s")
    spin.setValue(value)
    return spin

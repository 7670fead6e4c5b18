"""Which clarify window is open for which question, kept in step with the bridge.

A question may become answerable or end while its window is open, and may be opened after it
ended (a late click on a bubble: the window says "Expired"), so the last value of every question
seen is kept (bounded) and every change goes on to its window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop.core import prompt_book
from desktop.core.model import PromptKind
from desktop.model.bridge_events import PromptUpdate
from desktop.ui.bridge import GatewayBridge

if TYPE_CHECKING:
    from desktop.ui.clarify_dialog import ClarifyDialog

MAX_REMEMBERED = 200  # questions whose last value is kept for a late click

Ref = tuple[str, str]  # (gateway_id, prompt key)


class PromptWindows(QObject):
    def __init__(self, bridge: GatewayBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._seen: dict[Ref, PromptUpdate] = {}
        self.windows: dict[Ref, ClarifyDialog] = {}
        bridge.prompt_asked.connect(self._on_update)
        bridge.prompt_ended.connect(self._on_update)
        bridge.gateway_removed.connect(self._on_gateway_removed)

    def open(self, gateway_id: str, key: str) -> ClarifyDialog | None:
        update = self._seen.get((gateway_id, key))
        if update is None or update.prompt.kind is not PromptKind.CLARIFY:
            return None
        window = self.windows.get((gateway_id, key))
        if window is None:
            from desktop.ui.clarify_dialog import ClarifyDialog  # on the first question

            window = ClarifyDialog(update, self._bridge.answer_prompt)
            window.finished.connect(lambda _code, ref=(gateway_id, key): self._closed(ref))
            if update.ended:
                window.ended(update.ended)
            self.windows[(gateway_id, key)] = window
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def dispose(self) -> None:
        windows, self.windows = list(self.windows.values()), {}
        for window in windows:
            window.close()
            window.deleteLater()

    def _on_update(self, update: PromptUpdate) -> None:
        ref = (update.gateway_id, update.prompt.key)
        self._seen.pop(ref, None)
        self._seen[ref] = update
        while len(self._seen) > MAX_REMEMBERED:
            del self._seen[next(iter(self._seen))]
        window = self.windows.get(ref)
        if window is None:
            return
        if update.ended:
            window.ended(update.ended)
        else:
            window.update_prompt(update.prompt)

    def _on_gateway_removed(self, gateway_id: str) -> None:
        for ref, window in list(self.windows.items()):
            if ref[0] == gateway_id:
                window.ended(prompt_book.SESSION_GONE)

    def _closed(self, ref: Ref) -> None:
        window = self.windows.pop(ref, None)
        if window is not None:
            window.deleteLater()

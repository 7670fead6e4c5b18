"""The Qt side of time-boxed YOLO: feeds ``YoloTimeboxes`` from the bridge, acts on what is due.

The rules are pure, in ``yolo_timer``. One single-shot QTimer wakes for the next deadline or
countdown minute, and only while a minutes-box runs. A box's end asks the bridge to switch YOLO
off and check; a failed check becomes a notice.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.gateway.status import ConnectionState, ConnectionStatus
from desktop.model.bridge_events import Notice, SessionGone, SessionUpdate
from desktop.model.snapshot import session_title
from desktop.model.yolo_timer import BoxKind, Key, YoloCheck, YoloTimeboxes
from desktop.ui.bridge import GatewayBridge

log = logging.getLogger(__name__)


class YoloTimeboxController(QObject):
    changed = Signal()  # labels or the set of boxes changed: re-render icon and menu
    notice_raised = Signal(object)  # Notice

    def __init__(
        self,
        bridge: GatewayBridge,
        *,
        clock: Callable[[], float] = time.monotonic,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._clock = clock
        self.boxes = YoloTimeboxes()
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.tick)
        bridge.session_changed.connect(self._on_session_changed)
        bridge.session_removed.connect(self._on_session_removed)
        bridge.gateway_removed.connect(self._on_gateway_removed)
        bridge.connection_status_changed.connect(self._on_connection_status_changed)
        bridge.yolo_set.connect(self._on_yolo_set)
        bridge.yolo_checked.connect(self._on_yolo_checked)

    def dispose(self) -> None:
        self._timer.stop()

    def start(self, gateway_id: str, session_id: str, kind: BoxKind) -> None:
        """Turn YOLO on for ``kind`` (15 minutes or this turn); the app turns it off again."""
        view = self._bridge.snapshot.gateway(gateway_id)
        session = view.session(session_id) if view else None
        if session is None:
            return
        self.boxes.start(
            (gateway_id, session_id),
            kind,
            self._clock(),
            yolo_on=session.yolo.effective,
            running=session.running,
        )
        log.info("YOLO time-box (%s) for %s/%s", kind.value, gateway_id, session_id)
        self._bridge.set_yolo(gateway_id, session_id, True)
        self._changed()

    def tick(self) -> None:
        """The timer fired (tests call it after moving the injected clock)."""
        for key in self.boxes.due(self._clock()):
            self._switch_off(key, "its time is up")
        self._changed()

    def _on_session_changed(self, update: SessionUpdate) -> None:
        key = (update.gateway_id, update.session.session_id)
        if self.boxes.box(key) is None:
            return
        for due in self.boxes.session_changed(
            key, yolo_on=update.session.yolo.effective, running=update.session.running
        ):
            self._switch_off(due, "its turn ended")
        self._changed()

    def _on_session_removed(self, gone: SessionGone) -> None:
        key = (gone.gateway_id, gone.removed.session_id)
        if self.boxes.box(key) is not None:
            self.boxes.session_gone(key)
            self._changed()

    def _on_gateway_removed(self, gateway_id: str) -> None:
        self.boxes.gateway_gone(gateway_id)
        self._changed()

    def _on_connection_status_changed(
        self, gateway_id: str, old: ConnectionStatus, new: ConnectionStatus
    ) -> None:
        if new.state is not ConnectionState.CONNECTED:
            return
        view = self._bridge.snapshot.gateway(gateway_id)
        live = {s.session_id for s in view.sessions} if view else set()
        due = self.boxes.reconnected(gateway_id, live)
        for key in due:
            self._switch_off(key, "its time ran out while the gateway was away")
        if due:
            self._changed()

    def _on_yolo_set(self, gateway_id: str, session_id: str, on: bool, ok: bool) -> None:
        if on and not ok and self.boxes.box((gateway_id, session_id)) is not None:
            self.boxes.turning_on_failed((gateway_id, session_id))
            self._changed()

    def _on_yolo_checked(self, gateway_id: str, session_id: str, result: YoloCheck) -> None:
        key = (gateway_id, session_id)
        outcome = self.boxes.checked(key, result)
        if outcome is YoloCheck.STILL_ON:
            view = self._bridge.snapshot.gateway(gateway_id)
            title = session_title(view.session(session_id) if view else None, session_id)
            log.warning("YOLO is still on for %s/%s after switching it off", *key)
            self.notice_raised.emit(
                Notice(
                    "warning",
                    f"YOLO is still on for {title}",
                    "",
                    "turn it off in Hermes",
                )
            )
        elif outcome is YoloCheck.OFF:
            log.info("YOLO off for %s/%s, confirmed by the gateway", *key)
        if outcome is not None:
            self._changed()

    def _switch_off(self, key: Key, why: str) -> None:
        log.info("YOLO time-box for %s/%s ends: %s", key[0], key[1], why)
        self._bridge.switch_yolo_off_checked(*key)

    def _changed(self) -> None:
        now = self._clock()
        wake = self.boxes.next_wakeup(now)
        if wake is None:
            self._timer.stop()
        else:
            self._timer.start(max(0, math.ceil((wake - now) * 1000)))
        self.changed.emit()

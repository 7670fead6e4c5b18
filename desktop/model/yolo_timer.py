"""Time-boxed YOLO: when a session's YOLO must end, and what the menu says meanwhile. Qt-free.

"YOLO on" is the riskiest switch, flipped for a burst of routine commands; a bypass that ends by
itself ("for 15 minutes", "until this turn ends") cannot be forgotten for a week.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

Key = tuple[str, str]  # (gateway_id, session_id)


class BoxKind(enum.Enum):
    MINUTES = "minutes"
    TURN = "turn"


class Phase(enum.Enum):
    ARMING = "arming"  # YOLO on was asked; the gateway has not reported it yet
    ACTIVE = "active"
    ENDING = "ending"  # off was sent and is being checked
    OFF_PENDING = "off pending"  # time is up, gateway unreachable: switch off when it is back


class YoloCheck(enum.Enum):
    """The answer of ``yolo_verify.switch_off_verified``, the off-check."""

    OFF = "off"  # the gateway reports YOLO off (or the session is gone)
    STILL_ON = "still on"  # it still reports YOLO on after a retry
    UNREACHABLE = "unreachable"  # config.set could not be sent: retry after a reconnect


@dataclass(slots=True)
class Timebox:
    kind: BoxKind
    deadline: float | None  # MINUTES only
    phase: Phase = Phase.ARMING
    saw_running: bool = False  # TURN: the turn this box covers has started


class YoloTimeboxes:
    def __init__(self) -> None:
        self._boxes: dict[Key, Timebox] = {}

    def start(
        self, key: Key, kind: BoxKind, now: float, *, yolo_on: bool, running: bool
    ) -> Timebox:
        """A person chose a time-box (replacing any earlier one for that session)."""
        deadline = now + 15 * 60 if kind is BoxKind.MINUTES else None  # "YOLO for 15 minutes"
        box = Timebox(kind, deadline, Phase.ACTIVE if yolo_on else Phase.ARMING, running)
        self._boxes[key] = box
        return box

    def turning_on_failed(self, key: Key) -> None:
        """``config.set yolo on`` failed: there is nothing to end."""
        box = self._boxes.get(key)
        if box is not None and box.phase is Phase.ARMING:
            del self._boxes[key]

    def session_changed(self, key: Key, *, yolo_on: bool, running: bool) -> list[Key]:
        """Fold the session's new state in; returns ``[key]`` when YOLO must go off now."""
        box = self._boxes.get(key)
        if box is None:
            return []
        if box.phase is Phase.ARMING and yolo_on:
            box.phase = Phase.ACTIVE
        elif box.phase is Phase.ACTIVE and not yolo_on:
            del self._boxes[key]  # turned off elsewhere (menu, Hermes, another client)
            return []
        elif box.phase is Phase.OFF_PENDING:
            box.phase = Phase.ENDING  # the session is reachable again
            return [key]
        if box.kind is BoxKind.TURN and box.phase in (Phase.ARMING, Phase.ACTIVE):
            if running:
                box.saw_running = True
            elif box.saw_running:
                box.phase = Phase.ENDING
                return [key]
        return []

    def session_gone(self, key: Key) -> None:
        self._boxes.pop(key, None)

    def gateway_gone(self, gateway_id: str) -> None:
        for key in [k for k in self._boxes if k[0] == gateway_id]:
            del self._boxes[key]

    def reconnected(self, gateway_id: str, live_sessions: set[str]) -> list[Key]:
        """The gateway is back: switch off what came due meanwhile (sessions it still has)."""
        due = []
        for key, box in self._boxes.items():
            if key[0] == gateway_id and box.phase is Phase.OFF_PENDING and key[1] in live_sessions:
                box.phase = Phase.ENDING
                due.append(key)
        return due

    def due(self, now: float) -> list[Key]:
        """Boxes whose deadline has come; they move to ENDING (switch each off, then check)."""
        keys = []
        for key, box in self._boxes.items():
            running = box.phase in (Phase.ARMING, Phase.ACTIVE)
            if running and box.deadline is not None and now >= box.deadline:
                box.phase = Phase.ENDING
                keys.append(key)
        return keys

    def checked(self, key: Key, result: YoloCheck) -> YoloCheck | None:
        """The off-check of an ENDING box came back; None if the box is no longer ENDING."""
        box = self._boxes.get(key)
        if box is None or box.phase is not Phase.ENDING:
            return None
        if result is YoloCheck.UNREACHABLE:
            box.phase = Phase.OFF_PENDING
        else:
            del self._boxes[key]
        return result

    def next_wakeup(self, now: float) -> float | None:
        """When something shown or due changes next: a deadline, or a minute of the countdown."""
        times = []
        for box in self._boxes.values():
            if box.deadline is None or box.phase not in (Phase.ARMING, Phase.ACTIVE):
                continue
            left = box.deadline - now
            if left <= 60:
                times.append(box.deadline)
            else:  # the next time ceil(left / 60) drops by one
                times.append(now + left - 60 * (math.ceil(left / 60) - 1))
        return min(times) if times else None

    def box(self, key: Key) -> Timebox | None:
        return self._boxes.get(key)

    def yolo_sessions(self) -> list[Key]:
        """Sessions whose YOLO this app turned on and has not yet seen off (for quitting)."""
        return [k for k, b in self._boxes.items() if b.phase is not Phase.OFF_PENDING]

    def label(self, key: Key, now: float) -> str:
        """The session's YOLO line while it has a box, e.g. ``YOLO on · 12 min left``."""
        box = self._boxes[key]
        if box.phase is Phase.ENDING:
            return "YOLO on · time is up, turning it off…"
        if box.phase is Phase.OFF_PENDING:
            return "YOLO time is up · turns off when the gateway is back"
        if box.kind is BoxKind.TURN:
            span = "until this turn ends" if box.saw_running else "for the next turn"
        else:
            assert box.deadline is not None
            left = box.deadline - now  # minutes rounded up
            span = f"{math.ceil(left / 60)} min left" if left >= 60 else "less than a minute left"
        return f"YOLO turning on · {span}" if box.phase is Phase.ARMING else f"YOLO on · {span}"

    def labels(self, now: float) -> dict[Key, str]:
        return {key: self.label(key, now) for key in self._boxes}

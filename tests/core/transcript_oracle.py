"""What a transcript says should have happened, read independently of the core.

Where the core is a state machine, this reads a recorded conversation as a timeline: when each
approval arrived, when the harness answered it, when the server ended it (``request.cancel``,
the turn's ``message.complete``, 0.19.0's ``tool.complete``, a snapshot that no longer lists
it), and the last title, usage, plan and YOLO state each session reported. The tests compare
the core's final state against this reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop.core.model import Choice, OutcomeKind, YoloSource, YoloState

_CHOICES = {choice.value: choice for choice in Choice}


@dataclass
class Expected:
    """One approval as the transcript tells it."""

    session_id: str
    command: str
    keys: tuple[str, ...]
    arrived: int  # line index
    turn: int
    srq: str = ""
    answer: Choice | None = None
    answer_id: object = None  # the harness's request id for an A answer
    resolved: int | None = None  # A: the server's {resolved: n}
    ended: str = ""  # how the server ended it, if it did before an answer took
    closed_at: int | None = None  # line index at which it stopped being open
    new_batch: bool = True
    reask: bool = False

    @property
    def outcome(self) -> tuple[OutcomeKind, Choice | None] | None:
        if self.answer is not None and (self.srq or (self.resolved or 0) >= 1):
            kind = OutcomeKind.DENIED if self.answer is Choice.DENY else OutcomeKind.APPROVED
            return kind, self.answer
        if self.answer is not None and self.resolved == 0:
            return OutcomeKind.WITHDRAWN, None
        if self.ended:
            return (OutcomeKind.EXPIRED if self.ended == "timeout" else OutcomeKind.WITHDRAWN), None
        return None


@dataclass
class Facts:
    approvals: list[Expected] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    usage: dict[str, tuple[int, int]] = field(default_factory=dict)  # total, calls
    todos: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    revisions: dict[str, int] = field(default_factory=dict)
    yolo: dict[str, YoloState] = field(default_factory=dict)
    requests_out: dict[object, tuple[str, dict[str, Any]]] = field(default_factory=dict)


def read(lines: list[dict[str, Any]], conn: int | None, peer_b: bool) -> Facts:
    facts = Facts()
    turns: dict[str, int] = {}
    for index, line in enumerate(lines):
        if "note" in line or (conn is not None and line["conn"] != conn):
            continue
        frame = line["frame"]
        if line["dir"] == "out":
            _outgoing(facts, frame, index, peer_b)
            continue
        if frame.get("method") == "event":
            _event(facts, turns, frame["params"], index)
        elif frame.get("method") == "approval" and "id" in frame:
            _arrive(facts, turns, frame["params"], index, str(frame["id"]))
        elif "result" in frame or "error" in frame:
            _response(facts, turns, frame, index)
    return facts


def _open(facts: Facts, session_id: str | None = None) -> list[Expected]:
    return [
        a
        for a in facts.approvals
        if a.closed_at is None and (session_id is None or a.session_id == session_id)
    ]


def _arrive(
    facts: Facts, turns: dict[str, int], params: dict[str, Any], index: int, srq: str
) -> None:
    if srq and any(a.srq == srq for a in facts.approvals):
        return  # re-delivered: the same request
    session_id = params["session_id"]
    keys = tuple(params.get("pattern_keys") or [params["pattern_key"]])
    turn = turns.get(session_id, 0)
    earlier = [a for a in facts.approvals if a.session_id == session_id and a.turn == turn]
    reask = any(
        a.command == params["command"] and a.keys == keys and a.closed_at is not None
        for a in earlier
    )
    new_batch = not _open(facts, session_id)
    facts.approvals.append(
        Expected(
            session_id, params["command"], keys, index, turn, srq, new_batch=new_batch, reask=reask
        )
    )


def _end(approval: Expected, how: str, index: int) -> None:
    if approval.closed_at is None:
        approval.ended, approval.closed_at = how, index


def _event(facts: Facts, turns: dict[str, int], params: dict[str, Any], index: int) -> None:
    kind, session_id, payload = (
        params["type"],
        params.get("session_id", ""),
        params.get("payload", {}),
    )
    if kind == "approval.request":
        _arrive(facts, turns, {**payload, "session_id": session_id}, index, "")
    elif kind == "request.cancel":
        for a in facts.approvals:
            if a.srq == payload.get("id") and a.answer is None:
                _end(a, "timeout" if payload.get("reason") == "timeout" else "cancel", index)
    elif kind in ("message.start", "message.complete"):
        turns[session_id] = turns.get(session_id, 0) + 1
        if kind == "message.complete":
            for a in _open(facts, session_id):
                if a.answer is None:
                    _end(a, "turn ended", index)
            _usage(facts, session_id, payload.get("usage"))
    elif kind == "tool.complete":
        _tool_complete(facts, session_id, payload, index)
    elif kind == "session.title" and payload.get("title"):
        facts.titles[session_id] = payload["title"]
    elif kind == "session.info":
        if payload.get("title"):
            facts.titles[session_id] = payload["title"]
        _usage(facts, session_id, payload.get("usage"))
        if "yolo" in payload:
            off = payload.get("approval_mode") == "off"
            on = bool(payload["yolo"]) or off
            source = YoloSource.MODE_OFF if off else (YoloSource.SESSION if on else YoloSource.OFF)
            facts.yolo[session_id] = YoloState(on, source)
    elif kind == "session.usage":
        _usage(facts, session_id, payload.get("usage", payload))
    elif kind == "todo.updated":
        _plan(facts, session_id, payload.get("todos"), payload.get("revision"))


def _tool_complete(facts: Facts, session_id: str, payload: dict[str, Any], index: int) -> None:
    if payload.get("name") in ("todo", "todo_list"):
        _plan(facts, session_id, payload.get("todos"), payload.get("revision"))
    for a in _open(facts, session_id):
        if not a.srq and a.answer is None:
            timed_out = "timed out" in str(payload.get("result"))
            _end(a, "timeout" if timed_out else "settled", index)


def _usage(facts: Facts, session_id: str, usage: object) -> None:
    if isinstance(usage, dict) and isinstance(usage.get("total"), int):
        facts.usage[session_id] = (usage["total"], usage.get("calls", 0))


def _plan(facts: Facts, session_id: str, todos: object, revision: object) -> None:
    if not isinstance(todos, list):
        return
    if isinstance(revision, int):
        if revision < facts.revisions.get(session_id, -1):
            return
        facts.revisions[session_id] = revision
    facts.todos[session_id] = [(str(t["id"]), t["content"], t["status"]) for t in todos]


def _outgoing(facts: Facts, frame: dict[str, Any], index: int, peer_b: bool) -> None:
    method, params = frame.get("method"), frame.get("params", {})
    if method is None and isinstance(frame.get("result"), dict):
        _answer_srq(facts, str(frame["id"]), frame["result"].get("choice"), index)
    elif method == "request.answer":
        _answer_srq(facts, params["id"], params["result"].get("choice"), index)
    elif method == "approval.respond" and not peer_b:
        head = next((a for a in _open(facts, params["session_id"]) if a.answer is None), None)
        choice = _CHOICES.get(params.get("choice"))
        if head is not None and choice is not None:
            head.answer, head.answer_id = choice, frame["id"]
    if method is not None:
        facts.requests_out[frame["id"]] = (method, params)


def _answer_srq(facts: Facts, srq: str, choice: object, index: int) -> None:
    for a in facts.approvals:
        if a.srq == srq and a.closed_at is None and choice in _CHOICES:
            a.answer, a.closed_at = _CHOICES[choice], index


def _response(facts: Facts, turns: dict[str, int], frame: dict[str, Any], index: int) -> None:
    method, params = facts.requests_out.get(frame.get("id"), ("", {}))
    result = frame.get("result")
    for a in facts.approvals:
        if a.answer_id is not None and a.answer_id == frame.get("id"):
            a.resolved = (result or {}).get("resolved", 0)
            a.closed_at = index
    if not isinstance(result, dict):
        return
    if method == "session.usage" and params.get("session_id"):
        _usage(facts, params["session_id"], result)
    if method in ("session.resume", "session.activate"):
        session_id = result.get("session_id", "")
        if isinstance(result.get("todo_state"), dict):
            state = result["todo_state"]
            _plan(facts, session_id, state.get("todos"), state.get("revision"))
        _usage(facts, session_id, (result.get("info") or {}).get("usage"))
        if "open_requests" in result:
            listed = set()
            for item in result["open_requests"]:
                if item.get("method") == "approval":
                    listed.add(item["id"])
                    _arrive(facts, turns, item["params"], index, item["id"])
            for a in _open(facts, session_id):
                if a.srq and a.srq not in listed and a.answer is None:
                    _end(a, "settled", index)

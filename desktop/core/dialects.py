"""What differs between the gateways' protocols (protocol.md §3, §6): one stateless adapter each.

Only the server's ``choices`` are offered, in its order (``[once, deny]`` only when the list is
missing or empty); a command or prompt longer than its bound is kept cut and never answered
(a cut command may still be denied).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from desktop.core import outcomes, payloads
from desktop.core.events import ProtocolErrorReceived, RpcError
from desktop.core.jsonrpc import EventFrame, ServerRequestFrame, excerpt
from desktop.core.model import Choice, Dialect, Outcome, PromptKind, SessionState
from desktop.core.settings import CoreSettings
from desktop.core.wire import ApprovalAsked, PromptOpened, PromptVia, RowKind, WireEvent

Delivered = list[WireEvent | ServerRequestFrame | None]  # a snapshot's (None: not the tray's)
FALLBACK_CHOICES = (Choice.ONCE, Choice.DENY)
_BY_VALUE = {choice.value: choice for choice in Choice}
REQUEST_ID = re.compile(r"[0-9a-f]{32}")  # 0.20's approval ids
NO_PENDING_REQUEST = 4009  # 0.19.0: "no pending request"
SESSION_NOT_FOUND = 4001
STORED_SESSION_NOT_FOUND = 4007
GONE_REASONS = frozenset({"not_found", "permission_denied", "profile_mismatch"})  # canonical
MAX_QUESTION_CHARS = 4000
MAX_CHOICES = 20
MAX_CHOICE_CHARS = 200
MAX_NAME_CHARS = 128  # env_var, request ids, qid
MAX_COMMAND_CHARS = 4000  # the sudo command, shown only
PROMPT_METHODS = {kind.value: kind for kind in PromptKind}  # clarify, sudo, secret
_FREE_TEXT_FLAGS = ("allow_free_text", "allow_other", "free_text", "allow_custom")


def gone(error: RpcError) -> bool:
    """A refusal meaning "this session is gone for this viewer" (canonical: ``data.reason``)."""
    if error.reason:
        return error.reason in GONE_REASONS
    return error.code in (STORED_SESSION_NOT_FOUND, SESSION_NOT_FOUND)


def offered_choices(payload: Mapping[str, Any]) -> tuple[Choice, ...]:
    """The choices to offer, in the server's order, restricted to the four the tray encodes."""
    names = payloads.strings(payload, "choices")
    if payloads.flag(payload, "smart_denied") or not (names or payload.get("choices")):
        return FALLBACK_CHOICES  # or no list, or an empty one: nothing was said about choices
    return tuple(dict.fromkeys([_BY_VALUE[name] for name in names if name in _BY_VALUE]))


def read_approval(
    session_id: str,
    payload: Mapping[str, Any],
    kind: RowKind,
    *,
    reply_id: str | int | None = None,
    request_id: str = "",
    generation: int | None = None,
) -> ApprovalAsked | ProtocolErrorReceived:
    command = payloads.text(payload, "command")
    if not command and isinstance(payload.get("edit"), Mapping):
        command = payloads.text(payload, "description") or "file edit"
    if not session_id or not command:
        return ProtocolErrorReceived(
            "approval without a session or a command", excerpt(repr(payload))
        )
    keys = payloads.strings(payload, "pattern_keys")
    single = payloads.text(payload, "pattern_key")
    if not keys and single:
        keys = (single,)
    return ApprovalAsked(
        session_id=session_id,
        kind=kind,
        command=command,
        description=payloads.text(payload, "description"),
        pattern_keys=keys,
        choices=offered_choices(payload),
        smart_denied=payloads.flag(payload, "smart_denied") is True,
        reply_id=reply_id,
        request_id=request_id,
        execution_generation=generation,
    )


def server_request_approval(frame: ServerRequestFrame) -> ApprovalAsked | ProtocolErrorReceived:
    """An ``approval`` server→client request (B, and canonical gateways that send them)."""
    params = frame.params
    if params is None:
        return ProtocolErrorReceived("approval params is not an object", excerpt(repr(params)))
    return read_approval(
        payloads.text(params, "session_id"),
        params,
        RowKind.SERVER_REQUEST,
        reply_id=frame.request_id,
        request_id=payloads.text(params, "request_id") or payloads.text(params, "approval_id"),
    )


def fifo_event_approval(frame: EventFrame) -> WireEvent:
    """A 0.19.0 ``approval.request`` event: no id, answered in arrival order."""
    request_id = payloads.text(frame.payload, "request_id")
    return read_approval(frame.session_id, frame.payload, RowKind.FIFO, request_id=request_id)


def by_id_approval(session_id: str, payload: Mapping[str, Any]) -> WireEvent:
    """A 0.20 approval; never answered without a 32-hex ``request_id`` ("" resolves the oldest)."""
    request_id = payloads.text(payload, "request_id")
    kind = RowKind.BY_ID if REQUEST_ID.fullmatch(request_id) else RowKind.FIFO
    if "choices" not in payload:
        allowed = ["once"]
        if payloads.flag(payload, "allow_session"):
            allowed.append("session")
        if payloads.flag(payload, "allow_permanent"):
            allowed.append("always")
        payload = {**payload, "choices": [*allowed, "deny"]}
    return read_approval(session_id, payload, kind, request_id=request_id)


def prompt_event_approval(frame: EventFrame) -> WireEvent | None:
    """A canonical ``approval.request`` event keyed by ``prompt_id`` + generation."""
    if payloads.text(frame.payload, "kind") not in ("", "approval"):
        return None  # clarify and other prompts are not the tray's to answer
    prompt_id, generation = _prompt_ids(frame)
    if not prompt_id or generation is None:
        return ProtocolErrorReceived("approval.request without prompt_id or generation", "")
    kind = RowKind.PROMPT
    return read_approval(
        frame.session_id, frame.payload, kind, request_id=prompt_id, generation=generation
    )


def _prompt_ids(frame: EventFrame) -> tuple[str, int | None]:
    """``prompt_id`` and the generation (the payload's, else the event's stamp)."""
    generation = payloads.integer(frame.payload, "execution_generation")
    if generation is None:
        generation = payloads.integer(frame.params, "execution_generation")
    return payloads.text(frame.payload, "prompt_id"), generation


def read_prompt(
    kind: PromptKind,
    session_id: str,
    payload: Mapping[str, Any],
    via: PromptVia,
    ident: str | int,
    generation: int | None = None,
) -> PromptOpened:
    """One prompt from its payload (any dialect), bounded; ``cut`` if some text did not fit.

    Several B ``questions``, or answers already locked, are left to Hermes.
    """
    questions = payloads.objects(payload, "questions")
    outer = payload
    if kind is PromptKind.CLARIFY and questions:
        payload = questions[0]  # the one question (a batch is shown by its first)
    cut = False

    def bounded(text: str, limit: int) -> str:
        nonlocal cut
        cut |= len(text) > limit
        return text[:limit]

    question = bounded(
        payloads.text(payload, "question") or payloads.text(payload, "prompt"), MAX_QUESTION_CHARS
    )
    env_var = bounded(payloads.text(payload, "env_var"), MAX_NAME_CHARS)
    command = bounded(payloads.text(payload, "command"), MAX_COMMAND_CHARS)
    question_id = bounded(payloads.text(payload, "qid"), MAX_NAME_CHARS)
    raw_choices = payloads.strings(payload, "choices")
    listed = payload.get("choices")
    cut |= len(raw_choices) > MAX_CHOICES
    cut |= len(raw_choices) != (len(listed) if isinstance(listed, list) else 0)
    choices = dict.fromkeys(
        bounded(choice, MAX_CHOICE_CHARS) for choice in raw_choices[:MAX_CHOICES]
    )
    return PromptOpened(
        session_id=session_id,
        kind=kind,
        via=via,
        ident=ident,
        question=question,
        choices=tuple(choices),
        free_text=not any(
            payloads.flag(source, name) is False
            for source in (payload, outer)
            for name in _FREE_TEXT_FLAGS
        ),
        env_var=env_var,
        command=command,
        execution_generation=generation,
        question_id=question_id,
        cut=cut,
        several=len(questions or ()) > 1 or bool(payloads.mapping(outer, "answers")),
    )


def event_prompt(frame: EventFrame) -> WireEvent:
    """0.19.0 / 0.20: a ``clarify.request``, ``sudo.request`` or ``secret.request`` event."""
    kind = PROMPT_METHODS[frame.type.partition(".")[0]]
    request_id = payloads.text(frame.payload, "request_id")
    if not frame.session_id or not request_id or len(request_id) > MAX_NAME_CHARS:
        return ProtocolErrorReceived(f"{kind.value}.request without a session or request_id", "")
    return read_prompt(kind, frame.session_id, frame.payload, PromptVia.EVENT, request_id)


def server_request_prompt(frame: ServerRequestFrame) -> PromptOpened | ProtocolErrorReceived:
    """B and C: a prompt request, never refused (that would beat the asking window's answer)."""
    kind = PROMPT_METHODS[frame.method]
    params = frame.params
    session_id = payloads.text(params, "session_id") if params is not None else ""
    if params is None or not session_id:
        reason = f"{frame.method} request without a session"
        return ProtocolErrorReceived(reason, excerpt(repr(params)))
    return read_prompt(kind, session_id, params, PromptVia.SERVER_REQUEST, frame.request_id)


def open_requests(items: list[Mapping[str, Any]]) -> Delivered:
    """Snapshot ``open_requests`` items (``{id, method, params}``), handled as if new."""
    frames: Delivered = []
    for item in items:
        request_id = payloads.wire_id(item.get("id"))
        method = payloads.text(item, "method")
        if request_id is not None and method:
            params = item.get("params", {})
            params = params if isinstance(params, dict) else None
            frames.append(ServerRequestFrame(request_id, method, params))
    return frames


def canonical_prompt(frame: EventFrame) -> WireEvent:
    """C: a clarify prompt keyed by ``prompt_id`` + ``execution_generation``."""
    (prompt_id, generation), session_id = _prompt_ids(frame), frame.session_id
    if not session_id or not prompt_id or generation is None:
        return ProtocolErrorReceived("clarify prompt without session, prompt_id or generation", "")
    via, kind = PromptVia.CANONICAL, PromptKind.CLARIFY
    return read_prompt(kind, session_id, frame.payload, via, prompt_id, generation)


EventHandler = Callable[[EventFrame], WireEvent | None]
PROMPT_EXPIRES = frozenset({"clarify.expire", "sudo.expire", "secret.expire"})


class DialectAdapter:
    """``event_handlers`` read what differs; ``ends`` name the ending events it takes."""

    dialect: ClassVar[Dialect | None] = None
    answers: ClassVar[frozenset[RowKind]] = frozenset()
    event_handlers: ClassVar[dict[str, EventHandler]] = {}
    ends: ClassVar[frozenset[str]] = frozenset()

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        raise NotImplementedError

    def resume_params(self, session: SessionState, settings: CoreSettings) -> dict[str, Any] | None:
        """``session.resume`` params (tui_gateway: the *stored* id), or None when it cannot be.

        The tray reads no history: ``omit_messages`` keeps a long one under the frame limit
        (0.20 and iot honour it; 0.19.0 reads only the keys it knows).
        """
        if not session.stored_session_id:
            return None
        return {
            "session_id": session.stored_session_id,
            "source": settings.session_source,
            "close_on_disconnect": False,
            "omit_messages": True,
        }

    def pending_requests(self, session_id: str, items: list[Mapping[str, Any]]) -> list[WireEvent]:
        """Rows an ``approval.pending`` list shows that the tray may not know yet (0.20 only)."""
        return []

    def snapshot_prompts(self, snapshot: Mapping[str, Any]) -> WireEvent | None:
        """A question a resume snapshot lists apart from its requests (0.20's pending_clarify)."""
        return None

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> Delivered | None:
        """The open requests a snapshot re-delivers; None if it lists none (0.19.0 lists none)."""
        return None


def _any_approval(frame: EventFrame) -> WireEvent | None:
    if "prompt_id" in frame.payload:  # canonical by shape, else 0.19.0
        return prompt_event_approval(frame)
    return fifo_event_approval(frame)


class ProvisionalAdapter(DialectAdapter):
    """Before the handshake fixed the dialect: approvals read by shape, none answered."""

    event_handlers: ClassVar[dict[str, EventHandler]] = {"approval.request": _any_approval}
    ends: ClassVar[frozenset[str]] = frozenset({"approval.settled", "request.cancel"})


PROMPT_EVENTS: dict[str, EventHandler] = {
    "clarify.request": event_prompt,
    "sudo.request": event_prompt,
    "secret.request": event_prompt,
}


class Hermes019Adapter(DialectAdapter):
    """hermes-agent 0.19.0 (Dialect.A; protocol.md §3.2): no ids, answers resolve the oldest."""

    dialect: ClassVar[Dialect | None] = Dialect.A
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.FIFO, RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": fifo_event_approval,
        **PROMPT_EVENTS,
    }
    ends: ClassVar[frozenset[str]] = PROMPT_EXPIRES

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """``{resolved: n}``: n ≥ 1 means our decision took; 0 means nothing was pending."""
        if result is not None:
            resolved = payloads.integer(result, "resolved")
            if resolved is not None and resolved >= 1:
                return outcomes.decided(choice)
            if resolved == 0:
                return outcomes.withdrawn(outcomes.NOTHING_WAITING)
            return outcomes.unknown()
        if code == NO_PENDING_REQUEST:
            return outcomes.withdrawn(outcomes.NOTHING_WAITING)
        if code == SESSION_NOT_FOUND:
            return outcomes.withdrawn(outcomes.SESSION_GONE)
        return outcomes.unknown()


def _by_id_event(frame: EventFrame) -> WireEvent:
    return by_id_approval(frame.session_id, frame.payload)


class Hermes020Adapter(Hermes019Adapter):
    """hermes-agent 0.20: 0.19.0 with a ``request_id`` per approval.

    Only ``approval.pending`` and the timeout end a request; a resume lists only the oldest (in
    ``pending_approval``), so snapshots reconcile nothing here.
    """

    dialect: ClassVar[Dialect | None] = Dialect.HERMES020
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.BY_ID})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": _by_id_event,
        **PROMPT_EVENTS,
    }

    def snapshot_prompts(self, snapshot: Mapping[str, Any]) -> WireEvent | None:
        """``pending_clarify``: the clarify still blocking the session, as its event was."""
        pending = payloads.mapping(snapshot, "pending_clarify")
        session_id = payloads.text(snapshot, "session_id")
        if pending is None or not session_id:
            return None
        frame = EventFrame("clarify.request", session_id, pending, snapshot)
        return event_prompt(frame)

    def pending_requests(self, session_id: str, items: list[Mapping[str, Any]]) -> list[WireEvent]:
        """``approval.pending`` entries, as requests (new ones become rows, known ones match)."""
        return [by_id_approval(session_id, item) for item in items]


class TuiGatewayAdapter(DialectAdapter):
    """tui_gateway (B, protocol.md §3.3): an approval *event* has no id, so it is never answered."""

    dialect: ClassVar[Dialect | None] = Dialect.B
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {"approval.request": fifo_event_approval}
    ends: ClassVar[frozenset[str]] = frozenset({"request.cancel"})

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> Delivered | None:
        """``open_requests`` of a resume/activate snapshot, or None when the key is absent."""
        items = payloads.objects(snapshot, "open_requests")
        return None if items is None else open_requests(items)


def _canonical_approval(frame: EventFrame) -> WireEvent | None:
    if payloads.text(frame.payload, "kind") == "clarify":
        return canonical_prompt(frame)
    return prompt_event_approval(frame)


class CanonicalAdapter(DialectAdapter):
    """The canonical gateway (Dialect.C; protocol.md §2.3, §3.4): prompts by id + generation."""

    dialect: ClassVar[Dialect | None] = Dialect.C
    answers: ClassVar[frozenset[RowKind]] = frozenset({RowKind.PROMPT, RowKind.SERVER_REQUEST})
    event_handlers: ClassVar[dict[str, EventHandler]] = {
        "approval.request": _canonical_approval,
        "clarify.request": canonical_prompt,
    }
    ends: ClassVar[frozenset[str]] = frozenset(
        {"approval.settled", "clarify.settled", "request.cancel"}
    )

    def decision_outcome(
        self, choice: Choice, result: Mapping[str, Any] | None, code: int | None, reason: str
    ) -> Outcome:
        """``resolved`` → our decision took; ``already_resolved`` → someone else's did."""
        status = payloads.text(result, "status") if result is not None else ""
        if status == "resolved":
            return outcomes.decided(choice)
        if status == "already_resolved" or reason == "not_found":
            return outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
        return outcomes.unknown()

    def resume_params(self, session: SessionState, settings: CoreSettings) -> dict[str, Any] | None:
        """``{session_id}`` (the durable id); ``source`` only when configured (closed keys)."""
        params: dict[str, Any] = {"session_id": session.session_id}
        if settings.canonical_resume_source:
            params["source"] = settings.canonical_resume_source
        return params

    def snapshot_requests(self, snapshot: Mapping[str, Any]) -> Delivered | None:
        """``prompts[]`` (plus any ``open_requests``) of a snapshot; None if neither is listed."""
        prompts = payloads.objects(snapshot, "prompts")
        requests = payloads.objects(snapshot, "open_requests")
        if prompts is None and requests is None:
            return None
        session_id = payloads.text(snapshot, "session_id")
        events: Delivered = [
            _canonical_approval(EventFrame("approval.request", session_id, prompt, snapshot))
            for prompt in prompts or []
        ]
        return events + open_requests(requests or [])


ADAPTERS: dict[Dialect | None, DialectAdapter] = {
    None: ProvisionalAdapter(),  # the handshake has not fixed the dialect yet
    Dialect.A: Hermes019Adapter(),
    Dialect.B: TuiGatewayAdapter(),
    Dialect.HERMES020: Hermes020Adapter(),
    Dialect.C: CanonicalAdapter(),
}

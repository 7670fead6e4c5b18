"""Read an approval, or what takes it away, out of whichever frame carried it (protocol.md §3).

The payload fields (``command``, ``description``, ``pattern_keys``, ``choices``,
``smart_denied``) are the same in every dialect; only the ids around them differ. The rules
that keep a person from being offered an answer the server would not take:

* offer only the server's ``choices``, in the server's order; fall back to ``[once, deny]``
  only when ``choices`` is missing or empty (MCP elicitation on 0.19.0). A list whose items are
  all unknown (``["all"]``, say) offers nothing: the person answers in Hermes, never with a
  button the server did not offer;
* a smart-deny override (``smart_denied``) is always one-shot: ``[once, deny]``;
* a command longer than the configured bound is kept cut and marked never answerable, so a
  person cannot approve text they were not shown in full.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from desktop.core import payloads
from desktop.core.jsonrpc import INVALID_PARAMS, EventFrame, ServerRequestFrame, excerpt
from desktop.core.model import Choice
from desktop.core.wire import (
    ApprovalAsked,
    Malformed,
    PromptSettled,
    RequestCancelled,
    RowKind,
    ServerRequestRefused,
    WireEvent,
)

if TYPE_CHECKING:
    from desktop.core.dialects.base import DialectAdapter

FALLBACK_CHOICES = (Choice.ONCE, Choice.DENY)
_BY_VALUE = {choice.value: choice for choice in Choice}


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
    max_command_chars: int,
    *,
    reply_id: str | int | None = None,
    request_id: str = "",
    generation: int | None = None,
) -> ApprovalAsked | Malformed:
    """One approval from its payload and the ids the carrying frame supplied."""
    command = payloads.text(payload, "command")
    if not command and isinstance(payload.get("edit"), Mapping):
        command = payloads.text(payload, "description") or "file edit"
    if not session_id or not command:
        return Malformed("approval without a session or a command", excerpt(repr(payload)))
    keys = payloads.strings(payload, "pattern_keys")
    single = payloads.text(payload, "pattern_key")
    if not keys and single:
        keys = (single,)
    return ApprovalAsked(
        session_id=session_id,
        kind=kind,
        command=command[:max_command_chars],
        description=payloads.text(payload, "description"),
        pattern_keys=keys,
        choices=offered_choices(payload),
        smart_denied=payloads.flag(payload, "smart_denied") is True,
        reply_id=reply_id,
        request_id=request_id,
        execution_generation=generation,
        too_long=len(command) > max_command_chars,
    )


def server_request_approval(frame: ServerRequestFrame, max_command_chars: int) -> list[WireEvent]:
    """An ``approval`` server→client request (B, and canonical gateways that send them)."""
    params = frame.params
    if params is None:
        return _refuse(frame, "approval params is not an object")
    asked = read_approval(
        payloads.text(params, "session_id"),
        params,
        RowKind.SERVER_REQUEST,
        max_command_chars,
        reply_id=frame.request_id,
        request_id=payloads.text(params, "request_id") or payloads.text(params, "approval_id"),
    )
    if isinstance(asked, Malformed):
        return _refuse(frame, asked.reason)
    return [asked]


def fifo_event_approval(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    """A 0.19.0 ``approval.request`` event: no id, answered in arrival order."""
    payload = frame.payload
    request_id = payloads.text(payload, "request_id")
    limit = adapter.max_command_chars
    return [read_approval(frame.session_id, payload, RowKind.FIFO, limit, request_id=request_id)]


REQUEST_ID = re.compile(r"[0-9a-f]{32}")


def by_id_approval(
    session_id: str, payload: Mapping[str, Any], max_command_chars: int
) -> list[WireEvent]:
    """A 0.20 approval (event or ``approval.pending`` entry): by its id when it has a valid one.

    Without a 32-hex ``request_id`` it is a FIFO row, which this gateway is never answered by
    (an empty id resolves the oldest waiting, whatever the person saw).
    """
    request_id = payloads.text(payload, "request_id")
    kind = RowKind.BY_ID if REQUEST_ID.fullmatch(request_id) else RowKind.FIFO
    if "choices" not in payload:
        payload = {**payload, "choices": _allowed(payload)}
    asked = read_approval(session_id, payload, kind, max_command_chars, request_id=request_id)
    return [asked]


def _allowed(payload: Mapping[str, Any]) -> list[str]:
    """The choices a 0.20 entry without ``choices`` allows (``allow_session``/``_permanent``)."""
    allowed = ["once"]
    if payloads.flag(payload, "allow_session"):
        allowed.append("session")
    if payloads.flag(payload, "allow_permanent"):
        allowed.append("always")
    return [*allowed, "deny"]


def prompt_event_approval(adapter: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    """A canonical ``approval.request`` event keyed by ``prompt_id`` + generation."""
    kind = payloads.text(frame.payload, "kind")
    if kind and kind != "approval":
        return []  # clarify and other prompts are not the tray's to answer
    prompt_id = payloads.text(frame.payload, "prompt_id")
    generation = payloads.integer(frame.payload, "execution_generation")
    if generation is None:
        generation = payloads.integer(frame.params, "execution_generation")
    if not prompt_id or generation is None:
        return [Malformed("approval.request without prompt_id or generation", "")]
    asked = read_approval(
        frame.session_id,
        frame.payload,
        RowKind.PROMPT,
        adapter.max_command_chars,
        request_id=prompt_id,
        generation=generation,
    )
    return [asked]


def _refuse(frame: ServerRequestFrame, reason: str) -> list[WireEvent]:
    return [
        Malformed(reason, excerpt(repr(frame.params))),
        ServerRequestRefused(frame.request_id, frame.method, INVALID_PARAMS, reason),
    ]


def request_cancel(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    """``request.cancel``: which server request was withdrawn, and why.

    hermes-peer.md measured B putting ``{id, method, reason}`` in ``params.payload``
    (protocol.md §3.3 suggested ``params``): both are read, the payload first.
    """
    source = frame.payload if "id" in frame.payload else frame.params
    reply_id = payloads.wire_id(source.get("id"))
    if reply_id is None:
        return []
    method = payloads.text(source, "method")
    return [RequestCancelled(frame.session_id, reply_id, method, payloads.text(source, "reason"))]


def approval_settled(_: DialectAdapter, frame: EventFrame) -> list[WireEvent]:
    """``approval.settled {prompt_id, execution_generation}``; an expiry if it says so."""
    prompt_id = payloads.text(frame.payload, "prompt_id")
    if not prompt_id:
        return []
    why = (payloads.text(frame.payload, "reason") + payloads.text(frame.payload, "status")).lower()
    generation = payloads.integer(frame.payload, "execution_generation")
    expired = "expire" in why or "timeout" in why
    return [PromptSettled(frame.session_id, prompt_id, expired, generation)]

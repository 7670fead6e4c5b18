"""The state the tray shows, as frozen values (the core keeps mutable rows inside)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Dialect(enum.Enum):
    """The Hermes gateway protocol of a connection (protocol.md §6), fixed by its handshake."""

    A = "hermes-0.19"  # hermes-agent 0.19.0 tui_gateway: approval.request events, FIFO answers
    B = "tui-gateway"  # newer main tui_gateway: server->client `approval` requests (srq- ids)
    C = "canonical"  # canonical gateway: approval.request events with prompt_id + generation
    HERMES020 = "hermes-0.20"  # hermes-agent 0.20: approval.request events with a request_id


class Choice(enum.Enum):
    """The only answers the tray encodes: 0.19.0 approves on any string but "deny"."""

    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"
    DENY = "deny"


class SessionStatus(enum.Enum):
    IDLE = "idle"
    WORKING = "working"
    WAITING = "waiting on you"  # an approval or a question (clarify, sudo, secret) is open


@dataclass(frozen=True, slots=True)
class Usage:
    input: int = 0
    output: int = 0
    total: int = 0
    calls: int = 0
    reasoning: int = 0
    context_used: int | None = None
    context_max: int | None = None
    context_percent: float | None = None
    cost_usd: float | None = None
    model: str = ""


class TodoStatus(enum.Enum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class TodoItem:
    id: str
    content: str
    status: TodoStatus


@dataclass(frozen=True, slots=True)
class TodoList:
    """A session's plan; ``revision`` is None where the gateway sends none (0.19.0)."""

    items: tuple[TodoItem, ...] = ()
    revision: int | None = None


class YoloSource(enum.Enum):
    OFF = "off"
    SESSION = "session"  # config.set yolo on this session
    MODE_OFF = "approvals.mode off"  # global approval mode `off` bypasses every approval
    ENVIRONMENT = "environment"  # HERMES_YOLO_MODE frozen in the gateway process
    UNKNOWN = "unknown"  # effective yolo reported, cause not derivable


@dataclass(frozen=True, slots=True)
class YoloState:
    effective: bool = False
    source: YoloSource = YoloSource.OFF


@dataclass(frozen=True, slots=True)
class SessionState:
    """One live session as the tray knows it. Keyed by the runtime ``session_id``."""

    session_id: str
    stored_session_id: str = ""
    title: str = ""
    model: str = ""
    cwd: str = ""
    running: bool = False
    status: SessionStatus = SessionStatus.IDLE
    usage: Usage = field(default_factory=Usage)
    todos: TodoList = field(default_factory=TodoList)
    yolo: YoloState = field(default_factory=YoloState)
    approval_mode: str = ""  # manual | smart | off | "" (unknown)
    version: str = ""  # Hermes version from session.info, when sent
    execution_generation: int | None = None  # canonical only


class ApprovalPhase(enum.Enum):
    """RESOLVED rows carry exactly one :class:`Outcome`."""

    WAITING = "waiting"  # may be answered (if ``answerable``)
    SENDING = "sending"  # a decision frame is queued or in flight; no second one is allowed
    STALE = "stale"  # the core cannot be sure the server still waits on exactly this command
    RESOLVED = "resolved"


OPEN_PHASES = (ApprovalPhase.WAITING, ApprovalPhase.STALE)  # a person's answer is still wanted


class Action(enum.Enum):
    """What the person can do about a row now: what every surface reads, never the phase."""

    ANSWER = "answer"
    RECONFIRM = "re-confirm first"  # answerable once the person confirms Hermes still asks it
    WAIT = "wait"  # cannot be answered now (not its turn, not connected, too close, ...)
    SENDING = "sending"  # the person's answer is on its way: wait for what became of it
    DONE = "done"  # resolved, with its one outcome


OPEN_ACTIONS = (Action.ANSWER, Action.RECONFIRM, Action.WAIT)  # still needs the person


class OutcomeKind(enum.Enum):
    APPROVED = "approved"
    DENIED = "denied"
    WITHDRAWN = "withdrawn"  # cancelled, settled elsewhere, interrupted, session gone
    EXPIRED = "expired"  # the server's timeout (or our safety margin before it) passed
    UNKNOWN = "unknown"  # a decision was sent but its fate is unknown (connection lost)


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: OutcomeKind
    choice: Choice | None = None  # for APPROVED (and DENIED: Choice.DENY)
    reason: str = ""  # human-readable why, for WITHDRAWN / EXPIRED / UNKNOWN


class AskReason(enum.Enum):
    FIRST = "first"
    AFTER_DENY = "after_deny"  # a command of the batch was denied
    AFTER_FAILURE = "after_failure"  # a command of the batch ran and failed
    AFTER_TIMEOUT = "after_timeout"  # nobody answered a command of the batch in time
    AGAIN = "again"  # asked again and the frames do not say why


@dataclass(frozen=True, slots=True)
class AskedBecause:
    """Why Hermes asked: the earlier row a re-ask replaces, and the row that caused it."""

    reason: AskReason = AskReason.FIRST
    earlier_key: str = ""  # key of the row this one replaces
    cause_key: str = ""  # key of the row whose end caused the re-ask ("" when unknown)
    cause_batch_id: str = ""  # that row's batch
    cause_position: int | None = None  # that row's 0-based position in its batch ("#2")
    exit_code: int | None = None  # for AFTER_FAILURE, when the gateway reported one


@dataclass(frozen=True, slots=True)
class CallContext:
    """Where and why the agent wants to run the command, as far as the gateway says."""

    cwd: str = ""  # working directory of the session or the tool call
    tool: str = ""  # e.g. "terminal"
    agent_message: str = ""  # the agent's last message before the call (bounded)
    subagent_goal: str = ""  # the goal of the sub-agent that asks (bounded), never the parent's


class RunKind(enum.Enum):
    RAN = "ran"
    BLOCKED = "blocked"  # denied: Hermes did not run it
    TIMED_OUT = "timed_out"  # nobody answered in time: Hermes denied it
    WITHDRAWN = "withdrawn"  # the request went away (cancelled, interrupted, settled elsewhere)
    NOT_USED = "not_used"  # the answer was thrown away because Hermes asked again


@dataclass(frozen=True, slots=True)
class RunResult:
    kind: RunKind
    exit_code: int | None = None  # for RAN, when the gateway reported one
    output_head: str = ""  # the first lines of output (bounded), for RAN


NO_CONTEXT = CallContext()
FIRST_ASK = AskedBecause()


@dataclass(frozen=True, slots=True)
class Approval:
    """One command waiting for a person's decision (``command`` as received: reveal it to show)."""

    key: str
    session_id: str
    batch_id: str
    position: int  # 0-based index of arrival within its batch
    command: str
    description: str = ""
    pattern_keys: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = (Choice.ONCE, Choice.DENY)
    smart_denied: bool = False
    arrived_at: float = 0.0  # core clock (monotonic seconds)
    expires_at: float | None = None  # core clock; local estimate of the server's timeout
    phase: ApprovalPhase = ApprovalPhase.WAITING
    outcome: Outcome | None = None
    answerable: bool = True  # False e.g. on 0.19.0 when an earlier command must be answered first
    blocked_reason: str = ""  # why not answerable / why stale, in plain words
    reask_of: str = ""  # key of the earlier approval for the same command in the same batch
    asked_because: AskedBecause = FIRST_ASK
    context: CallContext = NO_CONTEXT
    result: RunResult | None = None  # what happened to the command, once the gateway says
    replaces: str = ""  # key of the open row whose wire id this request re-used (another ask)

    @property
    def action(self) -> Action:
        phase = self.phase
        if phase is ApprovalPhase.RESOLVED:
            return Action.DONE
        if phase is ApprovalPhase.SENDING:
            return Action.SENDING
        if not self.answerable:
            return Action.WAIT
        return Action.RECONFIRM if phase is ApprovalPhase.STALE else Action.ANSWER


@dataclass(frozen=True, slots=True)
class DecisionResult:
    """Queued exactly one frame (``sent``), or nothing and why."""

    sent: bool
    reason: str = ""


class PromptKind(enum.Enum):
    CLARIFY = "clarify"  # a question for the person; the tray may answer it
    SUDO = "sudo"  # a password for sudo: only the window that asked may answer
    SECRET = "secret"  # a secret value (an API key): only the window that asked may answer


@dataclass(frozen=True, slots=True)
class Prompt:
    """One question waiting on a person, as sent (bounded); ``key`` is never reused."""

    key: str
    session_id: str
    kind: PromptKind
    question: str = ""  # clarify question, or the secret prompt's text
    choices: tuple[str, ...] = ()
    free_text: bool = True
    env_var: str = ""  # SECRET: the variable the value is for
    command: str = ""  # SUDO: the (redacted) command that wants the password, when sent
    arrived_at: float = 0.0
    expires_at: float | None = None  # core clock; local estimate where no frame says it
    answerable: bool = False
    blocked_reason: str = ""  # why the tray cannot answer it, in plain words

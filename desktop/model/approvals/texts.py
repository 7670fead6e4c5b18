"""Every string the approval dialog shows, built Qt-free from the core's values.

Wording is part of safety: a person must see what they approve and why a row is blocked.
Gateway text passes :func:`revealed` or :func:`label_text` first; widgets show plain text.
"""

from __future__ import annotations

import bisect
import enum
import math
import re
from collections import Counter

from desktop.core.decisions import RefusalKind
from desktop.core.model import (
    Action,
    Approval,
    AskReason,
    CallContext,
    Choice,
    Outcome,
    OutcomeKind,
    RunKind,
    RunResult,
    SessionState,
)
from desktop.core.text_safety import (
    ESCAPE_OPEN,
    MAYBE_HIDDEN,
    bound_text,
    escape,
    hidden_characters,
    is_hidden,
    lookalike_positions,
    reveal,
)
from desktop.logsetup import mask_own_secrets
from desktop.model.approvals import rules
from desktop.model.approvals.layout import BatchGroup, RowEntry
from desktop.model.decision_log import RUN_WORDS
from desktop.model.session_names import SEPARATOR, compose, fit
from desktop.risk import RiskAssessment, RiskFinding, RiskLevel

CHOICE_LABELS = {
    Choice.ONCE: "Approve once",
    Choice.SESSION: "Allow for session",
    Choice.ALWAYS: "Always allow…",
    Choice.DENY: "Deny",
}
CHOICE_SHORTCUTS = {
    Choice.ONCE: "A",
    Choice.SESSION: "S",
    Choice.ALWAYS: "Shift+A",
    Choice.DENY: "D",
}
NO_CHOICES = "Hermes offered no answer the tray can send for this command: answer it in Hermes."
KEY_HINTS = "A approve once · S allow for session · Shift+A always · D deny · ↑↓ move · Esc close"


class Tone(enum.Enum):
    """How a state line is coloured (the widgets pick the colour)."""

    WAITING = "waiting"
    BLOCKED = "blocked"
    BUSY = "busy"
    GOOD = "good"
    BAD = "bad"
    ENDED = "ended"
    WARN = "warn"


def revealed(text: str) -> tuple[str, tuple[str, ...]]:
    """The text with hidden characters escaped, and their names; own secrets masked in place."""
    text = mask_own_secrets(text, keep_length=True)
    shown = reveal(text)
    return shown, (hidden_characters(text) if ESCAPE_OPEN in shown else ())


def label_text(text: str, limit: int) -> str:
    """Gateway text for a one-paragraph label: revealed, cut visibly past ``limit`` characters."""
    text = mask_own_secrets(text)
    head = text[: limit + 1]  # reveal only what can be shown
    shown, cut = bound_text(reveal(head), limit)
    if cut or len(text) > len(head):
        shown += f" [{len(text):,} characters in all]"
    return shown


def hidden_warning(names: tuple[str, ...], limit: int = 6) -> str:
    if not names:
        return ""
    listed = ", ".join(names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"⚠ Hidden characters, shown as ⟨U+…⟩: {listed}{more}. Check the command carefully."


def outcome_text(outcome: Outcome | None) -> tuple[str, Tone]:
    if outcome is None:
        return "Resolved", Tone.ENDED
    reason = f" — {outcome.reason}" if outcome.reason else ""
    kind = outcome.kind
    if kind is OutcomeKind.APPROVED:
        choice = outcome.choice.value if outcome.choice else "?"
        return f"Approved ({choice}){reason}", Tone.GOOD
    if kind is OutcomeKind.DENIED:
        return f"Denied{reason}", Tone.BAD
    if kind is OutcomeKind.WITHDRAWN:
        return f"Withdrawn{reason or ' — no longer asked'}", Tone.ENDED
    if kind is OutcomeKind.EXPIRED:
        return f"Expired{reason}", Tone.ENDED
    return f"Unknown{reason or ' — the answer may or may not have arrived'}", Tone.WARN


def state_text(a: Approval, *, reconfirming: bool = False) -> tuple[str, Tone]:
    action = a.action
    reason = label_text(a.blocked_reason, 300) if a.blocked_reason else ""
    if action is Action.DONE:
        text, tone = outcome_text(a.outcome)
        return label_text(text, 400), tone
    if action is Action.SENDING:
        return "Sending…", Tone.BUSY
    if action is Action.RECONFIRM:
        why = reason or "the gateway may no longer be waiting for exactly this command"
        if reconfirming:
            return f"Stale — {why}. Choose again to answer anyway.", Tone.WARN
        return f"Stale — {why}", Tone.WARN
    if action is Action.WAIT:
        return f"Waiting — {reason or 'cannot be answered yet'}", Tone.BLOCKED
    return "Waiting for you", Tone.WAITING


def notes(a: Approval, notice: str, shown_in: str = "") -> str:
    """Extra lines that change how a person should read the row ("" if none)."""
    lines = []
    if notice:
        lines.append(f"Not sent: {label_text(notice, 300)}")
    if a.smart_denied:
        lines.append("Hermes' safety check denied this command; you may still allow it once.")
    asked = asked_again(a, shown_in)
    if asked:
        lines.append(asked)
    if not a.choices:
        lines.append(NO_CHOICES)
    return "\n".join(lines)


def asked_again(a: Approval, shown_in: str = "") -> str:
    """Why Hermes asks again, naming the row that caused it ("" if first; unexplained: said so).

    "#2" names a row of ``shown_in``, the batch the row is shown in (its own by default).
    """
    why = a.asked_because
    at = why.cause_position
    cause = "an earlier command" if at is None else f"#{at + 1}"
    if why.cause_position is not None and why.cause_batch_id != (shown_in or a.batch_id):
        cause += " of an earlier batch"
    if why.reason is AskReason.AFTER_DENY:
        return f"Asked again: you denied {cause}, so this needs a fresh decision."
    if why.reason is AskReason.AFTER_FAILURE:
        code = f" with exit {why.exit_code}" if why.exit_code is not None else ""
        return f"Asked again: {cause} failed{code}, so this needs a fresh decision."
    if why.reason is AskReason.AFTER_TIMEOUT:
        return f"Asked again: {cause} timed out (nobody answered in time)."
    if why.reason is AskReason.AGAIN or a.reask_of:
        return "Asked again: Hermes asked about this command once more and did not say why."
    return ""


_OUTPUT_LINES = 6
_OUTPUT_LINE_WIDTH = 300


def result_text(result: RunResult | None) -> tuple[str, Tone]:
    """What became of the command after the answer ("" while nothing is known)."""
    if result is None:
        return "", Tone.ENDED
    kind = result.kind
    if kind is RunKind.RAN:
        if result.exit_code is None:
            return "Ran", Tone.GOOD
        if result.exit_code == 0:
            return "Ran — exit 0", Tone.GOOD
        return f"Ran — failed with exit {result.exit_code}", Tone.BAD
    return RUN_WORDS[kind][1], Tone.BAD if kind is RunKind.BLOCKED else Tone.ENDED


def output_text(result: RunResult | None) -> str:
    """The first lines of what the command printed, revealed and bounded ("" if none)."""
    if result is None or result.kind is not RunKind.RAN or not result.output_head.strip():
        return ""
    lines = result.output_head.splitlines()
    shown = [breakable(label_text(line, _OUTPUT_LINE_WIDTH)) for line in lines[:_OUTPUT_LINES]]
    if len(lines) > _OUTPUT_LINES:
        shown.append(f"… {len(lines) - _OUTPUT_LINES} more lines")
    return "\n".join(shown)


_BREAK_EVERY = 60
_LONG_RUN = re.compile(rf"\S{{{_BREAK_EVERY + 1},}}")
# Where Qt's line breaker (Unicode's UAX #14) wraps a token by itself, wherever the slash
# sits: after a slash that a letter follows (never before a digit). Not after a hyphen: Qt
# keeps one that starts a line with what follows.
_WRAPS_HERE = re.compile(r"(?<=/)(?=[A-Za-z])")


def breakable(text: str) -> str:
    """Let a label (never the command) wrap inside tokens: QLabel wraps only at spaces."""
    return _LONG_RUN.sub(_break_run, text)


def _break_run(match: re.Match[str]) -> str:
    pieces = _WRAPS_HERE.split(match.group(0))
    step = _BREAK_EVERY
    return "".join("\n".join(p[i : i + step] for i in range(0, len(p), step)) for p in pieces)


RISK_BADGES = {
    RiskLevel.LOW: "Low risk",
    RiskLevel.MEDIUM: "Medium risk",
    RiskLevel.HIGH: "High risk",
}


def risk_summary(assessment: RiskAssessment) -> str:
    """The lens's one line for a label (it is revealed already: only bounded here)."""
    return breakable(bound_text(assessment.summary, 300)[0])


def shown_marks(
    command: str, findings: tuple[RiskFinding, ...]
) -> tuple[tuple[int, int, RiskLevel], ...]:
    """Findings as spans of the *revealed* command (escapes move offsets), highest level last."""
    if not findings:
        return ()
    # Where revealing lengthens the text, and by how much (a regex finds the few candidates)
    positions: list[int] = []
    growth: list[int] = [0]
    looks = lookalike_positions(command)
    for match in MAYBE_HIDDEN.finditer(command):
        char = match.group()
        if char == ESCAPE_OPEN or is_hidden(char) or match.start() in looks:
            positions.append(match.start())
            growth.append(growth[-1] + len(escape(char)) - 1)

    def shown(offset: int) -> int:
        return offset + growth[bisect.bisect_left(positions, offset)]

    marks = []
    for f in sorted(findings, key=lambda f: f.level):
        start, end = max(0, f.start), min(len(command), f.end)
        if start < end:
            marks.append((shown(start), shown(end), f.level))
    return tuple(marks)


_HOME = re.compile(r"^/(?:home|Users)/[^/]+(?=/|$)")
_AGENT_SHORT = 160


def short_path(path: str, home: str = "") -> str:
    """``/home/ana/src/x`` → ``~/src/x``, and so is a path under ``home`` (wherever it is)."""
    path = path.strip()
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    return breakable(label_text(_HOME.sub("~", path), 160))


def context_line(context: CallContext, home: str = "") -> str:
    """The folder (``home`` shown as ``~``) and the tool: "in ~/src/ux019 · terminal"."""
    parts = []
    if context.cwd.strip():
        parts.append(f"in {short_path(context.cwd, home)}")
    if context.tool.strip():
        parts.append(f"tool: {label_text(context.tool, 60)}")
    return " · ".join(parts)


def agent_line(context: CallContext, *, expanded: bool) -> tuple[str, bool]:
    """A sub-agent's goal (never its parent's words), else the agent's: (text, more to show)."""
    if context.subagent_goal.strip():
        text, more = _said(context.subagent_goal, expanded=expanded)
        return f"Sub-agent's goal: {text}", more
    text, more = _said(context.agent_message, expanded=expanded)
    return (f"Agent: {text}" if text else ""), more


def _said(text: str, *, expanded: bool) -> tuple[str, bool]:
    folded = " ".join(text.split()) if not expanded else text.strip()
    if not folded:
        return "", False
    if expanded:
        return breakable(label_text(folded, 4000)), True
    if len(folded) <= _AGENT_SHORT:
        return breakable(label_text(folded, _AGENT_SHORT)), False
    head = folded[: _AGENT_SHORT - 1]
    space = head.rfind(" ")
    if space > _AGENT_SHORT // 2:
        head = head[:space]
    return breakable(label_text(head, _AGENT_SHORT)) + "…", True


def _normalised(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def flag_lines(description: str, keys: tuple[str, ...]) -> tuple[str, str]:
    """Hermes' reason and its pattern class; one line when they are the same words (usual)."""
    why = breakable(label_text(description, 2000)) if description.strip() else ""
    pattern = f"Pattern: {breakable(label_text(', '.join(keys), 400))}" if keys else ""
    if why and keys and _normalised(description) == _normalised(" ".join(keys)):
        return f"Hermes flagged: {why}", ""
    return (f"Why Hermes asks: {why}" if why else ""), pattern


def remaining_text(expires_at: float | None, now: float) -> str:
    """Countdown to the core's expiry estimate, e.g. "expires in 1:05" ("" without expiry)."""
    if expires_at is None:
        return ""
    left = math.ceil(expires_at - now)
    if left <= 0:
        return "expiring…"
    return f"expires in {left // 60}:{left % 60:02d}"


HEADING_WIDTH = 100


def session_heading(title: str, session_id: str, cwd: str = "") -> str:
    """A session's header: its name with the folder once (the registry's name may hold it)."""
    title, cwd = mask_own_secrets(title), mask_own_secrets(cwd)
    name = compose(SessionState(session_id, title=title, cwd=cwd))
    parts = {re.sub(r" \(\d+\)$", "", part.strip()) for part in title.split(SEPARATOR)}
    if name.folder in parts:
        name = compose(SessionState(session_id, title=title))
    if title.strip() or name.folder:
        return f"Session: {bound_text(reveal(fit(name, HEADING_WIDTH)), HEADING_WIDTH * 2)[0]}"
    return f"Session {label_text(session_id, 40)}"


def always_confirmation(a: Approval) -> str:
    """The question asked before "Always": names exactly what becomes allowed for good."""
    what = label_text(", ".join(a.pattern_keys), 400) if a.pattern_keys else ""
    target = (
        f"every command matching the pattern class: {what}"
        if what
        else "commands like this one (no pattern class was given)"
    )
    return (
        f"Always allow {target}?\n\n"
        "Hermes will add this to its permanent allowlist and run such commands without asking, "
        "in every session, until you remove it from config.yaml."
    )


def key_refusal(row: RowEntry | None, choice: Choice, *, too_soon: bool, held: bool) -> str:
    """Why a decision key did nothing, in plain words (the refusal is ``rules.row_refusal``'s)."""
    key = CHOICE_SHORTCUTS[choice]
    if row is None:
        return f"{key} did nothing: no command is selected. Use ↑/↓ to pick one."
    if held:
        return f"{key} did nothing: release the key first; one press answers one command."
    a = row.approval
    refused = rules.row_refusal(row, choice)
    kind = refused.kind if refused is not None else None
    if kind is RefusalKind.DONE:
        state, _tone = outcome_text(a.outcome)
        return f"{key} did nothing: this command is already done ({state}). Pick a waiting one."
    if kind is RefusalKind.ON_ITS_WAY:
        return f"{key} did nothing: your answer to this command is already on its way."
    if kind is RefusalKind.NOT_OFFERED and not a.choices:
        return f"{key} did nothing. {NO_CHOICES}"
    if kind is RefusalKind.NOT_OFFERED:
        offered = CHOICE_LABELS[choice].rstrip("…")
        return f"{key} did nothing: Hermes did not offer “{offered}” for this command."
    if kind is RefusalKind.RECONFIRM_FIRST:
        return f"{key} did nothing: this command may be stale. Press “Re-confirm…” first."
    if kind is RefusalKind.WAIT:
        why = label_text(a.blocked_reason, 200) if a.blocked_reason else "not yet"
        return f"{key} did nothing: this command cannot be answered yet ({why})."
    if too_soon:
        return (
            f"{key} did nothing: this command was selected only a moment ago. "
            "Read it, then press again."
        )
    return f"{key} did nothing."


def batch_left_out(intent: rules.BatchIntent) -> str:
    """What a batch action answered, and which rows it left waiting and why ("" if none)."""
    unseen, high = intent.unseen, intent.high
    if not unseen and not high:
        return ""
    answered = len(intent.keys)
    verb = "Deny all" if intent.choice is Choice.DENY else "Approve all"
    parts = [f"{verb} answered {answered} command{'' if answered == 1 else 's'}."]
    if unseen:
        parts.append(
            f"{unseen} still wait{'s' if unseen == 1 else ''}: not on screen long enough to be "
            "read (scroll to them, look, and answer again)."
        )
    if high:
        named = "; ".join(
            f"Command {r.position + 1}: {label_text(r.approval.command, 80)}" for r in high[:3]
        )
        more = f" and {len(high) - 3} more" if len(high) > 3 else ""
        parts.append(f"High risk, answer each on its own: {named}{more}.")
    return " ".join(parts)


APPROVE_ALL_TIP = (
    "Approve once every command here you had on screen long enough to read, oldest first "
    "(never a high-risk one)"
)
NOTHING_TO_APPROVE = "Nothing here can be approved now: no command waits for an approval."


def approve_all_blocked(intent: rules.BatchIntent) -> str:
    """Why "Approve all" would answer nothing (its disabled button's tooltip); "" if it would."""
    if intent.keys:
        return ""
    reasons = []
    if intent.unseen:
        reasons.append(
            f"{intent.unseen} not on screen long enough to be read yet (look at them first)"
        )
    if intent.high:
        n = len(intent.high)
        reasons.append(f"{n} high risk (answer {'it' if n == 1 else 'each'} on its own)")
    if not reasons:
        return NOTHING_TO_APPROVE
    return "Nothing here can be approved all at once: " + "; ".join(reasons) + "."


def batch_summary(batch: BatchGroup) -> str:
    """The batch header's count: how many wait, how the others ended (expired is not answered)."""
    rows = batch.rows
    count = f"{len(rows)} command" + ("" if len(rows) == 1 else "s")
    waiting = sum(1 for r in rows if r.is_open)
    outcomes = (r.approval.outcome for r in rows if r.approval.action is Action.DONE)
    kinds = Counter(o.kind if o is not None else OutcomeKind.WITHDRAWN for o in outcomes)
    words = {OutcomeKind.UNKNOWN: "fate unknown"}
    ended = ", ".join(f"{n} {words.get(kind, kind.value)}" for kind, n in kinds.items())
    if waiting and len(rows) > 1:
        return f"{count} · {waiting} waiting" + (f" · {ended}" if ended else "")
    if ended and not waiting:
        return f"{count} · {ended}"
    return count


def window_title(waiting: int) -> str:
    """The window title: how many commands wait ("nothing waiting" never claims answers)."""
    if waiting:
        return f"Hermes approvals — {waiting} command{'' if waiting == 1 else 's'} waiting"
    return "Hermes approvals — nothing waiting"


def yolo_note(titles: list[tuple[str, int]]) -> str:
    """Rows waiting when YOLO went on still wait (transcripts yolo.jsonl): say so ("" if none)."""
    if not titles:
        return ""
    named = "; ".join(f"“{label_text(t, 60)}” ({n} waiting)" for t, n in titles[:3]) + (
        f" and {len(titles) - 3} more sessions" if len(titles) > 3 else ""
    )
    return (
        f"YOLO is on for {named}. Hermes still waits for your answer on the commands shown "
        "here: turning YOLO on neither approves nor withdraws a command already asked. "
        "It applies to the commands Hermes asks about next."
    )

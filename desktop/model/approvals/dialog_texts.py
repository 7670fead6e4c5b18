"""The dialog's own sentences: why a key did nothing, what "Approve all" left out, YOLO, counts.

Apart from ``texts`` (the cards' wording): these answer what a person asked by pressing
something. Gateway strings pass through :func:`texts.label_text` first.
"""

from __future__ import annotations

from collections import Counter

from desktop.core.decisions import RefusalKind
from desktop.core.model import Action, Choice, OutcomeKind
from desktop.model.approvals import rules, texts
from desktop.model.approvals.layout import BatchGroup, RowEntry


def key_refusal(row: RowEntry | None, choice: Choice, *, too_soon: bool, held: bool) -> str:
    """Why a decision key did nothing, in plain words (the refusal is ``rules.row_refusal``'s)."""
    key = texts.CHOICE_SHORTCUTS[choice]
    if row is None:
        return f"{key} did nothing: no command is selected. Use ↑/↓ to pick one."
    if held:
        return f"{key} did nothing: release the key first; one press answers one command."
    a = row.approval
    refused = rules.row_refusal(row, choice)
    kind = refused.kind if refused is not None else None
    if kind is RefusalKind.DONE:
        state, _tone = texts.outcome_text(a.outcome)
        return f"{key} did nothing: this command is already done ({state}). Pick a waiting one."
    if kind is RefusalKind.ON_ITS_WAY:
        return f"{key} did nothing: your answer to this command is already on its way."
    if kind is RefusalKind.NOT_OFFERED and not a.choices:
        return f"{key} did nothing. {texts.NO_CHOICES}"
    if kind is RefusalKind.NOT_OFFERED:
        offered = texts.CHOICE_LABELS[choice].rstrip("…")
        return f"{key} did nothing: Hermes did not offer “{offered}” for this command."
    if kind is RefusalKind.RECONFIRM_FIRST:
        return f"{key} did nothing: this command may be stale. Press “Re-confirm…” first."
    if kind is RefusalKind.WAIT:
        why = texts.label_text(a.blocked_reason, 200) if a.blocked_reason else "not yet"
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
            f"Command {r.position + 1}: {texts.label_text(r.approval.command, 80)}"
            for r in high[:3]
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
    """The batch header's count line: how many wait, and how the others ended.

    "2 approved, 1 expired": an expired row is never counted as answered.
    """
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
    """What happens to rows already waiting when YOLO is on for their session ("" if none).

    Seen on the wire (transcripts yolo.jsonl): turning YOLO on leaves waiting requests pending;
    only commands asked afterwards run without asking.
    """
    if not titles:
        return ""
    named = "; ".join(f"“{texts.label_text(t, 60)}” ({n} waiting)" for t, n in titles[:3]) + (
        f" and {len(titles) - 3} more sessions" if len(titles) > 3 else ""
    )
    return (
        f"YOLO is on for {named}. Hermes still waits for your answer on the commands shown "
        "here: turning YOLO on neither approves nor withdraws a command already asked. "
        "It applies to the commands Hermes asks about next."
    )

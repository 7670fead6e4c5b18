"""Every string the approval dialog shows, built Qt-free from the core's values.

Why here: wording is part of safety (a person must see *what* they approve and *why* a row is
blocked) and is easy to test with plain calls. Everything that came from a gateway passes
through :func:`revealed` or :func:`label_text` first, so hidden characters are drawn as
``⟨U+XXXX⟩`` escapes; the widgets additionally render it as plain text (never rich text).
"""

from __future__ import annotations

import enum
import math
import re

from desktop.core.model import Approval, ApprovalPhase, Choice, Outcome, OutcomeKind
from desktop.core.text_safety import ESCAPE_OPEN, bound_text, hidden_characters, reveal

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

# Printable ASCII (plus newline and tab) can never be hidden: reveal() would return it unchanged.
# Checking that first keeps a 1 MB plain command from paying for a per-character walk.
_PLAIN_ASCII = re.compile(r"[\x20-\x7e\n\t]*")


class Tone(enum.Enum):
    """How a state line is coloured (the widgets map each tone to a colour)."""

    WAITING = "waiting"
    BLOCKED = "blocked"
    BUSY = "busy"
    GOOD = "good"
    BAD = "bad"
    ENDED = "ended"
    WARN = "warn"


def revealed(text: str) -> tuple[str, tuple[str, ...]]:
    """The full text with hidden characters escaped, and the names of those characters."""
    if _PLAIN_ASCII.fullmatch(text) and ESCAPE_OPEN not in text:
        return text, ()
    shown = reveal(text)
    return shown, (hidden_characters(text) if ESCAPE_OPEN in shown else ())


def label_text(text: str, limit: int) -> str:
    """Gateway text for a one-paragraph label: revealed, cut visibly past ``limit`` characters."""
    head = text[: limit + 1]  # reveal only what can be shown: a 1 MB title costs nothing
    shown, cut = bound_text(reveal(head), limit)
    if cut or len(text) > len(head):
        shown += f" [{len(text):,} characters in all]"
    return shown


def hidden_warning(names: tuple[str, ...], limit: int = 6) -> str:
    """The warning line under a command that contains hidden characters ("" if none)."""
    if not names:
        return ""
    listed = ", ".join(names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"⚠ Hidden characters, shown as ⟨U+…⟩: {listed}{more}. Check the command carefully."


def outcome_text(outcome: Outcome | None) -> tuple[str, Tone]:
    """The final state of a resolved row."""
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
    """One line saying where the row is in its life (waiting, sending, resolved, ...)."""
    reason = label_text(a.blocked_reason, 300) if a.blocked_reason else ""
    if a.phase is ApprovalPhase.RESOLVED:
        text, tone = outcome_text(a.outcome)
        return label_text(text, 400), tone
    if a.phase is ApprovalPhase.SENDING:
        return "Sending…", Tone.BUSY
    if a.phase is ApprovalPhase.STALE:
        why = reason or "the gateway may no longer be waiting for exactly this command"
        if reconfirming:
            return f"Stale — {why}. Choose again to answer anyway.", Tone.WARN
        return f"Stale — {why}", Tone.WARN
    if not a.answerable:
        return f"Waiting — {reason or 'cannot be answered yet'}", Tone.BLOCKED
    return "Waiting for you", Tone.WAITING


def notes(a: Approval, notice: str) -> str:
    """Extra lines that change how a person should read the row ("" if none)."""
    lines = []
    if notice:
        lines.append(f"Not sent: {label_text(notice, 300)}")
    if a.smart_denied:
        lines.append("Hermes' safety check denied this command; you may still allow it once.")
    if a.reask_of:
        lines.append("Asked again: an earlier command failed, so this needs a fresh decision.")
    if not a.choices:
        lines.append(NO_CHOICES)
    return "\n".join(lines)


def remaining_text(expires_at: float | None, now: float) -> str:
    """Countdown to the core's expiry estimate, e.g. "expires in 1:05" ("" without expiry)."""
    if expires_at is None:
        return ""
    left = math.ceil(expires_at - now)
    if left <= 0:
        return "expiring…"
    return f"expires in {left // 60}:{left % 60:02d}"


def session_heading(title: str, session_id: str) -> str:
    """A session's header line: its title, or its id when untitled."""
    if title.strip():
        return f"Session: {label_text(title, 120)}"
    return f"Session {label_text(session_id, 40)}"


def pattern_line(keys: tuple[str, ...]) -> str:
    """The pattern classes Hermes matched ("" if none)."""
    return f"Pattern: {label_text(', '.join(keys), 400)}" if keys else ""


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

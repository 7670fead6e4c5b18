"""Tool results the fake reports, worded as the real gateways word them.

Clients only need ``status == "blocked"`` and the ``BLOCKED:`` prefix, but the texts are kept as
measured so logs and UI previews look like the real thing.
"""

from __future__ import annotations

from typing import Any

from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.script import Command

_TAIL = (
    " The user has NOT consented to this action. Do NOT retry this command, do NOT rephrase"
    " it, and do NOT attempt the same outcome via a different command. Stop the current"
    " workflow and wait for the user to respond before taking any further destructive or"
    " irreversible action."
)
DENIED = "BLOCKED: Command denied by user." + _TAIL
TIMED_OUT = "BLOCKED: Command timed out without user response." + _TAIL + " Silence is not consent."
_WITHDRAWN = "BLOCKED: Command approval was withdrawn before the user answered ({why})." + _TAIL
SESSION_ENDED = "the session ended before the prompt was answered"
PREPARATION_CANCELLED = (
    "Error executing tool 'terminal': Terminal approval preparation "
    "cancelled; command was not started"
)
NO_TERMINAL = (
    "No in-app terminal answered: nothing is open, or the bridge timed out. If the "
    "terminal pane IS open, the desktop app may be older than this backend \u2014 "
    "update it and retry."
)
NOT_DISPLAYED = (
    "No Hermes Desktop window is showing this chat, so its preview, terminal and "
    "tour are out of reach. Ask the user to open this chat in the Desktop app, then "
    "retry."
)


def executed(command: Command, outcome: Outcome) -> dict[str, Any]:
    """The result of a command that ran (``approval`` note only after a human approval)."""
    result: dict[str, Any] = {
        "output": command.output,
        "exit_code": command.exit_code,
        "error": None,
    }
    if outcome.via != "policy":
        what = command.description or command.pattern_key
        result["approval"] = f"Command required approval ({what}) and was approved by the user."
    return result


def blocked(outcome: Outcome, dialect: Dialect) -> dict[str, Any]:
    """The result of a command that did not run: denied, timed out, withdrawn or interrupted."""
    summary = "approval.summary.denied"
    if outcome.kind == "timeout":
        text, summary = TIMED_OUT, "approval.summary.timeout"
    elif outcome.kind == "withdrawn":
        text, summary = _WITHDRAWN.format(why=outcome.detail), "approval.summary.cancelled"
    elif outcome.kind == "closed":
        text, summary = _WITHDRAWN.format(why=SESSION_ENDED), "approval.summary.cancelled"
    else:  # deny, interrupted (0.19.0 resolves pending approvals as deny on interrupt)
        text = DENIED
    result: dict[str, Any] = {"output": "", "exit_code": -1, "error": text, "status": "blocked"}
    if dialect is Dialect.B:
        result["user_summary"] = summary
    return result


def window_result(outcome: Outcome) -> dict[str, Any]:
    """What a ``read_terminal``-like tool reports after its window request ended."""
    if outcome.kind == "approve":
        value = outcome.detail
        return value if isinstance(value, dict) else {"value": value}
    code = outcome.detail.get("code") if isinstance(outcome.detail, dict) else None
    if code in (-32004, 4404):
        return {"success": False, "error": NOT_DISPLAYED}
    return {"error": NO_TERMINAL}


NO_CLARIFY = "No client answered the clarify question."


def clarify_result(outcome: Outcome, qid: str) -> dict[str, Any]:
    """What the ``clarify`` tool reports: the answer to ``qid`` when it is one, checked.

    An answer that is not ``{answers: {qid: text}}`` with non-empty text counts as none (the
    real tool would see an empty answer set), so a tray that answers the wrong shape fails.
    """
    if outcome.kind == "timeout":
        return {"answers": {}, "outcome": "timed_out"}
    detail = outcome.detail if outcome.kind == "approve" else None
    answers = detail.get("answers") if isinstance(detail, dict) else None
    answer = answers.get(qid) if isinstance(answers, dict) else None
    if not isinstance(answer, str) or not answer.strip() or len(answers or {}) != 1:
        return {"answers": {}, "outcome": "cancelled"}
    return {"answers": {qid: answer}, "outcome": "submitted"}

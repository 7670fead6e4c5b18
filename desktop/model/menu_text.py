"""The words of the tray menu, as plain strings: ``tray_menu`` places them and escapes them.

A level travels as a glyph here (menu text has no colour) and as a coloured dot there.
"""

from __future__ import annotations

from desktop.core.model import (
    Dialect,
    SessionState,
    SessionStatus,
    TodoList,
    TodoStatus,
    Usage,
    YoloSource,
    YoloState,
)

CONTEXT_HIGH = 80.0  # percent: the next long turn may trigger compression
CONTEXT_CRITICAL = 95.0  # percent: compression or failure is imminent

TODO_MARKS = {
    TodoStatus.PENDING: "☐",
    TodoStatus.IN_PROGRESS: "◐",
    TodoStatus.COMPLETED: "☑",
    TodoStatus.CANCELLED: "✗",
}
_LEVEL_GLYPH = {"ok": "", "high": " ⚠", "critical": " ‼"}
APPROVAL_MODES = ("manual", "smart", "off")


def _n(value: int) -> str:
    return f"{value:,}"


def status_line(session: SessionState, waiting: int) -> str:
    if waiting:
        return f"Status: waiting on you ({waiting} to review)"
    if session.status is SessionStatus.WAITING:
        return "Status: waiting on you"
    return f"Status: {session.status.value}"


def tokens_line(usage: Usage) -> str:
    line = f"Tokens: {_n(usage.input)} in · {_n(usage.output)} out · {_n(usage.total)} total"
    return f"{line} · {_n(usage.reasoning)} reasoning" if usage.reasoning > 0 else line


def calls_line(usage: Usage) -> str:
    return f"API calls: {_n(usage.calls)}"


def context_percent(usage: Usage) -> float | None:
    if usage.context_percent is not None:
        return float(usage.context_percent)
    if usage.context_used is not None and usage.context_max:
        return 100.0 * usage.context_used / usage.context_max
    return None


def context_level(percent: float) -> str:
    if percent >= CONTEXT_CRITICAL:
        return "critical"
    return "high" if percent >= CONTEXT_HIGH else "ok"


def context_line(usage: Usage) -> str | None:
    percent = context_percent(usage)
    if percent is None:
        return None
    text = f"Context: {percent:.0f}%"
    if usage.context_used is not None and usage.context_max:
        text += f" ({_n(usage.context_used)} / {_n(usage.context_max)})"
    return text + _LEVEL_GLYPH[context_level(percent)]


def cost_line(usage: Usage) -> str | None:
    return None if usage.cost_usd is None else f"Cost: ${usage.cost_usd:,.4f}"


def todo_progress(todos: TodoList) -> str | None:
    """'3/7 · now: run tests' — done out of all not cancelled, and the item in progress."""
    if not todos.items:
        return None
    counted = [t for t in todos.items if t.status is not TodoStatus.CANCELLED]
    done = sum(1 for t in counted if t.status is TodoStatus.COMPLETED)
    text = f"Plan: {done}/{len(counted)}"
    current = next((t for t in todos.items if t.status is TodoStatus.IN_PROGRESS), None)
    return f"{text} · now: {current.content}" if current else text


def todo_line(mark_status: TodoStatus, content: str) -> str:
    return f"{TODO_MARKS[mark_status]} {content}"


_YOLO_WHY = {
    YoloSource.MODE_OFF: "approvals are off for this whole gateway",
    YoloSource.ENVIRONMENT: "Hermes was started with YOLO on",
}


def yolo_line(yolo: YoloState) -> str:
    """Plain words: whether commands run without asking, and why (technical names: doctor)."""
    if not yolo.effective:
        return "YOLO: off — commands ask first"
    return f"YOLO: on — {_YOLO_WHY.get(yolo.source, 'commands run without asking')}"


def more_sessions_line(count: int) -> str:
    return f"{count:,} more session{'s' if count != 1 else ''}, quieter ones…"


def yolo_lock_reason(yolo: YoloState) -> str:
    if yolo.effective and yolo.source is YoloSource.MODE_OFF:
        return "YOLO comes from approval mode 'off'; change the approval mode to turn it off."
    if yolo.effective and yolo.source is YoloSource.ENVIRONMENT:
        return (
            "YOLO comes from HERMES_YOLO_MODE in the gateway's environment; restart the "
            "gateway without it to turn it off."
        )
    return ""


def mode_title(mode: str) -> str:
    return f"Approval mode: {mode or 'unknown'}"


def mode_lock_reason(dialect: Dialect | None) -> str:
    if dialect is Dialect.C:
        return "The canonical gateway does not let clients change the approval mode."
    if dialect is None:
        return "Not connected."
    return ""


def mode_confirmation(mode: str, gateway_name: str) -> str:
    effect = {
        "manual": "every risky command will wait for your approval",
        "smart": "an automatic reviewer may approve or deny risky commands; the rest wait for you",
        "off": "NO command will ask for approval (YOLO for every session)",
    }[mode]
    return (
        f"Set the approval mode of gateway \u201c{gateway_name}\u201d to \u201c{mode}\u201d?\n\n"
        f"This is global: it is written to the gateway's config and applies to every session "
        f"and every client. With \u201c{mode}\u201d, {effect}."
    )


def gateway_header(name: str, state_name: str, version: str) -> str:
    """``Local — connected · Hermes 0.22.2``: the protocol dialect is for doctor and the log."""
    return f"{name} — {state_name} · Hermes {version}" if version else f"{name} — {state_name}"

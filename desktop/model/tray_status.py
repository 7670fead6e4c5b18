"""One pure function from the app snapshot to what the tray icon shows.

Pure so every precedence rule lives in one table-tested place; the most urgent state wins. A
gateway offline while another is connected changes only the tooltip: the connected one works.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from desktop.core.model import SessionStatus
from desktop.model.plain_text import markup_safe
from desktop.model.prompt_text import blocked_on
from desktop.model.snapshot import AppSnapshot, Link, session_title

APP_TITLE = "Hermes Tray"
HOLDING_LINE = "Do not disturb is on: notifications held"
TOOLTIP_SESSIONS = 5


@dataclass(frozen=True, slots=True)
class TrayStatus:
    icon_name: str  # an SVG's stem in resources/icons/
    count: int  # approvals and questions waiting
    tooltip: str  # plain text, untrusted parts neutralised


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def tray_status(
    snapshot: AppSnapshot,
    timeboxes: Mapping[tuple[str, str], str] | None = None,
    journal_problem: str = "",
    holding: bool = False,
) -> TrayStatus:
    """Icon, count and tooltip; ``timeboxes``: ``YoloTimeboxes.labels``; ``holding``: DND."""
    boxes = timeboxes or {}
    gateways = snapshot.gateways
    up = [g for g in gateways if g.link is Link.UP]
    failed = [g for g in gateways if g.link is Link.FAILED]
    trying = [g for g in gateways if g.link is Link.CONNECTING]
    live_sessions = [s for g in up for s in g.sessions]
    yolo = [s for s in live_sessions if s.yolo.effective]
    timed = [
        (g.gateway_id, s)
        for g in up
        for s in g.sessions
        if s.yolo.effective and (g.gateway_id, s.session_id) in boxes
    ]
    working = [s for s in live_sessions if s.status is SessionStatus.WORKING]
    approvals = snapshot.waiting_count()
    questions = [(g, p) for g in up for p in g.prompts]
    count = approvals + len(questions)

    waiting_in = _waiting_sessions(snapshot)
    if count:
        yolo_waiting = any(yolo_on for _, _, yolo_on in waiting_in)
        icon = "waiting-yolo" if yolo_waiting else "waiting"
        parts = [_plural(approvals, "approval")] if approvals else []
        if questions:
            parts.append(_plural(len(questions), "question"))
        headline = " and ".join(parts) + " waiting"
    elif failed:
        icon, headline = "error", "connection failed"
    elif journal_problem:
        icon, headline = "error", "decision journal not written"
    elif not gateways:
        icon, headline = "disconnected", "no gateway configured"
    elif not up:
        icon = "connecting" if trying else "disconnected"
        headline = "connecting…" if trying else "disconnected"
    elif yolo and len(timed) == len(yolo):
        icon, headline = "yolo-timed", f"YOLO on in {_plural(len(yolo), 'session')}, time-boxed"
    elif yolo:
        icon, headline = "yolo", f"YOLO on in {_plural(len(yolo), 'session')}"
    elif working:
        icon, headline = "working", f"working ({_plural(len(working), 'session')})"
    else:
        icon, headline = "idle", "idle"

    lines = [f"{APP_TITLE} — {headline}"]
    for title, n, yolo_on in waiting_in[:TOOLTIP_SESSIONS]:
        note = ", YOLO on" if yolo_on else ""
        lines.append(f"Waiting: {markup_safe(title, 40)} ({n}{note})")
    if len(waiting_in) > TOOLTIP_SESSIONS:
        lines.append(f"… and {_plural(len(waiting_in) - TOOLTIP_SESSIONS, 'more session')}")
    for gateway, prompt in questions[:TOOLTIP_SESSIONS]:
        title = session_title(gateway.session(prompt.session_id), prompt.session_id)
        lines.append(f"{markup_safe(title, 40)}: {markup_safe(blocked_on(prompt), 80)}")
    if len(questions) > TOOLTIP_SESSIONS:
        lines.append(f"… and {_plural(len(questions) - TOOLTIP_SESSIONS, 'more question')}")
    if holding:
        lines.append(HOLDING_LINE)
    if icon not in ("yolo", "yolo-timed", "waiting-yolo") and yolo:
        lines.append(f"YOLO on in {_plural(len(yolo), 'session')}")
    for gateway_id, session in timed:
        label = boxes[(gateway_id, session.session_id)]
        lines.append(f"{markup_safe(session_title(session), 40)}: {label}")
    for g in failed:
        detail = f": {markup_safe(g.error)}" if g.error else ""
        lines.append(f"{markup_safe(g.name)} failed{detail}")
    if up and len(up) < len(gateways):
        offline = len(gateways) - len(up) - len(failed)
        if offline:
            lines.append(f"{offline} of {len(gateways)} gateways not connected")
    if journal_problem:
        lines.append(f"Journal not written: {markup_safe(journal_problem, 120)}")
    return TrayStatus(icon_name=icon, count=count, tooltip="\n".join(lines))


def _waiting_sessions(snapshot: AppSnapshot) -> list[tuple[str, int, bool]]:
    """``(title, rows waiting, YOLO on)`` of each session with rows waiting, most rows first."""
    found: list[tuple[str, int, bool]] = []
    for g in snapshot.gateways:
        if g.link is not Link.UP:
            continue
        counts = Counter(a.session_id for a in g.waiting)
        by_id = {s.session_id: s for s in g.sessions} if counts else {}
        for sid, n in counts.items():
            session = by_id.get(sid)
            title = session_title(session, sid)
            found.append((title, n, bool(session is not None and session.yolo.effective)))
    found.sort(key=lambda item: -item[1])
    return found

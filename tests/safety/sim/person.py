"""The person at the tray: clicks on any row, with any choice, at any time.

Every ``decide()`` is checked on the spot: if the core sent something, the row must have been
answerable (WAITING, or STALE *and* confirmed), the choice offered, and exactly one decision
frame must come out, aimed at the request the row was created from and showing that request's
command; if it refused, nothing may come out and the reason must say why. ``confirm_stale`` is
used the way the dialog asks for it — "answer only if Hermes still shows it": the simulated
person confirms only when the reference server really still shows that request.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.core.model import Approval, ApprovalPhase, Choice, Dialect
from tests.safety.sim.chooser import chance, pick
from tests.safety.sim.model import Attribution
from tests.safety.sim.world import SimWorld

CHOICES = tuple(Choice)
OPEN = (ApprovalPhase.WAITING, ApprovalPhase.STALE)


def visible_rows(world: SimWorld) -> list[Approval]:
    return list(world.core.approvals())


def decide(world: SimWorld, key: str, choice: Choice, confirm: bool) -> bool:
    """One click; returns whether the core sent it."""
    before = {a.key: a for a in world.core.approvals()}.get(key)
    target = world.target_of(before) if before is not None else None
    if confirm and (target is None or not world.server.still_shows(target)):
        confirm = False  # an honest person does not confirm what Hermes no longer shows
    result = world.core.decide(key, choice, confirm_stale=confirm)
    attribution = None
    if result.sent and target is not None:
        shown = before.command if before is not None else ""
        attribution = Attribution(key, choice.value, target, shown, world.step)
    frames = world.drain(attribution)
    decisions = [f for f in frames if f.is_decision]
    world.note(f"decide {key} {choice.value} confirm={confirm} -> {result}")
    if not result.sent:
        _check_refusal(world, key, result.reason, decisions)
        return False
    _check_sent(world, key, choice, confirm, before, decisions)
    if target is None:
        world.report("decision for a row the test cannot trace", f"{key}: {before}")
    elif before is not None and before.command != target.command:
        world.report(
            "row showed another command than the request it answers",
            f"{key} showed {before.command!r}, targets {target.describe()}",
        )
    world.decided[key] = choice.value
    world.stats["decisions_sent"] += 1
    if before is not None and before.phase is ApprovalPhase.STALE:
        world.stats["stale_confirmed_sent"] += 1
    return True


def _check_refusal(world: SimWorld, key: str, reason: str, decisions: Sequence[object]) -> None:
    world.stats["decisions_refused"] += 1
    world.stats[f"refused: {reason.split(' (')[0][:60]}"] += 1
    if decisions:
        world.report("refused decision still wrote a frame", f"{key}: {decisions}")
    if not reason:
        world.report("refusal without a reason", key)


def _check_sent(
    world: SimWorld,
    key: str,
    choice: Choice,
    confirm: bool,
    before: Approval | None,
    decisions: Sequence[object],
) -> None:
    if len(decisions) != 1:
        world.report("a sent decision is not exactly one frame", f"{key}: {len(decisions)} frames")
    if before is None:
        world.report("sent a decision for an unknown row", key)
        return
    if key in world.decided:
        world.report(
            "second decision sent for one row", f"{key}: {world.decided[key]} then {choice}"
        )
    if before.phase not in OPEN:
        world.report("sent while the row was not open", f"{key} was {before.phase}")
    if before.phase is ApprovalPhase.STALE and not confirm:
        world.report("sent on a stale row without confirmation", f"{key}: {before.blocked_reason}")
    if not before.answerable:
        world.report("sent on a row marked unanswerable", f"{key}: {before.blocked_reason}")
    if choice not in before.choices:
        world.report(
            "sent a choice that was not offered", f"{key}: {choice} not in {before.choices}"
        )


# -- the person's actions -----------------------------------------------------------------
def click_any(world: SimWorld) -> None:
    rows = visible_rows(world)
    open_rows = [r for r in rows if r.phase in OPEN]
    if open_rows and chance(world.chooser, 80):
        rows = open_rows  # people mostly click what still waits; sometimes a dead row
    if not rows:
        return
    row = pick(world.chooser, rows)
    choice = (
        pick(world.chooser, row.choices)
        if chance(world.chooser, 70)
        else pick(world.chooser, CHOICES)
    )
    decide(world, row.key, choice, confirm=chance(world.chooser, 40))


def double_click(world: SimWorld) -> None:
    rows = [r for r in visible_rows(world) if r.phase in OPEN]
    if not rows:
        return
    row = pick(world.chooser, rows)
    first = decide(world, row.key, pick(world.chooser, row.choices), confirm=True)
    second = decide(world, row.key, pick(world.chooser, CHOICES), confirm=True)
    if first and second:
        world.report("double click sent twice", row.key)


def approve_all(world: SimWorld) -> None:
    """The dialog's "approve all" for one session: every open row, in arrival order."""
    rows = [r for r in visible_rows(world) if r.phase in OPEN]
    if not rows:
        return
    session = pick(world.chooser, rows).session_id
    for row in rows:
        if row.session_id == session:
            decide(world, row.key, Choice.ONCE, confirm=False)


def bogus(world: SimWorld) -> None:
    """Keys that do not exist, and values that are not a Choice, never reach the wire."""
    rows = visible_rows(world)
    wrong: list[tuple[str, object]] = [("approval-999999", Choice.ONCE), ("", Choice.DENY)]
    if rows:
        key = pick(world.chooser, rows).key
        wrong += [(key, "once"), (key, "yes"), (key, None)]
    key, value = pick(world.chooser, wrong)
    result = world.core.decide(key, value, confirm_stale=True)  # type: ignore[arg-type]
    frames = world.drain()
    if result.sent or any(f.is_decision for f in frames):
        world.report("bogus decision was sent", f"{key!r} {value!r}")
    world.stats["bogus_refused"] += 1


def interrupt(world: SimWorld) -> None:
    """The person stops a session from the tray menu (an app call, not a decision)."""
    sessions = world.core.sessions()
    if not sessions or not world.connected or world.core.dialect is None:
        return
    session = pick(world.chooser, sessions)
    params: dict[str, object] = {"session_id": session.session_id}
    if world.dialect is Dialect.C:
        params["execution_generation"] = session.execution_generation
    world.core.call("session.interrupt", params)
    world.drain()
    world.stats["person_interrupts"] += 1


def reconcile(world: SimWorld) -> None:
    """B: the app polls approval.pending to close cards another viewer answered by frame."""
    sessions = world.core.sessions()
    if sessions:
        world.core.link.poll_pending(pick(world.chooser, sessions).session_id)
        world.core.tick()
        world.drain()

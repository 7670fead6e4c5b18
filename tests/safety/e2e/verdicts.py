"""What an end-to-end scenario must have left behind, judged from the fake's own records.

* every decision frame that reached the gateway came from one click that ``decide()`` reported
  as sent, at most once per row, with the clicked choice, aimed at the clicked row's request
  (B: its ``srq`` id; C: its ``prompt_id`` and generation; A: the FIFO head *on arrival* was the
  clicked command), and the choice was one the gateway offered;
* every simulated execution rests on a human approval of that command (ours or the simulated
  other viewer's), or on a ``session``/``always`` answer someone gave for its pattern key;
* no click that ``decide()`` refused produced a frame, and no decision frame appeared outside a
  click.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.gatewaymodel.approval_rules import Outcome
from tests.safety.e2e.rig import Rig
from tests.safety.e2e.scenario import OTHER, Plan, Result
from tests.safety.e2e.taps import Click, HeadSpy


def check(rig: Rig, p: Plan, heads: HeadSpy | None, result: Result, *, finished: bool) -> None:
    v = result.violations
    tap = rig.tap
    if tap.unattributed:
        v.append(f"decision frame(s) nobody clicked: {tap.unattributed[:2]}")
    for c in tap.clicks:
        if c.sent and len(c.frames) != 1:
            v.append(f"click on {c.key} sent {len(c.frames)} frames")
        if not c.sent and c.frames:
            v.append(f"refused click on {c.key} still wrote {c.frames}")
    by_id = tap.by_wire_id()
    arrived: Counter[str] = Counter()
    for conn in rig.fake.connections:
        for frame in conn.received:
            if isinstance(frame, dict) and _is_decision(frame):
                _check_arrival(rig, frame, by_id, arrived, v)
    for key, n in arrived.items():
        if n > 1:
            v.append(f"{n} decisions for {key} reached the gateway")
    result.stats["decisions_arrived"] += sum(arrived.values())
    if heads is not None:
        for seen in heads.seen:
            clicked = by_id.get(seen.frame.get("id"))
            head = seen.head.command if seen.head is not None else None
            if clicked is not None and head is not None and head.command != clicked.command:
                v.append(f"0.19 answer for {clicked.command!r} resolved {head.command!r}")
    _check_executions(rig, p, v, result)
    check_approved_ran(rig, v, result, finished=finished)
    result.stats["finished" if finished else "budget_exhausted"] += 1
    for req in rig.fake.requests:
        if req.outcome is not None:
            result.stats[f"request_{req.outcome.kind}_via_{req.outcome.via}"] += 1


def _is_decision(frame: dict[str, Any]) -> bool:
    if frame.get("method") == "approval.respond":
        return True
    return (
        "method" not in frame and "result" in frame and str(frame.get("id", "")).startswith("srq-")
    )


def _check_arrival(
    rig: Rig, frame: dict[str, Any], by_id: dict[Any, Click], arrived: Counter[str], v: list[str]
) -> None:
    c = by_id.get(frame.get("id"))
    if c is None:
        v.append(f"a decision nobody clicked reached the gateway: {frame}")
        return
    arrived[c.key] += 1
    body = frame.get("params") if "method" in frame else frame.get("result")
    body = body if isinstance(body, dict) else {}
    if body.get("choice") != c.choice:
        v.append(f"{c.key}: clicked {c.choice!r}, wire said {body.get('choice')!r}")
    if body.get("all"):
        v.append(f"{c.key}: answered with all=true")
    target = None
    if rig.fake.dialect == "B":
        target = next((r for r in rig.fake.requests if r.srq_id == frame.get("id")), None)
    elif rig.fake.dialect == "C":
        if body.get("prompt_id") != c.prompt_id or body.get("execution_generation") != c.generation:
            v.append(f"{c.key}: frame addressed {body}, row was {c.prompt_id}@{c.generation}")
        target = next((r for r in rig.fake.requests if r.prompt_id == body.get("prompt_id")), None)
    if target is not None:
        if target.command is None or target.command.command != c.command:
            v.append(f"{c.key}: showed {c.command!r}, answered {target.command}")
        if c.choice not in target.choices:
            v.append(f"{c.key}: {c.choice!r} was not offered ({target.choices})")


def _granted(rig: Rig, key: str) -> bool:
    """Someone answered session/always for a command with pattern ``key``."""
    for req in rig.fake.requests:
        out: Outcome | None = req.outcome
        if req.command is None or out is None or not out.approved:
            continue
        if out.choice in ("session", "always") and key in req.command.pattern_keys:
            return True
    return False


def _check_executions(rig: Rig, p: Plan, v: list[str], result: Result) -> None:
    keys = {c.command: c.pattern_keys for c in p.commands}
    clicked = [c for c in rig.tap.clicks if c.sent]
    for ran in rig.executions.ran:
        e = ran.execution
        result.stats[f"ran_{e.approved_by}"] += 1
        if e.approved_by == "human":
            req, out = ran.request, ran.request.outcome if ran.request else None
            if req is None or out is None or not out.approved:
                v.append(f"{e.command!r} ran without an approval ({out})")
            elif out.via in ("rpc", "frame") and not any(
                c.command == e.command and c.choice == out.choice for c in clicked
            ):
                v.append(f"{e.command!r} ran on a {out.choice!r} nobody clicked")
            elif out.via not in ("rpc", "frame", OTHER):
                v.append(f"{e.command!r} ran after an approval via {out.via!r}")
        elif e.approved_by == "allowlisted":
            needed = keys.get(e.command, ())
            if not needed or not all(k in ran.allowed_keys and _granted(rig, k) for k in needed):
                v.append(
                    f"{e.command!r} ran allowlisted without a session/always answer for {needed}"
                )
        else:
            v.append(f"{e.command!r} ran via {e.approved_by!r} (no policy allows that here)")


def check_approved_ran(rig: Rig, v: list[str], result: Result, *, finished: bool) -> None:
    """The other direction: a command the person approved (and the gateway took) did run.

    Judged only when the turn ended on its own: an interrupt, or a command of the batch failing
    or being denied (the re-gate: later commands are asked again), legitimately stops an
    approved command from running; then a later request for it, or nothing, is expected.
    """
    requests = rig.fake.requests
    interrupted = any(q.outcome is not None and q.outcome.kind == "interrupted" for q in requests)
    if not finished or interrupted:
        return
    ran = {r.execution.command for r in rig.executions.ran}
    for index, req in enumerate(requests):
        out, command = req.outcome, req.command
        if out is None or command is None or not out.approved or out.via not in ("rpc", "frame"):
            continue
        asked_again = any(
            later.command is not None and later.command.command == command.command
            for later in requests[index + 1 :]
        )
        if command.command in ran or asked_again:
            result.stats["approved_and_ran"] += 1
        elif any(q.outcome is not None and not q.outcome.approved for q in requests[:index]):
            result.stats["approved_but_regated"] += 1  # an earlier failure dropped the answer
        else:
            v.append(f"{command.command!r} was approved by the person but never ran")

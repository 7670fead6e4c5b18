"""The wire and the clock: deliveries, the pump's writer, drops, reconnects, restarts, time.

The environment the invariant is claimed for (and enforced here): frames keep their order in
each direction (one TCP stream); no frame spends more than ``max_one_way`` simulated seconds in
flight or in the pump's queue (a round trip stays below the core's staleness margin); a drop
lets a random prefix of the already-written bytes reach the server, fails the frame being
written as "maybe sent" and everything still queued as "certainly not sent" — exactly what
``desktop.gateway.pump`` reports to the core.
"""

from __future__ import annotations

import json

from desktop.core.model import Dialect
from tests.core.frames import wire_of
from tests.safety.sim.chooser import chance
from tests.safety.sim.model import InFlight, Outgoing
from tests.safety.sim.world import SimWorld

WRITE_FAULT_PERCENT = 3


def deliver_to_core(world: SimWorld) -> None:
    item = world.to_client.popleft()
    world.core.receive_text(item.text)
    if item.answered_elsewhere:
        check_answered_elsewhere(world, item)
    world.after_input(item.approval)


def check_answered_elsewhere(world: SimWorld, item: Outgoing) -> None:
    """After a pending list omits a request another surface answered, its row is done.

    Only rows that existed when the core asked (the list's watermark) are judged.
    """
    asked_at = world.lists_asked.pop(json.loads(item.text).get("id"), None)
    if asked_at is None:
        return
    for row in world.core.approvals():
        gone = wire_of(world.core, row.key).request_id in item.answered_elsewhere
        if gone and row.answerable and row.arrived_at < asked_at:
            world.report("a row answered elsewhere is still answerable", row.key)


def deliver_to_server(world: SimWorld) -> None:
    item = world.to_server.popleft()
    world.server.receive(item)
    world.sync_server()


def write_one(world: SimWorld) -> None:
    """The pump's writer hands the oldest queued frame to the socket (or fails it)."""
    frame, attribution, queued_at = world.pump.popleft()
    # The one-way bound covers the pump's queue and the wire together: keep the queue time.
    if world.network_faults and chance(world.chooser, WRITE_FAULT_PERCENT):
        maybe = chance(world.chooser, 50)
        world.stats["write_faults"] += 1
        if maybe and chance(world.chooser, 50):
            world.to_server.append(InFlight(frame, queued_at, attribution))
        if not maybe:
            world.certainly_unsent(attribution)
        world.core.frame_failed(frame.frame_id, maybe_sent=maybe)
    else:
        world.to_server.append(InFlight(frame, queued_at, attribution))
        world.core.frame_written(frame.frame_id)
    world.after_input()


def connect(world: SimWorld) -> None:
    world.epoch += 1
    world.connected = True
    world.server.connect()
    world.sync_server()
    subprotocol = "hermes-gateway-v1" if world.dialect is Dialect.C else None
    world.core.connection_opened(world.epoch, subprotocol=subprotocol)
    world.after_input()
    world.stats["connections"] += 1


def drop(world: SimWorld) -> None:
    """The connection dies (see the module docstring for what reaches whom)."""
    arrived = world.chooser.below(len(world.to_server) + 1)
    for _ in range(arrived):
        deliver_to_server(world)
    if world.pump and chance(world.chooser, 30):
        frame, attribution, _ = world.pump.popleft()  # mid-write when the socket closed
        if chance(world.chooser, 50):
            world.server.receive(InFlight(frame, world.now, attribution))
        world.core.frame_failed(frame.frame_id, maybe_sent=True)
    world.to_server.clear()
    world.to_client.clear()
    world.server.disconnect()
    while world.pump:
        frame, attribution, _ = world.pump.popleft()
        world.certainly_unsent(attribution)
        world.core.frame_failed(frame.frame_id, maybe_sent=False)
    world.connected = False
    world.core.connection_lost()
    world.after_input()
    world.stats["drops"] += 1


def restart(world: SimWorld, keep: bool) -> None:
    if world.connected:
        drop(world)
    world.server.restart(keep)
    world.server.outbox.clear()


def _next_event(world: SimWorld) -> float | None:
    limit = world.max_one_way
    times = [
        world.to_server[0].sent_at + limit if world.to_server else None,
        world.to_client[0].sent_at + limit if world.to_client else None,
        world.pump[0][2] + limit if world.pump else None,
        world.server.next_timer(),
        world.core.next_deadline(),
    ]
    found = [t for t in times if t is not None]
    return min(found) if found else None


def advance(world: SimWorld, seconds: float) -> None:
    """Let ``seconds`` pass; whatever must happen meanwhile happens in time order."""
    target = world.now + seconds
    stalls = 0
    for _ in range(100_000):
        when = _next_event(world)
        if when is None or when > target or stalls > 50:
            break
        stalls = stalls + 1 if when <= world.now else 0
        world.now = max(world.now, when)
        _due(world)
    world.now = target
    _due(world)


def _due(world: SimWorld) -> None:
    """Everything due at ``world.now``: overdue frames move, timers fire, the core ticks."""
    limit, now = world.max_one_way, world.now
    while world.pump and world.pump[0][2] + limit <= now:
        write_one(world)
    while world.to_server and world.to_server[0].sent_at + limit <= now:
        deliver_to_server(world)
    while world.to_client and world.to_client[0].sent_at + limit <= now:
        deliver_to_core(world)
    world.server.fire_due(now)
    world.sync_server()
    deadline = world.core.next_deadline()
    if deadline is not None and deadline <= now:
        world.core.tick()
        world.after_input()
        after = world.core.next_deadline()
        if after is not None and after <= now:
            world.report("tick does not move the deadline", f"next_deadline {after} <= now {now}")

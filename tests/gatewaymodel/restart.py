"""A gateway restart: new epochs, and sessions either kept or forgotten.

Split out of the server so the rule is stated once: a restart always changes ``replay_epoch``,
``authority_epoch`` and ``instance_id`` (clients must refetch snapshots); kept sessions lose their
replay logs (old ``seq`` watermarks mean nothing in the new epoch) but keep running turns and open
requests, which come back in ``open_requests``/``prompts`` on resume; lost sessions vanish without
a word on the wire (their viewers are gone before anything is withdrawn).
"""

from __future__ import annotations

import secrets
import uuid

from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.world import World


def restart_world(world: World, *, keep_sessions: bool) -> None:
    """Apply a restart to ``world`` (connections are the server's business)."""
    world.replay_epoch = uuid.uuid4().hex
    world.authority_epoch += 1
    world.instance_id = "gw-" + secrets.token_hex(6)
    if keep_sessions:
        for session in world.sessions.values():
            session.log.clear()
        world.changed()
        return
    for session in list(world.sessions.values()):
        session.viewers.clear()
        session.closed = True
        session.interrupt.set()
        for req in world.open_requests(session):
            world.reqs.close(req, Outcome("closed", via="restart"))
        if session.turn_task is not None:
            session.turn_task.cancel()
    world.sessions.clear()
    world.changed()

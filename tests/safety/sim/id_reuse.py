"""Hostile id re-use for the reference gateways B and C (``test_hostile_ids``, at volume).

Real gateways mint a fresh ``srq-`` id or ``prompt_id`` per request, but the core must not
depend on it: an answer goes to whatever the gateway files under the id when it *arrives*. So
the campaign also re-uses ids, in the shapes where the verdict stays strict — where no answer
the core sent for the id's earlier meaning can still be on its way:

* *re-used after close* — B: an id whose request our own answer closed (its one row is
  resolved, nothing else answers that id); C: a prompt id of an earlier generation (answers
  name the generation, so they stay exact whenever they arrive);
* *replaced while open* — the open request is closed and its id filed for another command, only
  while the tray is disconnected (nothing of ours is in flight then); the core learns of it from
  the resume snapshot (``open_requests``/``prompts``).

Whatever the id meant before, the servers resolve it to the newest request filed under it
(``tests.gatewaymodel.approval_rules.newest``), as a gateway that re-uses ids would.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.safety.sim.agent import COMMANDS, Action, AgentServer
from tests.safety.sim.chooser import pick
from tests.safety.sim.model import RefSession, ServerApproval

Publish = Callable[[RefSession, str, ServerApproval], ServerApproval]


def actions(
    server: AgentServer,
    session: RefSession,
    *,
    ident: Callable[[ServerApproval], str],
    reusable: Callable[[ServerApproval], bool],
    publish: Publish,
) -> list[Action]:
    """The re-use actions possible now on ``session``.

    ``ident`` reads the id a request is answered by, ``reusable`` says whether a closed request
    that is its id's current meaning may lend it, ``publish(session, command, old)`` publishes
    under ``old``'s id.
    """
    out: list[Action] = []
    meaning = {ident(a): a for a in server.approvals}  # each id's newest request
    lenders = [a for a in meaning.values() if a.session is session and not a.open and reusable(a)]
    if lenders:
        old = pick(server.chooser, lenders)
        out.append(("re-use a closed id", 1, lambda: _reuse(server, session, old, publish)))
    if not server.connected and session.open_approvals():
        victim = pick(server.chooser, session.open_approvals())
        out.append(("replace an open request", 2, lambda: _replace(server, victim, publish)))
    return out


def _reuse(server: AgentServer, session: RefSession, old: ServerApproval, publish: Publish) -> None:
    command = pick(server.chooser, [c for c in COMMANDS if c != old.command])
    server.reused.add(publish(session, command, old).ident)
    server.stats["ids_reused"] += 1


def _replace(server: AgentServer, old: ServerApproval, publish: Publish) -> None:
    server.close(old, "replaced", "replaced")
    _reuse(server, old.session, old, publish)
    server.stats["ids_replaced"] += 1

"""Deny means deny: the tray denies Hermes' re-asks of a command the person just denied. Qt-free.

After a deny, Hermes asks again about the batch's other commands within a tenth of a second
(iot ``batch3_reask`` transcripts), each with an Approve button for a command just refused; a
re-ask of an approved command is asked as usual.
"""

from __future__ import annotations

from collections import OrderedDict

from desktop.core.decisions import refusal
from desktop.core.model import Approval, Choice

MAX_REMEMBERED = 2000

_Key = tuple[str, str]  # (gateway_id, approval key)
_Turn = tuple[str, str, str, str]  # (gateway_id, session_id, batch_id, command)


class DenyMemory:
    def __init__(self, limit: int = MAX_REMEMBERED) -> None:
        self._limit = limit
        self._keys: OrderedDict[_Key, str] = OrderedDict()  # -> the denied command
        self._turns: OrderedDict[_Turn, None] = OrderedDict()

    def denied(self, gateway_id: str, approval: Approval) -> None:
        """The person (or this guard) denied ``approval``."""
        self._keys[(gateway_id, approval.key)] = approval.command
        self._keys.move_to_end((gateway_id, approval.key))
        turn = (gateway_id, approval.session_id, approval.batch_id, approval.command)
        self._turns[turn] = None
        self._turns.move_to_end(turn)
        while len(self._keys) > self._limit:
            self._keys.popitem(last=False)
        while len(self._turns) > self._limit:
            self._turns.popitem(last=False)

    def is_reask_of_denied(self, gateway_id: str, approval: Approval) -> bool:
        """Whether ``approval`` asks again about a command denied in its turn, and may be denied."""
        if refusal(approval, Choice.DENY) is not None:
            return False
        if (gateway_id, approval.key) in self._keys:
            return False  # the denied row itself, re-delivered: the core already has its answer
        for earlier in (approval.asked_because.earlier_key, approval.reask_of):
            if earlier and self._keys.get((gateway_id, earlier)) == approval.command:
                return True
        turn = (gateway_id, approval.session_id, approval.batch_id, approval.command)
        return turn in self._turns

    def forget_gateway(self, gateway_id: str) -> None:
        """A removed gateway's keys restart with its next client."""
        for key in [k for k in self._keys if k[0] == gateway_id]:
            del self._keys[key]
        for turn in [t for t in self._turns if t[0] == gateway_id]:
            del self._turns[turn]

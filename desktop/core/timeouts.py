"""How long the server waits on an approval, as far as the core knows — and why it errs short.

Why this matters (0.19.0, FIFO rows): ``approval.respond`` carries no id; Hermes resolves
whatever command is the session's *oldest* pending approval when the answer arrives. When
Hermes' own ``approvals.timeout`` ends a wait it says nothing for the card (the blocked
``tool.complete`` comes later), and the agent may queue its next command within milliseconds
(the next terminal call of the same message needs no model round trip). An answer meant for
the timed-out command that lands after that resolves the *next* one: a command nobody saw
would run. So a FIFO row carries ``expires_at = arrived_at + T``; the core stops sending at
``expires_at - staleness_margin`` and ends the row EXPIRED at ``expires_at``. Because
``arrived_at`` is after Hermes started counting, the local deadline is later than Hermes' by
the frame's delivery time, which the margin (seconds, against a loopback delivery of
milliseconds) covers together with the way back (click → frame → Hermes).

That argument holds only while ``T`` is not *longer* than Hermes' real timeout. Too long is
dangerous (an answer may land after Hermes gave up); too short only costs convenience (the row
expires while Hermes still waits, and the person answers in Hermes itself). Hence the rules:

1. Until the gateway layer learns the real value, ``T`` is the dialect's default
   (``CoreSettings.a_approval_timeout`` = 60 s, Hermes 0.19.0's own default; B/C and 0.20:
   300 s, which on B only drives the countdown — B rows end by ``request.cancel`` reason
   ``timeout``; a 0.20 answer by id that lands late resolves nothing, so erring long is safe).
2. The learned value (``desktop.gateway.approval_timeout`` reads the same config.yaml Hermes
   reads; a per-gateway configured value can only lower it) re-times every open row counted
   from the *assumed* default, longer or shorter: it is read right after the handshake from
   the file Hermes read when it started those waits.
3. A later, different learned value (the person edited config.yaml) re-times rows already
   counted from a learned value only when it is *shorter*: Hermes read ``approvals.timeout``
   when it started each wait, maybe before the edit, so lengthening could overshoot;
   shortening never does. Rows that arrive afterwards count from the new value.
4. The learned value is forgotten when the connection ends: the next server (maybe another
   build, maybe restarted with another config) must be learned again.
5. A row whose assumed deadline passed ends EXPIRED — not STALE-but-re-confirmable — even
   though Hermes may still be waiting. A STALE row can be answered after a confirmation; a
   confirmed answer past Hermes' real deadline goes to whatever is the head by then. With the
   timeout unknown, 60 s is Hermes' default and so the likeliest real value; at that moment
   Hermes has most likely just given up, the next command may already be (or within
   milliseconds become) the head, and the only sign of the give-up (``tool.complete``) may
   still be on its way. Nothing on 0.19.0's wire (no id, no pending snapshot) can confirm that
   a given command is still the head, so a re-confirm would have the person vouch for what
   they cannot see. The outcome's reason says the timeout was assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from desktop.core.settings import CoreSettings
from desktop.core.wire import RowKind


@dataclass(slots=True)
class ApprovalTimeouts:
    """The assumed defaults per row kind, plus the value learned on this connection."""

    settings: CoreSettings
    learned: float | None = None

    def for_new_row(self, kind: RowKind) -> tuple[float, float | None]:
        """``(seconds, basis)`` for a row arriving now; ``basis`` is None when assumed."""
        if self.learned is not None:
            return self.learned, self.learned
        if kind is RowKind.FIFO:
            return self.settings.a_approval_timeout, None
        if kind in (RowKind.SERVER_REQUEST, RowKind.BY_ID):  # 0.20 waits 300 s by default too
            return self.settings.b_approval_timeout, None
        return self.settings.c_approval_timeout, None

    def learn(self, seconds: float) -> None:
        """Take ``seconds`` as the server's timeout. Raises ValueError unless finite, >= 0."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"an approval timeout must be finite and >= 0, not {seconds!r}")
        self.learned = float(seconds)

    def forget(self) -> None:
        """The connection ended: back to the assumed defaults (rule 4)."""
        self.learned = None


def may_retime(basis: float | None, seconds: float) -> bool:
    """Whether a row counted from ``basis`` may be re-timed to ``seconds`` (rules 2 and 3)."""
    return basis is None or seconds < basis

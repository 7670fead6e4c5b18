"""Which native notifications to raise, and with which words and actions. Pure and Qt-free.

Why a policy object apart from the sender (design.md example 8, after Syncthing Tray's notifier):
the rules that keep notifications useful are all about *time and identity*, and they must be
tested without a bus or a loop:

* one notification per new **batch**, not per command — commands of a batch arrive a few
  milliseconds apart, so a batch is announced ``coalesce`` seconds after its last arrival;
* deduplicated by ``(gateway, batch)`` and by approval key, so rows re-delivered after a
  reconnect are never "new";
* quiet for ``quiet_after_start`` seconds after start and ``quiet_after_reconnect`` after a
  gateway (re)connects; when the quiet ends, ONE notification covers whatever waits;
* Approve is offered only for a single-command batch whose command is shown, when the setting
  allows and the core says that exact approval can be answered with ``once``;
* command text can be kept out of notifications entirely (``show_commands``).

Time is a parameter (``now``); the Qt side calls :meth:`NotifyPolicy.due` at
:meth:`NotifyPolicy.next_deadline`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from desktop.core.model import Approval, ApprovalPhase, Choice
from desktop.ui.plain_text import notification_text

BODY_COMMANDS = 3  # commands listed in a multi-command body


@dataclass(frozen=True, slots=True)
class NotifySettings:
    enabled: bool = True
    approve_from_notification: bool = True
    show_commands: bool = True
    quiet_after_start: float = 5.0
    quiet_after_reconnect: float = 5.0
    coalesce: float = 0.4


class ActionKind(enum.Enum):
    APPROVE = "approve"  # Choice.ONCE for exactly the one key shown
    DENY = "deny"  # Choice.DENY for each key shown
    REVIEW = "review"  # open the dialog on the batch


@dataclass(frozen=True, slots=True)
class NotifyAction:
    kind: ActionKind
    label: str
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NotificationPlan:
    """One notification to show. ``batch_id == ""`` marks a summary of several batches."""

    gateway_id: str
    batch_id: str
    title: str
    body: str
    actions: tuple[NotifyAction, ...]
    keys: tuple[str, ...] = ()  # every approval the notification speaks about

    def action(self, kind: ActionKind) -> NotifyAction | None:
        return next((a for a in self.actions if a.kind is kind), None)


@dataclass(slots=True)
class _Batch:
    gateway_id: str
    batch_id: str
    session_title: str
    last_arrival: float
    approvals: dict[str, Approval] = field(default_factory=dict)


BatchRef = tuple[str, str]  # (gateway_id, batch_id)


class NotifyPolicy:
    """Feed it approval arrivals and changes; ask it what to show (see module docstring)."""

    def __init__(self, settings: NotifySettings, *, started_at: float) -> None:
        self.settings = settings
        self._quiet_start_until = started_at + settings.quiet_after_start
        self._quiet_until: dict[str, float] = {}  # gateway_id -> end of reconnect quiet
        self._pending: dict[BatchRef, _Batch] = {}  # seen, open, not yet announced
        self._open: dict[BatchRef, set[str]] = {}  # announced batches -> keys still open
        self._announced: set[BatchRef] = set()
        self._seen_keys: set[tuple[str, str]] = set()

    # -- input -------------------------------------------------------------------------------
    def approval_requested(
        self, gateway_id: str, approval: Approval, session_title: str, now: float
    ) -> None:
        """A row appeared. Re-delivered keys and rows of announced batches are not news."""
        ident = (gateway_id, approval.key)
        ref = (gateway_id, approval.batch_id)
        if ident in self._seen_keys or approval.phase is ApprovalPhase.RESOLVED:
            return
        self._seen_keys.add(ident)
        if ref in self._announced:
            self._open.setdefault(ref, set()).add(approval.key)
            return
        batch = self._pending.setdefault(
            ref, _Batch(gateway_id, approval.batch_id, session_title, now)
        )
        batch.last_arrival = now
        batch.approvals[approval.key] = approval

    def approval_changed(self, gateway_id: str, approval: Approval) -> list[BatchRef]:
        """A row changed. Returns announced batches whose last open row just closed."""
        ref = (gateway_id, approval.batch_id)
        batch = self._pending.get(ref)
        if batch is not None and approval.key in batch.approvals:
            if approval.phase is ApprovalPhase.RESOLVED:
                del batch.approvals[approval.key]
                if not batch.approvals:
                    del self._pending[ref]
            else:
                batch.approvals[approval.key] = approval
        keys = self._open.get(ref)
        if keys is not None and approval.phase is ApprovalPhase.RESOLVED:
            keys.discard(approval.key)
            if not keys:
                del self._open[ref]
                return [ref]
        return []

    def gateway_connected(self, gateway_id: str, now: float) -> None:
        """A (re)connection: re-deliveries follow, so hold this gateway's news for a while."""
        self._quiet_until[gateway_id] = now + self.settings.quiet_after_reconnect

    # -- output ------------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        """When :meth:`due` may next have something to say, or None when nothing is pending."""
        times = [
            max(
                b.last_arrival + self.settings.coalesce,
                self._quiet_for(b.gateway_id),
                self._quiet_start_until,
            )
            for b in self._pending.values()
        ]
        return min(times) if times else None

    def due(self, now: float) -> list[NotificationPlan]:
        """What to show at ``now``. Each batch is announced at most once."""
        if not self.settings.enabled:
            self._pending.clear()
            return []
        if now < self._quiet_start_until:
            return []
        ready = [
            b
            for b in self._pending.values()
            if now >= b.last_arrival + self.settings.coalesce
            and now >= self._quiet_for(b.gateway_id)
        ]
        if not ready:
            return []
        for b in ready:
            ref = (b.gateway_id, b.batch_id)
            del self._pending[ref]
            self._announced.add(ref)
            self._open[ref] = set(b.approvals)
        if len(ready) == 1:
            return [self._batch_plan(ready[0])]
        return [self._summary_plan(ready)]

    def _quiet_for(self, gateway_id: str) -> float:
        return self._quiet_until.get(gateway_id, 0.0)

    # -- wording -----------------------------------------------------------------------------
    def _batch_plan(self, batch: _Batch) -> NotificationPlan:
        rows = list(batch.approvals.values())
        keys = tuple(a.key for a in rows)
        show = self.settings.show_commands
        title = notification_text(f"Approval needed — {batch.session_title}", 120)
        if len(rows) == 1:
            body = (
                notification_text(rows[0].command, 300)
                if show
                else "A command waits for your decision."
            )
        else:
            body = f"{len(rows)} commands wait for your decision."
            if show:
                listed = [f"• {notification_text(a.command, 100)}" for a in rows[:BODY_COMMANDS]]
                more = len(rows) - BODY_COMMANDS
                body += "\n" + "\n".join(listed) + (f"\n… and {more} more" if more > 0 else "")
        actions: list[NotifyAction] = []
        only = rows[0] if len(rows) == 1 else None
        if (
            only is not None
            and show
            and self.settings.approve_from_notification
            and only.phase is ApprovalPhase.WAITING
            and only.answerable
            and Choice.ONCE in only.choices
        ):
            actions.append(NotifyAction(ActionKind.APPROVE, "Approve", (only.key,)))
        deniable = tuple(a.key for a in rows if Choice.DENY in a.choices)
        if deniable:
            actions.append(
                NotifyAction(ActionKind.DENY, "Deny" if len(rows) == 1 else "Deny all", deniable)
            )
        actions.append(NotifyAction(ActionKind.REVIEW, "Review", keys))
        return NotificationPlan(batch.gateway_id, batch.batch_id, title, body, tuple(actions), keys)

    def _summary_plan(self, batches: list[_Batch]) -> NotificationPlan:
        count = sum(len(b.approvals) for b in batches)
        sessions = list(dict.fromkeys(b.session_title for b in batches))
        names = ", ".join(notification_text(t, 40) for t in sessions[:BODY_COMMANDS])
        if len(sessions) > BODY_COMMANDS:
            names += f" and {len(sessions) - BODY_COMMANDS} more"
        keys = tuple(k for b in batches for k in b.approvals)
        gateway_id = batches[0].gateway_id if len({b.gateway_id for b in batches}) == 1 else ""
        return NotificationPlan(
            gateway_id,
            "",
            f"{count} approvals waiting",
            f"In {len(sessions)} session{'s' if len(sessions) != 1 else ''}: {names}",
            (NotifyAction(ActionKind.REVIEW, "Review", keys),),
            keys,
        )

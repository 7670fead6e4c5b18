"""Which notifications to raise, update, escalate and withdraw, with which words. Qt-free.

The rules that keep bubbles useful are about time and identity (design.md example 8), so time
is a parameter and they are tested without a bus or a loop. Bodies are plain text.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from desktop.core.decisions import refusal
from desktop.core.model import OPEN_ACTIONS, Action, Approval, Choice, OutcomeKind
from desktop.model.plain_text import markup_safe, shown

BODY_COMMANDS = 3  # commands listed in a multi-command body
BODY_LIMIT = 300  # characters of one command in a single-command body
APPROVE_MAX_CHARS = 200  # longer commands wrap or get cut by some servers: Review only
MAX_SPACE_RUN = 3  # a longer run of spaces can push the rest of a line out of sight

BatchRef = tuple[str, str]  # (gateway_id, batch_id)
HighRisk = Callable[[str, str], bool]  # (command, cwd) -> high risk, or not readable in full


def never_high_risk(command: str, cwd: str) -> bool:
    return False


def app_high_risk(command: str, cwd: str) -> bool:
    """The risk lens calls it high or cannot read it in full (imported late: tree-sitter)."""
    from desktop.risk import RiskLevel, assess

    verdict = assess(command, cwd)
    return verdict.level is RiskLevel.HIGH or verdict.opaque


def shows_in_full(command: str) -> bool:
    """A body shows ``command`` whole and exactly (``isprintable``: no breaks, bidi, ...)."""
    return (
        0 < len(command) <= APPROVE_MAX_CHARS
        and command.isprintable()
        and command == command.strip()
        and " " * (MAX_SPACE_RUN + 1) not in command
        and shown(command, BODY_LIMIT) == command
    )


@dataclass(frozen=True, slots=True)
class NotifySettings:
    approve_from_notification: bool = True
    show_commands: bool = True
    quiet_after_start: float = 5.0
    quiet_after_reconnect: float = 5.0
    coalesce: float = 0.4
    escalate_before: float = 30.0  # seconds before Hermes stops waiting; 0 = never
    escalate_when_quiet: bool = True  # the escalation is critical: shown through do-not-disturb
    after_dialog: float = 3.0  # the dialog closed or lost focus: what it held is announced then


class ActionKind(enum.Enum):
    APPROVE = "approve"  # Choice.ONCE for exactly the one key shown
    DENY = "deny"  # Choice.DENY for each key shown
    DENY_STOP = "deny-stop"  # Choice.DENY for each key shown, then interrupt the session
    REVIEW = "review"  # open the dialog on the batch


@dataclass(frozen=True, slots=True)
class NotifyAction:
    kind: ActionKind
    label: str
    keys: tuple[str, ...] = ()


# Buttons a server shows at most: gnome-shell drops the rest silently; Plasma 5.27 wraps four,
# leaving Approve alone where a summary's Review is (try_plasma.sh). Others show what they get.
BUTTON_LIMITS = {"gnome-shell": 3, "Plasma": 3}
# gnome-shell files a ``resident`` notification from the focused app in its list without a
# banner (notificationDaemon.js): with the tray's own window focused no approval was seen.
NOT_RESIDENT = ("gnome-shell",)
# Dropped first when buttons must go: the dialog offers each too; Review (the way in) stays.
DROPPED_FIRST = (ActionKind.DENY_STOP, ActionKind.APPROVE, ActionKind.DENY)


def fit_buttons(actions: tuple[NotifyAction, ...], server: str) -> tuple[NotifyAction, ...]:
    limit = BUTTON_LIMITS.get(server)
    kept = list(actions)
    for kind in DROPPED_FIRST:
        if limit is None or len(kept) <= limit:
            break
        kept = [a for a in kept if a.kind is not kind]
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class NotificationPlan:
    """One notification to show; ``batch_id == ""`` marks a summary of several batches."""

    gateway_id: str
    batch_id: str
    title: str
    body: str
    actions: tuple[NotifyAction, ...]
    keys: tuple[str, ...] = ()  # every approval the notification speaks about
    session_id: str = ""
    urgent: bool = False  # the deadline is near: shown again, worded as such
    update: bool = False  # replaces the batch's notification in place (no new bubble)
    critical: bool = False  # critical urgency: servers show it through do-not-disturb

    @property
    def ref(self) -> tuple[str, str]:
        return SUMMARY_REF if not self.batch_id else (self.gateway_id, self.batch_id)

    def action(self, kind: ActionKind) -> NotifyAction | None:
        return next((a for a in self.actions if a.kind is kind), None)


@dataclass(slots=True)
class BlockedNotice:
    """Rows of one session that expired: Hermes denied them because nobody answered."""

    gateway_id: str
    session_id: str
    session_title: str
    commands: list[str] = field(default_factory=list)
    batches: set[BatchRef] = field(default_factory=set)  # the batches its rows were in
    at: float = 0.0  # the last expiry it heard of
    title: ClassVar[str] = "Blocked — nobody answered in time"

    @property
    def body(self) -> str:
        head = f"{shown(self.session_title, 60)}: Hermes did not run"
        return "\n".join([head, *_listed(self.commands)])

    @property
    def asked_again(self) -> str:
        """The notice as the first line of the bubble of Hermes' re-ask in the same batch."""
        n = len(self.commands)
        return f"Nobody answered in time: {n} command{'s' if n != 1 else ''} did not run."


def _listed(commands: Sequence[str]) -> list[str]:
    lines = [f"• {shown(c, 100)}" for c in commands[:BODY_COMMANDS]]
    if len(commands) > BODY_COMMANDS:
        lines.append(f"… and {len(commands) - BODY_COMMANDS} more")
    return lines


@dataclass(slots=True)
class _Batch:
    gateway_id: str
    batch_id: str
    session_title: str
    session_id: str
    last_arrival: float
    keys: dict[str, None] = field(default_factory=dict)  # its rows' keys, arrival order
    dirty: bool = False  # announced, and changed since it was last shown
    escalated: bool = False
    blocked: str = ""  # the "Blocked" notice it carries as its first line (a re-ask)

    @property
    def ref(self) -> tuple[str, str]:
        return (self.gateway_id, self.batch_id)


SUMMARY_REF: BatchRef = ("", "")
BatchShown = Callable[[str, str], bool]  # (gateway_id, batch_id) -> the dialog shows it


class NotifyPolicy:
    """Batches keep keys and read rows from the store, so a bubble says what the tray shows."""

    def __init__(
        self,
        settings: NotifySettings,
        *,
        started_at: float,
        rows: Callable[[str, str], Approval | None],  # (gateway_id, key) -> the store's open row
        high_risk: HighRisk = never_high_risk,
    ) -> None:
        self.settings = settings
        self._rows = rows
        self._high_risk = high_risk
        self._started_at = started_at  # the quiet after it is read from the settings of now
        self._quiet_until: dict[str, float] = {}  # gateway_id -> end of reconnect quiet
        self._pending: dict[BatchRef, _Batch] = {}  # seen, open, not yet announced
        self._announced: dict[BatchRef, _Batch] = {}  # announced, some row still known
        self._seen_keys: set[tuple[str, str]] = set()
        self._summary: dict[BatchRef, None] = {}  # batches the summary speaks for, in order
        self._summary_dirty = False
        self._blocked: dict[tuple[str, str], BlockedNotice] = {}  # by (gateway, session)
        self._withdrawn: list[BatchRef] = []  # bubbles to close, found while deciding plans
        self._last_change = 0.0
        self.holding = False  # do-not-disturb is on: new bubbles are held
        self._release_at = 0.0  # do-not-disturb went off: what it held goes out together then
        self._dialog_attention = False  # the approval dialog is shown and active
        self._introductions: dict[str, str] = {}  # gateway_id -> first line of its first bubble
        self._dialog_shows: BatchShown = lambda gateway_id, batch_id: False

    def approval_requested(
        self, gateway_id: str, approval: Approval, session_title: str, now: float
    ) -> None:
        """A row appeared. Re-delivered keys are not news; rows of announced batches update."""
        ident = (gateway_id, approval.key)
        ref = (gateway_id, approval.batch_id)
        if ident in self._seen_keys or approval.action is Action.DONE:
            return
        self._seen_keys.add(ident)
        announced = self._announced.get(ref)
        if announced is not None:
            announced.keys[approval.key] = None
            self._touch(announced, now)
            return
        batch = self._pending.setdefault(
            ref, _Batch(gateway_id, approval.batch_id, session_title, approval.session_id, now)
        )
        batch.last_arrival = now
        batch.keys[approval.key] = None

    def approval_changed(
        self, gateway_id: str, approval: Approval, now: float | None = None, session_title: str = ""
    ) -> list[BatchRef]:
        """A row changed. Returns notifications to withdraw (their last open row closed)."""
        ref = (gateway_id, approval.batch_id)
        at = self._last_change if now is None else now
        resolved = approval.action is Action.DONE
        batch = self._pending.get(ref)
        closed = approval.action not in OPEN_ACTIONS
        if batch is not None and closed and approval.key in batch.keys:
            # answered (or expired, held) before it was announced
            if resolved:
                self._note_expired(gateway_id, batch.session_title, approval, at)
            del batch.keys[approval.key]
            if not batch.keys:
                del self._pending[ref]
        announced = self._announced.get(ref)
        withdraw: list[BatchRef] = []
        if announced is not None and approval.key in announced.keys:
            if resolved:
                self._note_expired(gateway_id, announced.session_title, approval, at)
                del announced.keys[approval.key]
            if not self._open_rows(announced):  # answered (maybe still sending) or gone
                withdraw += self._unannounce(announced)
            else:
                self._touch(announced, at)
        elif resolved and batch is None:
            self._note_expired(gateway_id, session_title or approval.session_id, approval, at)
        return withdraw

    def gateway_connected(self, gateway_id: str, now: float) -> None:
        """A (re)connection: re-deliveries follow, so hold this gateway's news for a while."""
        self._quiet_until[gateway_id] = now + self.settings.quiet_after_reconnect

    def set_do_not_disturb(self, on: bool) -> None:
        """The desktop's do-not-disturb switch, as read (not known counts as off)."""
        if self.holding and not on:  # a batch still coalescing joins the others
            ends = [self._settled(b) for b in self._pending.values()]
            self._release_at = max(ends, default=0.0)
        self.holding = on

    def dialog_changed(self, attention: bool, shows: BatchShown, now: float) -> list[BatchRef]:
        """The dialog gained (bubbles of what it ``shows`` withdrawn, returned) or lost focus."""
        was, self._dialog_attention, self._dialog_shows = self._dialog_attention, attention, shows
        if not attention:
            if was:
                for b in self._pending.values():
                    if shows(b.gateway_id, b.batch_id):
                        later = now + self.settings.after_dialog - self.settings.coalesce
                        b.last_arrival = max(b.last_arrival, later)
            return []
        withdraw: list[BatchRef] = []
        for b in list(self._announced.values()):
            if shows(b.gateway_id, b.batch_id):
                withdraw += self._unannounce(b)
                b.dirty = False
                self._pending[b.ref] = b
        return withdraw

    def introduce(self, gateway_id: str, line: str) -> None:
        """The first approval bubble about ``gateway_id`` begins with ``line`` (the demo's)."""
        self._introductions[gateway_id] = line

    def take_withdrawn(self) -> list[BatchRef]:
        """Bubbles :meth:`due` replaced (single batches folded into the summary)."""
        refs, self._withdrawn = self._withdrawn, []
        return refs

    def take_blocked(self, now: float) -> list[BlockedNotice]:
        """Notices of expired rows due at ``now``, one per session (not while a re-ask fills)."""
        notices = []
        for ident, blocked in list(self._blocked.items()):
            if now < self._blocked_time(blocked):
                continue
            del self._blocked[ident]
            if not all(self._held_by_dialog(r) for r in blocked.batches):
                notices.append(blocked)
        return notices

    def _blocked_time(self, blocked: BlockedNotice) -> float:
        filling = [
            self._settled(b) for r in blocked.batches if (b := self._pending.get(r)) is not None
        ]
        return max([blocked.at + self.settings.coalesce, *filling])

    def _settled(self, batch: _Batch) -> float:
        return batch.last_arrival + self.settings.coalesce

    def _held_by_dialog(self, ref: BatchRef) -> bool:
        return self._dialog_attention and self._dialog_shows(*ref)

    def _unannounce(self, batch: _Batch) -> list[BatchRef]:
        """``batch`` no longer has a bubble: returns what to withdraw (its own, or the summary)."""
        del self._announced[batch.ref]
        if batch.ref not in self._summary:
            return [batch.ref]
        del self._summary[batch.ref]
        if self._summary:
            self._summary_dirty = True
            return []
        self._summary_dirty = False
        return [SUMMARY_REF]

    def _open_rows(self, batch: _Batch) -> list[Approval]:
        """The batch's rows still needing a person, as the store holds them now."""
        found = (self._rows(batch.gateway_id, key) for key in batch.keys)
        return [a for a in found if a is not None and a.action in OPEN_ACTIONS]

    def _touch(self, batch: _Batch, now: float) -> None:
        batch.last_arrival = now
        if batch.ref in self._summary:
            self._summary_dirty = True
        else:
            batch.dirty = True
        self._last_change = now

    def _note_expired(self, gateway_id: str, title: str, approval: Approval, now: float) -> None:
        outcome = approval.outcome
        if outcome is None or outcome.kind is not OutcomeKind.EXPIRED:
            return
        fresh = BlockedNotice(gateway_id, approval.session_id, title)
        known = self._blocked.setdefault((gateway_id, approval.session_id), fresh)
        known.commands.append(approval.command)
        known.batches.add((gateway_id, approval.batch_id))
        known.at = max(known.at, now)

    def _carry_blocked(self, batch: _Batch) -> None:
        """Hermes asks again in a batch whose rows were just blocked: one bubble says both."""
        for ident, blocked in list(self._blocked.items()):
            if batch.ref in blocked.batches:
                del self._blocked[ident]
                batch.blocked = blocked.asked_again

    def next_deadline(self) -> float | None:
        """When :meth:`due` may next have something to say, or None when nothing is pending."""
        times = [at for b in self._pending.values() if (at := self._ready_at(b)) is not None]
        for b in self._announced.values():
            if b.dirty:
                times.append(self._settled(b))
            if (at := self._escalation_time(b)) is not None:
                times.append(at)
        if self._summary_dirty:
            times.append(self._last_change + self.settings.coalesce)
        times += [self._blocked_time(b) for b in self._blocked.values()]
        return min(times) if times else None

    def due(self, now: float) -> list[NotificationPlan]:
        """What to show at ``now``; bubbles it makes redundant go to :meth:`take_withdrawn`."""
        plans: list[NotificationPlan] = []
        summary_escalates = False
        for b in list(self._announced.values()):
            escalation = self._escalation_time(b)
            if escalation is not None and now >= escalation:
                b.escalated = True
                b.dirty = False
                if b.ref in self._summary:
                    summary_escalates = True
                else:
                    plans.append(self._batch_plan(b, urgent=True, update=False))
            elif b.dirty and now >= self._settled(b):
                b.dirty = False
                plans.append(self._batch_plan(b, urgent=b.escalated, update=True))
        ready = self._ready(now)
        for b in ready:
            del self._pending[b.ref]
            self._carry_blocked(b)
            at = self._escalation_time(b)  # held into its last seconds: say so at once
            b.escalated = b.escalated or (at is not None and now >= at)
        if len(ready) == 1 and not self._announced:
            self._announced[ready[0].ref] = ready[0]
            return [*plans, self._batch_plan(ready[0], urgent=ready[0].escalated)]
        if ready:  # one bubble for every announced batch: the singles fold into the summary
            for b in self._announced.values():
                if b.ref not in self._summary:
                    self._withdrawn.append(b.ref)
                    plans = [p for p in plans if p.ref != b.ref]
            for b in ready:
                self._announced[b.ref] = b
            for b in self._announced.values():
                b.dirty = False
                self._summary[b.ref] = None
            summary_escalates = True  # news: a new bubble, not an update
        members = [self._announced[r] for r in self._summary]  # the summary's are announced
        if summary_escalates and members:
            self._summary_dirty = False
            plans.append(self._summary_plan(members, update=False))
        elif self._summary_dirty and now >= self._last_change + self.settings.coalesce:
            self._summary_dirty = False
            if members:
                plans.append(self._summary_plan(members, update=True))
        return plans

    def _ready(self, now: float) -> list[_Batch]:
        return [
            b
            for b in self._pending.values()
            if (at := self._ready_at(b)) is not None and now >= at and self._open_rows(b)
        ]

    def _ready_at(self, batch: _Batch) -> float | None:
        """When a pending batch may go out (None: the dialog shows it, or held, not escalating)."""
        if self._held_by_dialog(batch.ref):
            return None
        quiet_start_until = self._started_at + self.settings.quiet_after_start
        at = max(self._settled(batch), quiet_start_until, self._release_at)
        if not self.holding:
            return max(at, self._quiet_until.get(batch.gateway_id, 0.0))
        escalation = self._escalation_time(batch)
        return None if escalation is None else max(at, escalation)

    def _escalation_time(self, batch: _Batch) -> float | None:
        before = self.settings.escalate_before
        quiet = self.holding and not self.settings.escalate_when_quiet
        if batch.escalated or before <= 0 or quiet:
            return None
        expiries = [a.expires_at for a in self._open_rows(batch) if a.expires_at is not None]
        return min(expiries) - before if expiries else None

    def approvable(self, approval: Approval) -> bool:
        return (
            self.settings.show_commands
            and self.settings.approve_from_notification
            and refusal(approval, Choice.ONCE) is None
            and shows_in_full(approval.command)
            and not self._high_risk(approval.command, approval.context.cwd)
        )

    def _batch_plan(
        self, batch: _Batch, *, urgent: bool = False, update: bool = False
    ) -> NotificationPlan:
        rows = self._open_rows(batch)
        keys = tuple(a.key for a in rows)
        show = self.settings.show_commands
        head = "Answer soon" if urgent else "Approval needed"
        # titles are plain text by the spec; look-alikes protect a server that parses them anyway
        title = markup_safe(f"{head} — {batch.session_title}", 120)
        if len(rows) == 1:
            body = (
                shown(rows[0].command, BODY_LIMIT) if show else "A command waits for your decision."
            )
        else:
            listed = _listed([a.command for a in rows]) if show else []
            body = "\n".join([f"{len(rows)} commands wait for your decision.", *listed])
        actions: list[NotifyAction] = []
        if len(rows) == 1 and self.approvable(rows[0]):
            actions.append(NotifyAction(ActionKind.APPROVE, "Approve", (rows[0].key,)))
        deniable = tuple(a.key for a in rows if refusal(a, Choice.DENY) is None)
        if deniable:
            actions.append(
                NotifyAction(ActionKind.DENY, "Deny" if len(rows) == 1 else "Deny all", deniable)
            )
            actions.append(NotifyAction(ActionKind.DENY_STOP, "Deny and stop the agent", deniable))
        actions.append(NotifyAction(ActionKind.REVIEW, "Review", keys))
        return self._plan([batch], batch, title, body, tuple(actions), urgent, update)

    def _summary_plan(self, batches: list[_Batch], *, update: bool) -> NotificationPlan:
        """One bubble for several batches: the count of every row they wait on, Review only."""
        count = sum(len(self._open_rows(b)) for b in batches)
        urgent = any(b.escalated for b in batches)
        sessions = len({(b.gateway_id, b.session_id) for b in batches})  # titles may repeat
        titles = list(dict.fromkeys(b.session_title for b in batches))
        names = ", ".join(markup_safe(t, 40) for t in titles[:BODY_COMMANDS])
        if len(titles) > BODY_COMMANDS:
            names += f" and {len(titles) - BODY_COMMANDS} more"
        keys = tuple(a.key for b in batches for a in self._open_rows(b))
        title = f"{count} approval{'s' if count != 1 else ''} waiting"
        body = f"In {sessions} session{'s' if sessions != 1 else ''}: {names}"
        review = (NotifyAction(ActionKind.REVIEW, "Review", keys),)
        title = f"Answer soon — {title}" if urgent else title
        return self._plan(batches, None, title, body, review, urgent, update)

    def _plan(
        self,
        batches: list[_Batch],
        one: _Batch | None,
        title: str,
        body: str,
        actions: tuple[NotifyAction, ...],
        urgent: bool,
        update: bool,
    ) -> NotificationPlan:
        gateways = list(dict.fromkeys(b.gateway_id for b in batches))
        firsts = [] if update else [self._introductions.pop(g, "") for g in gateways]
        firsts += [b.blocked for b in batches if b.blocked][:1]
        if urgent:
            left = int(self.settings.escalate_before)
            firsts.append(f"Hermes stops waiting in about {left} s; unanswered, nothing runs.")
        return NotificationPlan(
            gateways[0] if len(gateways) == 1 else "",
            one.batch_id if one else "",
            title,
            "\n".join([*filter(None, firsts), body]),
            actions,
            actions[-1].keys,  # Review's: every row the bubble speaks about
            one.session_id if one else "",
            urgent=urgent,
            update=update,
            critical=urgent and self.settings.escalate_when_quiet,
        )

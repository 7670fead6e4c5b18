"""What a change of settings means for the running app, as pure functions. Qt-free.

Why pure: "which gateways must be restarted" and "which notification rules apply now" decide
whether a person's pending approvals survive a Settings → OK. Those rules are tested with plain
values; ``settings_controller`` only carries them out.

* A gateway is **added** or **removed** by id. It is **changed** (its client restarted) only
  when something the connection uses changed: name, kind, URL, token reference, insecure flag
  or extra keys. A new token under the same reference needs no restart: the client reads the
  token from the store at every dial, so a reconnect picks it up.
* The built-in demo kind is never started from settings (the app decides when the demo runs).
* The notification policy applies at once; ``quiet_after_start_s`` only matters at start.
* The staleness margin lives in each client's core, fixed when the client is created; it takes
  effect for a gateway the next time its client is created (added, changed, next start).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from desktop.core.settings import CoreSettings
from desktop.model.notify_policy import NotifySettings
from desktop.settings.model import GatewayConfig, GatewayKind, NotificationApproval, Settings


@dataclass(frozen=True, slots=True)
class GatewayChanges:
    added: tuple[GatewayConfig, ...] = ()
    removed: tuple[str, ...] = ()  # gateway ids
    changed: tuple[GatewayConfig, ...] = ()  # new values; their clients are restarted

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _connectable(settings: Settings) -> dict[str, GatewayConfig]:
    return {g.id: g for g in settings.gateways if g.kind is not GatewayKind.DEMO}


def _connection_fields(gateway: GatewayConfig) -> tuple[object, ...]:
    return (
        gateway.name,
        gateway.kind,
        gateway.url,
        gateway.token_ref,
        gateway.allow_insecure_remote,
        dict(gateway.extra),
    )


def gateway_changes(old: Settings, new: Settings) -> GatewayChanges:
    """Gateways to start, stop and restart to go from ``old`` to ``new`` (in ``new``'s order)."""
    before, after = _connectable(old), _connectable(new)
    return GatewayChanges(
        added=tuple(g for gid, g in after.items() if gid not in before),
        removed=tuple(gid for gid in before if gid not in after),
        changed=tuple(
            g
            for gid, g in after.items()
            if gid in before and _connection_fields(g) != _connection_fields(before[gid])
        ),
    )


def notify_settings(settings: Settings, base: NotifySettings | None = None) -> NotifySettings:
    """The notification policy's settings from the person's ``settings`` (``base``: the rest)."""
    policy = settings.notifications
    return replace(
        base or NotifySettings(),
        show_commands=policy.show_command_text,
        escalate_when_quiet=policy.escalate_through_do_not_disturb,
        approve_from_notification=policy.approve_from_notification is NotificationApproval.ONCE,
        quiet_after_start=settings.quiet_after_start_s,
    )


def core_settings(settings: Settings, base: CoreSettings | None = None) -> CoreSettings:
    """The core's tunables a person can set (today: the staleness margin)."""
    return replace(base or CoreSettings(), staleness_margin=settings.staleness_margin_s)


def uses_tokens(settings: Settings) -> bool:
    """Whether any configured gateway names a stored token."""
    return any(g.token_ref for g in settings.gateways)

"""What a change of settings means for the running app, as pure functions. Qt-free.

Pure because "which gateways restart" decides whether pending approvals survive Settings → OK:
a gateway restarts only when something its connection uses changed (a new token under the same
reference needs none), and the demo is never started from settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.settings import CoreSettings
from desktop.model.notify_policy import NotifySettings
from desktop.settings.model import GatewayConfig, NotificationApproval, Settings


@dataclass(frozen=True, slots=True)
class GatewayChanges:
    added: tuple[GatewayConfig, ...] = ()
    removed: tuple[str, ...] = ()  # gateway ids
    changed: tuple[GatewayConfig, ...] = ()  # new values; their clients are restarted


def _connectable(settings: Settings) -> dict[str, GatewayConfig]:
    return {g.id: g for g in settings.connectable}


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


def notify_settings(settings: Settings) -> NotifySettings:
    policy = settings.notifications
    return NotifySettings(
        show_commands=policy.show_command_text,
        escalate_when_quiet=policy.escalate_through_do_not_disturb,
        approve_from_notification=policy.approve_from_notification is NotificationApproval.ONCE,
        quiet_after_start=settings.quiet_after_start_s,
    )


def core_settings(settings: Settings) -> CoreSettings:
    return CoreSettings(staleness_margin=settings.staleness_margin_s)


def uses_tokens(settings: Settings) -> bool:
    return any(g.token_ref for g in settings.gateways)

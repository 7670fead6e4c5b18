"""What a settings change means for the running app (pure): gateway diff, policies, margin."""

from __future__ import annotations

from desktop.core.settings import CoreSettings
from desktop.model.notify_policy import NotifySettings
from desktop.model.settings_apply import (
    GatewayChanges,
    core_settings,
    gateway_changes,
    notify_settings,
    uses_tokens,
)
from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
)

HOME = GatewayConfig("home", "Home", "ws://127.0.0.1:9119/api/ws", token_ref="home")
WORK = GatewayConfig("work", "Work", "wss://work.example/api/ws")
DEMO = GatewayConfig("demo", "Demo", kind=GatewayKind.DEMO)


def test_added_removed_and_changed_gateways_by_id():
    old = Settings(gateways=(HOME, WORK))
    renamed = GatewayConfig("home", "Home PC", HOME.url, token_ref="home")
    extra = GatewayConfig("lab", "Lab", "ws://127.0.0.1:9200/api/ws")
    changes = gateway_changes(old, Settings(gateways=(renamed, extra)))
    assert changes.added == (extra,)
    assert changes.removed == ("work",)
    assert changes.changed == (renamed,)


def test_an_unchanged_gateway_keeps_its_connection():
    old = Settings(gateways=(HOME,), staleness_margin_s=5.0)
    new = Settings(gateways=(HOME,), staleness_margin_s=9.0, start_at_login=True)
    assert gateway_changes(old, new) == GatewayChanges()


def test_every_field_the_connection_uses_restarts_it():
    variants = [
        GatewayConfig("home", "Home", "ws://127.0.0.1:9120/api/ws", token_ref="home"),
        GatewayConfig("home", "Home", HOME.url, token_ref=None),
        GatewayConfig("home", "Home", HOME.url, token_ref="home", allow_insecure_remote=True),
        GatewayConfig("home", "Home", HOME.url, token_ref="home", extra={"hermes_home": "/x"}),
        GatewayConfig("home", "Home", HOME.url, token_ref="home", kind=GatewayKind.DASHBOARD),
    ]
    for variant in variants:
        changes = gateway_changes(Settings(gateways=(HOME,)), Settings(gateways=(variant,)))
        assert changes.changed == (variant,), variant


def test_the_demo_kind_is_never_started_from_settings():
    assert gateway_changes(Settings(), Settings(gateways=(DEMO,))) == GatewayChanges()


def test_notification_settings_follow_the_persons_choices():
    settings = Settings(
        notifications=NotificationPolicy(
            show_command_text=False,
            approve_from_notification=NotificationApproval.NEVER,
            escalate_through_do_not_disturb=False,
        ),
        quiet_after_start_s=30.0,
    )
    result = notify_settings(settings)
    assert (result.show_commands, result.approve_from_notification) == (False, False)
    assert result.quiet_after_start == 30.0
    assert result.escalate_when_quiet is False
    assert notify_settings(Settings()).escalate_when_quiet is True
    assert result.coalesce == NotifySettings().coalesce  # the rest: the policy's defaults
    assert notify_settings(Settings()).approve_from_notification is True


def test_core_settings_carry_the_staleness_margin():
    assert core_settings(Settings(staleness_margin_s=12.5)).staleness_margin == 12.5
    assert core_settings(Settings()).a_approval_timeout == CoreSettings().a_approval_timeout


def test_uses_tokens():
    assert uses_tokens(Settings(gateways=(HOME,)))
    assert not uses_tokens(Settings(gateways=(WORK,)))

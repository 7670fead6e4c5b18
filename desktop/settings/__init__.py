"""Typed, versioned settings (Qt-free): ``load_settings()``, ``save_settings()``, ``TokenStore``.

The settings file is JSON (stdlib only: ``tomllib`` cannot write) in the user config dir, or in
``$HERMES_TRAY_CONFIG_DIR``. Tokens are never in it; they are in the OS keyring (see ``tokens``).
"""

from desktop.settings.codec import SCHEMA_VERSION
from desktop.settings.migrations import split_secret_query
from desktop.settings.model import (
    GatewayConfig,
    GatewayKind,
    NotificationApproval,
    NotificationPolicy,
    Settings,
    SettingsError,
)
from desktop.settings.store import load_settings, save_settings, settings_path
from desktop.settings.tokens import TokenStore

__all__ = [
    "SCHEMA_VERSION",
    "GatewayConfig",
    "GatewayKind",
    "NotificationApproval",
    "NotificationPolicy",
    "Settings",
    "SettingsError",
    "TokenStore",
    "load_settings",
    "save_settings",
    "settings_path",
    "split_secret_query",
]

"""Who the app is and where its files live, spelled once.

Every directory has an environment override, so tests and a throw-away second instance never
touch the real user configuration.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_ID = "io.github.hermes_tray.HermesTray"  # reverse-DNS: desktop entry, AppStream, launchd
APP_NAME = "Hermes Tray"
APP_SLUG = "hermes-tray"  # the directories' name under the platform roots; the executable
KEYRING_SERVICE = "hermes-tray"

CONFIG_DIR_ENV = "HERMES_TRAY_CONFIG_DIR"
DATA_DIR_ENV = "HERMES_TRAY_DATA_DIR"
LOG_DIR_ENV = "HERMES_TRAY_LOG_DIR"


def _override(env_name: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """An override counts only when set and non-empty (an empty value usually means a typo)."""
    value = (os.environ if environ is None else environ).get(env_name, "").strip()
    if not value:
        return None
    return Path(value).expanduser().absolute()


def config_dir() -> Path:
    return _override(CONFIG_DIR_ENV) or platformdirs.user_config_path(APP_SLUG, appauthor=False)


def data_dir() -> Path:
    return _override(DATA_DIR_ENV) or platformdirs.user_data_path(APP_SLUG, appauthor=False)


def log_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Log files, the tray's and its children's (``environ``: a child's environment)."""
    return _override(LOG_DIR_ENV, environ) or platformdirs.user_log_path(APP_SLUG, appauthor=False)


def ensure_private_dir(path: Path) -> Path:
    """0700: it may hold the token fallback file or the commands a person approved.

    An existing one's mode is left alone: it may be the person's choice (a shared ``~/.config``).
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path

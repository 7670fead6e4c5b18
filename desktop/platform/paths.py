"""The one place that says who the app is and where its files live.

Why one module: the app id appears in the desktop entry, the AppStream file, the autostart entry,
the LaunchAgent label and the single-instance socket; the directories are used by settings,
tokens, the journal and logs. Spelling them once keeps them consistent.

Every directory honours an environment override (``HERMES_TRAY_CONFIG_DIR``,
``HERMES_TRAY_DATA_DIR``, ``HERMES_TRAY_LOG_DIR``) so tests -- and a developer running a second,
throw-away instance -- never touch the real user configuration.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

#: Reverse-DNS application id (desktop entry, AppStream, LaunchAgent label, Flatpak).
APP_ID = "io.github.hermes_tray.HermesTray"
#: Human-readable name (window titles, Windows Run-key value name).
APP_NAME = "Hermes Tray"
#: Directory name under the platform's config/data/log roots; also the executable name.
APP_SLUG = "hermes-tray"
#: OS keyring service name under which gateway tokens are stored.
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
    """Settings and the token fallback file: ``$HERMES_TRAY_CONFIG_DIR`` or the platform dir."""
    return _override(CONFIG_DIR_ENV) or platformdirs.user_config_path(APP_SLUG, appauthor=False)


def data_dir() -> Path:
    """The decision journal: ``$HERMES_TRAY_DATA_DIR`` or the platform's user data dir."""
    return _override(DATA_DIR_ENV) or platformdirs.user_data_path(APP_SLUG, appauthor=False)


def log_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Log files, the tray's and its children's: ``$HERMES_TRAY_LOG_DIR`` or the platform's.

    ``environ`` replaces ``os.environ`` (a supervisor reads the environment it was given).
    """
    return _override(LOG_DIR_ENV, environ) or platformdirs.user_log_path(APP_SLUG, appauthor=False)


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) readable by the user only, and return it.

    Why 0700: the config dir may hold the token fallback file and the data dir holds the
    commands a person approved; neither is anybody else's business. An existing directory's mode
    is left alone -- the person may have chosen it (e.g. a shared ``~/.config``).
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path

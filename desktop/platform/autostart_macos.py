"""Start at login on macOS: a per-user LaunchAgent.

Where: ``~/Library/LaunchAgents/<app-id>.plist``. launchd reads the folder at login; nothing
has to be loaded now (``launchctl`` would start a second copy of the app at once).

Why a LaunchAgent and not ``SMAppService``: the latter needs a signed app bundle and the
Objective-C runtime; a plist is plain data, testable anywhere. macOS 13+ shows the person a
"background item added" notice for it, and lists it under Login Items, where they can turn it
off -- which launchd then honours over this file.

``plistlib`` (with the XML parser it loads) is imported only when a plist is written or read:
``desktop.platform.autostart`` imports this module on every platform.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from desktop.platform.files import atomic_write_bytes
from desktop.platform.paths import APP_ID


def launch_agent(command: Sequence[str]) -> bytes:
    """The LaunchAgent plist that starts ``command`` once at login, in the GUI session."""
    if not command:
        raise ValueError("a LaunchAgent needs a program")
    import plistlib

    return plistlib.dumps(
        {
            "Label": APP_ID,
            "ProgramArguments": list(command),
            "RunAtLoad": True,
            "KeepAlive": False,  # quitting from the menu must stay quit
            "ProcessType": "Interactive",
            "LimitLoadToSessionType": "Aqua",  # only in a graphical login, not over ssh
        }
    )


class LaunchAgentAutostart:
    """Autostart through ``<agents_dir>/<app-id>.plist`` (default ``~/Library/LaunchAgents``)."""

    def __init__(self, agents_dir: Path | None = None) -> None:
        self._dir = agents_dir or Path.home() / "Library" / "LaunchAgents"

    @property
    def path(self) -> Path:
        return self._dir / f"{APP_ID}.plist"

    @property
    def location(self) -> str:
        return str(self.path)

    def enable(self, command: Sequence[str]) -> None:
        atomic_write_bytes(self.path, launch_agent(command), mode=0o644)

    def disable(self) -> None:
        self.path.unlink(missing_ok=True)

    def is_enabled(self) -> bool:
        import plistlib

        try:
            data = plistlib.loads(self.path.read_bytes())
        except (OSError, plistlib.InvalidFileException, ValueError):
            return False
        return (
            isinstance(data, dict)
            and data.get("RunAtLoad") is True
            and data.get("Disabled") is not True
        )

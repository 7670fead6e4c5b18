"""Start at login on macOS: a per-user LaunchAgent.

``~/Library/LaunchAgents/<app-id>.plist``, read by launchd at login (``launchctl`` would
start a second copy now). Not ``SMAppService``: it needs a signed bundle; a plist is plain data.
``plistlib`` is imported on use: every platform imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from desktop.platform.files import atomic_write_bytes
from desktop.platform.paths import APP_ID


def launch_agent(command: Sequence[str]) -> bytes:
    """The plist that starts ``command`` once at login, in the GUI session."""
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

"""Start a private ``dbus-daemon`` with no activatable services.

Why a config of our own: the stock session config lists the system's service folders, so a
name like org.freedesktop.Notifications would be *activated* from an installed daemon
(xfce4-notifyd, dunst) instead of answering "no such service". Tests decide what is on the bus.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={folder}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class PrivateBus:
    """``with PrivateBus() as bus: bus.address`` — a bus that dies with the block."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="hermes-tray-bus-")
        self._process: subprocess.Popen[str] | None = None
        self.address = ""

    def __enter__(self) -> PrivateBus:
        daemon = shutil.which("dbus-daemon")
        if daemon is None:
            raise RuntimeError("dbus-daemon is not installed (apt-get install dbus-daemon)")
        config = Path(self._folder.name) / "bus.conf"
        config.write_text(CONFIG.format(folder=self._folder.name))
        self._process = subprocess.Popen(
            [daemon, f"--config-file={config}", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self._process.stdout is not None
        self.address = self._process.stdout.readline().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon did not print an address")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(5)
            if self._process.stdout is not None:
                self._process.stdout.close()
        self._folder.cleanup()

"""The fake is an independent peer: importing it loads neither Qt nor the client's core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import sys
import tests.gatewaymodel
banned = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "qasync")
                or m == "desktop.core" or m.startswith("desktop.core."))
print(",".join(banned))
"""


def test_importing_the_fake_loads_no_qt_and_no_desktop_core():
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == ""

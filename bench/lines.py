"""The one-line wire between a benchmark child and the parent: ``BENCH {json}`` on stdout.

Why its own tiny module: children import it before the app starts, so it must cost nothing
(no subprocess or selectors import in a process whose cold start is being measured).
"""

from __future__ import annotations

import json
import sys
from typing import Any

PREFIX = "BENCH "


def emit(event: str, **fields: Any) -> None:
    """Print one ``BENCH {json}`` line and flush it at once."""
    sys.stdout.write(PREFIX + json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()

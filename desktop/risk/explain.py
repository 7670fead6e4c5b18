"""``hermes-tray explain``: a person can ask why a card says "high" without an agent.

A script can check the lens against the commands its own agents run (``--json``).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from desktop.core.text_safety import bound_text, reveal

from .lens import assess

if TYPE_CHECKING:
    from desktop.cli import CliOptions

SNIPPET_CHARS = 80


def report(command: str, cwd: str) -> dict[str, Any]:
    """The verdict as plain data: level, summary, and each finding with the text it marks."""
    verdict = assess(command, cwd)
    return {
        "level": verdict.level.name.lower(),
        "summary": verdict.summary,
        "cwd": cwd,
        "findings": [
            {
                "rule": f.rule,
                "level": f.level.name.lower(),
                "label": f.label,
                "start": f.start,
                "end": f.end,
                "text": bound_text(reveal(command[f.start : f.end]), SNIPPET_CHARS)[0],
            }
            for f in verdict.findings
        ],
    }


def render(verdict: dict[str, Any]) -> str:
    where = verdict["cwd"] or "an unknown folder (judged as outside)"
    lines = [f"{verdict['level']}: {verdict['summary']}", f"  run in {where}"]
    for f in verdict["findings"]:
        lines.append(f"  - {f['level']:<6} {f['rule']}: {f['label']}")
        lines.append(f"           {f['text']}")
    return "\n".join(lines)


def run(options: CliOptions, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin) -> int:
    """Print the verdict on ``options.explained`` (read from standard input when empty)."""
    command = options.explained if options.explained else stdin.read().rstrip("\n")
    verdict = report(command, options.cwd)
    out.write((json.dumps(verdict, ensure_ascii=False) if options.json else render(verdict)) + "\n")
    return 0

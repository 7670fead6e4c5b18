"""The real transcripts' incoming frames, ready to replay through a GatewayCore.

Why per-connection scripts with their notes: a transcript holds one or more connections
(``conn N open`` / ``closed`` notes); a faithful replay opens and loses the connection where
the recording did, so the core sees handshakes, dialect detection and reconnects in the order
a real gateway produced them. Frames are serialized once, up front, so the timed loops only
parse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
# The project's shared/ folder lies beside the checkout (on developers' machines and in CI);
# the subset copied into tests/fixtures stands in when it is not there.
_BESIDE = _REPO.parent / "shared" / "transcripts"
SHARED = _BESIDE if _BESIDE.is_dir() else _REPO / "tests" / "fixtures" / "transcripts"


@dataclass(frozen=True)
class Step:
    kind: str  # "in" (a frame text), "open" or "closed" (connection number in ``conn``)
    text: str = ""
    conn: int = 0


@dataclass(frozen=True)
class Transcript:
    name: str
    steps: tuple[Step, ...]

    @property
    def frames(self) -> list[str]:
        return [s.text for s in self.steps if s.kind == "in"]


def load(path: Path) -> Transcript:
    steps: list[Step] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        note = str(record.get("note", ""))
        if note:
            words = note.split()
            is_conn = len(words) >= 3 and words[0] == "conn" and words[1].isdigit()
            if is_conn and words[2] in ("open", "closed"):
                steps.append(Step(words[2], conn=int(words[1])))
        elif record.get("dir") == "in":
            frame = record["frame"]
            text = frame if isinstance(frame, str) else json.dumps(frame)
            steps.append(Step("in", text))
    return Transcript(f"{path.parent.name}/{path.stem}", tuple(steps))


def load_all(root: Path = SHARED) -> list[Transcript]:
    """Every ``*.jsonl`` under ``root``, sorted by name."""
    return [load(p) for p in sorted(root.glob("*/*.jsonl"))]

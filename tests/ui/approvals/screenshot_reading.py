"""Screenshots of a dialog that holds still while the person reads.

Run under Xvfb (the real xcb platform, real fonts), from the repository root:

    xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.approvals.screenshot_reading artifacts/screenshots

Writes ``reading-answered.png`` (a batch answered a minute ago, still shown because the pointer
rests on the window) and ``reading-reask.png`` (a timed-out command asked again, shown inside
its batch right after the row it replaces). Prints what the dialog holds at each shot. Not a
test: pytest does not collect it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication

from desktop.core.model import AskedBecause, AskReason, Choice, OutcomeKind
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import FakeClock, approval, resolved
from tests.ui.approvals.factory import catch_up, dialog_on_store, row_card, upsert

CLOCK = FakeClock(5000.0)
COMMANDS = ("npm ci", "npm run build", "npm test -- --runInBand")


def settle(app: QApplication, dialog: ApprovalDialog) -> None:
    for _ in range(20):
        app.processEvents()
    dialog.list_view.flush(overscan=True)
    app.processEvents()


def shoot(path: Path) -> None:
    subprocess.run(["import", "-window", "root", str(path)], check=True)


def keys(dialog: ApprovalDialog) -> list[str]:
    return [r.key for r in dialog.board.rows()]


def answered(app: QApplication, dialog: ApprovalDialog, out: Path) -> None:
    """(a) A batch answered a minute ago stays while the pointer rests on the window."""
    for i, command in enumerate(COMMANDS):
        upsert(dialog, "work", "Workstation", approval(f"a{i}", position=i, command=command), "CI")
    upsert(dialog, "work", "Workstation", approval("w", batch="b2", command="git status"), "CI")
    dialog.present(activate=True)
    settle(app, dialog)
    for i, kind in enumerate((OutcomeKind.APPROVED, OutcomeKind.APPROVED, OutcomeKind.DENIED)):
        done = resolved(approval(f"a{i}", position=i, command=COMMANDS[i]), kind, Choice.ONCE)
        upsert(dialog, "work", "Workstation", done, "CI")
    card = row_card(dialog, "work", "a1")
    assert card is not None
    QCursor.setPos(card.mapToGlobal(QPoint(40, 20)))  # the person reads the outcomes
    settle(app, dialog)
    CLOCK.advance(60)
    catch_up(dialog)
    settle(app, dialog)
    print("a) after 60 s with the pointer on the window:", keys(dialog))
    shoot(out / "reading-answered.png")


def reask(app: QApplication, dialog: ApprovalDialog, out: Path) -> None:
    """(b) #3 timed out; Hermes asks again in a new core batch: shown next to #3."""
    for i, command in enumerate(COMMANDS):
        upsert(dialog, "work", "Workstation", approval(f"r{i}", position=i, command=command), "CI")
    for i in range(2):
        done = resolved(
            approval(f"r{i}", position=i, command=COMMANDS[i]), OutcomeKind.APPROVED, Choice.ONCE
        )
        upsert(dialog, "work", "Workstation", done, "CI")
    timed_out = resolved(approval("r2", position=2, command=COMMANDS[2]), OutcomeKind.EXPIRED)
    upsert(dialog, "work", "Workstation", timed_out, "CI")
    because = AskedBecause(AskReason.AFTER_TIMEOUT, "r2", "r2", "b1", 2)
    again = approval("r2b", batch="b7", command=COMMANDS[2], reask_of="r2", asked_because=because)
    upsert(dialog, "work", "Workstation", again, "CI")
    dialog.present(activate=True)
    settle(app, dialog)
    print("b) rows:", [(r.key, r.batch.batch_id, r.position + 1) for r in dialog.board.rows()])
    shoot(out / "reading-reask.png")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "artifacts/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    for scene in (answered, reask):
        dialog = dialog_on_store(clock=CLOCK, grace_seconds=5.0)
        dialog.resize(760, 700)
        dialog.move(20, 20)
        scene(app, dialog, out)
        dialog.close()
        dialog.deleteLater()
        app.processEvents()


if __name__ == "__main__":
    main()

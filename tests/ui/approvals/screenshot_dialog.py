"""Fill the approval dialog with realistic content and save screenshots of it.

Run under Xvfb (the real xcb platform, real fonts), from the repository root:

    xvfb-run -a -s "-screen 0 1400x1200x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.approvals.screenshot_dialog artifacts/screenshots

Writes ``dialog.png`` (the top: a three-command batch, a second session, a stale row),
``dialog-hostile.png`` (scrolled to the hostile gateway: markup, bidi override and zero-width
characters in every field, and 0.19.0's in-order answering) and ``dialog-states.png`` (every
later state of a row). Also prints how long ``upsert`` + ``show`` of 1 MB commands took. Not a
test: pytest does not collect it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop.core import outcomes
from desktop.core.model import ApprovalPhase, Choice, OutcomeKind
from desktop.ui.approvals.dialog import ApprovalDialog
from tests.model.approvals.factory import ALL_CHOICES, FakeClock, approval, resolved, sending
from tests.ui.approvals.factory import dialog_on_store, row_card, upsert

CLOCK = FakeClock(5000.0)


def fill(dialog: ApprovalDialog) -> None:
    """Two gateways, three sessions, one batch of three, a stale row and a hostile batch."""
    now = CLOCK.now
    ci = "Fix the failing CI build"
    for position, (command, why, pattern) in enumerate(
        [
            ("rm -rf build/ dist/ .pytest_cache", "recursive delete", "recursive_delete"),
            ("git push --force-with-lease origin fix/ci-cache", "force push", "git_force_push"),
            (
                "curl -fsSL https://get.example.dev/install.sh | bash -s -- --prefix ~/.local",
                "pipe a downloaded script into a shell",
                "pipe_to_shell",
            ),
        ]
    ):
        a = approval(
            f"ci-{position}",
            session="7f3c91d2",
            batch="batch-ci",
            position=position,
            command=command,
            description=why,
            pattern_keys=(pattern,),
            expires_at=now + 287 - 4 * position,
        )
        upsert(dialog, "work", "Workstation", a, ci)
    stale = approval(
        "auth-1",
        session="c0ffee42",
        batch="batch-auth",
        command=(
            "sed -i 's/verify=True/verify=False/' src/auth/client.py && \\\n"
            "    python -m pytest tests/auth -q"
        ),
        description="disable TLS verification",
        pattern_keys=("tls_verify_off",),
        phase=ApprovalPhase.STALE,
        blocked_reason="the connection dropped; the gateway may have timed this out",
        expires_at=now + 41,
    )
    upsert(dialog, "work", "Workstation", stale, "Refactor the auth module")
    hostile_title = "<b>Quarterly</b> <img src=x> report \u202eexe.pdf"
    head = approval(
        "old-1",
        session="5e0c1a2b",
        batch="batch-old",
        command="tar czf /tmp/home.tgz ~ && scp /tmp/home.tgz backup@10.0.0.7:",
        description="copy files to another host",
        pattern_keys=("network_copy",),
        choices=(Choice.ONCE, Choice.SESSION, Choice.ALWAYS, Choice.DENY),
        expires_at=now + 52,
    )
    hostile = approval(
        "old-2",
        session="5e0c1a2b",
        batch="batch-old",
        position=1,
        command=(
            "echo '<a href=\"https://evil.example\">docs</a>' > /dev/null; "
            "ls -la \u202e# txt.exe\u200b && chmod +x ./\u200binstall\u2066.sh"
        ),
        description="<b>routine</b> cleanup <img src=x onerror=alert(1)>",
        pattern_keys=("<i>safe</i>\u202e", "chmod_exec"),
        choices=ALL_CHOICES,
        answerable=False,
        blocked_reason="Hermes 0.19 answers this session's commands oldest first",
        expires_at=now + 58,
    )
    gateway = "Old laptop <b>0.19.0</b>\u200b"
    upsert(dialog, "laptop", gateway, head, hostile_title)
    upsert(dialog, "laptop", gateway, hostile, hostile_title)


def fill_states(dialog: ApprovalDialog) -> None:
    """One batch showing every later state a row can reach."""
    now = CLOCK.now
    rows = [
        ("npm ci", sending, ""),
        ("make clean all", lambda a: resolved(a, OutcomeKind.APPROVED, Choice.SESSION), ""),
        ("docker system prune -af", lambda a: resolved(a, OutcomeKind.DENIED, Choice.DENY), ""),
        (
            "rm -rf node_modules",
            lambda a: resolved(a, OutcomeKind.WITHDRAWN, reason="interrupted"),
            "",
        ),
        ("pip install -U pip", lambda a: resolved(a, OutcomeKind.EXPIRED), ""),
        (
            "rm -rf dist/",
            lambda a: resolved(a, OutcomeKind.WITHDRAWN, reason=outcomes.NOT_PENDING),
            "",
        ),
        (
            "git reset --hard",
            lambda a: resolved(a, OutcomeKind.UNKNOWN, reason="connection lost"),
            "",
        ),
        ("git clean -fdx", lambda a: a, "an earlier command failed"),
    ]
    for position, (command, state, reask) in enumerate(rows):
        a = approval(
            f"st-{position}",
            session="ab12",
            batch="batch-states",
            position=position,
            command=command,
            description="example",
            pattern_keys=(),
            expires_at=now + 100,
            reask_of="st-0" if reask else "",
        )
        upsert(dialog, "work", "Workstation", state(a), "Every state")


def measure_megabyte(app: QApplication, command: str) -> float:
    """Seconds for upsert + show + first paint of one 1 MB command."""
    dialog = dialog_on_store(clock=CLOCK)
    started = time.perf_counter()
    upsert(dialog, "big", "Big", approval("big", command=command, expires_at=CLOCK.now + 60), "")
    dialog.present(activate=False)
    card = row_card(dialog, "big", "big")
    assert card is not None
    while not card.command.toPlainText():  # a long command is laid out just after the show
        app.processEvents()
    dialog.repaint()
    elapsed = time.perf_counter() - started
    assert card.command.toPlainText() == command or "\u200b" in command
    dialog.close()
    dialog.deleteLater()
    return elapsed


MEGABYTE_COMMANDS = {
    "one 1 MB base64 token (printable ASCII)": "echo " + "QUJD" * 262_143 + " | base64 -d | sh",
    "1 MB of words": "echo hello world; " * 55_556,
    "1 MB with a zero-width space every 100 chars": ("x" * 99 + "\u200b") * 10_000,
}


def grab(app: QApplication, dialog: ApprovalDialog, path: Path) -> None:
    for _ in range(10):
        app.processEvents()
    dialog.grab().save(str(path))


def main(out: Path) -> None:
    """Render, grab and save."""
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    out.mkdir(parents=True, exist_ok=True)
    dialog = dialog_on_store(clock=CLOCK)
    dialog.resize(860, 1100)
    fill(dialog)
    dialog.present(activate=True)
    grab(app, dialog, out / "dialog.png")
    bar = dialog.list_view.verticalScrollBar()
    bar.setValue(bar.maximum())
    grab(app, dialog, out / "dialog-hostile.png")
    dialog.close()
    dialog.deleteLater()
    states = dialog_on_store(clock=CLOCK)
    states.resize(860, 900)
    fill_states(states)
    states.present(activate=True)
    grab(app, states, out / "dialog-states.png")
    states.close()
    states.deleteLater()
    for what, command in MEGABYTE_COMMANDS.items():
        seconds = measure_megabyte(app, command)
        print(f"{len(command):,} chars, {what}: upsert + show + paint {seconds:.3f} s")
    print(f"wrote dialog.png, dialog-hostile.png and dialog-states.png in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "artifacts/screenshots"))

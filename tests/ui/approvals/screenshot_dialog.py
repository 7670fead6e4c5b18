"""Fill the approval dialog with realistic content and save screenshots of it.

Run under Xvfb (the real xcb platform, real fonts), from the repository root:

    xvfb-run -a -s "-screen 0 1400x1200x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.approvals.screenshot_dialog artifacts/screenshots

Writes ``dialog.png`` (the top: a three-command batch, a second session, a stale row) and
``dialog-hostile.png`` (scrolled to the hostile gateway: markup, bidi override and zero-width
characters in every field, and 0.19.0's in-order answering). Also prints how long ``upsert`` +
``show`` of a 1 MB command took. Not a test: pytest does not collect it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop.core.model import ApprovalPhase, Choice
from desktop.ui.approvals import ApprovalDialog
from tests.ui.approvals.factory import ALL_CHOICES, FakeClock, approval

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
        dialog.upsert("work", "Workstation", a, ci)
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
    dialog.upsert("work", "Workstation", stale, "Refactor the auth module")
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
    dialog.upsert("laptop", gateway, head, hostile_title)
    dialog.upsert("laptop", gateway, hostile, hostile_title)


def measure_megabyte(app: QApplication) -> float:
    """Seconds for upsert + show + first paint of a 1 MB command (one long token, worst case)."""
    dialog = ApprovalDialog(clock=CLOCK)
    command = "echo " + "QUJD" * 262_143 + " | base64 -d | sh"
    started = time.perf_counter()
    dialog.upsert("big", "Big", approval("big", command=command, expires_at=CLOCK.now + 60), "")
    dialog.present(activate=False)
    dialog.repaint()
    app.processEvents()
    elapsed = time.perf_counter() - started
    dialog.close()
    dialog.deleteLater()
    return elapsed


def main(out: Path) -> None:
    """Render, grab and save."""
    app = QApplication.instance() or QApplication(sys.argv)
    out.mkdir(parents=True, exist_ok=True)
    dialog = ApprovalDialog(clock=CLOCK)
    dialog.resize(860, 1100)
    fill(dialog)
    dialog.present(activate=True)
    for _ in range(10):
        app.processEvents()
    dialog.grab().save(str(out / "dialog.png"))
    hostile = dialog.card("laptop", "old-1")
    assert hostile is not None
    dialog.list_view.ensureWidgetVisible(hostile, 0, 0)
    dialog.list_view.verticalScrollBar().setValue(dialog.list_view.verticalScrollBar().maximum())
    for _ in range(10):
        app.processEvents()
    dialog.grab().save(str(out / "dialog-hostile.png"))
    dialog.close()
    dialog.deleteLater()
    print(f"1 MB command: upsert + show + paint took {measure_megabyte(app):.3f} s")
    print(f"wrote {out / 'dialog.png'} and {out / 'dialog-hostile.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "artifacts/screenshots"))

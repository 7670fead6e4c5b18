"""Screenshots of the tray menu with a time-boxed YOLO and the Recent decisions submenu.

Run under Xvfb (the real xcb platform, real fonts), from the repository root:

    xvfb-run -a -s "-screen 0 1100x700x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.screenshot_tray_menu artifacts/screenshots

Everything is real except time: the fake gateway on 127.0.0.1, the real client and bridge, the
tray's own QMenu (as Qt draws it on XEmbed hosts), decisions sent from the dialog and from a
notification and journalled with the gateway's outcomes, and a 15-minute YOLO three minutes in
(the injected clock moved on). A second task's turn runs a command that fails after "Allow for
session" and one Hermes runs under that allowance, so the journal shows exit codes and the
session each decision belongs to. Writes ``tray-menu-yolo-timebox.png`` (the session submenu with
"YOLO on · 12 min left"), ``tray-menu-recent-decisions.png`` and ``tray-icons-yolo.png`` (the
plain and the time-boxed YOLO icon side by side). Not a test: pytest does not collect it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMenu

from desktop.core.model import Choice
from desktop.journal import Journal, Surface
from desktop.model.bridge_events import DecisionRequest
from desktop.model.notify_policy import ActionKind, NotificationPlan, NotifyAction
from desktop.model.yolo_timer import BoxKind
from desktop.platform.autostart import XdgAutostart
from desktop.settings.model import Settings
from desktop.settings.tokens import TokenStore
from desktop.ui import icons
from desktop.ui.bridge import GatewayBridge
from desktop.ui.settings_controller import SettingsController, client_factory_for
from tests.gatewaymodel import Command, FakeGateway, Turn, default_book
from tests.ui.wired_app import GID, WiredApp, menu_actions, submenu
from tests.waiting import holds, poll_until

DECISIONS = [
    ("rm -rf build/ dist/ .pytest_cache", "delete", Choice.ONCE, Surface.DIALOG_BUTTON),
    ("git push --force-with-lease origin fix/ci-cache", "force push", Choice.DENY, "notification"),
    ("npm ci && npm run build", "install", Choice.SESSION, Surface.DIALOG_BATCH),
]


async def settle() -> None:
    """Let the X server map and paint the popups (the loop keeps running Qt meanwhile)."""
    await asyncio.sleep(0.3)


def grab(path: Path) -> None:
    screen = QGuiApplication.primaryScreen()
    screen.grabWindow(0).save(str(path))
    print(f"wrote {path}")


def open_submenu(menu: QMenu, name: str) -> QMenu:
    """Open submenu ``name`` next to its entry, highlighted, as hovering would."""
    sub = submenu(menu, name)
    entry = next(a for a in menu.actions() if a.menu() is sub)
    menu.setActiveAction(entry)
    box = menu.actionGeometry(entry)
    sub.popup(menu.mapToGlobal(QPoint(box.right() - 4, box.top() - 4)))
    return sub


async def decide_all(wired: WiredApp, sid: str) -> None:
    recorder = wired.shell.journal.recorder
    for command, why, choice, surface in DECISIONS:
        before = len(recorder.recent)
        request = wired.fake.raise_approval(sid, Command(command, why))
        [shown] = await holds(lambda: wired.view().waiting, wired.bridge.snapshot_changed)
        if surface == "notification":
            plan = NotificationPlan(
                GID, shown.batch_id, "Approval needed", shown.command,
                (NotifyAction(ActionKind.DENY, "Deny", (shown.key,)),), (shown.key,),
            )  # fmt: skip
            wired.bridge.notification_action_invoked.emit(plan, ActionKind.DENY)
        else:
            wired.shell.dialog.decision_requested.emit(
                DecisionRequest(GID, shown.key, choice, surface)
            )
        await request.future
        wired.fake.set_yolo(sid, False)  # one more event delivers B's written answer
        await poll_until(lambda before=before: len(recorder.recent) > before)


CLEAN_UP = Turn(
    [
        Command("rm -rf node_modules/.cache", "recursive delete", exit_code=2),
        Command("rm -rf coverage/", "recursive delete"),  # run under the session allowance
    ],
    reply="Cleaned up.",
)


async def allow_for_session(wired: WiredApp) -> None:
    """A second task: its first command allowed for the session fails; the next runs unasked."""
    recorder = wired.shell.journal.recorder
    before = len(recorder.recent)
    wired.bridge.new_task(GID, "/home/me/webshop", "[[scenario:clean]] clear the caches")
    [shown] = await holds(lambda: wired.view().waiting, wired.bridge.snapshot_changed)
    wired.shell.dialog.decision_requested.emit(
        DecisionRequest(GID, shown.key, Choice.SESSION, Surface.DIALOG_BUTTON)
    )
    await poll_until(lambda: len(recorder.recent) == before + 2 and recorder.recent[1].result != "")


async def main(out: Path) -> None:
    data = Path(tempfile.mkdtemp(prefix="hermes-tray-shot-"))
    journal = Journal(data)
    bridge = GatewayBridge(client_factory_for(Settings))
    settings = SettingsController(
        Settings(),
        TokenStore(data),
        bridge,
        path=data / "settings.json",
        autostart_backend=XdgAutostart(data / "xdg", system_dirs=[]),
    )
    book = default_book()
    book.scenarios["clean"] = CLEAN_UP
    fake = await FakeGateway("B", speed=0.01, turns=book).start()
    wired = WiredApp(fake, journal=journal, bridge=bridge, settings=settings)
    settings.set_start_at_login(True)  # writes only into the temporary folder
    try:
        await wired.connected()
        wired.bridge.new_task(GID, "/home/me/webshop", "hello")
        sid = (await holds(lambda: wired.view().sessions, wired.bridge.snapshot_changed))[
            0
        ].session_id
        await wired.turn_over(sid)
        await decide_all(wired, sid)
        await poll_until(lambda: len(wired.shell.journal.recorder.recent) == len(DECISIONS))
        await allow_for_session(wired)
        for line, _details in wired.shell.journal.recent_lines():
            print("recent:", line)

        wired.shell.yolo.start(GID, sid, BoxKind.MINUTES)
        await holds(lambda: wired.session(sid).yolo.effective, wired.bridge.snapshot_changed)
        wired.clock.advance(3 * 60 + 5)  # three minutes into the 15
        wired.shell.yolo.tick()
        print("tray tooltip:", wired.shell.tray.tray.toolTip().replace("\n", " | "))
        print("tray icon:", wired.shell.tray.status.icon_name)

        menu = wired.shell.tray.menu
        wired.shell.tray.rebuild_menu()
        menu.popup(QPoint(24, 24))
        await settle()
        session_menu = open_submenu(menu, f"session:{GID}:{sid}")
        await settle()
        yolo_line = next(
            a for a in menu_actions(session_menu) if a.objectName().startswith("yolo:")
        )
        session_menu.setActiveAction(yolo_line)
        await settle()
        grab(out / "tray-menu-yolo-timebox.png")
        session_menu.hide()
        await settle()
        open_submenu(menu, "recent-decisions")
        await settle()
        grab(out / "tray-menu-recent-decisions.png")
        menu.hide()
        icon_sheet(out / "tray-icons-yolo.png")
    finally:
        await wired.close()


def icon_sheet(path: Path) -> None:
    sheet = QPixmap(2 * 96 + 3 * 16, 96 + 32)
    sheet.fill(QColor("#3c3f41"))  # a dark panel
    painter = QPainter(sheet)
    painter.setPen(QColor("white"))
    for column, name in enumerate(("yolo", "yolo-timed")):
        x = 16 + column * (96 + 16)
        painter.drawPixmap(x, 8, icons.render_pixmap(name, 96))
        painter.drawText(x, 96 + 8, 96, 20, Qt.AlignmentFlag.AlignCenter, name)
    painter.end()
    sheet.save(str(path))
    print(f"wrote {path}")


def run(shoot: Callable[[Path], Awaitable[None]]) -> None:
    """Run ``shoot(folder)`` on a qasync loop; the folder is argv[1] (the screenshot CLIs)."""
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "artifacts/screenshots")
    target.mkdir(parents=True, exist_ok=True)
    application = QApplication(sys.argv[:1])
    application.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(application)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shoot(target))


if __name__ == "__main__":
    run(main)

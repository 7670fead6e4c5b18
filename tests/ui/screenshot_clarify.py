"""A screenshot of a clarify question in the tray: the session's menu entry and its window.

Run under Xvfb (the real xcb platform, real fonts), from the repository root:

    xvfb-run -a -s "-screen 0 1100x700x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python -m tests.ui.screenshot_clarify docs/screenshots

Everything is real: the fake B gateway on 127.0.0.1 asks a ``clarify`` question as iot
0.22.2.post1 does; the real client, core and bridge; the tray's own QMenu with the session
submenu open on "Answer: …", and the window that entry opens. Writes
``clarify-menu-and-dialog.png``. Not a test: pytest does not collect it.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_API", "pyside6")

from PySide6.QtCore import QPoint

from tests.gatewaymodel import FakeGateway
from tests.gatewaymodel.scenarios import default_book
from tests.gatewaymodel.script import Clarify, Say, Turn
from tests.ui.screenshot_tray_menu import grab, open_submenu, run, settle
from tests.ui.wired_app import GID, WiredApp, menu_actions
from tests.waiting import holds

QUESTION = "Which branch should I deploy to production?"
CHOICES = ("main", "release/2.4", "staging")


async def main(out: Path) -> None:
    book = default_book()
    book.scenarios["deploy"] = Turn(
        [Say("Tests pass."), Clarify(QUESTION, CHOICES, timeout=3000.0)], reply="Deployed."
    )
    fake = await FakeGateway("B", speed=0.01, turns=book).start()
    wired = WiredApp(fake)
    try:
        await wired.connected()
        sid = await wired.new_session("[[scenario:deploy]] deploy the webshop")
        [prompt] = await holds(lambda: wired.view().prompts, wired.bridge.snapshot_changed)
        print("tray tooltip:", wired.shell.tray.tray.toolTip().replace("\n", " | "))
        print("tray icon:", wired.shell.tray.status.icon_name)
        window = wired.shell.prompts.open(GID, prompt.key)
        assert window is not None
        window.move(560, 300)
        await settle()  # the window first: a popup menu closes when a window activates
        menu = wired.shell.tray.menu
        wired.shell.tray.rebuild_menu()
        menu.popup(QPoint(24, 24))
        await settle()
        session_menu = open_submenu(menu, f"session:{GID}:{sid}")
        await settle()
        answer = next(a for a in menu_actions(session_menu) if a.objectName().startswith("prompt:"))
        session_menu.setActiveAction(answer)
        await settle()
        grab(out / "clarify-menu-and-dialog.png")
        menu.hide()
    finally:
        await wired.close()


if __name__ == "__main__":
    run(main)

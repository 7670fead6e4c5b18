"""Real X input for the Xvfb scenario: xdotool moves the pointer, clicks and types (XTEST).

Why xdotool and not QTest here: QTest hands events to Qt directly; these go through the X
server, so window mapping, input focus and Qt's xcb event handling are all part of the test,
as they are when a person clicks. Commands run as asyncio subprocesses so the qasync loop (Qt's
painting and the gateway socket) keeps running while they do.
"""

from __future__ import annotations

import asyncio
import os
import shutil

from PySide6.QtWidgets import QWidget


def available() -> bool:
    """An X display on the xcb platform, with xdotool to drive it."""
    return (
        os.environ.get("QT_QPA_PLATFORM") == "xcb"
        and bool(os.environ.get("DISPLAY"))
        and shutil.which("xdotool") is not None
    )


async def xdotool(*args: str) -> str:
    process = await asyncio.create_subprocess_exec(
        "xdotool", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"xdotool {' '.join(args)} failed: {err.decode().strip()}")
    return out.decode()


async def focus(window: QWidget) -> None:
    """Give the top-level window the X input focus (there is no window manager to click)."""
    await xdotool("windowfocus", "--sync", str(int(window.window().winId())))


async def click(widget: QWidget) -> None:
    """Move the real pointer to the widget's centre and press the left button."""
    centre = widget.mapToGlobal(widget.rect().center())
    await xdotool("mousemove", "--sync", str(centre.x()), str(centre.y()))
    await xdotool("click", "1")


async def key(name: str) -> None:
    """Type one key (xdotool key name, e.g. "d") into the window that has the focus."""
    await xdotool("key", name)

"""Ask the desktop, without Qt, whether a tray host runs (for ``doctor``; the app asks Qt).

Both feed ``desktop.model.tray_host.tray_host``: a StatusNotifierWatcher with a host registered,
or on X11 an XEmbed tray (through libX11 with ctypes).
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from desktop.model.tray_host import WATCHER, TrayProbe
from desktop.platform.do_not_disturb import PROPERTIES, bus_call, leave

log = logging.getLogger(__name__)

WATCHER_PATH = "/StatusNotifierWatcher"


async def read_probe(timeout: float = 2.0) -> TrayProbe:
    desktop = os.environ.get("XDG_CURRENT_DESKTOP", "")
    xembed = xembed_tray()
    try:
        from dbus_fast.aio import MessageBus
    except ImportError:
        return TrayProbe(xembed=xembed, desktop=desktop, unknown="dbus-fast is not installed")
    try:
        bus: Any = await asyncio.wait_for(MessageBus().connect(), timeout)
    except Exception as exc:  # no session bus
        return TrayProbe(
            xembed=xembed, desktop=desktop, unknown=f"no session bus ({type(exc).__name__})"
        )
    try:
        owner = await asyncio.wait_for(bus_call(bus, "GetNameOwner", "s", WATCHER), timeout)
        registered: bool | None = None
        name = ""
        if isinstance(owner, str) and owner:
            pid = await asyncio.wait_for(
                bus_call(bus, "GetConnectionUnixProcessID", "s", owner), timeout
            )
            name = f"{_process_name(pid)} ({owner})" if isinstance(pid, int) else owner
            watcher = (owner, WATCHER_PATH, PROPERTIES)
            asked = bus_call(
                bus, "Get", "ss", WATCHER, "IsStatusNotifierHostRegistered", at=watcher
            )
            host = await asyncio.wait_for(asked, timeout)
            registered = None if host is None else bool(getattr(host, "value", host))
        return TrayProbe(
            watcher_owner=name, host_registered=registered, xembed=xembed, desktop=desktop
        )
    finally:
        await leave(bus, timeout)


def _process_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as comm:
            return comm.read().strip()[:40] or f"process {pid}"
    except OSError:
        return f"process {pid}"


def xembed_tray() -> bool | None:
    """Whether an XEmbed system tray owns ``_NET_SYSTEM_TRAY_S<screen>``; None when no X."""
    if not os.environ.get("DISPLAY"):
        return None
    import ctypes  # here: only an X session asks, and the idle tray elsewhere skips libffi

    try:
        xlib = ctypes.CDLL("libX11.so.6")
    except OSError:
        return None
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XDefaultScreen.argtypes = [ctypes.c_void_p]
    xlib.XInternAtom.restype = ctypes.c_ulong
    xlib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    xlib.XGetSelectionOwner.restype = ctypes.c_ulong
    xlib.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = xlib.XOpenDisplay(None)
    if not display:
        return None
    try:
        screen = xlib.XDefaultScreen(display)
        atom = xlib.XInternAtom(display, f"_NET_SYSTEM_TRAY_S{screen}".encode(), 1)
        return bool(atom) and xlib.XGetSelectionOwner(display, atom) != 0
    finally:
        xlib.XCloseDisplay(display)

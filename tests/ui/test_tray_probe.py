"""doctor names the tray host: the StatusNotifierWatcher's owner (with or without a host), or none.

A private session bus (the ``bus`` fixture) and no X display: the XEmbed half is not asked.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os

import pytest

from desktop.gateway import doctor
from desktop.model.tray_host import HostKind, tray_host
from desktop.platform.tray_probe import read_probe
from tests.ui.dbus_fakes.watcher import FakeWatcher


@dataclasses.dataclass(frozen=True)
class Options:
    gateway: str | None = None
    json: bool = False


@pytest.fixture(autouse=True)
def no_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "GNOME")


def test_the_probe_reads_the_watcher_and_whether_a_host_is_registered(bus, qloop, arun):
    async def scenario():
        nobody = await read_probe()
        watcher = await FakeWatcher.start(bus.address, host=False)
        try:
            without_host = await read_probe()
            watcher.host = True
            with_host = await read_probe()
        finally:
            await watcher.stop()
        return nobody, without_host, with_host

    nobody, without_host, with_host = arun(scenario(), timeout=20)
    assert (nobody.watcher_owner, nobody.xembed) == ("", None)
    assert tray_host(nobody).kind is HostKind.NONE
    assert without_host.host_registered is False
    assert tray_host(without_host).kind is HostKind.NONE
    assert with_host.host_registered is True
    assert tray_host(with_host).kind is HostKind.STATUS_NOTIFIER
    # the owner is named by its process (this test's interpreter) and its bus name
    assert with_host.watcher_owner.startswith(f"{_comm(os.getpid())} (:")


def test_doctor_says_there_is_no_tray_and_what_to_install(bus, qloop, arun):
    async def scenario():
        text, as_json = io.StringIO(), io.StringIO()
        await doctor.check(Options(), text)
        await doctor.check(Options(json=True), as_json)
        return text.getvalue(), json.loads(as_json.getvalue())

    text, data = arun(scenario(), timeout=20)
    assert "Tray host: none: no StatusNotifierWatcher on the session bus\n" in text
    assert "Hermes Tray shows its own window instead of an icon." in text
    assert "AppIndicator extension" in text
    assert data["desktop"]["tray_host"] == "none"


def _comm(pid: int) -> str:
    with open(f"/proc/{pid}/comm", encoding="utf-8") as comm:
        return comm.read().strip()

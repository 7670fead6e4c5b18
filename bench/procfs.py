"""Read a process's memory and context switches from /proc (Linux), without psutil.

Why /proc and not psutil: psutil is not a dependency of the app and the figures need only two
files. ``VmRSS`` (``/proc/<pid>/status``) is what "resident memory" means to a person looking
at ``top``; ``Pss`` (``smaps_rollup``) shares libraries fairly between processes and is kept
alongside for context. Context switches are summed over every thread (``/proc/<pid>/task``)
because ``/proc/<pid>/status`` counts the main thread only.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path


def _fields(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(encoding="ascii", errors="replace").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _kib(value: str) -> int:
    return int(value.split()[0]) if value else 0


@dataclass(frozen=True)
class Memory:
    """Resident memory of one process, in KiB."""

    rss_kib: int
    pss_kib: int  # 0 when smaps_rollup is unreadable
    anon_kib: int  # RssAnon: the heap, mostly Python objects and Qt widgets

    @property
    def rss_mib(self) -> float:
        return self.rss_kib / 1024.0


def memory(pid: int | None = None) -> Memory:
    """VmRSS, Pss and RssAnon of ``pid`` (default: this process)."""
    base = Path("/proc") / (str(pid) if pid else "self")
    status = _fields(base / "status")
    pss = 0
    with contextlib.suppress(OSError):  # smaps_rollup needs Linux 4.14 and ptrace access
        pss = _kib(_fields(base / "smaps_rollup").get("Pss", ""))
    return Memory(_kib(status.get("VmRSS", "")), pss, _kib(status.get("RssAnon", "")))


@dataclass(frozen=True)
class Switches:
    """Context switches summed over every thread of a process."""

    voluntary: int
    involuntary: int
    threads: int


def switches(pid: int | None = None) -> Switches:
    """Voluntary and involuntary context switches of all threads of ``pid``."""
    base = Path("/proc") / (str(pid) if pid else "self") / "task"
    voluntary = involuntary = threads = 0
    for task in os.listdir(base):
        try:
            fields = _fields(base / task / "status")
        except OSError:  # the thread ended meanwhile
            continue
        voluntary += int(fields.get("voluntary_ctxt_switches", "0"))
        involuntary += int(fields.get("nonvoluntary_ctxt_switches", "0"))
        threads += 1
    return Switches(voluntary, involuntary, threads)


def cpu_seconds(pid: int | None = None) -> float:
    """User plus system CPU time of ``pid`` (all threads), from ``/proc/<pid>/stat``."""
    base = Path("/proc") / (str(pid) if pid else "self")
    text = (base / "stat").read_text(encoding="ascii", errors="replace")
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": state is fields[0]
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return ticks / os.sysconf("SC_CLK_TCK")

"""Watch a process tree's sockets and prove it only talked to loopback.

Why: the real Hermes reaches out on its own (update checks, lazy pip installs, scanner
downloads) unless configured not to, and tests may only touch 127.0.0.1. Two checks:

* :class:`NetworkWatcher` samples, every ``interval`` seconds and once more at the end, the
  socket inodes held by every process of the tree (``/proc/<pid>/fd``) and looks them up in
  ``/proc/<pid>/net/{tcp,tcp6,udp,udp6}``. Any remote address that is neither loopback nor
  unset is a violation.
* :class:`ProxyCanary` is the "dead" proxy port that HTTP(S)_PROXY points at: a listener that
  records the first line of each attempt (``CONNECT pypi.org:443 …``) and hangs up, so a
  client that honours proxies fails fast *and* we learn what it tried to reach.

Limits (documented, not hidden): sampling can miss a connection that opens and closes between
two samples; an unconnected UDP socket used with ``sendto`` shows no remote address; a client
that ignores proxy variables and connects directly is only seen by the sampler. Linux only.
A loopback-only network namespace (``unshare --net``) would be the hard guarantee, but the fake
model must then live inside it too, so it is not used here.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

_TABLES = ("tcp", "tcp6", "udp", "udp6")


@dataclass(frozen=True)
class Endpoint:
    """One socket of the watched tree with a non-loopback remote end."""

    table: str
    local: str
    remote: str
    pid: int


def _decode(hex_addr: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """Decode a ``/proc/net/tcp`` address (``0100007F:1F90`` → 127.0.0.1, 8080)."""
    host, port = hex_addr.split(":")
    raw = bytes.fromhex(host)
    # The kernel prints each 32-bit word in host (little-endian) order.
    fixed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return ipaddress.ip_address(fixed), int(port, 16)


def is_local(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback, or unset (a listening/unconnected socket has remote 0.0.0.0 / ::)."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback or addr.is_unspecified


def process_tree(root: int) -> set[int]:
    """``root`` and all its living descendants (by scanning ``/proc/*/stat`` for ppid)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Format: pid (comm) state ppid ...; comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    return {pid for pid in tree if pid in parents}


def socket_inodes(pid: int) -> set[int]:
    """Inodes of the sockets ``pid`` holds open."""
    inodes: set[int] = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def parse_table(table: str, text: str, owner: dict[int, int]) -> list[Endpoint]:
    """Connected sockets listed in one ``/proc/net/<table>`` text whose inode is in ``owner``."""
    found: list[Endpoint] = []
    for line in text.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 10 or int(cols[9]) not in owner:
            continue
        remote, rport = _decode(cols[2])
        if remote.is_unspecified:
            continue  # listening or unconnected
        local, lport = _decode(cols[1])
        found.append(Endpoint(table, f"{local}:{lport}", f"{remote}:{rport}", owner[int(cols[9])]))
    return found


def connected_endpoints(pids: set[int]) -> list[Endpoint]:
    """Every connected socket (TCP or UDP, v4 or v6) held by ``pids``."""
    owner = {inode: pid for pid in pids for inode in socket_inodes(pid)}
    if not owner:
        return []
    netdir = next((Path(f"/proc/{p}/net") for p in pids if Path(f"/proc/{p}/net").exists()), None)
    found: list[Endpoint] = []
    for table in _TABLES:
        try:
            text = ((netdir or Path("/proc/net")) / table).read_text()
        except OSError:
            continue
        found.extend(parse_table(table, text, owner))
    return found


def is_foreign(endpoint: Endpoint) -> bool:
    """True when the remote end is not on this machine's loopback."""
    return not is_local(ipaddress.ip_address(endpoint.remote.rsplit(":", 1)[0]))


class NetworkWatcher:
    """Samples a process tree's sockets in a thread until :meth:`stop`."""

    def __init__(self, root_pid: int, interval: float = 0.25) -> None:
        self.root_pid = root_pid
        self.interval = interval
        self.violations: list[Endpoint] = []
        self.seen: set[Endpoint] = set()  # every connected socket seen, loopback included
        self.samples = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="netguard", daemon=True)

    def start(self) -> NetworkWatcher:
        self._thread.start()
        return self

    def sample(self) -> list[Endpoint]:
        """Take one sample now; return its violations (also kept in :attr:`violations`)."""
        connected = connected_endpoints(process_tree(self.root_pid))
        foreign = [e for e in connected if is_foreign(e)]
        with self._lock:
            self.samples += 1
            self.seen.update(connected)
            self.violations.extend(e for e in foreign if e not in self.violations)
        return foreign

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def stop(self) -> list[Endpoint]:
        """Final sample, stop the thread, return every violation seen."""
        self.sample()
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            return list(self.violations)


class ProxyCanary:
    """A loopback "proxy" that refuses to proxy but writes down what it was asked for."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.attempts: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="proxy-canary", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    first = conn.recv(512).split(b"\r\n", 1)[0].decode("latin-1")
                except OSError:
                    first = "<no request line>"
                self.attempts.append(first or "<empty>")
                with contextlib.suppress(OSError):
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> list[str]:
        """Stop listening; return every attempt recorded."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()
        return list(self.attempts)

"""Find the canonical gateway through its control socket and mint a dial ticket (protocol §1.2).

The socket decides who gets the approvals: the pointer file, the socket and the peer process
must belong to this user and not be writable by others, or a local attacker could pose as it.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from desktop.core.connection import CANONICAL_SUBPROTOCOL as SUBPROTOCOL
from desktop.gateway.endpoints import DialPlan
from desktop.gateway.errors import ConnectError
from desktop.logsetup import register_secret
from desktop.settings.model import is_loopback_host

TICKET_PREFIX = "hermes-gateway-ticket."
CAPABILITY = "session-authority-v1"
SOCKET_NAME = "gateway.sock"
POINTER_NAME = "gateway.sock.path"
MAX_LINE = 64 * 1024


@dataclass(frozen=True)
class RuntimeIdentity:
    api_origin: str
    profile_id: str
    instance_id: str

    @property
    def ws_url(self) -> str:
        scheme, rest = self.api_origin.rstrip("/").split("://", 1)
        return {"http": "ws", "https": "wss"}[scheme] + "://" + rest + "/api/ws"


def _check_private(path: Path, what: str, *, want: int) -> os.stat_result:
    try:
        st = path.lstat()
    except OSError as exc:
        raise ConnectError(f"Cannot inspect {what} {path}: {exc.strerror}.") from None
    kind = stat.S_IFMT(st.st_mode)
    if kind != want:
        raise ConnectError(
            f"{what.capitalize()} {path} has the wrong file type; ignoring it.", fatal=True
        )
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise ConnectError(
            f"{what.capitalize()} {path} belongs to another user; ignoring it.", fatal=True
        )
    return st


def default_hermes_home(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("HERMES_HOME") or os.path.expanduser("~/.hermes")


def find_control_socket(hermes_home: str | os.PathLike[str]) -> Path | None:
    """The control socket for ``hermes_home``, None if none; fatal ConnectError if not private."""
    home = Path(hermes_home).expanduser()
    direct = home / SOCKET_NAME
    if direct.exists():
        _check_private(direct, "control socket", want=stat.S_IFSOCK)
        return direct
    pointer = home / POINTER_NAME
    if not pointer.exists():
        return None
    st = _check_private(pointer, "socket pointer file", want=stat.S_IFREG)
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise ConnectError(
            f"Socket pointer file {pointer} is accessible by other users "
            f"(mode {stat.S_IMODE(st.st_mode):o}); ignoring it. Run: chmod 600 {pointer}",
            fatal=True,
        )
    target = Path(pointer.read_text(encoding="utf-8").strip())
    if (
        not target.is_absolute()
        or target.name != "control.sock"
        or not (target.parent.name.startswith("hermes-gw-"))
    ):
        raise ConnectError(
            f"Socket pointer file {pointer} names an unexpected path; ignoring it.", fatal=True
        )
    if not target.exists():
        return None
    parent = _check_private(target.parent, "control socket directory", want=stat.S_IFDIR)
    if stat.S_IMODE(parent.st_mode) & 0o022:
        raise ConnectError(
            f"Control socket directory {target.parent} is writable by others; ignoring it.",
            fatal=True,
        )
    _check_private(target, "control socket", want=stat.S_IFSOCK)
    return target


def _check_peer(sock: socket.socket | None) -> None:
    """Refuse a control socket served by another user's process (Linux SO_PEERCRED)."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if sock is None or peercred is None or not hasattr(os, "getuid"):
        return
    raw = sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    if uid != os.getuid():
        raise ConnectError(
            "The gateway control socket is served by another user; refusing it.", fatal=True
        )


async def control_request(
    path: Path, request: dict[str, Any], *, timeout: float = 5.0
) -> dict[str, Any]:
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_unix_connection(str(path), limit=MAX_LINE)
            try:
                _check_peer(writer.get_extra_info("socket"))
                writer.write(json.dumps(request).encode() + b"\n")
                await writer.drain()
                line = await reader.readline()
            finally:
                writer.close()
                await writer.wait_closed()
    except ConnectError:
        raise
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConnectError(
            f"The gateway control socket {path} did not answer "
            f"({type(exc).__name__}). Is `hermes gateway` running?"
        ) from None
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        raise ConnectError(
            f"The gateway control socket {path} sent an unreadable answer."
        ) from None
    if not isinstance(answer, dict) or answer.get("id") != request["id"]:
        raise ConnectError(f"The gateway control socket {path} sent an unexpected answer.")
    if answer.get("ok") is not True or not isinstance(answer.get("result"), dict):
        error = answer.get("error")
        code = error.get("code", "") if isinstance(error, dict) else error
        text = str(code) if isinstance(code, str) and code.isidentifier() else "request_failed"
        raise ConnectError(f"The canonical gateway refused {request['verb']} ({text}).")
    result: dict[str, Any] = answer["result"]
    return result


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def _valid_origin(origin: object) -> bool:
    if not isinstance(origin, str):
        return False
    parts = urlsplit(origin)
    try:
        port = parts.port
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and port is not None
        and parts.path in ("", "/")
        and is_loopback_host(parts.hostname or "")
    )


async def identify(
    hermes_home: str | os.PathLike[str], path: Path, *, timeout: float = 5.0
) -> RuntimeIdentity:
    """Ask who serves ``hermes_home`` and validate every field a dial depends on."""
    result = await control_request(
        path, {"protocol": 1, "verb": "identify", "id": 1}, timeout=timeout
    )
    home = _real(hermes_home)
    profiles = [
        p
        for p in result.get("served_profiles") or []
        if isinstance(p, dict) and _real(str(p.get("home", ""))) == home
    ]
    caps = result.get("capabilities") or []
    epoch = result.get("authority_epoch")
    problem = ""
    if result.get("runtime_protocol") != 1:
        problem = "speaks another runtime protocol; update the tray or Hermes"
    elif len(profiles) != 1:
        problem = f"does not serve {home} exactly once"
    elif not isinstance(caps, list) or CAPABILITY not in caps:
        problem = f"lacks the {CAPABILITY} capability"
    elif not isinstance(epoch, int) or epoch <= 0 or not result.get("instance_id"):
        problem = "sent no valid authority epoch or instance id"
    elif not _valid_origin(result.get("api_origin")):
        problem = "names a WebSocket origin that is not a loopback http(s) address"
    if problem:
        raise ConnectError(f"The canonical gateway at {path} {problem}.", fatal=True)
    state = str(result.get("state", ""))
    if state != "ready":
        raise ConnectError(f"The canonical gateway for {home} is {state or 'not ready'}; retrying.")
    return RuntimeIdentity(
        str(result["api_origin"]),
        str(profiles[0].get("profile_id", "")),
        str(result["instance_id"]),
    )


async def dial_ticket(hermes_home: str | os.PathLike[str]) -> DialPlan:
    """A ticket is single-use: one per dial."""
    path = find_control_socket(hermes_home)
    if path is None:
        raise ConnectError(
            f"No canonical gateway control socket in {hermes_home}. Start it with `hermes gateway`."
        )
    identity = await identify(hermes_home, path)
    params = {
        "profile_id": identity.profile_id,
        "instance_id": identity.instance_id,
        "purpose": "interactive",
    }
    grant = await control_request(
        path, {"protocol": 1, "id": 1, "verb": "session-ticket", "params": params}
    )
    ticket = grant.get("ticket")
    if (
        grant.get("profile_id") != identity.profile_id
        or grant.get("instance_id") != identity.instance_id
        or grant.get("runtime_protocol") != 1
        or not isinstance(ticket, str)
        or not ticket
    ):
        raise ConnectError("The canonical gateway granted an invalid ticket; retrying.")
    register_secret(ticket)
    return DialPlan(identity.ws_url, (SUBPROTOCOL, TICKET_PREFIX + ticket), SUBPROTOCOL)

"""A tiny stand-in for the ``hermes`` executable, written to a temp dir by tests.

``hermes serve --host 127.0.0.1 --port 0 …`` starts a websockets server that checks
``?token=`` against ``HERMES_DASHBOARD_SESSION_TOKEN`` (403 otherwise), prints the READY line,
sends a 0.19.0-style ``gateway.ready``, answers ``config.get {key: "profile"}`` with its own
HERMES_HOME (as Hermes does) and every other request with -32601, and exits with code 3 when
it receives the method ``crash``. ``FAKE_HERMES_MODE`` picks a misbehaviour:
``exit`` (dies before READY) or ``silent`` (never prints READY). It prints the token once so
tests can check the supervisor's log masks it, and appends its argv to ``FAKE_HERMES_ARGV``.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

SCRIPT = r"""
import asyncio, json, os, sys
from urllib.parse import parse_qs, urlsplit
from websockets.asyncio.server import serve

TOKEN = os.environ["HERMES_DASHBOARD_SESSION_TOKEN"]
MODE = os.environ.get("FAKE_HERMES_MODE", "ok")
with open(os.environ["FAKE_HERMES_ARGV"], "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\n")
print("starting with token " + TOKEN, flush=True)
if MODE == "exit":
    sys.exit(2)

async def handler(ws):
    ready = {"type": "gateway.ready", "payload": {"skin": {"name": "fake"}}}
    await ws.send(json.dumps({"jsonrpc": "2.0", "method": "event", "params": ready}))
    async for raw in ws:
        req = json.loads(raw)
        if req.get("method") == "crash":
            os._exit(3)
        if req.get("method") == "config.get" and req.get("params", {}).get("key") == "profile":
            home = os.environ.get("HERMES_HOME", "")
            result = {"home": home, "display": home}
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": result}))
            continue
        if "id" in req and "method" in req:
            err = {"code": -32601, "message": "unknown method"}
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": req["id"], "error": err}))

def check_token(connection, request):
    query = parse_qs(urlsplit(request.path).query)
    if query.get("token") != [TOKEN]:
        return connection.respond(403, "forbidden\n")
    return None

async def main():
    async with serve(handler, "127.0.0.1", 0, process_request=check_token) as server:
        port = server.sockets[0].getsockname()[1]
        if MODE != "silent":
            print(f"HERMES_BACKEND_READY port={port}", flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


def write_fake_hermes(directory: Path) -> Path:
    """Write the script as ``directory/hermes`` running under this test's Python."""
    path = directory / "hermes"
    path.write_text(f"#!{sys.executable}\n{SCRIPT}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_env(tmp: Path, mode: str = "ok") -> dict[str, str]:
    env = dict(os.environ)
    env["FAKE_HERMES_MODE"] = mode
    env["FAKE_HERMES_ARGV"] = str(tmp / "argv.jsonl")
    env["HERMES_TRAY_LOG_DIR"] = str(tmp / "logs")
    return env

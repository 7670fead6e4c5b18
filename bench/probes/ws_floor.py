"""The latency reference: a bare websockets client that only timestamps what arrives.

Why: it measures, in the same run and with the same gateway, flood and approvals, everything
that is *not* the app — the fake gateway's sending, loopback TCP, WebSocket framing and a
plain asyncio loop. The app's latency divided by this floor says how much the app adds; if
the floor itself were high, the bench (not the app) would be the bottleneck.

It declares ``server_requests`` (so the fake sends it approvals), creates its sessions, and
then only records the arrival time of each ``bench-approval <n>`` frame and counts
``message.delta`` frames. Commands (stdin): ``report``, ``quit``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from typing import Any

from websockets.asyncio.client import connect

from bench.lines import emit
from bench.probes import commands

_INDEX_RE = re.compile(r"bench-approval (\d+)")


async def _call(ws: Any, rpc_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}))
    while True:
        frame: dict[str, Any] = json.loads(await ws.recv())
        if frame.get("id") == rpc_id and "method" not in frame:
            return frame


async def run(args: argparse.Namespace) -> None:
    arrived: dict[int, float] = {}
    deltas = [0]
    quit_requested = asyncio.Event()

    def handle(command: dict[str, Any]) -> None:
        if command.get("cmd") == "report":
            emit("arrivals", arrived={str(k): v for k, v in arrived.items()}, deltas=deltas[0])
        elif command.get("cmd") == "quit":
            quit_requested.set()

    commands.listen(asyncio.get_running_loop(), handle)
    async with connect(args.gateway, proxy=None, max_size=None, ping_interval=None) as ws:
        await ws.recv()  # gateway.ready
        await _call(ws, 1, "client.capabilities", {"server_requests": True})
        sessions = []
        for n in range(args.sessions + 1):
            answer = await _call(ws, 2 + n, "session.create", {"cols": 100, "source": "desktop"})
            sessions.append(answer["result"]["session_id"])
        emit("sessions", approval_sessions=sessions[:-1], flood_session=sessions[-1])

        async def receive() -> None:
            async for raw in ws:
                now = time.monotonic()
                if isinstance(raw, str) and "bench-approval " in raw:
                    found = _INDEX_RE.search(raw)
                    if found:
                        arrived.setdefault(int(found.group(1)), now)
                elif isinstance(raw, str) and '"message.delta"' in raw:
                    deltas[0] += 1

        reader = asyncio.get_running_loop().create_task(receive())
        await asyncio.wait_for(quit_requested.wait(), args.timeout)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=600.0)
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The gateway peer: the project's fake Hermes gateway (dialect B) in its own process.

Why a separate process: at 5,000 frames/s the sender would otherwise share the app's event
loop and CPU, and its cost would be charged to the app. Send times are taken in *this*
process right before ``ws.send`` of the client's connection (loopback), with
``time.monotonic()``, which is system-wide on Linux and so comparable with the app's clock.

Commands (JSON lines on stdin, answers as ``BENCH`` lines; see ``bench.child``):

* ``wait_client``: wait for the tray's connection (capabilities declared), time its sends;
* ``queue_batches {count, size}``: the next ``count`` prompts each ask ``size`` commands at once;
* ``other_sessions {count}``: ``count`` idle sessions other clients started (the tray follows
  them); answers ``sessions {count}``;
* ``latency_phase {...}``: optionally start a ``message.delta`` flood on one session, then
  raise ``samples`` approvals (command ``echo bench-approval <n>``) round-robin over sessions,
  paced with jitter; answer with every approval's send time and the flood's achieved rate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import time
from typing import Any

from bench.lines import emit
from bench.probes import commands
from tests.gatewaymodel import Batch, Command, GatewayModel, Turn

APPROVAL_MARK = "bench-approval "
_APPROVAL_RE = re.compile(r"bench-approval (\d+)")
PATTERN = "delete in root path"
TICK = 0.002  # flood pacing: frames owed are sent every 2 ms


class SendLog:
    """Send times of marked approvals and counts of flood frames, taken at ``ws.send``."""

    def __init__(self) -> None:
        self.approvals: dict[int, float] = {}
        self.deltas = 0
        self.first_delta = 0.0
        self.last_delta = 0.0

    def wrap(self, ws: Any) -> None:
        original = ws.send

        async def timed_send(message: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(message, str):
                now = time.monotonic()
                if APPROVAL_MARK in message:
                    found = _APPROVAL_RE.search(message)
                    if found:
                        self.approvals[int(found.group(1))] = now
                elif '"message.delta"' in message:
                    if not self.deltas:
                        self.first_delta = now
                    self.deltas += 1
                    self.last_delta = now
            return await original(message, *args, **kwargs)

        ws.send = timed_send


class Peer:
    """The fake gateway plus the bench's controls."""

    def __init__(self, fake: GatewayModel) -> None:
        self.fake = fake
        self.log = SendLog()
        self.conn: Any = None
        self.seen: set[int] = set()  # connections already measured (clients come one by one)
        self.busy: asyncio.Task[None] | None = None
        self.quit = asyncio.Event()

    def handle(self, command: dict[str, Any]) -> None:
        name = command.get("cmd")
        if name == "quit":
            self.quit.set()
        elif name == "queue_batches":
            self._queue_batches(int(command["count"]), int(command["size"]))
        elif name == "other_sessions":
            for index in range(int(command["count"])):
                self.fake.create_session(title=f"Another client's session {index + 1}")
            emit("sessions", count=len(self.fake.sessions))
        elif name in ("wait_client", "latency_phase"):
            coro = self._wait_client(command) if name == "wait_client" else self._phase(command)
            self.busy = asyncio.get_running_loop().create_task(self._guard(coro))
        else:
            emit("error", error=f"unknown command {name!r}")

    async def _guard(self, coro: Any) -> None:
        try:
            await coro
        except Exception as exc:  # reported to the parent, which fails the figure
            emit("error", error=f"{type(exc).__name__}: {exc}")

    async def _wait_client(self, command: dict[str, Any]) -> None:
        timeout = float(command.get("timeout", 20.0))

        def capable() -> Any:
            fresh = [
                conn
                for conn in self.fake.world.connections.values()
                if conn.record.server_requests and conn.index not in self.seen and not conn.closed
            ]
            return max(fresh, key=lambda c: c.index) if fresh else None

        self.conn = await self.fake.wait_for(capable, timeout, "a new client connection")
        self.seen.add(self.conn.index)
        self.log.wrap(self.conn.ws)
        emit("client", conn=self.conn.index)

    def _queue_batches(self, count: int, size: int) -> None:
        for s in range(count):
            commands_ = tuple(
                Command(f"rm -rf /tmp/hermes-scratch/bench/s{s}/c{c}", PATTERN) for c in range(size)
            )
            self.fake.queue_turn(Turn([Batch(commands_)], reply="bench batch done"))
        emit("queued", count=count, size=size)

    async def _phase(self, command: dict[str, Any]) -> None:
        sessions = [self.fake.session(sid) for sid in command["sessions"]]
        samples, first = int(command["samples"]), int(command["start_index"])
        interval, jitter = float(command["interval"]), float(command["jitter"])
        rate = float(command.get("rate", 0.0))
        flood_task = None
        log = self.log
        log.deltas = 0
        if rate > 0:
            flood_session = self.fake.session(command["flood_session"])
            flood_task = asyncio.get_running_loop().create_task(self._flood(flood_session, rate))
            await asyncio.sleep(float(command.get("warmup", 1.0)))
        delta_start = log.deltas
        t_start = time.monotonic()
        rng = random.Random(first)
        for n in range(samples):
            index = first + n
            session = sessions[n % len(sessions)]
            self.fake.raise_approval(session.sid, Command(f"echo {APPROVAL_MARK}{index}", PATTERN))
            await asyncio.sleep(max(0.0, interval + rng.uniform(-jitter, jitter)))
        await asyncio.sleep(float(command.get("tail", 0.5)))
        t_end = time.monotonic()
        delta_count = log.deltas - delta_start
        if flood_task is not None:
            flood_task.cancel()
            await asyncio.gather(flood_task, return_exceptions=True)
        sent = {str(i): log.approvals.get(i) for i in range(first, first + samples)}
        emit(
            "phase_done",
            sent=sent,
            flood_frames=delta_count,
            flood_seconds=t_end - t_start,
            flood_rate=delta_count / (t_end - t_start) if rate > 0 else 0.0,
            flood_first=log.first_delta if rate > 0 else None,
            flood_total=log.deltas,
            backlog=self._backlog(),
        )

    async def _flood(self, session: Any, rate: float) -> None:
        """``message.delta`` on ``session`` at ``rate`` frames/s (paced every TICK seconds)."""
        world = self.fake.world
        start, sent, trimmed = time.monotonic(), 0, time.monotonic()
        payload = {"text": "token "}
        while True:
            now = time.monotonic()
            owed = int((now - start) * rate) - sent
            for _ in range(owed):
                world.pub.emit(session, "message.delta", payload)
            sent += owed
            if now - trimmed > 0.5:
                world.trim()  # the fake keeps a frame history; keep it bounded
                trimmed = now
            await asyncio.sleep(TICK)

    def _backlog(self) -> int:
        outbox = getattr(self.conn, "_outbox", None)
        return int(outbox.qsize()) if outbox is not None else -1


async def serve(args: argparse.Namespace) -> None:
    fake = GatewayModel("B", history=200, approval_timeout=None)
    async with fake:
        peer = Peer(fake)
        commands.listen(asyncio.get_running_loop(), peer.handle)
        emit("ready", url=fake.url)
        await asyncio.wait_for(peer.quit.wait(), args.lifetime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lifetime", type=float, default=900.0, help="stop after this long")
    with contextlib.suppress(TimeoutError):  # the lifetime is over
        asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    main()

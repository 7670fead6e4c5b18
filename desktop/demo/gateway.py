"""The demo's gateway: a small Hermes tui_gateway (dialect B) on 127.0.0.1 that plays a story.

A real server, so a newcomer sees the tray work exactly as with Hermes. It speaks only what the
story needs and imports nothing of the client, so it stays an independent peer. Nothing is run.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import time
import urllib.parse
import uuid
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

VERSION = "0.22.2.post1"  # the B build the protocol notes were measured on
WS_PATH, STATUS_PATH = "/api/ws", "/api/status"
APPROVING = ("once", "session", "always")
CHOICES = [*APPROVING, "deny"]
BLOCKED = "BLOCKED: Command denied by user. The user has NOT consented to this action."
TIMED_OUT = "BLOCKED: Command timed out without user response. Silence is not consent."
USAGE_KEYS = ("input", "output", "prompt", "completion", "total", "calls", "context_used")


class RpcError(Exception):
    """An RPC this gateway answers with an error frame: ``RpcError(code, message)``."""


@dataclass(frozen=True)
class Command:
    """One ``terminal`` call; ``pattern_key`` None: a clean command that never asks."""

    command: str
    pattern_key: str | None = None
    description: str = ""
    output: str = ""
    duration: float = 0.2  # simulated run time, script seconds


@dataclass(eq=False)
class Ask:
    """One approval request; ``outcome``: a choice, timeout, interrupted, withdrawn or None."""

    session_id: str
    command: Command
    deadline: float | None  # loop time, None: waits for ever
    srq_id: str = field(default_factory=lambda: "srq-" + secrets.token_hex(6))
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    outcome: str | None = None
    answered: asyncio.Event = field(default_factory=asyncio.Event)

    def params(self) -> dict[str, Any]:
        """The ``approval`` request params (also an ``approval.pending`` item)."""
        key = self.command.pattern_key
        return {
            "session_id": self.session_id,
            "command": self.command.command,
            "pattern_key": key,
            "pattern_keys": [key] if key else [],
            "description": self.command.description or key,
            "allow_permanent": True,
            "allow_session": True,
            "request_id": self.request_id,
            "choices": CHOICES,
        }


@dataclass(eq=False)
class Session:
    """A live session: ``sid`` routes every frame, ``stored_id`` is what a resume names."""

    title: str
    cwd: str
    sid: str = field(default_factory=lambda: secrets.token_hex(4))
    stored_id: str = field(
        default_factory=lambda: datetime.now().strftime("%Y%m%d_%H%M%S_") + secrets.token_hex(3)
    )
    started_at: float = field(default_factory=time.time)
    yolo: bool = False
    running: bool = False
    stopped: bool = False  # the person stopped the agent (session.interrupt): the round ends
    allowed: set[str] = field(default_factory=set)  # pattern keys answered session/always
    usage: dict[str, Any] = field(
        default_factory=lambda: {**dict.fromkeys(USAGE_KEYS, 0), "context_max": 131072}
    )
    todos: list[dict[str, str]] = field(default_factory=list)
    todo_revision: int = 0
    messages: deque[dict[str, str]] = field(default_factory=lambda: deque(maxlen=20))
    seq: int = 0
    viewers: set[ServerConnection] = field(default_factory=set)
    viewed: asyncio.Event = field(default_factory=asyncio.Event)
    calls: int = 0


@dataclass(frozen=True)
class Execution:
    session_id: str
    command: str


class DemoGateway:
    """``speed``: real seconds per script second; history is bounded, so a long demo stays flat."""

    def __init__(self, *, speed: float = 1.0, approval_timeout: float | None = None) -> None:
        history = 200
        self.token = secrets.token_urlsafe(24)
        self.speed, self.approval_timeout = speed, approval_timeout
        self.sessions: dict[str, Session] = {}
        self.asked: deque[Ask] = deque(maxlen=history)
        self.executed: deque[Execution] = deque(maxlen=history)
        self.late_answers = 0  # answers to ids no longer open (they get no reply)
        self.close_codes: deque[int | None] = deque(maxlen=history)
        self._open: dict[str, Ask] = {}
        self._capable: set[ServerConnection] = set()  # said client.capabilities server_requests
        self._server: Server | None = None
        self.port = 0
        self._epoch = uuid.uuid4().hex

    async def start(self) -> None:
        self._server = await serve(
            self._serve, "127.0.0.1", 0, process_request=self._check, ping_interval=None
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close(close_connections=True)
            await self._server.wait_closed()
            self._server = None

    @property
    def base_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{WS_PATH}"

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        """The handshake: the public status page, else the path and ``?token=`` (else 403)."""
        url = urllib.parse.urlsplit(request.path)
        if url.path == STATUS_PATH:
            status = {"version": VERSION, "gateway_running": True, "auth_required": True}
            return connection.respond(200, json.dumps(status))
        token = urllib.parse.parse_qs(url.query).get("token", [""])[0]
        if url.path != WS_PATH or not hmac.compare_digest(token.encode(), self.token.encode()):
            return connection.respond(403, "Forbidden\n")
        return None

    async def _serve(self, ws: ServerConnection) -> None:
        ready = {"skin": {}, "change_events": True, "heartbeat": True, "replay_epoch": self._epoch}
        try:
            await self._send([ws], {"method": "event", "params": _event("gateway.ready", ready)})
            async for raw in ws:
                await self._receive(ws, raw)
        except ConnectionClosed:
            pass
        finally:
            self._capable.discard(ws)
            for session in self.sessions.values():
                session.viewers.discard(ws)
            self.close_codes.append(ws.close_code)

    async def _send(self, conns: Iterable[ServerConnection], frame: Mapping[str, Any]) -> None:
        text = json.dumps({"jsonrpc": "2.0", **frame})
        for ws in list(conns):
            with contextlib.suppress(ConnectionClosed):
                await ws.send(text)

    async def _receive(self, ws: ServerConnection, raw: str | bytes) -> None:
        try:
            frame = json.loads(raw)
        except ValueError:
            await self._send([ws], {"id": None, "error": {"code": -32700, "message": "parse"}})
            return
        if not isinstance(frame, dict):
            return
        rpc_id, method, params = frame.get("id"), frame.get("method"), frame.get("params")
        if method is None:
            if "result" in frame or "error" in frame:
                self._answer(frame)
            return
        params = params if isinstance(params, dict) else {}
        handler = getattr(self, "_rpc_" + str(method).replace(".", "_"), None)
        try:
            if handler is None:
                raise RpcError(-32601, "unknown method")
            result = handler(ws, params)
        except RpcError as exc:
            error = {"code": exc.args[0], "message": exc.args[1]}
            await self._send([ws], {"id": rpc_id, "error": error})
            return
        await self._send([ws], {"id": rpc_id, "result": result})
        if method == "config.set":
            await self._info(self._session(params))

    def _answer(self, frame: Mapping[str, Any]) -> None:
        """A response to an ``srq-`` request: the first answer wins, later ones get no reply."""
        ask = self._open.pop(str(frame.get("id")), None)
        if ask is None:
            self.late_answers += 1
            return
        result = frame.get("result")
        choice = result.get("choice") if isinstance(result, dict) else None
        if "error" in frame:
            ask.outcome = "withdrawn"
        else:
            ask.outcome = choice if choice in APPROVING else "deny"
        if ask.outcome in ("session", "always") and ask.command.pattern_key:
            self.sessions[ask.session_id].allowed.add(ask.command.pattern_key)
        ask.answered.set()

    def _session(self, params: Mapping[str, Any]) -> Session:
        key = params.get("session_id")
        for session in self.sessions.values():
            if key in (session.sid, session.stored_id):
                return session
        raise RpcError(4001, "session not found")

    def _rpc_client_capabilities(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        enabled = params.get("server_requests") is True
        if enabled:
            self._capable.add(ws)
        return {"server_requests": ["approval"] if enabled else []}  # the only one it sends

    def _rpc_session_active_list(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        rows = [
            {
                "id": s.sid,
                "session_key": s.stored_id,
                "title": s.title,
                "status": self._status(s),
                "started_at": s.started_at,
                "message_count": len(s.messages),
            }
            for s in self.sessions.values()
        ]
        return {"sessions": rows}

    def _rpc_session_resume(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        session = self._session(params)
        session.viewers.add(ws)
        session.viewed.set()
        snapshot: dict[str, Any] = {
            "session_id": session.sid,
            "stored_session_id": session.stored_id,
            "session_key": session.stored_id,
            "info": self._info_payload(session),
            "messages": list(session.messages),
            "message_count": len(session.messages),
            "running": session.running,
            "status": self._status(session),
            "started_at": session.started_at,
            "open_requests": [
                {"id": a.srq_id, "method": "approval", "params": a.params()}
                for a in self._asks(session)
            ],
        }
        if session.todo_revision:
            snapshot["todo_state"] = {"todos": session.todos, "revision": session.todo_revision}
        return snapshot

    def _rpc_approval_pending(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        return {"approvals": [a.params() for a in self._asks(self._session(params))]}

    def _rpc_session_usage(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        return dict(self._session(params).usage)

    def _rpc_session_interrupt(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        """The turn ends; open asks get ``request.cancel`` reason ``interrupted`` (Hermes main)."""
        session = self._session(params)
        session.stopped = True
        for ask in self._asks(session):
            ask.outcome = "interrupted"
            del self._open[ask.srq_id]
            ask.answered.set()
        return {"status": "interrupted"}

    def _rpc_config_set(self, ws: ServerConnection, params: Mapping[str, Any]) -> Any:
        """Only the per-session ``yolo`` switch (the tray's menu); a ``session.info`` follows."""
        if params.get("key") != "yolo":
            raise RpcError(4002, "unknown config key")
        session = self._session(params)
        value = str(params.get("value", "")).lower()
        session.yolo = value in ("1", "on", "true", "yes") or (
            value not in ("0", "off", "false", "no") and not session.yolo
        )
        return {"key": "yolo", "value": "1" if session.yolo else "0"}

    def _asks(self, session: Session) -> list[Ask]:
        return [a for a in self._open.values() if a.session_id == session.sid]

    def _status(self, session: Session) -> str:
        if self._asks(session):
            return "waiting"
        return "working" if session.running else "idle"

    def create_session(self, title: str, cwd: str) -> Session:
        """A session another surface started; it plays once a client resumes it."""
        session = Session(title, cwd)
        self.sessions[session.sid] = session
        return session

    async def emit(self, session: Session, kind: str, payload: Any = None) -> None:
        """One event to the session's viewers, with B's per-session ``seq``."""
        session.seq += 1
        params = _event(kind, payload, session_id=session.sid, seq=session.seq)
        await self._send(session.viewers, {"method": "event", "params": params})

    async def _info(self, session: Session) -> None:
        await self.emit(session, "session.info", self._info_payload(session))

    def _info_payload(self, session: Session) -> dict[str, Any]:
        return {
            "model": "demo-model",
            "yolo": session.yolo,
            "approval_mode": "manual",
            "cwd": session.cwd,
            "running": session.running,
            "title": session.title,
            "stored_session_id": session.stored_id,
            "desktop_contract": 8,
            "version": VERSION,
            "usage": dict(session.usage),
        }

    async def pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds * self.speed)

    @contextlib.asynccontextmanager
    async def turn(self, session: Session) -> AsyncIterator[None]:
        """``message.start`` … ``message.complete``, with ``running`` reported around it."""
        session.running = True
        await self._info(session)
        await self.emit(session, "message.start")
        yield
        session.running = False
        reply = session.messages[-1]["text"] if session.messages else ""
        status = "interrupted" if session.stopped else "complete"
        complete = {"text": reply, "usage": dict(session.usage), "status": status}
        await self.emit(session, "message.complete", complete)
        await self._info(session)

    async def say(self, session: Session, text: str) -> None:
        """Stream ``text`` word by word; it becomes the turn's reply."""
        words = text.split(" ")
        for i, word in enumerate(words):
            await self.emit(session, "message.delta", {"text": word + " " * (i < len(words) - 1)})
            await self.pause(0.03)
        session.messages.append({"role": "assistant", "text": text})

    async def status(self, session: Session, text: str) -> None:
        await self.emit(session, "status.update", {"kind": "status", "text": text})

    async def set_yolo(self, session: Session, on: bool) -> None:
        session.yolo = on
        await self._info(session)

    async def plan(self, session: Session, todos: Sequence[Mapping[str, str]]) -> None:
        """The todo tool replaces the plan: its tool call, then ``todo.updated``."""
        session.todos, session.todo_revision = [dict(t) for t in todos], session.todo_revision + 1
        plan = {"todos": session.todos, "revision": session.todo_revision}
        tool = {"tool_id": self._tool_id(session), "name": "todo_list"}
        await self.emit(session, "tool.start", {**tool, "context": "display.preview.todo_tasks"})
        await self.emit(session, "tool.complete", {**tool, "result": plan, **plan})
        await self.emit(session, "todo.updated", plan)

    async def tick(self, session: Session, tokens_in: int, tokens_out: int, **extra: Any) -> None:
        """One model call's usage (``context_used``, ``cost_usd`` …), as a ``session.usage``."""
        usage = session.usage
        usage["input"] += tokens_in
        usage["output"] += tokens_out
        usage["prompt"], usage["completion"] = usage["input"], usage["output"]
        usage["total"], usage["calls"] = usage["input"] + usage["output"], usage["calls"] + 1
        usage["cost_usd"] = round(usage.get("cost_usd", 0.0) + extra.pop("cost_usd", 0.0), 6)
        usage.update(extra)
        await self.emit(session, "session.usage", {"usage": dict(usage)})

    def _tool_id(self, session: Session) -> str:
        session.calls += 1
        return f"call_{session.calls}_0"

    async def run(self, session: Session, commands: Sequence[Command]) -> set[str]:
        """Adjacent terminal calls: ask for all at once, run in call order; returns what ran.

        As on a desktop session of the B gateway, every command of a batch that needs a person
        is asked before any starts (a lone call starts, then asks), and each runs only once its
        own answer is in. YOLO and earlier session/always answers let a command through.
        """
        loop = asyncio.get_running_loop()
        deadline = None if self.approval_timeout is None else self.approval_timeout * self.speed
        tools = [{"tool_id": self._tool_id(session), "name": "terminal"} for _ in commands]
        lone = len(commands) == 1
        if lone:
            await self.emit(session, "tool.start", {**tools[0], "context": commands[0].command})
        asks = [
            None
            if c.pattern_key is None or session.yolo or c.pattern_key in session.allowed
            else Ask(session.sid, c, None if deadline is None else loop.time() + deadline)
            for c in commands
        ]
        for ask in asks:
            if ask is not None:
                self.asked.append(ask)
                self._open[ask.srq_id] = ask
                frame = {"id": ask.srq_id, "method": "approval", "params": ask.params()}
                await self._send(session.viewers & self._capable, frame)
        ran: set[str] = set()
        for command, ask, tool in zip(commands, asks, tools, strict=True):
            if ask is not None:
                await self._wait(ask)
            if not lone:
                await self.emit(session, "tool.start", {**tool, "context": command.command})
            if ask is None or ask.outcome in APPROVING:
                await self.pause(command.duration)
                self.executed.append(Execution(session.sid, command.command))
                ran.add(command.command)
                result: dict[str, Any] = {"output": command.output, "exit_code": 0}
            else:
                error = TIMED_OUT if ask.outcome == "timeout" else BLOCKED
                result = {"output": "", "exit_code": -1, "error": error, "status": "blocked"}
            await self.emit(session, "tool.complete", {**tool, "result": result})
        return ran

    async def _wait(self, ask: Ask) -> None:
        """Until answered, or withdrawn with ``request.cancel`` at its deadline or an interrupt."""
        left = None if ask.deadline is None else ask.deadline - asyncio.get_running_loop().time()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ask.answered.wait(), left)
        if self._open.pop(ask.srq_id, None) is not None:
            ask.outcome = "timeout"
        if ask.outcome in ("timeout", "interrupted"):
            cancel = {"id": ask.srq_id, "method": "approval", "reason": ask.outcome}
            await self.emit(self.sessions[ask.session_id], "request.cancel", cancel)


def _event(kind: str, payload: Any = None, **stamps: Any) -> dict[str, Any]:
    """An event's ``params``: ``payload`` left out when None, as tui_gateway does."""
    params: dict[str, Any] = {"type": kind, **stamps}
    if payload is not None:
        params["payload"] = payload
    return params

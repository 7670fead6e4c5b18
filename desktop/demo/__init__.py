"""The gateway model: a protocol-faithful fake Hermes gateway, and the app's built-in demo.

It is a real websockets server on 127.0.0.1 with a scripted agent, speaking one of three wire
dialects (A: hermes-agent 0.19.0, B: main tui_gateway, C: canonical gateway). It imports neither
Qt nor ``desktop.core``: it is an independent peer, so a bug in the client's core cannot hide in a
parser both sides share. Commands are only simulated; nothing is ever run on the machine.

Start with :class:`DemoGateway`; script turns with the steps in :mod:`.script`; the demo story
(the app's ``--demo``) is :mod:`.story`. Fault injection is not here: tests add it in
``tests/gatewaymodel``.
"""

from desktop.demo.approval_rules import Outcome
from desktop.demo.clock import Clock, ManualClock, ScaledClock
from desktop.demo.dialect import Dialect
from desktop.demo.model import Execution, PendingRequest, Session
from desktop.demo.records import ConnectionRecord
from desktop.demo.script import (
    Batch,
    Clarify,
    Command,
    Pause,
    Say,
    ScenarioBook,
    SetYolo,
    Status,
    Title,
    Todo,
    Turn,
    UsageTick,
    WindowRequest,
)
from desktop.demo.server import DemoGateway

__all__ = [
    "Batch",
    "Clarify",
    "Clock",
    "Command",
    "ConnectionRecord",
    "DemoGateway",
    "Dialect",
    "Execution",
    "ManualClock",
    "Outcome",
    "Pause",
    "PendingRequest",
    "Say",
    "ScaledClock",
    "ScenarioBook",
    "Session",
    "SetYolo",
    "Status",
    "Title",
    "Todo",
    "Turn",
    "UsageTick",
    "WindowRequest",
]

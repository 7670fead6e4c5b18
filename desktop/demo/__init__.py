"""A protocol-faithful fake Hermes gateway: tests' peer and the app's built-in demo.

It is a real websockets server on 127.0.0.1 with a scripted agent, speaking one of three wire
dialects (A: hermes-agent 0.19.0, B: main tui_gateway, C: canonical gateway). It imports neither
Qt nor ``desktop.core``: it is an independent peer, so a bug in the client's core cannot hide in a
parser both sides share. Commands are only simulated; nothing is ever run on the machine.

Start with :class:`FakeGateway`; script turns with the steps in :mod:`.script`; plan faults with
:mod:`.faults`; the demo story (the app's ``--demo``) is :mod:`.demo_story`.
"""

from desktop.gateway.fake.clock import Clock, ManualClock, ScaledClock
from desktop.gateway.fake.dialect import Dialect
from desktop.gateway.fake.faults import (
    CloseOnOpen,
    DelayResponses,
    DropAfter,
    Fault,
    Garbage,
    Refuse,
    StallAfter,
)
from desktop.gateway.fake.model import Execution, Outcome, PendingRequest, Session
from desktop.gateway.fake.records import ConnectionRecord
from desktop.gateway.fake.scenarios import default_book
from desktop.gateway.fake.script import (
    Batch,
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
from desktop.gateway.fake.server import FakeGateway

__all__ = [
    "Batch",
    "Clock",
    "CloseOnOpen",
    "Command",
    "ConnectionRecord",
    "DelayResponses",
    "Dialect",
    "DropAfter",
    "Execution",
    "FakeGateway",
    "Fault",
    "Garbage",
    "ManualClock",
    "Outcome",
    "Pause",
    "PendingRequest",
    "Refuse",
    "Say",
    "ScaledClock",
    "ScenarioBook",
    "Session",
    "SetYolo",
    "StallAfter",
    "Status",
    "Title",
    "Todo",
    "Turn",
    "UsageTick",
    "WindowRequest",
    "default_book",
]

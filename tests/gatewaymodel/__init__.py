"""The gateway model: a protocol-faithful fake Hermes gateway, the tests' peer.

A real websockets server on 127.0.0.1 with a scripted agent, speaking one of three wire dialects
(A: hermes-agent 0.19.0, B: main tui_gateway, C: canonical gateway). It imports neither Qt nor
``desktop``: it is an independent peer, so a bug in the client's core cannot hide in a parser
both sides share. Commands are only simulated; nothing is ever run on the machine.

:class:`GatewayModel` is the well-behaved peer; :class:`FakeGateway` adds planned and
triggered faults and the ``[[scenario:name]]`` book. Turns are scripted with the steps in
:mod:`.script`. The safety campaign's reference servers take each dialect's approval rules from
:mod:`.approval_rules`. The app's built-in demo is separate and far smaller
(``desktop/demo``).
"""

from tests.gatewaymodel.approval_rules import Outcome
from tests.gatewaymodel.clock import Clock, ManualClock, ScaledClock
from tests.gatewaymodel.dialect import Dialect
from tests.gatewaymodel.fake import FakeGateway
from tests.gatewaymodel.faults import (
    CloseOnOpen,
    DelayResponses,
    DropAfter,
    Fault,
    Garbage,
    Refuse,
    StallAfter,
)
from tests.gatewaymodel.model import Execution, PendingRequest, Session
from tests.gatewaymodel.records import ConnectionRecord
from tests.gatewaymodel.scenarios import default_book
from tests.gatewaymodel.script import (
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
from tests.gatewaymodel.server import GatewayModel

__all__ = [
    "Batch",
    "Clarify",
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
    "GatewayModel",
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

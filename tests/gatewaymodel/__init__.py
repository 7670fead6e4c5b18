"""The gateway model as tests use it: the product's demo gateway model plus fault injection.

One model of the gateway serves the demo (``desktop.demo``, no faults) and the tests (this
package adds :class:`FakeGateway` with planned and triggered faults). The vocabulary is
re-exported so a test imports everything from here.
"""

from desktop.demo import (
    Batch,
    Clock,
    Command,
    ConnectionRecord,
    DemoGateway,
    Dialect,
    Execution,
    ManualClock,
    Outcome,
    Pause,
    PendingRequest,
    Say,
    ScaledClock,
    ScenarioBook,
    Session,
    SetYolo,
    Status,
    Title,
    Todo,
    Turn,
    UsageTick,
    WindowRequest,
)
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
from tests.gatewaymodel.scenarios import default_book

__all__ = [
    "Batch",
    "Clock",
    "CloseOnOpen",
    "Command",
    "ConnectionRecord",
    "DelayResponses",
    "DemoGateway",
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

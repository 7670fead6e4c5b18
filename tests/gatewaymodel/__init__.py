"""The gateway model as tests use it: the demo's model (``desktop.demo``) plus fault injection.

One model of the gateway serves the demo and the tests. Tests take its vocabulary (``Turn``,
``Command``, ``ManualClock``…) from ``desktop.demo`` and, from here, :class:`FakeGateway` with
planned and triggered faults and the ``[[scenario:name]]`` book.
"""

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
    "CloseOnOpen",
    "DelayResponses",
    "DropAfter",
    "FakeGateway",
    "Fault",
    "Garbage",
    "Refuse",
    "StallAfter",
    "default_book",
]

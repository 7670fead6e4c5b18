"""The built-in demo: a fake gateway in-process, so the tray shows something real with no Hermes.

Why a module of its own: the composition root (desktop/app.py) only decides *whether* the demo
runs; how the demo gateway is started, what it shows and how it is stopped lives here, so the
two can change independently.

Nothing is executed: the fake agent only simulates commands. The token is minted per run and
passed in memory (never in a URL that could be logged).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.gateway.endpoints import GatewayEndpoint
    from desktop.ui.bridge import GatewayBridge

log = logging.getLogger(__name__)

DEMO_PROMPT = "[[scenario:mixed]] Tidy up the scratch folders and report."


class BuiltInDemo:
    """The fake gateway in-process on 127.0.0.1:0, plus a first task so approvals arrive."""

    def __init__(self, fake: Any, endpoint: GatewayEndpoint) -> None:
        self.fake = fake
        self.endpoint = endpoint

    @classmethod
    async def start(cls, *, dialect: str = "B", speed: float = 1.0) -> BuiltInDemo:
        from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint, TokenSource
        from desktop.gateway.fake import FakeGateway
        from desktop.gateway.redact import register_secret

        fake = await FakeGateway(dialect, speed=speed).start()
        register_secret(fake.token)
        endpoint = GatewayEndpoint(
            "demo",
            "Demo gateway (built in)",
            EndpointKind.DEMO,
            url=fake.base_url,
            token=TokenSource.inline(fake.token),
        )
        log.info("no gateway found: started the built-in demo on %s", fake.base_url)
        return cls(fake, endpoint)

    def begin(self, bridge: GatewayBridge, prompts: Sequence[str] = (DEMO_PROMPT,)) -> None:
        """Once the demo gateway is connected, start the demo task(s) through the bridge."""
        from desktop.ui.snapshot import Link

        def on_snapshot(snapshot: Any) -> None:
            view = snapshot.gateway(self.endpoint.gateway_id)
            if view is not None and view.link is Link.UP:
                bridge.snapshot_changed.disconnect(on_snapshot)
                for prompt in prompts:
                    bridge.new_task(self.endpoint.gateway_id, os.path.expanduser("~"), prompt)

        bridge.snapshot_changed.connect(on_snapshot)

    async def stop(self) -> None:
        await self.fake.stop()

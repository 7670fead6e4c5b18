"""The built-in demo: an in-process gateway, so the tray shows something real with no Hermes.

The tray connects to it like to any gateway (dialect B on 127.0.0.1:0; the token is minted per
run and passed in memory). Nothing is executed, and the gateway's name says so.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.demo.gateway import DemoGateway
    from desktop.gateway.endpoints import GatewayEndpoint

log = logging.getLogger(__name__)

DEMO_GATEWAY_ID = "demo"
DEMO_GATEWAY_NAME = "Demo gateway (simulated commands)"
DEMO_FIRST_BUBBLE = "Hermes Tray's demo: the commands are simulated; nothing runs."


class BuiltInDemo:
    """The demo gateway and its story: ``await start()``, add ``endpoint``, ``await stop()``."""

    def __init__(self, gateway: DemoGateway, story: asyncio.Task[Any], endpoint: GatewayEndpoint):
        self.gateway = gateway
        self.endpoint = endpoint
        self._story = story

    @classmethod
    async def start(
        cls,
        *,
        speed: float = 1.0,
        approval_timeout: float | None = None,
    ) -> BuiltInDemo:
        """``approval_timeout`` is the core's for dialect B, so the dialog's countdown is true."""
        from desktop.core.settings import CoreSettings
        from desktop.demo.gateway import DemoGateway
        from desktop.demo.story import play
        from desktop.gateway.endpoints import GatewayEndpoint, TokenKind, TokenSource
        from desktop.logsetup import register_secret
        from desktop.settings.model import GatewayKind

        if approval_timeout is None:
            approval_timeout = CoreSettings().b_approval_timeout
        gateway = DemoGateway(speed=speed, approval_timeout=approval_timeout)
        await gateway.start()
        register_secret(gateway.token)
        story = asyncio.get_running_loop().create_task(play(gateway), name="built-in demo story")
        endpoint = GatewayEndpoint(
            DEMO_GATEWAY_ID,
            DEMO_GATEWAY_NAME,
            GatewayKind.DEMO,
            url=gateway.base_url,
            token=TokenSource(TokenKind.INLINE, value=gateway.token),
        )
        log.info(
            "started the built-in demo on %s (commands are simulated, nothing runs)",
            gateway.base_url,
        )
        return cls(gateway, story, endpoint)

    async def stop(self) -> None:
        """Call it after the bridge closed."""
        self._story.cancel()
        await asyncio.gather(self._story, return_exceptions=True)
        await self.gateway.stop()
        log.info("stopped the built-in demo")

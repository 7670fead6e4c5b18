"""The built-in demo: a small gateway in-process, so the tray shows something real with no Hermes.

The demo gateway (dialect B, :mod:`desktop.demo.gateway`) listens on 127.0.0.1:0 on the
running loop and plays :mod:`desktop.demo.story`; the tray connects to it like to any gateway
and attaches its live sessions, as it follows sessions another surface started. Nothing is
executed, and the gateway's name says so. The token is minted per run and passed in memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.demo.gateway import DemoGateway
    from desktop.gateway.endpoints import GatewayEndpoint
    from desktop.ui.bridge import GatewayBridge

log = logging.getLogger(__name__)

DEMO_GATEWAY_ID = "demo"
DEMO_GATEWAY_NAME = "Demo gateway (simulated commands)"
DEMO_FIRST_BUBBLE = "Hermes Tray's demo: the commands are simulated; nothing runs."


class BuiltInDemo:
    """The demo gateway, its story, and the tray's attachment to its sessions.

    ``await BuiltInDemo.start()``, ``connect(bridge)`` once it runs, ``await stop()`` after it.
    """

    def __init__(self, gateway: DemoGateway, story: asyncio.Task[Any], endpoint: GatewayEndpoint):
        self.gateway = gateway
        self.endpoint = endpoint
        self._story = story
        self._attaching: asyncio.Task[None] | None = None
        self._disconnect: Callable[[], object] | None = None

    @classmethod
    async def start(
        cls,
        *,
        speed: float = 1.0,
        approval_timeout: float | None = None,
        loops: int | None = None,
    ) -> BuiltInDemo:
        """Listen on 127.0.0.1:0 and get the story ready (it waits for the tray to attach).

        ``speed``: real seconds per script second. ``approval_timeout`` defaults to what the
        core assumes for dialect B, so the dialog's countdown tells the truth.
        """
        from desktop.core.settings import CoreSettings
        from desktop.demo.gateway import DemoGateway
        from desktop.demo.story import play
        from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint, TokenSource
        from desktop.logsetup import register_secret

        if approval_timeout is None:
            approval_timeout = CoreSettings().b_approval_timeout
        gateway = DemoGateway(speed=speed, approval_timeout=approval_timeout)
        await gateway.start()
        register_secret(gateway.token)
        story = asyncio.get_running_loop().create_task(
            play(gateway, loops=loops), name="built-in demo story"
        )
        endpoint = GatewayEndpoint(
            DEMO_GATEWAY_ID,
            DEMO_GATEWAY_NAME,
            EndpointKind.DEMO,
            url=gateway.base_url,
            token=TokenSource.inline(gateway.token),
        )
        log.info(
            "started the built-in demo on %s (commands are simulated, nothing runs)",
            gateway.base_url,
        )
        return cls(gateway, story, endpoint)

    def connect(self, bridge: GatewayBridge) -> None:
        """Add the demo gateway to ``bridge``; attach its sessions whenever it is connected."""
        from desktop.model.snapshot import Link

        client = bridge.add_gateway(self.endpoint)
        was_up = False

        def on_snapshot(snapshot: Any) -> None:
            nonlocal was_up
            view = snapshot.gateway(self.endpoint.gateway_id)
            up = view is not None and view.link is Link.UP
            if up and not was_up and (self._attaching is None or self._attaching.done()):
                known = {s.session_id for s in view.sessions}
                self._attaching = asyncio.get_running_loop().create_task(
                    self._attach_all(client, known), name="built-in demo: attach sessions"
                )
            was_up = up

        bridge.snapshot_changed.connect(on_snapshot)
        self._disconnect = lambda: bridge.snapshot_changed.disconnect(on_snapshot)
        on_snapshot(bridge.snapshot)

    async def _attach_all(self, client: Any, known: set[str]) -> None:
        """Follow every live demo session the tray does not follow yet."""
        try:
            rows = await client.list_live_sessions()
            for row in rows:
                stored_id = str(row.get("session_key") or "")
                if stored_id and row.get("id") not in known:
                    await client.attach_session(stored_id)
            log.info("demo: following %d session(s)", len(rows))
        except Exception as exc:  # the link dropped meanwhile: the next "connected" retries
            log.warning("demo: could not attach the demo sessions: %s", exc)

    async def stop(self) -> None:
        """Stop attaching, stop the story, close the demo gateway (after the bridge closed)."""
        if self._disconnect is not None:
            self._disconnect()
            self._disconnect = None
        tasks = [t for t in (self._attaching, self._story) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.gateway.stop()
        log.info("stopped the built-in demo")

"""What the bridge's mixins (``bridge_yolo``, ``bridge_notify``) may call on ``GatewayBridge``.

Why a class of its own: each mixin awaits through the bridge's one task spawner, and mypy must
know its signature; declaring it once here keeps the mixins from each carrying a copy that could
drift from the real method. At run time the class is empty.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any


class BridgeHost:
    """Base of the bridge's mixins; ``GatewayBridge`` provides the real ``_spawn``."""

    if TYPE_CHECKING:
        _loop: asyncio.AbstractEventLoop | None

        def _spawn(
            self,
            coro: Coroutine[Any, Any, Any],
            what: str,
            where: str,
            advice: str,
            gateway_id: str = "",
            *,
            log_only: bool = False,
        ) -> asyncio.Task[Any]: ...

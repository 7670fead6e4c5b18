"""Map the person's saved gateway settings onto endpoints the client can dial.

The token is looked up through the store at every dial, so a token changed in Settings is used
on the next reconnect. Optional ``extra`` keys: ``hermes_home``, ``hermes_executable``,
``approval_timeout_s`` (ignored with a warning unless a finite number >= 0: a typo never stops
the gateway from connecting).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from desktop.gateway.endpoints import GatewayEndpoint, TokenSource
from desktop.settings.model import GatewayConfig

log = logging.getLogger(__name__)


def endpoint_from_config(
    config: GatewayConfig, token_lookup: Callable[[str], str | None]
) -> GatewayEndpoint:
    """The endpoint for one configured gateway; ``token_lookup`` is ``TokenStore.get``."""
    token = TokenSource.store(config.token_ref, token_lookup) if config.token_ref else None
    return GatewayEndpoint(
        gateway_id=config.id,
        name=config.name,
        kind=config.kind,
        url=config.url,
        token=token,
        hermes_home=str(config.extra.get("hermes_home", "")),
        hermes_executable=str(config.extra.get("hermes_executable", "")),
        allow_insecure_remote=config.allow_insecure_remote,
        approval_timeout_s=_seconds(config, "approval_timeout_s"),
    )


def _seconds(config: GatewayConfig, key: str) -> float | None:
    value = config.extra.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        log.warning("gateway %s: %s must be a number of seconds; ignored", config.id, key)
        return None
    if value < 0:
        log.warning("gateway %s: %s must not be negative; ignored", config.id, key)
        return None
    return float(value)

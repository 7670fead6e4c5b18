"""Map the person's saved gateway settings onto endpoints the client can dial.

Why here: ``desktop.settings`` describes what the person chose (and stores tokens in the
keyring or its 0600 fallback via ``TokenStore``); this package needs a ``GatewayEndpoint``. The
token is looked up through the store at every dial, so a token changed in Settings is used on
the next reconnect without rebuilding the client. ``GatewayKind`` values equal
``EndpointKind`` values by design. Optional per-gateway ``extra`` keys: ``hermes_home``,
``hermes_executable``.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint, TokenSource
from desktop.settings.model import GatewayConfig


def endpoint_from_config(
    config: GatewayConfig, token_lookup: Callable[[str], str | None]
) -> GatewayEndpoint:
    """The endpoint for one configured gateway; ``token_lookup`` is ``TokenStore.get``."""
    token = TokenSource.store(config.token_ref, token_lookup) if config.token_ref else None
    return GatewayEndpoint(
        gateway_id=config.id,
        name=config.name,
        kind=EndpointKind(config.kind.value),
        url=config.url,
        token=token,
        hermes_home=str(config.extra.get("hermes_home", "")),
        hermes_executable=str(config.extra.get("hermes_executable", "")),
        allow_insecure_remote=config.allow_insecure_remote,
    )

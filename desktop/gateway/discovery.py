"""Which gateways the tray and ``doctor`` use: first match wins, and what was tried (§1.2).

A dashboard is never discovered, only added in Settings (see ``dashboard``). ``settings`` are
read only without ``--gateway``: the doctor then leaves the settings file alone.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from desktop.gateway import canonical
from desktop.gateway.endpoints import (
    GatewayEndpoint,
    TokenSource,
    endpoint_from_config,
    normalise_ws_url,
    redact_url,
)
from desktop.gateway.errors import ConfigError, ConnectError
from desktop.logsetup import register_url_secrets
from desktop.settings.model import GatewayKind, Settings

URL_ENV = "HERMES_TUI_GATEWAY_URL"


@dataclass(frozen=True)
class DiscoveryResult:
    endpoints: tuple[GatewayEndpoint, ...]
    tried: tuple[str, ...]  # one plain line per step, never a secret


async def discover(
    *,
    gateway: str | None = None,
    gateway_token: TokenSource | None = None,
    gateway_name: str = "",
    settings: Callable[[], Settings] = Settings,
    token_lookup: Callable[[str], str | None] = lambda _ref: None,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> DiscoveryResult:
    env = os.environ if environ is None else environ
    tried: list[str] = []

    def result(*endpoints: GatewayEndpoint) -> DiscoveryResult:
        for endpoint in endpoints:  # a token in a URL is masked in every log line from now on
            register_url_secrets(endpoint.url)
        return DiscoveryResult(endpoints, tuple(tried))

    if gateway:
        where = f" (token from {gateway_token.describe()})" if gateway_token is not None else ""
        tried.append(f"using --gateway {redact_url(gateway)}{where}")
        cli = GatewayEndpoint(
            "cli", gateway_name, GatewayKind.URL, url=gateway, token=gateway_token
        )
        return result(cli)
    url = env.get(URL_ENV, "").strip()
    if url:
        register_url_secrets(url)
        try:
            normalise_ws_url(url)
        except ConfigError as exc:
            tried.append(f"{URL_ENV}: {exc}")
            return result()
        tried.append(f"{URL_ENV}: using {redact_url(url)}")
        return result(
            GatewayEndpoint("env", "Hermes (HERMES_TUI_GATEWAY_URL)", GatewayKind.URL, url=url)
        )
    mine = [endpoint_from_config(g, token_lookup) for g in settings().connectable]
    if mine:
        tried.append(f"configured gateways: {', '.join(e.name for e in mine)}")
        return result(*mine)
    tried.append(f"{URL_ENV}: not set; no gateway configured")

    home = canonical.default_hermes_home(env)
    try:
        path = canonical.find_control_socket(home)
        if path is None:
            tried.append(f"canonical gateway: no control socket in {home}")
        else:
            await canonical.identify(home, path, timeout=2.0)
            tried.append(f"canonical gateway: control socket {path} answered")
            canonical_endpoint = GatewayEndpoint(
                "canonical", "Hermes gateway", GatewayKind.CANONICAL, hermes_home=home
            )
            return result(canonical_endpoint)
    except ConnectError as exc:
        tried.append(f"canonical gateway: {exc}")

    exe = which("hermes")
    if exe:
        tried.append(f"own backend: will start `{exe} serve`")
        return result(
            GatewayEndpoint(
                "owned",
                "Hermes (own backend)",
                GatewayKind.OWNED,
                hermes_executable=exe,
                hermes_home=env.get("HERMES_HOME", ""),
            )
        )
    tried.append("own backend: `hermes` is not on PATH")
    tried.append("dashboard: not probed (opt in under Settings)")
    tried.append("nothing found: showing the built-in demo")
    return result()

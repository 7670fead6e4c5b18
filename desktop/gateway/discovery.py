"""Find the gateways this tray should connect to, in a fixed order, and say what was tried.

Unless gateways are configured in Settings (protocol.md §1.2, §6.1): ``HERMES_TUI_GATEWAY_URL``
(dialled as-is, no fallback); the canonical gateway's control socket in ``HERMES_HOME``; owning
a ``hermes serve`` when ``hermes`` is on PATH; a loopback dashboard, only when opted in; else
nothing, and the app shows its demo. ``tried`` explains each step. Nothing is started here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from desktop.gateway import canonical, dashboard
from desktop.gateway.endpoints import EndpointKind, GatewayEndpoint, normalise_ws_url
from desktop.gateway.errors import ConfigError, ConnectError
from desktop.gateway.redact import redact_url
from desktop.logsetup import register_url_secrets

URL_ENV = "HERMES_TUI_GATEWAY_URL"


@dataclass(frozen=True)
class DiscoveryResult:
    endpoints: tuple[GatewayEndpoint, ...]
    tried: tuple[str, ...]  # one plain line per step, never a secret

    @property
    def found(self) -> bool:
        return bool(self.endpoints)


async def discover(
    *,
    configured: Sequence[GatewayEndpoint] = (),
    environ: Mapping[str, str] | None = None,
    hermes_executable: str = "",
    dashboard_opt_in: bool = False,
    dashboard_port: int = dashboard.DEFAULT_PORT,
    which: Callable[[str], str | None] = shutil.which,
    identify_timeout: float = 2.0,
) -> DiscoveryResult:
    """Run the steps in order and return the first that finds something."""
    env = os.environ if environ is None else environ
    tried: list[str] = []

    url = env.get(URL_ENV, "").strip()
    if url:
        register_url_secrets(url)
        try:
            normalise_ws_url(url)
        except ConfigError as exc:
            tried.append(f"{URL_ENV}: {exc}")
            return DiscoveryResult((), tuple(tried))
        tried.append(f"{URL_ENV}: using {redact_url(url)}")
        return DiscoveryResult(
            (GatewayEndpoint("env", "Hermes (HERMES_TUI_GATEWAY_URL)", EndpointKind.URL, url=url),),
            tuple(tried),
        )
    if configured:
        tried.append(f"configured gateways: {', '.join(e.name for e in configured)}")
        return DiscoveryResult(tuple(configured), tuple(tried))
    tried.append(f"{URL_ENV}: not set; no gateway configured")

    home = canonical.default_hermes_home(env)
    try:
        path = canonical.find_control_socket(home)
        if path is None:
            tried.append(f"canonical gateway: no control socket in {home}")
        else:
            await canonical.identify(home, path, timeout=identify_timeout)
            tried.append(f"canonical gateway: control socket {path} answered")
            return DiscoveryResult(
                (
                    GatewayEndpoint(
                        "canonical", "Hermes gateway", EndpointKind.CANONICAL, hermes_home=home
                    ),
                ),
                tuple(tried),
            )
    except ConnectError as exc:
        tried.append(f"canonical gateway: {exc}")

    exe = which(hermes_executable or "hermes")
    if exe:
        tried.append(f"own backend: will start `{exe} serve`")
        return DiscoveryResult(
            (
                GatewayEndpoint(
                    "owned",
                    "Hermes (own backend)",
                    EndpointKind.OWNED,
                    hermes_executable=exe,
                    hermes_home=env.get("HERMES_HOME", ""),
                ),
            ),
            tuple(tried),
        )
    tried.append(f"own backend: `{hermes_executable or 'hermes'}` is not on PATH")

    if dashboard_opt_in:
        try:
            info = await dashboard.probe_dashboard("127.0.0.1", dashboard_port)
        except ConnectError as exc:
            tried.append(f"dashboard: {exc}")
        else:
            tried.append(
                f"dashboard: found Hermes {info.version or '(unknown version)'} "
                f"on port {dashboard_port}"
            )
            return DiscoveryResult(
                (
                    GatewayEndpoint(
                        "dashboard",
                        "Hermes dashboard",
                        EndpointKind.DASHBOARD,
                        url=f"http://127.0.0.1:{dashboard_port}",
                    ),
                ),
                tuple(tried),
            )
    else:
        tried.append("dashboard: not probed (opt in under Settings)")
    tried.append("nothing found: showing the built-in demo")
    return DiscoveryResult((), tuple(tried))

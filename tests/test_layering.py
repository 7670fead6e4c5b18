"""The layers stay apart: core is sans-I/O and Qt-free, gateway is Qt-free, the app model is both.

Why a test and not a convention: one convenient import (a QTimer in the core, an asyncio.Event
in a state machine) quietly ties the whole core to an event loop, and then it can no longer be
tested with plain calls or reused by the doctor. Like napari's import-linter contract, this
reads the source (ast) so it also catches imports inside functions, and a subprocess imports
the whole core with PySide6 made unimportable.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "desktop"

# Module prefixes each layer must not import (a prefix matches itself and its submodules).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "desktop.core": (
        "PySide6",
        "shiboken6",
        "qasync",
        "asyncio",
        "websockets",
        "desktop.gateway",
        "desktop.ui",
        "desktop.app",
    ),
    "desktop.gateway": ("PySide6", "shiboken6", "qasync", "desktop.ui", "desktop.app"),
    # The risk lens and the session names are plain functions of text and core values, used by
    # the dialog, the notifications and the journal alike.
    "desktop.risk": (
        "PySide6",
        "shiboken6",
        "qasync",
        "asyncio",
        "websockets",
        "desktop.gateway",
        "desktop.ui",
        "desktop.app",
    ),
    # The app model: the one store every surface reads (sessions, rows, tray status, notification
    # policy, menu text, YOLO timers, decision log); plain calls and plain callbacks, no loop.
    "desktop.model": (
        "PySide6",
        "shiboken6",
        "qasync",
        "asyncio",
        "websockets",
        "desktop.gateway",
        "desktop.ui",
        "desktop.app",
    ),
    # Operating-system glue (files, autostart, D-Bus notifications): no Qt, so the doctor, the
    # journal and the packaging checks use it without a display.
    "desktop.platform": ("PySide6", "shiboken6", "qasync", "desktop.ui", "desktop.app"),
    # The product never reaches into the test tree (it is not shipped, and a test-only helper
    # must not become a runtime dependency by accident).
    "desktop": ("tests",),
    # The built-in demo and the tests' gateway model are independent peers: written from the
    # protocol, never from the client's parsers, so a misreading in the core cannot hide in a
    # parser both sides share.
    "desktop.demo": (
        "PySide6",
        "shiboken6",
        "qasync",
        "desktop.core",
        "desktop.gateway",
        "desktop.model",
        "desktop.ui",
        "desktop.app",
        "tests",
    ),
    "tests.gatewaymodel": ("PySide6", "shiboken6", "qasync", "desktop"),
}


# Modules a layer may import although a forbidden prefix covers them. The model reads gateway
# connection statuses: plain enums and dataclasses over core values, no loop and no socket.
ALLOWED: dict[str, tuple[str, ...]] = {"desktop.model": ("desktop.gateway.status",)}


def _covered(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(f"{prefix}.") for prefix in prefixes)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` imports, as (line, absolute name); relative imports resolved.

    Also counts ``importlib.import_module("x")`` and ``__import__("x")`` with a literal name.
    ``source`` replaces the file's text (for testing the checker itself).
    """
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.append((node.lineno, prefix))
            # "from desktop import ui" imports desktop.ui
            found.extend((node.lineno, f"{prefix}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if name in {"import_module", "__import__"} and isinstance(first, ast.Constant):
                found.append((node.lineno, str(first.value)))
    return found


def violations(path: Path, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for line, name in imported_modules(path)
        if _covered(name, forbidden) and not _covered(name, allowed)
    ]


def layer_files(layer: str) -> list[Path]:
    folder = ROOT / Path(*layer.split("."))
    return sorted(folder.rglob("*.py")) if folder.is_dir() else []


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    files = layer_files(layer)
    if not files:
        pytest.skip(f"{layer} does not exist yet")
    allowed = ALLOWED.get(layer, ())
    problems = [
        problem for path in files for problem in violations(path, FORBIDDEN[layer], allowed)
    ]
    assert not problems, f"{layer} must not import {', '.join(FORBIDDEN[layer])}:\n" + "\n".join(
        problems
    )


def test_the_model_may_read_gateway_statuses_and_nothing_else_of_the_gateway() -> None:
    forbidden, allowed = FORBIDDEN["desktop.model"], ALLOWED["desktop.model"]
    assert _covered("desktop.gateway.status", allowed)
    for name in ("desktop.gateway.client", "desktop.gateway.statuses", "desktop.gateway"):
        assert _covered(name, forbidden), name
        assert not _covered(name, allowed), name


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import PySide6.QtCore", ["PySide6.QtCore"]),
        ("from PySide6 import QtWidgets", ["PySide6", "PySide6.QtWidgets"]),
        ("from ..ui import tray", ["desktop.ui", "desktop.ui.tray"]),
        ("from . import model", ["desktop.core", "desktop.core.model"]),
        ("def f():\n    import asyncio", ["asyncio"]),
        ("importlib.import_module('qasync')", ["qasync"]),
    ],
)
def test_the_checker_sees_every_import_form(source: str, expected: list[str]) -> None:
    pretend = ROOT / "desktop" / "core" / "probe.py"  # relative imports resolve from here
    assert [name for _, name in imported_modules(pretend, source)] == expected


_BLOCKED_IMPORT = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    package_name, blocked = sys.argv[1], tuple(sys.argv[2].split(","))

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in blocked:
                raise ModuleNotFoundError(f"blocked for this test: {name}", name=name)
            return None

    sys.meta_path.insert(0, Blocker())
    package = importlib.import_module(package_name)
    for info in pkgutil.walk_packages(package.__path__, package_name + "."):
        importlib.import_module(info.name)
    print(" ".join(sorted(name for name in sys.modules if name.split(".")[0] == "asyncio")))
    """
)


def import_with_blocked(
    package: str, blocked: tuple[str, ...], cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Import ``package`` and all its submodules in a fresh interpreter where ``blocked``
    top-level modules cannot be imported; stdout lists the asyncio modules that got loaded."""
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED_IMPORT, package, ",".join(blocked)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


QT = ("PySide6", "shiboken6", "qasync")


def test_the_whole_core_imports_without_qt_websockets_or_asyncio() -> None:
    if not (PACKAGE / "core").is_dir():
        pytest.skip("desktop/core does not exist yet")
    result = import_with_blocked("desktop.core", (*QT, "websockets"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"desktop.core pulled in: {result.stdout.strip()}"


@pytest.mark.parametrize("package", ["risk", "model"])
def test_the_risk_lens_and_the_app_model_import_without_qt_or_asyncio(package: str) -> None:
    if not (PACKAGE / package).is_dir():
        pytest.skip(f"desktop/{package} does not exist yet")
    result = import_with_blocked(f"desktop.{package}", (*QT, "websockets"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"desktop.{package} pulled in: {result.stdout.strip()}"


def test_the_whole_gateway_imports_without_qt() -> None:
    if not (PACKAGE / "gateway").is_dir():
        pytest.skip("desktop/gateway does not exist yet")
    result = import_with_blocked("desktop.gateway", QT)
    assert result.returncode == 0, result.stderr


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    (tmp_path / "leaky").mkdir()
    (tmp_path / "leaky" / "__init__.py").write_text("import PySide6.QtCore\n", encoding="utf-8")
    result = import_with_blocked("leaky", QT, cwd=tmp_path)
    assert result.returncode != 0
    assert "blocked for this test: PySide6" in result.stderr


def test_the_shipped_demo_has_no_fault_injection() -> None:
    """Faults (dropped, stalled, garbled connections…) live in tests/gatewaymodel only.

    The names of the test fault plans must not appear anywhere in the product's source.
    """
    faults = ast.parse((ROOT / "tests" / "gatewaymodel" / "faults.py").read_text("utf-8"))
    names = {node.name for node in faults.body if isinstance(node, ast.ClassDef)}
    assert {"DropAfter", "StallAfter", "Garbage"} <= names
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        problems += [f"{path.relative_to(ROOT)} names {name}" for name in sorted(names & used)]
    assert not problems, "\n".join(problems)

"""desktop.core stays sans-I/O: no Qt, no event loop, no sockets, no upper layers.

Why two checks: the AST scan names the offending file and line; the fresh interpreter catches
an indirect import (a helper module that drags one of them in).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "desktop" / "core"
FORBIDDEN = ("PySide6", "qasync", "asyncio", "websockets", "desktop.gateway", "desktop.ui")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
    return found


def is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in FORBIDDEN)


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_no_core_module_imports_io_or_upper_layers(path: Path) -> None:
    offending = [
        f"{path.name}:{line} {module}"
        for line, module in imported_modules(path)
        if is_forbidden(module)
    ]
    assert offending == []


def test_the_forbidden_check_itself_recognises_what_it_forbids() -> None:
    assert [
        is_forbidden(m) for m in ("PySide6.QtCore", "asyncio", "desktop.ui.bridge", "desktop.core")
    ] == [
        True,
        True,
        True,
        False,
    ]


def test_importing_the_core_loads_none_of_them() -> None:
    modules = [f"desktop.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__"]
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    root = str(CORE.parents[1])
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=root
        ).stdout
    )
    assert [m for m in loaded if is_forbidden(m)] == []

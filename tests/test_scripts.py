"""scripts/lib.sh's inputs_hash: the stamp that lets a second test.sh run skip the bundle build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "scripts" / "lib.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def inputs_hash(root: Path, *paths: str) -> str:
    script = f'source "{LIB}"; ROOT="{root}"; inputs_hash "$@"'
    result = subprocess.run(
        ["bash", "-c", script, "inputs_hash", *paths],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout.strip()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "desktop" / "ui").mkdir(parents=True)
    (tmp_path / "desktop" / "ui" / "a.py").write_text("A = 1\n")
    (tmp_path / "desktop" / "b.py").write_text("B = 2\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    return tmp_path


def test_the_hash_is_stable_while_nothing_changes(tree: Path) -> None:
    first = inputs_hash(tree, "desktop", "pyproject.toml")
    assert len(first) == 16
    assert inputs_hash(tree, "desktop", "pyproject.toml") == first


def test_bytecode_caches_do_not_count(tree: Path) -> None:
    before = inputs_hash(tree, "desktop")
    (tree / "desktop" / "__pycache__").mkdir()
    (tree / "desktop" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")
    (tree / "desktop" / "ui" / "a.pyc").write_bytes(b"\0")
    assert inputs_hash(tree, "desktop") == before


@pytest.mark.parametrize(
    "change",
    [
        lambda t: (t / "desktop" / "b.py").write_text("B = 3\n"),  # an edit
        lambda t: (t / "desktop" / "b.py").rename(t / "desktop" / "c.py"),  # a rename
        lambda t: (t / "desktop" / "ui" / "new.py").write_text(""),  # a new file
        lambda t: (t / "desktop" / "ui" / "a.py").unlink(),  # a removal
        lambda t: (t / "pyproject.toml").write_text("[project]\nname = 'x'\n"),
    ],
    ids=["edit", "rename", "add", "remove", "project-file"],
)
def test_any_change_to_an_input_changes_the_hash(tree: Path, change) -> None:
    before = inputs_hash(tree, "desktop", "pyproject.toml")
    change(tree)
    assert inputs_hash(tree, "desktop", "pyproject.toml") != before

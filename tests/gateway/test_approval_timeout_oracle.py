"""The tray reads approvals.timeout as real Hermes does: a differential test against both builds.

Why: the core's safety margin on 0.19.0 is only as good as the timeout it counts from; a value
*longer* than Hermes' own lets an answer land after Hermes gave up (and resolve the next
command). Each config.yaml of ``timeout_cases`` is given to Hermes' own reader
(``_get_approval_timeout``) in its own interpreter; wherever the tray claims to know the value,
Hermes must use exactly that (or, for the cap, more). Cases the tray calls unknown are not
compared: the core then keeps its assumed default.

Hermes runs with no network (``unshare --net`` where possible, dead proxies always) and a
throw-away HERMES_HOME per case; the script only imports the reader and calls it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop.core.model import Dialect
from desktop.gateway.approval_timeout import MAX_SECONDS, read_timeout
from tests.gateway.timeout_cases import CASES
from tests.peers.hermes_venv import HermesVenv

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(120)]

READER = {  # where each build keeps its reader (0.19.0 reads YAML with PyYAML, iot with ruamel)
    Dialect.A: "from tools.approval import _get_approval_timeout",
    Dialect.B: "from tools.approval_context import _get_approval_timeout",
}
SCRIPT = """
import json, os, sys
{reader}
out = {{}}
for name, home, managed in json.load(sys.stdin):
    os.environ["HERMES_HOME"] = home
    if managed:
        os.environ["HERMES_MANAGED_DIR"] = managed
    else:
        os.environ.pop("HERMES_MANAGED_DIR", None)
    try:
        out[name] = _get_approval_timeout()
    except Exception as exc:
        out[name] = type(exc).__name__
print(json.dumps(out))
"""


def _layout(root: Path) -> list[tuple[str, str, str]]:
    rows = []
    for index, case in enumerate(CASES):
        home = root / f"case{index}" / "home"
        home.mkdir(parents=True)
        # A fresh check stamp: Hermes must not look for updates (hermes-peer.md).
        stamp = {"ts": 9_999_999_999, "behind": 0, "rev": None, "ver": "0.19.0"}
        (home / ".update_check").write_text(json.dumps(stamp), encoding="utf-8")
        if case.user is not None:
            (home / "config.yaml").write_text(case.user, encoding="utf-8")
        managed = ""
        if case.managed is not None:
            managed_dir = root / f"case{index}" / "managed"
            managed_dir.mkdir()
            (managed_dir / "config.yaml").write_text(case.managed, encoding="utf-8")
            managed = str(managed_dir)
        rows.append((case.name, str(home), managed))
    return rows


def _hermes_reads(venv: HermesVenv, dialect: Dialect, root: Path) -> dict[str, object]:
    rows = _layout(root)
    dead = "http://127.0.0.1:9"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "LANG": "C.UTF-8",
        "HERMES_DISABLE_LAZY_INSTALLS": "1",
        "TIRITH_ENABLED": "false",
        "PIP_NO_INDEX": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_PROXY": "127.0.0.1,localhost,::1",
        **{name: dead for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
        **{name.lower(): dead for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
    }
    argv = [str(venv.python), "-W", "ignore", "-c", SCRIPT.format(reader=READER[dialect])]
    isolated = shutil.which("unshare") is not None and (
        subprocess.run(["unshare", "--net", "true"], capture_output=True, check=False).returncode
        == 0
    )
    if isolated:
        argv = ["unshare", "--net", *argv]
    done = subprocess.run(
        argv,
        input=json.dumps(rows),
        capture_output=True,
        text=True,
        env=env,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _compare(venv: HermesVenv, dialect: Dialect, tmp_path: Path) -> None:
    hermes = _hermes_reads(venv, dialect, tmp_path / "hermes")
    compared = 0
    for index, case in enumerate(CASES):
        home = tmp_path / "hermes" / f"case{index}" / "home"
        managed = home.parent / "managed" if case.managed is not None else None
        ours = read_timeout(home, dialect, managed)
        assert ours == (case.a if dialect is Dialect.A else case.b), case.name
        if ours is None:
            continue  # unknown to the tray: the core keeps its assumed default
        theirs = hermes[case.name]
        assert isinstance(theirs, int), (case.name, theirs)
        waits = max(theirs, 0)  # both builds wait max(timeout, 0)
        assert ours == waits or (ours == MAX_SECONDS and waits > MAX_SECONDS), (
            case.name,
            ours,
            theirs,
        )
        compared += 1
    assert compared >= len(CASES) - 8


def test_the_tray_reads_what_hermes_0_19_0_reads(hermes_019: HermesVenv, tmp_path: Path) -> None:
    _compare(hermes_019, Dialect.A, tmp_path)


def test_the_tray_reads_what_the_newer_build_reads(hermes_iot: HermesVenv, tmp_path: Path) -> None:
    _compare(hermes_iot, Dialect.B, tmp_path)

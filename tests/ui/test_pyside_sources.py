"""PySide6's import hook no longer keeps every module's source in linecache (memory at idle).

Subprocesses, because the hook is process-wide and depends on what was imported before: each
check starts from a fresh interpreter, imports Qt, then the modules under test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")


def run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


PROBE = """
    import json, linecache, sys
    import PySide6.QtCore
    {install}
    import calendar, desktop.core.gateway_core, qasync
    import shibokensupport.feature as feature
    names = ("calendar", "desktop.core.gateway_core", "qasync")
    files = [sys.modules[n].__file__ for n in names]
    print(json.dumps({{
        "cached": [f for f in files if f in linecache.cache],
        "entries": len(linecache.cache),
        "flags": {{n: feature.pyside_feature_dict.get(n) for n in names}},
        "every_flag": dict(feature.pyside_feature_dict),
    }}))
"""


def test_without_the_guard_the_hook_caches_sources():
    """The problem this guards against is real in the installed PySide6 (else the guard is moot)."""
    found = run(PROBE.format(install=""))
    assert found["cached"], "PySide6 no longer caches sources: desktop.ui.pyside_sources can go"


def test_importing_desktop_ui_after_qt_stops_the_caching_and_keeps_the_hooks_answers():
    bare = run(PROBE.format(install=""))
    guarded = run(PROBE.format(install="import desktop.ui"))
    assert guarded["cached"] == []
    assert guarded["entries"] == 0
    assert guarded["flags"] == bare["flags"]  # the hook's own answers are unchanged
    both = bare["every_flag"].keys() & guarded["every_flag"].keys()
    assert len(both) > 100  # the stdlib, asyncio, qasync and the core: every one the same
    assert {n: guarded["every_flag"][n] for n in both} == {n: bare["every_flag"][n] for n in both}
    assert (bare["flags"]["calendar"], bare["flags"]["qasync"]) == (-1, 0)  # no Qt, Qt


def test_the_app_installs_it_before_its_imports_and_it_is_idempotent():
    found = run(
        """
        import json, sys
        from desktop.ui.pyside_sources import HOOK_FUNCTION, HOOK_MODULE, stop_source_caching
        before = stop_source_caching()  # nothing to wrap yet: Qt is not loaded
        import PySide6.QtCore
        stop_source_caching()
        first = getattr(sys.modules[HOOK_MODULE], HOOK_FUNCTION)
        stop_source_caching()
        again = getattr(sys.modules[HOOK_MODULE], HOOK_FUNCTION)
        print(json.dumps({"before": before, "same": first is again,
                          "wrapped": hasattr(again, "__wrapped__")}))
        """
    )
    # desktop.ui's package import ran before PySide6 was loaded, so only the explicit call wraps.
    assert found == {"before": False, "same": True, "wrapped": True}

"""Keep PySide6's import hook from holding the source text of every module in memory.

Why: once PySide6 is imported, shiboken replaces ``__import__`` and, for every module imported
afterwards, asks whether it uses PySide6 (for its ``__feature__`` switching) by searching the
module's *source*: ``shibokensupport.feature._mod_uses_pyside`` calls ``inspect.getsource``,
which reads the file through :mod:`linecache`, and linecache keeps it. In this app that is
every module imported after Qt (asyncio, websockets, the core, the UI, their dependencies):
over 300 files, about 11 MiB of line strings kept for the whole day, nearly as much as all the
app's own Python objects. (The same mechanism is described in pyzo pull request #851.)

How: wrap that one function so it gives the same answer but drops the linecache entries it
added. linecache is only a cache (a traceback reads the lines again when it needs them), so
nothing else changes. A module loaded from a ``.py`` file is answered from that file's bytes
directly: the same text, without ``inspect``'s search of every loaded module for its owner
(a tenth of a millisecond per import, a few hundred imports at start-up).

The wrapper is installed once, as early as possible after PySide6 is imported
(:func:`desktop.app.run`, and ``desktop.ui``'s package import when Qt is already loaded);
installing also clears what the hook cached before. If a PySide6 release renames or drops the
function, this does nothing.
"""

from __future__ import annotations

import linecache
import logging
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

HOOK_MODULE = "shibokensupport.feature"
HOOK_FUNCTION = "_mod_uses_pyside"
_MARK = "_hermes_tray_uncached"


def stop_source_caching() -> bool:
    """Install the wrapper if PySide6 is loaded; True when it is (now or already) installed."""
    feature = sys.modules.get(HOOK_MODULE)
    original = getattr(feature, HOOK_FUNCTION, None)
    if feature is None or not callable(original):
        return False
    if not getattr(original, _MARK, False):
        setattr(feature, HOOK_FUNCTION, _uncached(original))
        log.debug("PySide6's import hook no longer keeps module sources in linecache")
    linecache.clearcache()
    return True


def _uncached(original: Callable[[ModuleType], Any]) -> Callable[[ModuleType], Any]:
    def mod_uses_pyside(module: ModuleType) -> Any:
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if isinstance(origin, str) and origin.endswith(".py"):
            try:
                with open(origin, "rb") as source:
                    return b"PySide6" in source.read()  # what the hook looks for in the text
            except OSError:
                pass  # let the hook try its own way
        known = set(linecache.cache)
        try:
            return original(module)
        finally:
            for filename in linecache.cache.keys() - known:
                linecache.cache.pop(filename, None)

    setattr(mod_uses_pyside, _MARK, True)
    mod_uses_pyside.__wrapped__ = original  # type: ignore[attr-defined]
    return mod_uses_pyside

"""Keep PySide6's import hook from holding the source text of every module in memory.

Shiboken's ``__import__`` reads each later module's source (``inspect.getsource``) to ask whether
it uses PySide6, and :mod:`linecache` keeps it: 300+ files, about 11 MiB all day. The wrapper
gives the same answer and drops what linecache gained. If PySide6 drops the hook, this does nothing.
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

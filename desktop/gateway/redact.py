"""Keep tokens and tickets out of logs, reprs and error texts.

Scrubbing the log alone is not enough: URLs such as ``HERMES_TUI_GATEWAY_URL`` carry the
credential in their query string, and error texts built from them reach the UI and the doctor's
output, not just the log. Every secret this package touches is also handed to
``desktop.logsetup.register_secret`` when that module exists, so a log formatter can scrub it
even if some library echoes it.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.logsetup import is_opaque_segment

log = logging.getLogger(__name__)

SECRET_QUERY_KEYS = frozenset({"token", "ticket", "pty", "internal"})
MASK = "***"


def register_secret(value: str) -> None:
    """Tell the app's log scrubber about ``value`` (if the scrubber exists). Never raises."""
    if not value:
        return
    try:
        module: Any = importlib.import_module("desktop.logsetup")
    except ImportError:
        return
    hook = getattr(module, "register_secret", None)
    if callable(hook):
        try:
            hook(value)
        except Exception:  # a broken scrubber must not break connecting
            log.debug("register_secret failed", exc_info=False)


def redact_url(url: str) -> str:
    """``url`` with credential query values, opaque path segments and any password masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    query = [
        (k, MASK if k.lower() in SECRET_QUERY_KEYS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    path = "/".join(MASK if is_opaque_segment(seg) else seg for seg in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, path, urlencode(query, safe="*"), ""))


def redact_text(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """``text`` with every occurrence of each non-empty secret replaced by the mask."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text

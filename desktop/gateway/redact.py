"""Keep tokens and tickets out of logs, reprs and error texts.

Scrubbing the log alone is not enough: URLs such as ``HERMES_TUI_GATEWAY_URL`` carry the
credential in their query string, and error texts built from them reach the UI and the doctor's
output, not just the log. Every secret this package touches is also handed to
``desktop.logsetup.register_secret``, so the log filter scrubs it even if some library echoes it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.logsetup import MASK, SECRET_QUERY_KEYS, is_opaque_segment

__all__ = ["redact_url"]


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

"""Keep tokens out of URLs shown in the UI, the doctor's output and error texts.

``HERMES_TUI_GATEWAY_URL`` may carry the credential in its query; every secret is also
registered with ``desktop.logsetup``, whose filter scrubs the log.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop.logsetup import MASK, SECRET_QUERY_KEYS, is_opaque_segment


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

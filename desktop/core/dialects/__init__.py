"""Dialect adapters: one per Hermes gateway protocol (protocol.md §6), plus a provisional one.

Use :func:`adapter_for` to get the adapter of a fixed dialect (or of "not known yet").
"""

from __future__ import annotations

from desktop.core.dialects.base import DialectAdapter
from desktop.core.dialects.canonical import CanonicalAdapter
from desktop.core.dialects.hermes019 import Hermes019Adapter
from desktop.core.dialects.hermes020 import Hermes020Adapter
from desktop.core.dialects.provisional import ProvisionalAdapter
from desktop.core.dialects.tui_gateway import TuiGatewayAdapter
from desktop.core.model import Dialect
from desktop.core.settings import CoreSettings

__all__ = ["DialectAdapter", "adapter_for"]


def adapter_for(dialect: Dialect | None, settings: CoreSettings) -> DialectAdapter:
    """The adapter for ``dialect`` (None: the handshake has not fixed one yet)."""
    limit = settings.max_command_chars
    if dialect is Dialect.A:
        return Hermes019Adapter(limit)
    if dialect is Dialect.B:
        return TuiGatewayAdapter(limit)
    if dialect is Dialect.HERMES020:
        return Hermes020Adapter(limit)
    if dialect is Dialect.C:
        return CanonicalAdapter(limit, settings.canonical_resume_source)
    return ProvisionalAdapter(limit)

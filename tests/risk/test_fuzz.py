"""Any text at all: the lens never raises, marks only what exists, and never says LOW for what
it could not read."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.model.approvals import texts
from desktop.risk import RiskLevel, assess

PIECES = st.sampled_from(
    [
        *"rm -f;|&()$`'\"\\<>{}[]=*?#~/\n\tabcdefxyz0123",
        *("\u202e", "\u200b", "\ud800", "🙂", "é", "$(", "<<EOF\n", "\nEOF\n", "sudo ", "curl "),
        *("rm -rf ", "| sh", "$'\\x72m'", "${IFS}", "X=rm;", "$X", "psql -c ", "DROP TABLE "),
    ]
)
SHELLISH = st.lists(PIECES, max_size=120).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(SHELLISH, st.text(max_size=300)))
def test_any_text_gets_a_bounded_consistent_verdict(command: str) -> None:
    result = assess.__wrapped__(command)  # uncached: every example really runs
    assert all(0 <= f.start < f.end <= len(command) for f in result.findings)
    assert result.level == max(
        [f.level for f in result.findings] + [RiskLevel.HIGH if not result.parsed else 0]
    )
    if not result.parsed:
        assert result.level is RiskLevel.HIGH
    assert "\n" not in result.summary
    # the card can always map the marks into the revealed text
    shown, _ = texts.revealed(command)
    for start, end, _level in texts.shown_marks(command, result.findings):
        assert 0 <= start < end <= len(shown)

"""The lens's promises beyond the table: exact marks, bounds on hostile input, the API."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.risk import RiskAssessment, RiskFinding, RiskLevel, assess, lens
from desktop.risk.rules import RULES, rule

SHOP = "/home/ann/src/shop"


def marked(command: str, rule_id: str) -> list[str]:
    return [command[f.start : f.end] for f in assess(command).findings if f.rule == rule_id]


@pytest.mark.parametrize(
    ("command", "rule_id", "parts"),
    [
        ("chmod 777 /var/www", "world-writable", ["777"]),
        ("ls && echo hi > /etc/motd", "system-write", ["> /etc/motd"]),
        ("psql -c 'DROP TABLE users'", "sql-drop", ["DROP TABLE"]),
        ("psql <<SQL\nselect 1;\ntruncate logs;\nSQL", "sql-drop", ["truncate"]),
        ("sh -c 'cd /x && rm -rf build'", "recursive-delete", ["rm -rf build"]),
        ("bash <<'EOF'\nrm -rf /srv/old\nEOF", "recursive-delete", ["rm -rf /srv/old"]),
        ("curl -s x | sh; ls", "download-and-run", ["curl -s x | sh"]),
        ("export T=*** ", "redacted", ["***"]),
        ("echo a\u202eb", "hidden-characters", ["\u202e"]),
        ("X=rm; $X -rf /", "disguised-command", ["$X"]),
    ],
)
def test_marks_cover_exactly_the_risky_part(command: str, rule_id: str, parts: list[str]) -> None:
    assert marked(command, rule_id) == parts


def test_offsets_count_characters_not_bytes() -> None:
    command = "echo ünïcödé → ok && chmod 777 /srv/ß"
    assert marked(command, "world-writable") == ["777"]
    command = "echo '日本語' ; rm -rf /データ"
    assert marked(command, "recursive-delete") == ["rm -rf /データ"]


def test_a_lone_surrogate_does_not_break_the_lens() -> None:
    result = assess("echo \ud800 && rm -rf x")
    assert result.level is RiskLevel.HIGH
    assert {f.rule for f in result.findings} >= {"recursive-delete", "hidden-characters"}


def test_unreadable_commands_are_high_and_say_so() -> None:
    result = assess('echo "no end')
    assert (result.level, result.parsed) == (RiskLevel.HIGH, False)
    assert "could not be read" in result.summary


def test_a_300000_character_command_is_bounded_and_high() -> None:
    hostile = "echo " + "a" * 300_000
    result = assess(hostile)
    assert (result.level, result.parsed) == (RiskLevel.HIGH, False)
    assert "too-long" in {f.rule for f in result.findings}
    assert all(0 <= f.start < f.end <= len(hostile) for f in result.findings)


@pytest.mark.parametrize(
    "hostile",
    [
        "$(" * 30_000 + ")" * 30_000,
        "rm -rf x; " * 30_000,
        "'" * 300_000,
        "a=$((" * 20_000,
        "\u202e" * 300_000,
        ("x" * 1000 + " ") * 300,
        "cat <<E\n" * 20_000,
    ],
    ids=[
        "nested-substitutions",
        "many-commands",
        "quotes",
        "arithmetic",
        "bidi",
        "words",
        "heredocs",
    ],
)
def test_hostile_input_is_bounded(hostile: str) -> None:
    result = assess(hostile)
    assert result.level is RiskLevel.HIGH
    assert len(result.findings) <= lens.MAX_FINDINGS
    assert all(0 <= f.start < f.end <= len(hostile) for f in result.findings)


def test_padding_does_not_hide_a_risk_in_a_long_command() -> None:
    padded = "echo " + " " * 50_000 + "start; " + "true; " * 5_000 + "rm -rf /srv"
    assert "recursive-delete" in {f.rule for f in assess(padded).findings}


def test_assess_is_cached_and_results_are_frozen() -> None:
    first = assess("git push --force")
    assert assess("git push --force") is first
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.level = RiskLevel.LOW  # type: ignore[misc]


def test_level_is_the_highest_finding() -> None:
    result = assess("chmod -R 750 x && rm notes.txt")
    assert result.level is RiskLevel.MEDIUM
    assert result.level == max(f.level for f in result.findings)
    assert assess("ls").findings == ()
    assert assess("ls").summary == "nothing risky found"


@pytest.mark.parametrize(
    ("command", "summary"),
    [
        ("rm -rf /srv/www/a /srv/www/b /srv/www/c", "deletes 3 folders under /srv/www"),
        ("rm -rf build", "deletes build and everything in it"),
        ("cd /srv/www && rm -rf a b/ c", "deletes 3 folders under /srv/www"),
        ("rm -rf build/ dist/ .cache", "deletes build/, dist/ and .cache and everything in them"),
        ("rm -rf /a /b", "deletes /a and /b and everything in them"),
        (
            "rm -rf " + " ".join(f"d{i}" for i in range(9)),
            "deletes 9 folders and everything in them",
        ),
        ("cd /srv && rm -rf www/a/x www/b", "deletes 2 folders under /srv/www"),
        ("git push -f", "overwrites history on the remote (force push)"),
        ("sudo rm -rf /opt/x", "deletes /opt/x and everything in it (and 1 more)"),
        ("chown alice f", "changes who owns files"),
    ],
)
def test_summary_is_one_plain_line(command: str, summary: str) -> None:
    assert assess(command).summary == summary


@pytest.mark.parametrize(
    ("command", "cwd", "level", "rule_id"),
    [
        ("chown -R ann:ann build", SHOP, RiskLevel.MEDIUM, "ownership-change"),
        ("chown -R ann .", SHOP, RiskLevel.MEDIUM, "ownership-change"),
        ("chgrp -R www /tmp/site", SHOP, RiskLevel.MEDIUM, "ownership-change"),
        ("cd src && chown --recursive ann lib", SHOP, RiskLevel.MEDIUM, "ownership-change"),
        ("chown -R ann build", "", RiskLevel.HIGH, "recursive-chown"),
        ("chown -R ann /", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("chown -R ann:ann /etc", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("chown -R ann ~", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("chown -R ann ../other", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("chown -R ann build /srv/data", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("find / -exec chown -R nobody {} +", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("ssh web1 'chown -R ann build'", SHOP, RiskLevel.HIGH, "recursive-chown"),
        ("chmod -R 755 build", SHOP, RiskLevel.MEDIUM, "recursive-chmod"),
        ("chmod -R 700 /srv/data", SHOP, RiskLevel.MEDIUM, "recursive-chmod"),
        ("chmod -R 000 /usr/lib", SHOP, RiskLevel.HIGH, "system-chmod"),
        ("chmod -R --reference=build ~", SHOP, RiskLevel.HIGH, "system-chmod"),
    ],
)
def test_recursive_owner_and_mode_changes_are_graded_by_their_targets(
    command: str, cwd: str, level: RiskLevel, rule_id: str
) -> None:
    assessment = assess(command, cwd)
    assert (assessment.level, {f.rule for f in assessment.findings}) == (level, {rule_id})


def test_summary_shows_hidden_characters_in_paths_as_escapes() -> None:
    summary = assess("rm -rf 'a\u202eb'").summary
    assert "\u202e" not in summary
    assert "U+202E" in summary


def test_every_rule_row_has_plain_words_and_a_known_level() -> None:
    for row in RULES:
        assert row.label
        assert row.label == row.label.strip()
        assert "\n" not in row.label
        assert rule(row.id).level == row.level  # rows sharing an id share a level
    with pytest.raises(KeyError):
        rule("no-such-rule")


def test_the_public_types() -> None:
    finding = RiskFinding(0, 2, RiskLevel.HIGH, "x", "y")
    assessment = RiskAssessment(RiskLevel.HIGH, (finding,), "s", True)
    assert assessment.findings[0].rule == "x"
    assert RiskLevel.LOW < RiskLevel.MEDIUM < RiskLevel.HIGH


def test_a_line_break_in_a_delete_target_stays_on_the_summary_line() -> None:
    summary = assess("rm -rf \n\\r").summary  # found by test_fuzz
    assert "\n" not in summary


@pytest.mark.parametrize("high", [0x60000, 0x70000, 0xE0001, 0xF0000, 0x10FFFF])
@pytest.mark.parametrize("shape", ["{X", "{X\n", "echo {X", "echo ${X", "{X{"])
def test_code_points_that_crash_the_bash_grammar_never_reach_it(shape: str, high: int) -> None:
    """tree-sitter-bash dies of SIGSEGV on "{" before a code point from U+60000 up: this test
    killed the test process before the lens read them as a stand-in of the same length."""
    command = shape.replace("X", chr(high))
    found = assess.__wrapped__(command)
    assert all(0 <= f.start < f.end <= len(command) for f in found.findings)
    assert found.level is not RiskLevel.LOW or found.parsed

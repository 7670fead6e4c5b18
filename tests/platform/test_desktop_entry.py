"""Desktop entry values and Exec quoting, checked against the spec's rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.platform import desktop_entry
from tests.platform.exec_line import split_exec


@pytest.mark.parametrize(
    ("command", "written"),
    [
        (["hermes-tray"], "hermes-tray"),
        (["/opt/Hermes Tray/hermes-tray", "--demo"], '"/opt/Hermes Tray/hermes-tray" --demo'),
        (["/usr/bin/python3", "-m", "desktop"], "/usr/bin/python3 -m desktop"),
        (["/home/a$b/x"], '"/home/a\\\\$b/x"'),  # \$ inside quotes, then \ escaped as \\
        (["C:\\x"], '"C:\\\\\\\\x"'),  # a literal backslash takes four in the file
        (["100%"], "100%%"),
        ([""], '""'),
    ],
)
def test_exec_value_quotes_as_the_spec_says(command: list[str], written: str) -> None:
    assert desktop_entry.exec_value(command) == written


def test_exec_refuses_line_breaks_and_empty_commands() -> None:
    with pytest.raises(ValueError, match="line break"):
        desktop_entry.exec_value(["a\nb"])
    with pytest.raises(ValueError, match="needs a program"):
        desktop_entry.exec_value([])


_args = st.lists(
    st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=["Cs"]), max_size=12),
    min_size=1,
    max_size=4,
)


@given(_args)
def test_any_command_survives_writing_and_reading(command: list[str]) -> None:
    text = desktop_entry.render([("Exec", desktop_entry.exec_value(command))])
    assert split_exec(desktop_entry.parse(text)["Exec"]) == command


def test_parse_reads_only_the_desktop_entry_group() -> None:
    text = (
        "# comment\n[Desktop Entry]\nName=A\\sB\nComment=x\\ny\n[Desktop Action quit]\nName=Other\n"
    )
    assert desktop_entry.parse(text) == {"Name": "A B", "Comment": "x\ny"}


def test_unterminated_quote_is_an_error() -> None:
    with pytest.raises(ValueError, match="unterminated"):
        split_exec('"abc')

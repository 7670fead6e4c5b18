"""The README and the pages under docs/ stay short, findable and linked correctly.

Why a test: the README is the first thing a newcomer reads, and it shrank from 677 lines to a
page that points elsewhere. A renamed page or heading would leave a dead link nobody notices,
and the README tends to grow back; both are cheap to check here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
README_MAX_LINES = 250  # issue 29: a README read in five minutes

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {anchor(h) for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))}


def local_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_anchor_follows_github_rules() -> None:
    assert anchor("Checking the connection: `hermes-tray doctor`") == (
        "checking-the-connection-hermes-tray-doctor"
    )
    assert anchor("Settings, notifications and the decision journal") == (
        "settings-notifications-and-the-decision-journal"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_local_link_reaches_a_file_and_heading(page: Path) -> None:
    dead = []
    for target in local_links(page):
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (fragment and fragment not in anchors(file)):
            dead.append(target)
    assert not dead, f"{page.name}: dead links {dead}"


def test_the_readme_is_short_and_links_every_docs_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in local_links(README)}
    assert {p.resolve() for p in DOCS.glob("*.md")} <= linked


def test_the_readme_gives_the_two_commands_ci_and_newcomers_run() -> None:
    text = README.read_text(encoding="utf-8")
    for script in ("scripts/start.sh", "scripts/test.sh"):
        assert f"bash {script}" in text
        assert (ROOT / script).is_file()
    assert "exec bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")

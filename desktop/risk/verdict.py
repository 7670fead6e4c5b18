"""What the risk lens says about one command: a level, the marked parts, one plain line.

These are the types the dialog, the notifications and the journal code against; the lens
(:mod:`desktop.risk.lens`) is the only producer. Offsets are character offsets into the
command string exactly as the gateway sent it (not into its revealed form), so a view that
shows ``reveal(command)`` has to map them (see ``desktop.ui.approvals.command_view``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import OPAQUE_RULES, RiskLevel


@dataclass(frozen=True, slots=True)
class RiskFinding:
    """One marked part of the command."""

    start: int  # character offsets into the command string exactly as given
    end: int
    level: RiskLevel
    rule: str  # rule id from the table in desktop.risk.rules, e.g. "recursive-delete"
    label: str  # plain words for a person: "deletes folders recursively"


@dataclass(frozen=True, slots=True)
class RiskAssessment:
    level: RiskLevel  # the max over findings; HIGH when the parser could not read it
    findings: tuple[RiskFinding, ...]
    # One plain line, e.g. "deletes 3 folders under /srv/www". Text from the command in it is
    # revealed already (hidden characters as ⟨U+XXXX⟩): bound it, do not reveal it again.
    summary: str
    parsed: bool  # False: "could not be read" (then level is HIGH and summary says so)

    @property
    def opaque(self) -> bool:
        """The lens could not read all it would run: never approve it without the dialog."""
        return not self.parsed or any(f.rule in OPAQUE_RULES for f in self.findings)

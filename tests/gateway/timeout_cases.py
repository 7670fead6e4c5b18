"""config.yaml texts and the approval timeout the tray must read from them.

Shared by the unit tests (``test_approval_timeout``) and the differential test against the
real Hermes builds (``test_approval_timeout_oracle``), which checks that Hermes itself uses
exactly the ``a`` value (0.19.0) wherever the tray claims to know it.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.gateway.approval_timeout import MAX_SECONDS


@dataclass(frozen=True)
class Case:
    name: str
    user: str | None  # config.yaml text (None: no file)
    a: float | None  # what the tray reads for 0.19.0 (None: unknown)
    b: float | None  # ... for the newer build (default 300)
    managed: str | None = None  # the managed scope's config.yaml text


CASES = [
    Case("no file", None, 60, 300),
    Case("empty file", "", 60, 300),
    Case("no approvals block", "model: {default: m}\n", 60, 300),
    Case("block without timeout", "approvals: {mode: manual}\n", 60, 300),
    Case("null block", "approvals:\n", 60, 300),
    Case("plain number", "approvals:\n  mode: manual\n  timeout: 300\n", 300, 300),
    Case("flow style, as the peers write it", '{"approvals": {"timeout": 45}}\n', 45, 45),
    Case("quoted number", 'approvals: {timeout: "120"}\n', 120, 120),
    Case("spaces around a quoted number", 'approvals: {timeout: " 90 "}\n', 90, 90),
    Case("float truncates", "approvals: {timeout: 12.9}\n", 12, 12),
    Case("yaml 1.1 boolean", "approvals: {timeout: true}\n", 1, 1),
    Case("null timeout", "approvals: {timeout: null}\n", 60, 300),
    Case("words", "approvals: {timeout: soon}\n", 60, 300),
    Case("negative waits not at all", "approvals: {timeout: -5}\n", 0, 0),
    Case("huge is capped", "approvals: {timeout: 100000000000}\n", MAX_SECONDS, MAX_SECONDS),
    Case("infinity", "approvals: {timeout: .inf}\n", None, None),
    Case("not a number", "approvals: {timeout: .nan}\n", 60, 300),
    Case("environment reference", "approvals: {timeout: '${APPROVAL_WAIT}'}\n", None, None),
    Case("empty list block", "approvals: []\n", 60, 300),
    Case("list block", "approvals: [timeout]\n", None, None),
    Case("string block", "approvals: manual\n", None, None),
    Case("top level list", "- approvals\n", None, None),
    Case("broken yaml", "approvals: {timeout: 300\nmodel: [\n", None, None),
    Case("managed wins", "approvals: {timeout: 300}\n", 30, 30, "approvals: {timeout: 30}\n"),
    Case(
        "managed without timeout",
        "approvals: {timeout: 300}\n",
        300,
        300,
        "approvals: {mode: smart}\n",
    ),
    Case("managed null block", "approvals: {timeout: 200}\n", 200, 200, "approvals:\n"),
    Case("managed scalar document", "approvals: {timeout: 200}\n", 200, 200, "just text\n"),
]

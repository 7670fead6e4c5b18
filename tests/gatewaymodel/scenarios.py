"""Ready-made turns, named like the peer harness scenarios in ``shared/transcripts``.

Send ``[[scenario:<name>]]`` at the start of a ``prompt.submit`` text to pick one. All commands
point at a scratch path and are only simulated.
"""

from __future__ import annotations

from tests.gatewaymodel.script import (
    Batch,
    Clarify,
    Command,
    Pause,
    Say,
    ScenarioBook,
    Title,
    Todo,
    Turn,
    UsageTick,
    WindowRequest,
)

SCRATCH = "/tmp/hermes-scratch"
DELETE = "delete in root path"
FIND_DELETE = "find -delete"


def rm(name: str, *, exit_code: int = 0) -> Command:
    """``rm -rf <scratch>/<name>`` (flagged as "delete in root path")."""
    suffix = " && false" if exit_code else ""
    return Command(f"rm -rf {SCRATCH}/{name}{suffix}", DELETE, exit_code=exit_code)


def find_delete(name: str) -> Command:
    """``find <scratch>/<name> -delete`` (flagged as "find -delete")."""
    return Command(f"find {SCRATCH}/{name} -delete", FIND_DELETE)


def default_book() -> ScenarioBook:
    """The scenarios every dialect understands; the default turn just answers."""
    plan = (
        {"id": "1", "content": "Remove t1", "status": "in_progress"},
        {"id": "2", "content": "Remove t2", "status": "pending"},
    )
    return ScenarioBook(
        scenarios={
            "single": Turn([rm("s1"), UsageTick(1600, 20)], reply="single: finished."),
            "three": Turn(
                [
                    Say("I'll clean up three scratch directories."),
                    rm("a"),
                    find_delete("b"),
                    rm("c"),
                ],
                reply="three: done.",
            ),
            "batch3": Turn(
                [
                    Say("Cleaning a..c."),
                    Batch((rm("a"), find_delete("b"), rm("c"))),
                    UsageTick(2144, 74),
                ],
                reply="batch3: done.",
            ),
            "batch3x": Turn(
                [
                    Say("Cleaning x1..x3."),
                    Batch((rm("x1"), find_delete("x2"), rm("x3"))),
                    UsageTick(1817, 69),
                ],
                reply="batch3x: done.",
            ),
            "regate": Turn(
                [Batch((rm("r1", exit_code=1), rm("r2"), find_delete("r3")))], reply="regate: done."
            ),
            "yolo": Turn([Batch((rm("y1"), find_delete("y2")))], reply="yolo: finished."),
            "todo": Turn(
                [
                    Todo(plan),
                    UsageTick(1900, 40),
                    rm("t1"),
                    Todo(({"id": "2", "content": "Remove t2", "status": "cancelled"},), merge=True),
                    UsageTick(1900, 40),
                ],
                reply="todo: done.",
            ),
            "safe": Turn([Command(f"ls {SCRATCH}", output="s1")], reply="safe: listed."),
            "readterm": Turn([WindowRequest(), Command("true")], reply="readterm: done."),
            "clarify": Turn(
                [
                    Say("One question first."),
                    Clarify("Which branch should I deploy?", ("main", "staging")),
                ],
                reply="clarify: done.",
            ),
            "mixed": Turn(
                [
                    Batch((rm("m1"), rm("m2"))),
                    Todo(
                        (
                            {"id": "1", "content": "m1", "status": "completed"},
                            {"id": "2", "content": "m2", "status": "completed"},
                            {"id": "3", "content": "m3", "status": "in_progress"},
                        )
                    ),
                    find_delete("m3"),
                ],
                reply="mixed: done.",
            ),
            "slow": Turn([Say("Thinking hard."), Pause(5.0)], reply="slow: finished."),
            "titled": Turn([Title("Peer harness session")], reply="titled."),
        },
        default=Turn([Say("Nothing to do.")], reply="Nothing to do."),
    )

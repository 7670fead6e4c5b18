"""``model.replaced``: the core's cheap copy of a frozen value, held to ``dataclasses.replace``."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.core.model import Approval, TodoItem, TodoStatus, built, replaced


def test_a_copy_changes_only_what_was_named() -> None:
    item = TodoItem(id="1", content="write the tests", status=TodoStatus.PENDING)
    copy = replaced(item, {"content": "run them"})
    assert copy == dataclasses.replace(item, content="run them")
    assert copy is not item
    assert item.content == "write the tests"


def test_a_misspelt_change_raises_instead_of_vanishing() -> None:
    item = TodoItem(id="1", content="x", status=TodoStatus.PENDING)
    with pytest.raises(TypeError, match="contnet"):
        replaced(item, {"contnet": "y"})


def test_built_equals_the_value_init_builds_and_stays_frozen() -> None:
    fields = [f.name for f in dataclasses.fields(Approval)]
    init = Approval(key="k", session_id="s", batch_id="b", position=2, command="ls", reask_of="j")
    copy = built(Approval, [getattr(init, name) for name in fields])
    assert copy == init
    assert hash(copy) == hash(init)
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.command = "rm -rf /"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        replaced(init, {"position": 3}).command = "rm -rf /"  # type: ignore[misc]

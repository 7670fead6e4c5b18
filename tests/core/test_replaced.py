"""``model.replaced``: the core's cheap copy of a frozen value, held to ``dataclasses.replace``."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.core.model import TodoItem, TodoStatus, replaced


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

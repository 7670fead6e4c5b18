"""reask_guard: a re-ask of a command the person denied is recognised; nothing else is."""

from __future__ import annotations

import dataclasses

from desktop.core.model import AskedBecause, AskReason, Choice
from desktop.model.reask_guard import DenyMemory
from tests.model.builders import approval


def test_a_reask_of_a_denied_command_in_its_batch_is_recognised():
    memory = DenyMemory()
    memory.denied("g", approval("k1", command="rm -rf c"))
    assert memory.is_reask_of_denied("g", approval("k7", command="rm -rf c"))
    assert not memory.is_reask_of_denied("g", approval("k8", command="rm -rf d"))  # other command
    assert not memory.is_reask_of_denied("g", approval("k9", batch="b2", command="rm -rf c"))
    assert not memory.is_reask_of_denied("g2", approval("k7", command="rm -rf c"))
    assert not memory.is_reask_of_denied("g", approval("k1", command="rm -rf c"))  # the row itself


def test_the_core_naming_the_denied_row_is_enough_across_batches():
    memory = DenyMemory()
    memory.denied("g", approval("k1", command="rm -rf c"))
    asked = dataclasses.replace(
        approval("k5", batch="b9", command="rm -rf c"),
        asked_because=AskedBecause(AskReason.AFTER_DENY, earlier_key="k1"),
    )
    assert memory.is_reask_of_denied("g", asked)
    by_reask_of = dataclasses.replace(approval("k6", batch="b8", command="rm -rf c"), reask_of="k1")
    assert memory.is_reask_of_denied("g", by_reask_of)
    other = dataclasses.replace(approval("k6", batch="b8", command="rm -rf x"), reask_of="k1")
    assert not memory.is_reask_of_denied("g", other)


def test_rows_that_cannot_be_denied_are_left_to_the_person():
    memory = DenyMemory()
    memory.denied("g", approval("k1", command="rm -rf c"))
    assert not memory.is_reask_of_denied(
        "g", approval("k2", command="rm -rf c", choices=(Choice.ONCE,))
    )


def test_memory_is_bounded_and_forgets_removed_gateways():
    memory = DenyMemory(limit=2)
    for i in range(3):
        memory.denied("g", approval(f"k{i}", command=f"c{i}"))
    assert not memory.is_reask_of_denied("g", approval("x", command="c0"))
    assert memory.is_reask_of_denied("g", approval("x", command="c2"))
    memory.forget_gateway("g")
    assert not memory.is_reask_of_denied("g", approval("x", command="c2"))

"""What a repeat adds to the memory it merges into (domain.repeat): the agents it is shared with."""

from __future__ import annotations

from hindsight.domain.limits import MAX_SHARED_WITH
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.repeat import Absorbed, Held, absorb


def test_a_repeat_shared_with_more_agents_names_them_and_never_passes_the_limit() -> None:
    held = Held({}, [], {}, shared_with=["planner"])
    absorbed = absorb(held, MemoryDraft(content="x", shared_with=["planner", "coder"]))
    assert isinstance(absorbed, Absorbed)
    assert absorbed.added_shared_with == ["coder"]
    assert absorbed.reason("m1") == "repeat of m1: added shared_with coder"
    assert absorbed.changes() == {"added": {"shared_with": ["coder"]}}
    assert absorbed.after(held).shared_with == ["planner", "coder"]
    same = absorb(held, MemoryDraft(content="x", shared_with=["planner"]))
    assert isinstance(same, Absorbed)
    assert same.reason("m1") is None
    full = Held({}, [], {}, shared_with=[f"a{i}" for i in range(MAX_SHARED_WITH)])
    refused = absorb(full, MemoryDraft(content="x", shared_with=["coder"]))
    assert (
        refused
        == f"together they would be shared with {MAX_SHARED_WITH + 1} agents; the limit is {MAX_SHARED_WITH}"
    )

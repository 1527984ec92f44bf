"""Session numbers at acknowledgement: only episodic writes of a session with chain on are numbered, in
the order they are acknowledged; a sequence that is down leaves the write unchained, not refused."""

from __future__ import annotations

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import MemoryDraft, write_fingerprint
from hindsight.usecases.remember import BatchItem, ItemOutcome, Remember, RememberBatch
from tests.unit.fakes import FixedClock, ListQueue

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")


class Counter:
    def __init__(self, down: bool = False) -> None:
        self.values: dict[tuple[str, str, str], int] = {}
        self.down = down

    async def next(self, tenant_id: str, agent_id: str, session_id: str) -> int:
        if self.down:
            raise Unavailable("redis down")
        key = (tenant_id, agent_id, session_id)
        self.values[key] = self.values.get(key, 100) + 1
        return self.values[key]


async def test_only_chained_session_events_are_numbered_in_acknowledgement_order() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(), sessions=Counter())
    drafts = [
        MemoryDraft(content="first", layer="episodic", session_id="s"),
        MemoryDraft(content="fact", session_id="s"),  # semantic: never chained
        MemoryDraft(content="aside", layer="episodic", session_id="s", chain=False),
        MemoryDraft(content="no session", layer="episodic"),
        MemoryDraft(content="second", layer="episodic", session_id="s"),
    ]
    for draft in drafts:
        await remember(ALICE, None, draft)
    assert [j.session_seq for j in queue.jobs] == [101, None, None, None, 102]
    items: list[BatchItem | ItemOutcome] = [
        BatchItem(draft=MemoryDraft(content=f"b{i}", layer="episodic", session_id="s")) for i in range(3)
    ]
    await RememberBatch(remember)(ALICE, None, items)
    assert [j.session_seq for j in queue.jobs[5:]] == [103, 104, 105]


async def test_a_sequence_that_is_down_leaves_the_write_accepted_and_unchained() -> None:
    queue = ListQueue()
    ack = await Remember(queue, FixedClock(), sessions=Counter(down=True))(
        ALICE, None, MemoryDraft(content="event", layer="episodic", session_id="s")
    )
    assert ack.status == "queued"
    assert queue.jobs[0].session_seq is None


def test_the_new_fields_at_their_defaults_leave_a_fingerprint_as_it_was() -> None:
    # a retry after an upgrade must still match its key's first write: the fingerprint the code before
    # session_id/chain gave MemoryDraft(content="x", layer="episodic")
    before = "0fa430464e415223981457985b45711d6a0093934b9048176a43f350c24758cb"
    assert write_fingerprint(MemoryDraft(content="x", layer="episodic"), False) == before
    chained = MemoryDraft(content="x", layer="episodic", session_id="s")
    assert write_fingerprint(chained, False) != before

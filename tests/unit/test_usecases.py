"""Use cases over in-memory fakes of the ports."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import pytest

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Forbidden, Unavailable
from hindsight.domain.memory import Candidate, CandidateMemory, MemoryDraft, Relation, Scope, StoredMemory
from hindsight.domain.ranking import RankingPolicy
from hindsight.usecases.recall import Recall, RecallQuery
from hindsight.usecases.remember import Remember
from hindsight.usecases.store_memories import StoreMemories
from tests.unit.fakes import FixedClock, ListQueue, NullAccessLog, ScriptedStore, memory

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")


async def test_remember_queues_a_job_scoped_to_the_caller() -> None:
    queue = ListQueue()
    ack = await Remember(queue, FixedClock())(ALICE, "planner", MemoryDraft(content="Alex is vegan"))
    assert ack.status == "queued"
    (job,) = queue.jobs
    assert (job.id, job.tenant_id, job.agent_id) == (ack.id, "acme", "planner")
    assert job.draft.content == "Alex is vegan"


async def test_remember_refuses_read_only_keys_and_surfaces_queue_outages() -> None:
    reader = Principal(tenant_id="acme", key_id="k2", read_only=True)
    with pytest.raises(Forbidden):
        await Remember(ListQueue(), FixedClock())(reader, None, MemoryDraft(content="x"))
    with pytest.raises(Unavailable):
        await Remember(ListQueue(fail=True), FixedClock())(ALICE, None, MemoryDraft(content="x"))


async def test_a_read_only_refusal_names_the_tool_and_the_next_step() -> None:
    # trial24 LOW: "this key is read-only" said neither what was refused nor how to get a key that writes
    reader = Principal(tenant_id="acme", key_id="k2", read_only=True)
    with pytest.raises(Forbidden) as refused:
        await Remember(ListQueue(), FixedClock())(reader, None, MemoryDraft(content="x"))
    assert str(refused.value) == (
        "this key is read-only, so memory_write was refused; call it with a key that may write: an API key "
        "minted without --read-only (see `hindsight token create --help`) or a JWT with the write scope"
    )


async def test_recall_asks_the_store_within_scope_and_ranks() -> None:
    strong, weak = memory("strong"), memory("weak")
    store = ScriptedStore(
        [
            Candidate(memory=weak, keyword_rank=5),
            Candidate(memory=strong, vector_rank=1, keyword_rank=1, vector_similarity=0.9),
        ]
    )
    access = NullAccessLog()
    recall = Recall(store, HashEmbedder(16), FixedClock(), access, RankingPolicy(), candidate_pool=50)
    hits = await recall(ALICE, None, RecallQuery(text="q", top_k=200))
    assert [h.memory.content for h in hits] == ["strong", "weak"]
    scope, _, pool = store.asked[0]
    assert scope.tenant_id == "acme"
    assert pool == 200
    assert access.noted == [[strong.id, weak.id]]


async def test_store_memories_embeds_the_batch_once() -> None:
    calls: list[int] = []

    class CountingEmbedder(HashEmbedder):
        async def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return await super().embed_passages(texts)

    from hindsight.domain.memory import WriteJob

    jobs = [
        WriteJob(
            id=__import__("uuid").uuid4(),
            tenant_id="acme",
            agent_id="default",
            submitted_at=FixedClock().now(),
            draft=MemoryDraft(content=f"fact {i}"),
        )
        for i in range(7)
    ]
    store = ScriptedStore()
    results = await StoreMemories(store, CountingEmbedder(16), 0.95)(jobs)
    assert calls == [7]
    assert [r.job_id for r in results] == [j.id for j in jobs]


class _SlimStore(ScriptedStore):
    """Returns candidates carrying only what ranking reads (as the Postgres reader does) and the full
    rows by id; counts what was fetched."""

    def __init__(self, full: list[StoredMemory], candidates: list[Candidate]) -> None:
        super().__init__(candidates)
        self.full = {m.id: m for m in full}
        self.fetched: list[list[UUID]] = []

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]:
        self.fetched.append(list(ids))
        return [self.full[i] for i in ids if i in self.full]


def _slim(m: StoredMemory) -> CandidateMemory:
    return CandidateMemory.model_validate({k: getattr(m, k) for k in CandidateMemory.model_fields})


async def test_recall_ranks_slim_candidates_and_fetches_full_rows_for_the_hits_only() -> None:
    # Given a pool of three candidates carrying only what ranking reads; one was forgotten since
    best, second, third = memory("best"), memory("second"), memory("third")
    best = best.model_copy(update={"metadata": {"kept": True}})
    gone = second.model_copy(update={"status": "forgotten"})
    store = _SlimStore(
        [best, gone, third],
        [
            Candidate(memory=_slim(third), keyword_rank=60),
            Candidate(memory=_slim(best), vector_rank=1, keyword_rank=1, vector_similarity=0.9),
            Candidate(memory=_slim(second), vector_rank=2, vector_similarity=0.8),
        ],
    )
    recall = Recall(
        store, HashEmbedder(16), FixedClock(), NullAccessLog(), RankingPolicy(), candidate_pool=50
    )
    hits = await recall(ALICE, None, RecallQuery(text="q", top_k=2))
    # Then the two best are fetched in one call, returned as full rows; the forgotten one is left out
    assert store.fetched == [[best.id, second.id]]
    assert [h.memory.content for h in hits] == ["best"]
    assert hits[0].memory.metadata == {"kept": True}


class _LinkedStore(_SlimStore):
    """``_SlimStore`` whose memories have relations; records how they were read."""

    def __init__(self, full: list[StoredMemory], candidates: list[Candidate], links: list[Relation]) -> None:
        super().__init__(full, candidates)
        self.links = links
        self.relation_reads: list[set[UUID]] = []
        self.read_with_rows: list[set[UUID]] = []

    def _touching(self, ids: Sequence[UUID]) -> list[Relation]:
        return [r for r in self.links if r.from_id in ids or r.to_id in ids]

    async def relations(self, scope: Scope, ids: Sequence[UUID]) -> list[Relation]:
        self.relation_reads.append(set(ids))
        return self._touching(ids)

    async def get_many_with_relations(
        self, scope: Scope, ids: Sequence[UUID], relation_ids: Sequence[UUID]
    ) -> tuple[list[StoredMemory], list[Relation]]:
        self.read_with_rows.append(set(relation_ids))
        return await self.get_many(scope, ids), self._touching(relation_ids)


async def test_recall_reads_the_hits_rows_and_their_relations_together() -> None:
    # Given two active facts linked `contradicts` and a third memory, candidates with slim rows
    stated, inferred, other = memory("stated"), memory("inferred"), memory("other")
    link = Relation(from_id=inferred.id, to_id=stated.id, kind="contradicts", strength=1.0)
    store = _LinkedStore(
        [stated, inferred, other],
        [
            Candidate(memory=_slim(stated), vector_rank=1, vector_similarity=0.9),
            Candidate(memory=_slim(inferred), vector_rank=2, vector_similarity=0.8),
            Candidate(memory=_slim(other), vector_rank=3, vector_similarity=0.7),
        ],
        [link],
    )
    recall = Recall(
        store, HashEmbedder(16), FixedClock(), NullAccessLog(), RankingPolicy(), candidate_pool=50
    )
    hits = await recall(ALICE, None, RecallQuery(text="q", top_k=3))
    # Then the rows and the relations of the (semantic) hits came in one read, no relations read after
    # it, and both facts are flagged with each other beside them
    assert set(store.fetched[0]) == {stated.id, inferred.id, other.id}
    assert store.read_with_rows == [{stated.id, inferred.id, other.id}]
    assert store.relation_reads == []
    flagged = {
        h.memory.content: [r.memory.content for r in h.related]
        for h in hits
        if "possible_conflict" in h.flags
    }
    assert flagged == {"stated": ["inferred"], "inferred": ["stated"]}

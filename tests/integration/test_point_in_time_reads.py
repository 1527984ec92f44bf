"""A point-in-time search reads the full rows of the hits it returns, not of its whole candidate pool
(issue 15): the store's filter already kept what the point sees, by the values of then, so only a
candidate changed since ``known_at`` is read in full and rewound before ranking. Reading and validating
the ~200 rows of the pool made a ``valid_at`` search ~1.4x the default one at 100k memories."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest

from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.bootstrap import build_container
from hindsight.domain.memory import MemoryDraft, Scope, StoredMemory, WriteJob
from hindsight.factories import ranking_policy
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import Recall, RecallQuery, resolve
from tests.support import keyed_jobs

pytestmark = pytest.mark.integration

FACTS = [f"Garden project note {i}: the tomatoes in bed {i} need water" for i in range(30)]


class _CountingReader(PostgresMemoryReader):
    """The Postgres reader, counting the ids whose full rows each read asks for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_rows: list[int] = []

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]:
        self.full_rows.append(len(ids))
        return await super().get_many(scope, ids)

    async def get_many_with_relations(
        self, scope: Scope, ids: Sequence[UUID], relation_ids: Sequence[UUID]
    ) -> Any:
        self.full_rows.append(len(ids))
        return await super().get_many_with_relations(scope, ids, relation_ids)


def test_a_point_in_time_search_reads_the_full_rows_of_its_hits_only(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(keyed_jobs(tenant, FACTS, "semantic"))
            known_at = datetime.now(UTC)
            # after known_at, note 0 is superseded by a new value on its key: its status and validity
            # changed since, so a search at known_at rewinds it (active then) before ranking
            replacement = WriteJob(
                id=uuid.uuid4(),
                tenant_id=tenant,
                agent_id="default",
                submitted_at=datetime.now(UTC),
                draft=MemoryDraft(
                    content="Garden project note 0: bed 0 was dug up", layer="semantic", key="note.0"
                ),
            )
            await container.store_memories([replacement])
            scope = Scope(tenant_id=tenant, agent_id="default")
            reader = _CountingReader(container.pool)
            recall = Recall(
                reader,
                container.embedder,
                container.clock,
                container.access_log,
                ranking_policy(settings),
                settings.candidate_pool,
            )
            now = datetime.now(UTC)
            for times, changed in (({"known_at": known_at}, 1), ({"valid_at": now}, 0)):
                reader.full_rows.clear()
                query = RecallQuery(text="garden project tomatoes water", top_k=3, **times)
                hits = await recall.search(scope, resolve(query, now), record_access=False)
                assert len(hits) == 3
                # the pool held the 30 notes the point sees; the rows read: the rewound note's, then
                # the hits'
                assert sum(reader.full_rows) <= changed + 3, (times, reader.full_rows)

            # what was held at known_at: note 0 active, as it stood then (today superseded)
            query = RecallQuery(
                text="Garden project note 0: the tomatoes in bed 0", top_k=40, known_at=known_at
            )
            held = {
                h.memory.content: h
                for h in await recall.search(scope, resolve(query, now), record_access=False)
            }
            assert sorted(held) == sorted(FACTS)
            then = held[FACTS[0]].memory
            assert (then.status, then.status_now) == ("active", "superseded")
        finally:
            await container.aclose()

    asyncio.run(scenario())

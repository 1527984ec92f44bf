"""In-memory fakes of our own ports, for unit tests of use cases."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from uuid import UUID

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import (
    Candidate,
    PreparedWrite,
    Relation,
    Scope,
    SearchRequest,
    StoredMemory,
    StoreResult,
    WriteJob,
)
from hindsight.ports import Vector


class FixedClock:
    def __init__(self, now: datetime | None = None) -> None:
        self._now = now or datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now


class ListQueue:
    """The JobQueue port in a list; ``fail``: every job refused; ``refuse``: the positions (within each
    enqueue_many call) the queue refuses, as SQS reports a batch's failed entries."""

    def __init__(self, fail: bool = False, refuse: frozenset[int] = frozenset()) -> None:
        self.jobs: list[WriteJob] = []
        self.fail = fail
        self.refuse = refuse
        self.requests = 0

    async def enqueue(self, job: WriteJob) -> None:
        self.requests += 1
        if self.fail:
            raise Unavailable("queue down")
        self.jobs.append(job)

    async def enqueue_many(self, jobs: Sequence[WriteJob]) -> list[Unavailable | None]:
        self.requests += 1
        errors: list[Unavailable | None] = []
        for index, job in enumerate(jobs):
            if self.fail or index in self.refuse:
                errors.append(Unavailable("the write queue refused this item"))
            else:
                self.jobs.append(job)
                errors.append(None)
        return errors


class NullAccessLog:
    def __init__(self) -> None:
        self.noted: list[list[UUID]] = []

    def note(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None:
        self.noted.append(list(ids))


class ScriptedStore:
    """Returns fixed candidates; records what it was asked."""

    def __init__(self, candidates: list[Candidate] | None = None) -> None:
        self.candidates = candidates or []
        self.asked: list[tuple[Scope, SearchRequest, int]] = []
        self.embeddings: list[Vector] = []
        """The query embedding each search asked for."""
        self.stored: list[WriteJob] = []
        self.turns: dict[tuple[str, str, tuple[str, int, int]], str] = {}
        """(tenant, agent, (conversation, session, turn)) → content, for turn_contents."""

    async def search_candidates(
        self,
        scope: Scope,
        request: SearchRequest,
        embed: Callable[[], Awaitable[Vector]],
        pool: int,
        prepare: Callable[[Sequence[str]], None] | None = None,
    ) -> list[Candidate]:
        self.asked.append((scope, request, pool))
        self.embeddings.append(await embed())  # as the port says: asked once, its errors raised
        if prepare is not None and self.candidates:  # as the store does: the texts of what it returns
            prepare([c.memory.content for c in self.candidates])
        return self.candidates

    async def store(self, prepared: Sequence[PreparedWrite], dedup_cosine: float) -> list[StoreResult]:
        self.stored.extend(p.job for p in prepared)
        return [
            StoreResult(job_id=p.job.id, outcome="skipped" if p.skip else "stored", memory_id=p.job.id)
            for p in prepared
        ]

    async def write_results(
        self, tenant_id: str, job_ids: Sequence[UUID], agent_id: str | None = None
    ) -> dict[UUID, StoreResult]:
        return {}

    async def relations(self, scope: Scope, ids: Sequence[UUID]) -> list[Relation]:
        return []

    async def successors(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, UUID]:
        links = await self.relations(scope, ids)
        return {r.to_id: r.from_id for r in links if r.kind == "supersedes" and r.to_id in ids}

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]:
        return []

    async def get_many_with_relations(
        self, scope: Scope, ids: Sequence[UUID], relation_ids: Sequence[UUID]
    ) -> tuple[list[StoredMemory], list[Relation]]:
        return await self.get_many(scope, ids), await self.relations(
            scope, relation_ids
        ) if relation_ids else []

    async def turn_contents(
        self, tenant_id: str, agent_id: str, positions: Sequence[tuple[str, int, int]]
    ) -> dict[tuple[str, int, int], str]:
        return {
            p: self.turns[(tenant_id, agent_id, p)]
            for p in positions
            if (tenant_id, agent_id, p) in self.turns
        }

    async def stored_vectors(self, jobs: Sequence[object]) -> dict[UUID, object]:
        return {}


def memory(content: str = "c", importance: float = 0.5) -> StoredMemory:
    import uuid

    return StoredMemory(
        id=uuid.uuid4(),
        tenant_id="t",
        agent_id="default",
        layer="semantic",
        key=None,
        query=None,
        content=content,
        importance=importance,
        access_count=0,
        last_accessed_at=None,
        created_at=datetime.now(UTC),
        occurred_at=None,
        metadata={},
        status="active",
    )

"""Inspect one agent's memory (the CLI's ``inspect`` and the inspector page): counts per layer and
status, recent memories and writes, relations and causal links, working-memory sessions with their TTLs,
queue and dead-letter depths, and the retrieval trace of a query. Looking records no access."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import Relation, Scope, StoredMemory
from hindsight.domain.working_memory import WorkingMemoryItem, most_important_first
from hindsight.ports import Clock, InspectionStore, MemoryReader, QueueStats, SessionLister
from hindsight.usecases.recall import Recall, RecallQuery, RetrievalTrace, resolve


class SessionOverview(BaseModel):
    """One working-memory session: its items (core first, then most important) and its TTL."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    expires_in_s: float | None
    items: list[WorkingMemoryItem]


class AgentOverview(BaseModel):
    """Everything the inspector shows about one agent (the retrieval trace comes separately)."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    agent_id: str
    at: datetime
    agents: list[tuple[str, int]] = Field(default_factory=list)
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    """layer → status → memories."""
    memories: list[StoredMemory] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    """Relations among the listed memories, plus each causal_parent link as ``caused_by``."""
    recent_writes: list[dict[str, object]] = Field(default_factory=list)
    sessions: list[SessionOverview] = Field(default_factory=list)
    sessions_error: str | None = None
    queues: list[dict[str, object]] = Field(default_factory=list)
    queues_error: str | None = None

    @property
    def total(self) -> int:
        return sum(n for statuses in self.counts.values() for n in statuses.values())


class InspectAgent:
    """The inspector's read side. ``sessions`` and ``queues`` are optional: without Redis or a queue
    the overview says so instead of failing."""

    def __init__(
        self,
        store: InspectionStore,
        reader: MemoryReader,
        recall: Recall,
        clock: Clock,
        sessions: SessionLister | None = None,
        queues: QueueStats | None = None,
    ) -> None:
        self._store = store
        self._reader = reader
        self._recall = recall
        self._clock = clock
        self._sessions = sessions
        self._queues = queues

    async def overview(
        self, scope: Scope, *, memory_limit: int = 200, write_limit: int = 20, with_memories: bool = True
    ) -> AgentOverview:
        counts: dict[str, dict[str, int]] = {}
        for (layer, status), n in sorted((await self._store.counts(scope)).items()):
            counts.setdefault(layer, {})[status] = n
        memories = await self._store.memories(scope, memory_limit) if with_memories else []
        relations: list[Relation] = []
        if memories:
            ids = {m.id for m in memories}
            relations = [
                r
                for r in await self._reader.relations(scope, list(ids))
                if r.from_id in ids and r.to_id in ids
            ]
            known = {(r.from_id, r.to_id, r.kind) for r in relations}
            for m in memories:
                if m.causal_parent in ids and (m.id, m.causal_parent, "caused_by") not in known:
                    assert m.causal_parent is not None
                    relations.append(
                        Relation(from_id=m.id, to_id=m.causal_parent, kind="caused_by", strength=1.0)
                    )
        sessions, sessions_error = await self._sessions_of(scope)
        queues, queues_error = await self._queue_depths()
        return AgentOverview(
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            at=self._clock.now(),
            agents=await self._store.agents(scope.tenant_id),
            counts=counts,
            memories=memories,
            relations=relations,
            recent_writes=await self._store.recent_writes(scope, write_limit),
            sessions=sessions,
            sessions_error=sessions_error,
            queues=queues,
            queues_error=queues_error,
        )

    async def _sessions_of(self, scope: Scope) -> tuple[list[SessionOverview], str | None]:
        if self._sessions is None:
            return [], "working memory is not configured in this process"
        try:
            found = await self._sessions.sessions(scope.tenant_id, scope.agent_id, limit=50)
        except Unavailable as exc:
            return [], str(exc)
        now = self._clock.now()
        return [
            SessionOverview(
                session_id=session_id,
                expires_in_s=state.expires_in_s,
                items=most_important_first(state.items.values(), now),
            )
            for session_id, state in found
        ], None

    async def _queue_depths(self) -> tuple[list[dict[str, object]], str | None]:
        if self._queues is None:
            return [], "no queue configured in this process"
        try:
            return await self._queues.depths(), None
        except Unavailable as exc:
            return [], str(exc)

    async def trace(self, scope: Scope, query: RecallQuery) -> RetrievalTrace:
        """Every candidate of ``query`` with its per-signal ranks and scores and its fused rank.
        Raises InvalidInput (a time phrase it cannot read)."""
        request = resolve(query, query.as_of or self._clock.now())
        return await self._recall.trace(scope, request)

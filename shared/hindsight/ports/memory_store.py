"""Ports of long-term memory: reading (search, by id, chains), counting recalls, the worker's writes and
the edits an agent asks for by id."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol
from uuid import UUID

from hindsight.domain.forgetting import ForgottenAlong
from hindsight.domain.memory import (
    Candidate,
    HistoryEntry,
    MemoryChanges,
    MemoryStatus,
    OpenConflict,
    PreparedWrite,
    Relation,
    Scope,
    SearchRequest,
    StoredMemory,
    StoreResult,
    WriteJob,
)
from hindsight.ports.embedding import Vector

ChainDirection = Literal["causes", "effects", "both"]


@dataclass(frozen=True)
class ChainLink:
    """A memory in a causal chain: ``step`` < 0 for causes, 0 for the memory asked, > 0 for effects."""

    step: int
    memory: StoredMemory


@dataclass(frozen=True)
class EditedMemory:
    """A memory after a change by id, and the version the change replaced (equal to ``memory.version``
    when nothing changed); ``superseded``: the memories the change superseded (an update that moved the
    memory onto a key other active facts held, or a restore of a fact on such a key, or a ``supersedes``
    link); ``relation``: the relation a link made, as stored (with its ``created_at``); ``note``: below."""

    memory: StoredMemory
    replaced_version: int
    superseded: tuple[UUID, ...] = ()
    relation: Relation | None = None
    note: str | None = None
    """What the caller may not expect of the change: a restore that left the memory a past value of its key,
    or one refused because its value already holds again after a value given an end."""


@dataclass(frozen=True)
class ForgetOutcome:
    """A forget by id: the memory after a soft forget (None after a hard delete), the version it replaced,
    the derived memories it took along (``domain.forgetting``, in the order found) and the members made
    active again because the summary that stood for them went along (ids)."""

    memory: StoredMemory | None
    replaced_version: int
    along: tuple[ForgottenAlong, ...] = ()
    restored: tuple[UUID, ...] = ()


class MemoryReader(Protocol):
    """The read side of long-term memory. Every method is scoped to one tenant and agent."""

    async def search_candidates(
        self,
        scope: Scope,
        request: SearchRequest,
        embed: Callable[[], Awaitable[Vector]],
        pool: int,
        prepare: Callable[[Sequence[str]], None] | None = None,
    ) -> Sequence[Candidate]:
        """Up to ``pool`` candidates per signal (vector, keyword, entity), each with its ranks: a list, or
        a ``pool_columns.CandidatePool`` (the columns ranking reads, each model built when read).

        ``embed`` computes the query's embedding (``Embedder.embed_query`` of ``request.text``): the
        store calls it once, as early as it can, and may run what needs only the text (the full-text
        signal) meanwhile, so the model's time and the store's overlap. Its errors, and the store's, are
        raised as they are; none leaves work running behind. ``prepare``, when given, is called with the
        texts (``content``) of the candidates each statement returns, as they arrive — possibly while
        other statements or the model still run — so the caller's work on the texts alone overlaps them
        (ranking's content features, ``ranking_features.PoolTexts``); every candidate's text is among
        those given. It must not raise."""
        ...

    async def latest(self, scope: Scope, request: SearchRequest, limit: int) -> list[StoredMemory]:
        """Up to ``limit`` memories that pass ``request``'s filters (status, layer, key, tags, entities,
        time, importance, task type), latest first by when they happened; ``request.text`` is ignored."""
        ...

    async def keys_under(
        self, scope: Scope, key: str, statuses: Sequence[MemoryStatus], limit: int
    ) -> tuple[list[str], int]:
        """The keys below ``key`` (those starting with ``key`` and a dot, stored form) that memories the
        scope may read hold in one of ``statuses``: up to ``limit`` of them in order, and how many in all."""
        ...

    async def get(self, scope: Scope, memory_id: UUID) -> StoredMemory | None: ...

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]: ...

    async def relations(self, scope: Scope, ids: Sequence[UUID]) -> list[Relation]: ...

    async def successors(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, UUID]:
        """The memory that superseded each of ``ids`` (``superseded_by``), where a ``supersedes`` link to it
        from a memory the scope may read exists: its successor in valid time (of those linked, the one
        that began to hold where it ended; else the newest link). Ids without one are left out."""
        ...

    async def replaced_on_key(
        self, scope: Scope, ids: Sequence[UUID], valid_at: datetime, known_at: datetime | None
    ) -> set[UUID]:
        """Of ``ids`` (archived keyed facts: a write settles only with a key's live values, so they keep
        the open period they had when archived), those another value of their key that may replace them
        (the source rules) began after and by ``valid_at`` — and still holds then; under ``known_at``, one
        stored by then: at ``valid_at`` that value held the key, not them."""
        ...

    async def get_many_with_relations(
        self, scope: Scope, ids: Sequence[UUID], relation_ids: Sequence[UUID]
    ) -> tuple[list[StoredMemory], list[Relation]]:
        """``get_many(ids)`` and ``relations(relation_ids)`` (empty: none asked), in one round trip."""
        ...

    async def history(self, scope: Scope, memory_id: UUID) -> list[HistoryEntry]: ...

    async def history_after(
        self, scope: Scope, ids: Sequence[UUID], at: datetime
    ) -> dict[UUID, list[HistoryEntry]]:
        """Each readable memory's changes after ``at``, oldest first; ids without any left out."""
        ...

    async def causal_chain(
        self, scope: Scope, memory_id: UUID, depth: int, direction: ChainDirection
    ) -> list[ChainLink]: ...

    async def causal_chains(
        self, scope: Scope, memory_ids: Sequence[UUID], depth: int, direction: ChainDirection
    ) -> dict[UUID, list[ChainLink]]:
        """``causal_chain`` of each id at once (one query for a whole result list); ids whose memory the
        scope cannot read are left out."""
        ...

    async def conversation_turns(
        self, scope: Scope, around: Sequence[StoredMemory], window: int
    ) -> list[StoredMemory]:
        """The turns within ``window`` positions of each of ``around`` (same conversation and session),
        that the scope may read and that are not forgotten, in any order; ``around`` themselves may be
        among them."""
        ...


class AccessLog(Protocol):
    """Where recalls are counted (access_count, last_accessed_at) without slowing search down."""

    def note(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None:
        """Record that ``ids`` were recalled at ``at``; may be deferred or batched."""
        ...


@dataclass(frozen=True)
class StoredVectors:
    """The vectors the write path computed for a stored memory: its own (chunk 0's) and its later chunks'
    (text, vector), in order."""

    memory_id: UUID
    embedding: Vector
    chunks: list[tuple[str, Vector]]


class MemoryWriter(Protocol):
    """The worker's side: turns write jobs into rows, exactly once per job id."""

    async def store(self, prepared: Sequence[PreparedWrite], dedup_cosine: float) -> list[StoreResult]:
        """Store, merge into a near-duplicate, or supersede an older fact on the same key."""
        ...

    async def write_results(
        self, tenant_id: str, job_ids: Sequence[UUID], agent_id: str | None = None
    ) -> dict[UUID, StoreResult]:
        """Outcomes recorded for these jobs (missing ids are still queued or unknown); only the jobs of
        ``agent_id`` when given."""
        ...

    async def settle_conflict(
        self, tenant_id: str, agent_id: str, conflict: OpenConflict, contradiction: bool
    ) -> str:
        """Settle a possible conflict the judge has answered: ``contradiction`` True applies the
        source rules in valid-time order (the fact that began to hold later supersedes the other, or
        both are kept flagged; ``domain.contradiction.order_contradiction``); False removes the
        ``contradicts`` link. Returns what was done ("superseded", "kept_both", "unlinked", or "gone"
        when either memory changed)."""
        ...

    async def turn_contents(
        self, tenant_id: str, agent_id: str, positions: Sequence[tuple[str, int, int]]
    ) -> dict[tuple[str, int, int], str]:
        """The content of the active turns stored at these (conversation, session, turn) positions of the
        agent; positions with nothing stored are left out."""
        ...

    async def stored_vectors(self, jobs: Sequence[WriteJob]) -> dict[UUID, StoredVectors]:
        """For jobs whose exact text (content, context, recall hint) the write path already embedded for
        a memory of the same tenant and agent, that memory's vectors (job id → vectors): the vectors are a
        function of the texts, so an exact repeat needs no model time. Jobs without one are left out."""
        ...


class MemoryEditor(Protocol):
    """Synchronous changes an agent asks for by id. Each records a history entry with its reason. Each
    takes ``expected_version``: when given and the memory (for a link: its from end) is at another
    version, nothing changes and ``VersionConflict`` is raised — checked and applied atomically. None
    (not found, or not the scope's own) when the memory is not the scope's."""

    async def update(
        self,
        scope: Scope,
        memory_id: UUID,
        changes: MemoryChanges,
        embedding: Vector | None,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> EditedMemory | None: ...

    async def set_status(
        self,
        scope: Scope,
        memory_id: UUID,
        status: MemoryStatus,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> EditedMemory | None:
        """Set the status; a restore (``active``) of a semantic memory with a key supersedes the agent's
        other active facts on that key (``superseded``) and removes the end of validity its own supersede
        gave it; one restored from the archive is a past value of the values written meanwhile and checked
        for contradictions as a write. None when it is not the scope's own."""
        ...

    async def forget(
        self,
        scope: Scope,
        memory_id: UUID,
        hard: bool,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> ForgetOutcome | None:
        """Forget a memory and what was derived from it (``domain.forgetting``), in one transaction. Soft:
        status ``forgotten``, a history row each. Hard: the rows, their relations and their history go.
        None when it is not the scope's own."""
        ...

    async def link(
        self, scope: Scope, relation: Relation, expected_version: int | None = None, actor: str = "api"
    ) -> EditedMemory | None:
        """The from memory after the link, with the relation as stored; None when either end is not a
        memory of the scope. A ``supersedes`` link to an active memory supersedes it (``superseded``;
        ``domain.memory.check_supersedes_link``, which raises InvalidInput when the from memory is not
        active). Raises VersionConflict."""
        ...

    async def adjust_importance(
        self, scope: Scope, memory_id: UUID, delta: float, reason: str, actor: str
    ) -> StoredMemory | None: ...

    async def record_access(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None: ...

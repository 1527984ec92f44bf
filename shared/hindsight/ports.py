"""Ports: the Protocols use cases depend on. Adapters implement them; tests may fake them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol
from uuid import UUID

from hindsight.domain.auth import ApiKeyRecord, Principal
from hindsight.domain.maintenance import (
    ConsolidationPlan,
    DecayCounts,
    DecayPolicy,
    Episode,
    MaintenanceState,
    PatternPlan,
    SessionSweep,
)
from hindsight.domain.memory import (
    Candidate,
    HistoryEntry,
    MemoryChanges,
    MemoryStatus,
    PreparedWrite,
    Relation,
    Scope,
    SearchRequest,
    StoredMemory,
    StoreResult,
    WriteJob,
)
from hindsight.domain.reflection import EpisodeRecord, ReflectJob, TaskReport
from hindsight.domain.working_memory import (
    SessionChange,
    SessionScope,
    SessionState,
    SessionUpdate,
    WorkingMemoryItem,
)

Vector = list[float]


class Clock(Protocol):
    """Current time (UTC, timezone-aware)."""

    def now(self) -> datetime: ...


class Embedder(Protocol):
    """Turns text into unit-length vectors of ``dim`` floats.

    Retrieval models embed queries and passages differently (e5 uses "query: "/"passage: " prefixes),
    so the two are separate calls.
    """

    @property
    def dim(self) -> int: ...

    @property
    def model_name(self) -> str: ...

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order; one model call for the whole batch."""
        ...

    async def embed_query(self, text: str) -> Vector: ...


class JobQueue(Protocol):
    """The work queues (SQS in AWS, the emulator locally): write jobs and reflection jobs each go to
    their own queue, consumed by their own worker."""

    async def enqueue(self, job: WriteJob | ReflectJob) -> None:
        """Send one job. Raises Unavailable when the queue cannot take it."""
        ...


ChainDirection = Literal["causes", "effects", "both"]


@dataclass(frozen=True)
class ChainLink:
    """A memory in a causal chain: ``step`` < 0 for causes, 0 for the memory asked, > 0 for effects."""

    step: int
    memory: StoredMemory


class MemoryReader(Protocol):
    """The read side of long-term memory. Every method is scoped to one tenant and agent."""

    async def search_candidates(
        self, scope: Scope, request: SearchRequest, embedding: Vector, pool: int
    ) -> list[Candidate]:
        """Up to ``pool`` candidates per signal (vector, keyword, entity), each with its ranks."""
        ...

    async def get(self, scope: Scope, memory_id: UUID) -> StoredMemory | None: ...

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]: ...

    async def relations(self, scope: Scope, ids: Sequence[UUID]) -> list[Relation]: ...

    async def history(self, scope: Scope, memory_id: UUID) -> list[HistoryEntry]: ...

    async def causal_chain(
        self, scope: Scope, memory_id: UUID, depth: int, direction: ChainDirection
    ) -> list[ChainLink]: ...


class OperationLog(Protocol):
    """Which accepted jobs are still queued (best-effort; the queue itself is the source of truth)."""

    async def record_queued(self, job: WriteJob | ReflectJob) -> None:
        """Never raises: a job already on the queue must not be refused for bookkeeping."""
        ...

    async def queued(self, tenant_id: str, ids: Sequence[UUID], agent_id: str | None = None) -> set[UUID]:
        """The ids among ``ids`` queued for the tenant (and, when given, written by ``agent_id``).
        Raises Unavailable when the log cannot be read."""
        ...

    async def older_than(self, seconds: float, limit: int = 500) -> list[tuple[str, UUID, str, int]]:
        """(tenant, id, job JSON, attempts) queued more than ``seconds`` ago."""
        ...

    async def requeued(self, tenant_id: str, job_id: UUID) -> None: ...

    async def done(self, tenant_id: str, job_ids: Sequence[UUID]) -> None: ...


class AccessLog(Protocol):
    """Where recalls are counted (access_count, last_accessed_at) without slowing search down."""

    def note(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None:
        """Record that ``ids`` were recalled at ``at``; may be deferred or batched."""
        ...


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


class MemoryEditor(Protocol):
    """Synchronous changes an agent asks for by id. Each records a history entry with its reason."""

    async def update(
        self,
        scope: Scope,
        memory_id: UUID,
        changes: MemoryChanges,
        embedding: Vector | None,
        reason: str | None,
        actor: str,
    ) -> StoredMemory | None: ...

    async def set_status(
        self, scope: Scope, memory_id: UUID, status: MemoryStatus, reason: str | None, actor: str
    ) -> StoredMemory | None: ...

    async def delete(self, scope: Scope, memory_id: UUID) -> bool:
        """Hard delete: the row, its relations and its history go."""
        ...

    async def link(self, scope: Scope, relation: Relation) -> bool:
        """False when either end is not a memory of the scope."""
        ...

    async def adjust_importance(
        self, scope: Scope, memory_id: UUID, delta: float, reason: str, actor: str
    ) -> StoredMemory | None: ...

    async def record_access(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None: ...


class ApiKeyStore(Protocol):
    """Where API keys live."""

    async def find(self, key_id: str) -> ApiKeyRecord | None: ...

    async def create(self, record: ApiKeyRecord) -> None: ...

    async def revoke(self, key_id: str, at: datetime) -> bool: ...

    async def list(self, tenant_id: str | None) -> list[ApiKeyRecord]: ...


class BearerTokenVerifier(Protocol):
    """Verifies bearer tokens that are not Hindsight API keys (JWTs from an OAuth issuer)."""

    async def verify(self, token: str) -> Principal | None:
        """The caller a valid token names; None for any invalid one (expired, wrong audience or issuer,
        unknown key, bad signature, no tenant). Never raises for a bad token."""
        ...


class RateLimiter(Protocol):
    """Counts requests per caller in a sliding window shared by every process (Redis)."""

    async def hit(self, bucket: str, limit: int, window_s: int) -> float | None:
        """Count one request in ``bucket``; None when it is within ``limit`` per ``window_s`` seconds,
        else the seconds until one is allowed again. Raises Unavailable when the counter store is down."""
        ...


class TokenCounter(Protocol):
    """Counts tokens the way an LLM's tokenizer does (not characters). Works offline."""

    @property
    def encoding_name(self) -> str:
        """The tokenizer's name, e.g. ``cl100k_base``."""
        ...

    async def count(self, text: str) -> int:
        """Tokens in ``text`` (special-token strings count as ordinary text)."""
        ...


SessionDecision = Callable[[Mapping[str, WorkingMemoryItem]], SessionChange]
"""Given a session's items by key, the change to apply. Must be pure: it may run more than once when a
concurrent update wins the race, and may raise a domain error to abort without changing anything."""


class WorkingMemoryStore(Protocol):
    """Per-session working memory (Redis). Every method is scoped to one tenant, agent and session.

    Every method raises Unavailable when the store cannot be reached; callers may retry.
    """

    async def read(self, scope: SessionScope) -> SessionState:
        """The session's items and remaining TTL, with no side effect (no access is recorded)."""
        ...

    async def apply(self, scope: SessionScope, decide: SessionDecision, ttl_s: int) -> SessionUpdate:
        """Atomically read the session, ``decide`` the change and apply it; return the change applied
        and the session after it.

        No concurrent update can interleave (two writes cannot together overshoot a budget). The
        session's TTL restarts at ``ttl_s`` seconds when the change asks for it, else it keeps running.
        Domain errors raised by ``decide`` propagate and nothing is changed.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class Reflector(Protocol):
    """Turns a finished task's report into its one episodic record (the spec's post-task retrospective).

    Implementations: the embedded rules (deterministic, offline) and an OpenAI-compatible chat model.
    """

    async def reflect(self, report: TaskReport) -> EpisodeRecord:
        """The episode for ``report``. Raises ReflectionFailed when no valid record can be produced."""
        ...


class WriteJudge(Protocol):
    """Decides whether a text is worth remembering; asked only when the write rules are unsure."""

    async def judge(self, text: str) -> bool:
        """True to remember ``text``. Raises JudgeFailed when no usable answer can be had."""
        ...


class MaintenanceStore(Protocol):
    """Scheduled maintenance's storage (hindsight.domain.maintenance has the rules). Work is done one
    (tenant, agent) scope at a time, each change in its own transaction with history rows (actor
    ``maintenance``); a cycle's resume point is kept under a lease so runs can stop and resume."""

    async def acquire(self, name: str, owner: str, lease: timedelta) -> MaintenanceState | None:
        """Take cycle ``name``'s lease for ``lease``; its saved state (None: another owner holds it)."""
        ...

    async def save(self, name: str, owner: str, state: MaintenanceState, lease: timedelta) -> bool:
        """Persist the resume point and extend the lease; False when ``owner`` lost the lease."""
        ...

    async def release(self, name: str, owner: str) -> None: ...

    async def scopes(self, after: Scope | None, limit: int, tenant_id: str | None = None) -> list[Scope]:
        """Scopes with memories in (tenant_id, agent_id) order, strictly after ``after``."""
        ...

    async def episodes_changed_since(
        self, scope: Scope, since: datetime, statuses: Sequence[MemoryStatus]
    ) -> bool:
        """Whether an episodic memory in ``statuses`` was created or changed at or after ``since``."""
        ...

    async def decay(self, scope: Scope, policy: DecayPolicy, now: datetime, limit: int) -> DecayCounts:
        """Apply up to ``limit`` due decay steps, archiving what falls under the cold threshold."""
        ...

    async def consolidation_candidates(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active episodic non-summary memories with event time ≥ ``since``, with embeddings."""
        ...

    async def consolidate(self, scope: Scope, plan: ConsolidationPlan, now: datetime) -> bool:
        """Write the summary, ``part_of`` links and archive the members; False if nothing was written."""
        ...

    async def pattern_evidence(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active and archived episodic non-summary memories with event time ≥ ``since``."""
        ...

    async def statuses(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, MemoryStatus]: ...

    async def create_pattern(self, scope: Scope, plan: PatternPlan, embedding: Vector, now: datetime) -> bool:
        """Insert the inferred semantic memory and its ``related`` evidence links; False if it exists."""
        ...

    async def extend_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> int:
        """Link new evidence to the active inferred memory; returns the links added."""
        ...


class WorkingMemorySweeper(Protocol):
    """The maintenance side of working memory: repair sessions left without a TTL."""

    async def sweep_sessions(
        self, cursor: int, count: int, ttl_s: int, tenant_id: str | None
    ) -> SessionSweep:
        """One SCAN page of session keys from ``cursor`` (0 starts over; ``count`` is the SCAN hint),
        only ``tenant_id``'s when given; sessions without a TTL get ``ttl_s`` seconds. Raises Unavailable."""
        ...


class StuckWorkSweeper(Protocol):
    """Finds accepted work that never completed (operation-status tracking) and retries it."""

    async def sweep(self, older_than: timedelta) -> int:
        """Re-enqueue jobs queued longer than ``older_than`` and never processed; returns how many."""
        ...


# ---- operator experience: metrics, inspection, export/import, re-embedding, queue depth ------------


class Metrics(Protocol):
    """Counters and timings (CloudWatch EMF through Powertools in Lambda, in memory locally).

    Names are CamelCase metric names (``Searches``, ``DedupMerges``); never raises.
    """

    def count(self, name: str, value: float = 1.0) -> None: ...

    def timing(self, name: str, ms: float) -> None: ...


class InspectionStore(Protocol):
    """Read-only views of one tenant's memory for operators (the CLI's ``inspect``, the inspector page).

    Nothing here records an access: looking at a memory is not recalling it."""

    async def agents(self, tenant_id: str) -> list[tuple[str, int]]:
        """(agent_id, memories) of the tenant, by agent id."""
        ...

    async def counts(self, scope: Scope) -> dict[tuple[str, str], int]:
        """Memories per (layer, status)."""
        ...

    async def memories(self, scope: Scope, limit: int) -> list[StoredMemory]:
        """The scope's memories, most recently changed first (any status)."""
        ...

    async def recent_writes(self, scope: Scope, limit: int) -> list[dict[str, object]]:
        """Latest processed write jobs of the scope: job_id, outcome, memory_id, reason, recorded_at."""
        ...


class QueueStats(Protocol):
    """Approximate depths of the work queues and their dead-letter queues."""

    async def depths(self) -> list[dict[str, object]]:
        """One entry per configured queue: name, visible, in_flight, delayed, dlq_name, dlq_visible
        (None where unknown). Raises Unavailable when the queue service cannot be reached."""
        ...


class SessionLister(Protocol):
    """Lists an agent's working-memory sessions (operators only; agents address sessions by id)."""

    async def sessions(self, tenant_id: str, agent_id: str, limit: int) -> list[tuple[str, SessionState]]:
        """(session_id, state) of the agent's live sessions. Raises Unavailable."""
        ...


class MemoryArchive(Protocol):
    """Bulk export and import of a tenant's memory, as plain JSON-ready records (every column).

    Record kinds: ``memory`` (a row of memories; ``embedding`` when asked), ``chunk``, ``relation``,
    ``history``, ``write_result``, ``pending_link``."""

    def export_records(
        self, tenant_id: str, agent_id: str | None, with_embeddings: bool
    ) -> AsyncIterator[dict[str, Any]]:
        """Every record of the tenant (or of one agent), memories first, then what refers to them."""
        ...

    async def import_records(
        self, tenant_id: str, records: Sequence[dict[str, Any]]
    ) -> tuple[dict[str, int], set[str]]:
        """Insert records (already moved to ``tenant_id`` and carrying embeddings); rows that already
        exist in the tenant are skipped. Returns counts per kind (and ``skipped``) and the ids of the
        memories inserted now.

        Raises InvalidInput when an id already belongs to another tenant."""
        ...

    async def existing(self, tenant_id: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are memories of the tenant already."""
        ...

    async def link_causal_parents(self, tenant_id: str, links: Sequence[tuple[UUID, UUID]]) -> int:
        """Set causal_parent (child, parent) once both rows exist; returns how many were set."""
        ...


@dataclass(frozen=True)
class PendingEmbedding:
    """A row still waiting for its vector under the new model: a memory (chunk_no 0) or a later chunk.

    ``version`` is the row version it was read at; a row changed since is not filled (it is read again)."""

    memory_id: UUID
    chunk_no: int
    version: str
    content: str
    query: str | None = None
    context: str | None = None


@dataclass(frozen=True)
class EmbeddingState:
    """The embedding model and dimension in force, and a re-embedding in progress (target, rows left)."""

    model: str | None
    dim: int
    target_model: str | None = None
    target_dim: int | None = None
    remaining: int = 0
    index_ready: bool = False


class EmbeddingSwitch(Protocol):
    """Inside the switch transaction: writers wait, readers go on, until ``swap`` commits."""

    async def pending(self, limit: int) -> list[PendingEmbedding]: ...

    async def fill(self, rows: Sequence[tuple[PendingEmbedding, Vector]]) -> int: ...

    async def swap(self, model: str, dim: int) -> None:
        """Make the new vectors the ones every query uses, and record the model and dimension."""
        ...


class EmbeddingMigrationStore(Protocol):
    """Re-embedding the store under another model or dimension while it keeps serving (Postgres:
    a shadow ``embedding_next`` column beside ``embedding``, swapped in one transaction)."""

    async def state(self) -> EmbeddingState: ...

    async def begin(self, model: str, dim: int) -> None:
        """Add the shadow column for ``dim`` (idempotent for the same target).

        Raises InvalidInput when another target is in progress."""
        ...

    async def pending(self, after: tuple[UUID, int] | None, limit: int) -> list[PendingEmbedding]:
        """Rows without a new vector, in (memory_id, chunk_no) order after ``after``."""
        ...

    async def fill(self, rows: Sequence[tuple[PendingEmbedding, Vector]]) -> int:
        """Store new vectors for rows unchanged since they were read; returns how many were stored."""
        ...

    async def build_index(self) -> None:
        """The HNSW index on the new vectors, built without blocking writes."""
        ...

    def switching(self) -> AbstractAsyncContextManager[EmbeddingSwitch]: ...

    async def abort(self) -> bool:
        """Drop the shadow column and its index; False when nothing was in progress."""
        ...

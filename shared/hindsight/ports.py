"""Ports: the Protocols use cases depend on. Adapters implement them; tests may fake them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol
from uuid import UUID

from hindsight.domain.auth import ApiKeyRecord
from hindsight.domain.memory import Candidate, Scope, SearchRequest, StoreResult, WriteJob

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
    """The write queue (SQS in AWS, the emulator locally)."""

    async def enqueue(self, job: WriteJob) -> None:
        """Send one job. Raises Unavailable when the queue cannot take it."""
        ...


class MemoryStore(Protocol):
    """Long-term memory in Postgres+pgvector. Every method is scoped to one tenant."""

    async def search_candidates(
        self, scope: Scope, request: SearchRequest, embedding: Vector, pool: int
    ) -> list[Candidate]:
        """Up to ``pool`` candidates per signal (vector, keyword), each with its ranks."""
        ...

    async def store(
        self, jobs: Sequence[WriteJob], embeddings: Sequence[Vector], dedup_cosine: float
    ) -> list[StoreResult]:
        """Store each job (or merge it into a near-duplicate); idempotent per job id."""
        ...

    async def write_results(self, tenant_id: str, job_ids: Sequence[UUID]) -> dict[UUID, StoreResult]:
        """Outcomes recorded for these jobs (missing ids are still queued or unknown)."""
        ...


class ApiKeyStore(Protocol):
    """Where API keys live."""

    async def find(self, key_id: str) -> ApiKeyRecord | None: ...

    async def create(self, record: ApiKeyRecord) -> None: ...

    async def revoke(self, key_id: str, at: datetime) -> bool: ...

    async def list(self, tenant_id: str | None) -> list[ApiKeyRecord]: ...

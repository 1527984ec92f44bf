"""Ports of re-embedding: moving the store to another embedding model or dimension while it keeps serving."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from hindsight.ports.embedding import Vector


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

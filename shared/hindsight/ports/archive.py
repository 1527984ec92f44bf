"""The MemoryArchive port: bulk export and import of a tenant's memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol
from uuid import UUID

from pydantic import BaseModel, ConfigDict


class KeySettlement(BaseModel):
    """An imported fact (active, or a past value: superseded in the file, with an end) that met values of
    the target tenant on its key (per agent, semantic layer) and was settled with them by the write path's
    rules (valid-time order, source rules, additions; one value at each instant), as if it had been
    written then: ``reason`` says what happened, in the words a write's outcome uses ("supersedes <id>",
    "ends <id> (a past value on the key) at …", "past value: <id> holds the key from …", "contradicts <id>
    (…)", "adds to <id> …", "<id> holds again after it as <id>")."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    key: str
    memory_id: UUID
    """The imported memory (its id in the target tenant)."""
    superseded: tuple[UUID, ...] = ()
    """Facts of the tenant it superseded (they began to hold at or before it)."""
    ended: tuple[UUID, ...] = ()
    """Past values of the key it began inside: they end where it begins."""
    past_value_of: UUID | None = None
    """The fact of the tenant that began to hold after it: the imported one is stored superseded by it."""
    kept: tuple[UUID, ...] = ()
    """Facts left beside it (an addition, or the source rules: an inference never decides the fate of what
    the user stated — also an archived statement, linked ``contradicts``)."""
    resumed: tuple[UUID, ...] = ()
    """Continuations it made: a value of the tenant that held past its end holds again from there, as a
    new memory (``metadata.resumes`` names the one it continues); no gap where a value was known."""
    reason: str


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
    ) -> tuple[dict[str, int], set[str], list[KeySettlement]]:
        """Insert records (``{"kind", "row", "line", "embedding"}``: already moved to ``tenant_id``,
        carrying embeddings, ``line`` their place in the file); rows that already exist in the tenant are
        skipped, each by its own identity (a memory, chunk, relation, write result, pending link by its
        key; a history record, which has none, by its values: its ``occurrence``-th identical entry is
        inserted unless the memory has that many). All or nothing. Returns counts per kind (and
        ``skipped``), the ids of the memories inserted now, and how each inserted keyed fact (active, or
        a past value) that met values of its key was settled with them (a key names one fact: the write
        path's rules, never two holders, one value at each instant).

        Raises InvalidInput when an id already belongs to another tenant, RecordRefused (its ``line``)
        when the database refuses a record's value."""
        ...

    async def existing(self, tenant_id: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are memories of the tenant already."""
        ...

    async def existing_chunks(self, tenant_id: str, keys: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of ``keys`` (memory id, chunk number) are chunks of the tenant already."""
        ...

    async def link_causal_parents(self, tenant_id: str, links: Sequence[tuple[UUID, UUID]]) -> int:
        """Set causal_parent (child, parent) once both rows exist, on children that have none yet (a
        memory of the tenant keeps its own); returns how many were set."""
        ...

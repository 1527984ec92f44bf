"""The MemoryArchive port: bulk export and import of a tenant's memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol
from uuid import UUID


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

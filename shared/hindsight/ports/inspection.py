"""Ports of operator inspection: read-only views of a tenant's memory, queue depths and working-memory
sessions (the CLI's ``inspect``, the inspector page)."""

from __future__ import annotations

from typing import Protocol

from hindsight.domain.memory import Scope, StoredMemory
from hindsight.domain.working_memory import SessionState


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

"""Ports of scheduled maintenance: its storage, and the working-memory and stuck-work sweeps it runs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from hindsight.domain.memory import MemoryStatus, Scope
from hindsight.ports.embedding import Vector

if TYPE_CHECKING:  # annotations only: the MCP function's cold start never loads the maintenance rules
    from hindsight.domain.maintenance import (
        ConsolidationPlan,
        DecayCounts,
        DecayPolicy,
        Episode,
        KeyCaseCounts,
        MaintenanceState,
        PatternPlan,
        SessionSweep,
    )


class MaintenanceStore(Protocol):
    """Scheduled maintenance's storage (hindsight.domain.maintenance has the rules). Work is done one
    (tenant, agent) scope at a time, each change in its own transaction with history rows (actor
    ``maintenance``); a cycle's resume point is kept under a lease so runs can stop and resume."""

    async def refresh_keyword_stats(self, scope: Scope) -> int | None:
        """Recount the scope's full-text lexemes (documents per lexeme, and documents); returns how many
        lexemes, or None when nothing changed since the last count."""
        ...

    async def settle_key_case(self, scope: Scope, since: datetime | None) -> KeyCaseCounts | None:
        """Bring the keys not in their stored form, among the scope's rows written or changed at or after
        ``since`` (all when None), to it and settle the values that meet on a key because of it, as
        migration 029 did (``hindsight.domain.maintenance.key_case``); None when no keyed row of the scope
        was written or changed since ``since``."""
        ...

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

    async def unchecked_summaries(self, scope: Scope, limit: int) -> list[tuple[Episode, list[Episode]]]:
        """Active summaries written under the old merge rule, each with its ``part_of`` members."""
        ...

    async def mark_summaries_checked(self, scope: Scope, summary_ids: list[UUID]) -> None:
        """Record that these summaries keep every word of their members."""
        ...

    async def undo_consolidation(self, scope: Scope, summary_id: UUID, now: datetime) -> int:
        """Restore a summary's archived members and archive the summary; returns the members restored."""
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

    async def reinstate_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> bool:
        """Make the inferred memory active again when an edit of its evidence withdrew it (metadata
        ``withdrawn_at``) and ``plan`` finds enough episodes stating it again; False when it was archived
        otherwise (by the user, by decay) and stays so."""
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

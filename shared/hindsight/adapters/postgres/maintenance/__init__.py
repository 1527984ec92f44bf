"""The MaintenanceStore port on Postgres: the cycle's lease and resume point, scope enumeration, decay
and archive as one set-based statement per batch, consolidation and inferred-pattern writes.

Every statement that touches memories runs in a ``tenant_transaction`` of one tenant and names the
tenant and agent in its WHERE clause; every change writes its ``memory_history`` rows (actor
``maintenance``) in the same transaction. Only two statements cross tenants: listing the scopes to
visit (through ``hindsight_scopes``, schema 004), and the ``maintenance_state`` row (schema 003), which
belongs to no tenant.

One module per step, each a part of ``PostgresMaintenanceStore``: ``lease`` (the cycle's lease and resume
point), ``scopes`` (which scopes to visit), ``decay``, ``consolidation``, ``patterns``, ``key_case`` (keys
brought to their stored form) and ``keyword_stats``; ``episodes`` maps the episodic rows consolidation and
patterns read.
"""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.maintenance.consolidation import PostgresConsolidation
from hindsight.adapters.postgres.maintenance.decay import PostgresDecay
from hindsight.adapters.postgres.maintenance.key_case import PostgresKeyCase
from hindsight.adapters.postgres.maintenance.keyword_stats import PostgresKeywordStats
from hindsight.adapters.postgres.maintenance.lease import PostgresCycleLease
from hindsight.adapters.postgres.maintenance.patterns import PostgresPatterns
from hindsight.adapters.postgres.maintenance.scopes import PostgresScopes


class PostgresMaintenanceStore(
    PostgresCycleLease,
    PostgresScopes,
    PostgresDecay,
    PostgresConsolidation,
    PostgresPatterns,
    PostgresKeywordStats,
    PostgresKeyCase,
):
    """The MaintenanceStore port."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool


__all__ = ["PostgresMaintenanceStore"]

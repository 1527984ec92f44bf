"""The InspectionStore port on Postgres: what an operator sees of one agent's memory. Read-only, scoped
to one tenant (and agent) like every other statement; records no access."""

from __future__ import annotations

from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import MEMORY_COLUMNS, fetch_all, memory_from_row, tenant_transaction
from hindsight.domain.memory import Scope, StoredMemory


class PostgresInspection:
    """Counts, recent memories and recent write outcomes."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def agents(self, tenant_id: str) -> list[tuple[str, int]]:
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT agent_id, count(*) AS n FROM memories WHERE tenant_id = %s
                   GROUP BY agent_id ORDER BY agent_id""",
                (tenant_id,),
            )
        return [(r["agent_id"], int(r["n"])) for r in rows]

    async def counts(self, scope: Scope) -> dict[tuple[str, str], int]:
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT layer, status, count(*) AS n FROM memories
                   WHERE tenant_id = %s AND agent_id = %s GROUP BY layer, status""",
                (scope.tenant_id, scope.agent_id),
            )
        return {(r["layer"], r["status"]): int(r["n"]) for r in rows}

    async def memories(self, scope: Scope, limit: int) -> list[StoredMemory]:
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                sql.SQL(
                    """SELECT {c} FROM memories m WHERE m.tenant_id = %s AND m.agent_id = %s
                       ORDER BY greatest(m.updated_at, m.created_at) DESC, m.id LIMIT %s"""
                ).format(c=MEMORY_COLUMNS),
                (scope.tenant_id, scope.agent_id, limit),
            )
        return [memory_from_row(r) for r in rows]

    async def recent_writes(self, scope: Scope, limit: int) -> list[dict[str, object]]:
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT w.job_id, w.outcome, w.memory_id, w.reason, w.recorded_at
                   FROM write_results w JOIN memories m ON m.id = w.memory_id AND m.tenant_id = w.tenant_id
                   WHERE w.tenant_id = %s AND m.agent_id = %s
                   ORDER BY w.recorded_at DESC LIMIT %s""",
                (scope.tenant_id, scope.agent_id, limit),
            )
        return [dict(r) for r in rows]

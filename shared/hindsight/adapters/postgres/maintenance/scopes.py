"""Which (tenant, agent) scopes maintenance visits on Postgres, and whether a scope's episodes changed since
the last cycle."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_all, fetch_one, tenant_transaction
from hindsight.domain.memory import MemoryStatus, Scope


class PostgresScopes:
    """The MaintenanceStore port's scope walk (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def scopes(self, after: Scope | None, limit: int, tenant_id: str | None = None) -> list[Scope]:
        """(tenant, agent) pairs that have memories, in (tenant_id, agent_id) order, strictly after
        ``after``; only ``tenant_id``'s when given. A loose index scan of ``memories_scope``: one index
        probe per scope, however many memories each holds.

        Every tenant's: the SECURITY DEFINER function ``hindsight_scopes`` (migration 004), the one read
        that crosses the row-level-security wall (it returns the pairs, never a row). One tenant's: the
        same scan in that tenant's transaction, under the wall."""
        if tenant_id is None:
            async with self._pool.connection() as conn:
                rows = await fetch_all(
                    conn,
                    "SELECT tenant_id, agent_id FROM hindsight_scopes(%s, %s, %s)",
                    (after.tenant_id if after else None, after.agent_id if after else None, limit),
                )
            return [Scope(tenant_id=r["tenant_id"], agent_id=r["agent_id"]) for r in rows]
        conditions: list[sql.Composable] = []
        params: dict[str, Any] = {"limit": limit}
        if tenant_id is not None:
            conditions.append(sql.SQL("m.tenant_id = %(only)s"))
            params["only"] = tenant_id

        def where(extra: sql.Composable | None) -> sql.Composable:
            parts = [*conditions, *([extra] if extra is not None else [])]
            return sql.SQL(" AND ").join(parts) if parts else sql.SQL("true")

        start = None
        if after is not None:
            start = sql.SQL("(m.tenant_id, m.agent_id) > (%(after_t)s, %(after_a)s)")
            params |= {"after_t": after.tenant_id, "after_a": after.agent_id}
        query = sql.SQL(
            """WITH RECURSIVE s(tenant_id, agent_id) AS (
                   (SELECT m.tenant_id, m.agent_id FROM memories m WHERE {first}
                    ORDER BY m.tenant_id, m.agent_id LIMIT 1)
                   UNION ALL
                   SELECT n.tenant_id, n.agent_id FROM s CROSS JOIN LATERAL (
                       SELECT m.tenant_id, m.agent_id FROM memories m WHERE {next}
                       ORDER BY m.tenant_id, m.agent_id LIMIT 1) n)
               SELECT tenant_id, agent_id FROM s LIMIT %(limit)s"""
        ).format(
            first=where(start),
            next=where(sql.SQL("(m.tenant_id, m.agent_id) > (s.tenant_id, s.agent_id)")),
        )
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(conn, query, params)
        return [Scope(tenant_id=r["tenant_id"], agent_id=r["agent_id"]) for r in rows]

    async def episodes_changed_since(
        self, scope: Scope, since: datetime, statuses: Sequence[MemoryStatus]
    ) -> bool:
        """Whether an episodic memory of the scope in one of ``statuses`` was created or changed at or
        after ``since``."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            row = await fetch_one(
                conn,
                """SELECT EXISTS (SELECT 1 FROM memories
                                  WHERE tenant_id = %s AND agent_id = %s AND layer = 'episodic'
                                    AND status = ANY(%s) AND greatest(created_at, updated_at) >= %s)
                       AS changed""",
                (scope.tenant_id, scope.agent_id, list(statuses), since),
            )
        return bool(row and row["changed"])

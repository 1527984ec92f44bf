"""Keyword statistics on Postgres: documents per full-text lexeme and per scope (schema 005), recounted
with ``ts_stat`` over the scope's active memories — what search's inverse-document-frequency cut reads."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_one, tenant_transaction
from hindsight.domain.memory import Scope


class PostgresKeywordStats:
    """``refresh_keyword_stats`` of the MaintenanceStore port."""

    _pool: AsyncConnectionPool

    async def refresh_keyword_stats(self, scope: Scope) -> int | None:
        params = {"t": scope.tenant_id, "a": scope.agent_id}
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            fresh = await fetch_one(
                conn,
                """SELECT s.refreshed_at >= coalesce(
                              (SELECT max(greatest(m.created_at, m.updated_at)) FROM memories m
                               WHERE m.tenant_id = %(t)s AND m.agent_id = %(a)s), '-infinity') AS fresh
                   FROM scope_stats s WHERE s.tenant_id = %(t)s AND s.agent_id = %(a)s""",
                params,
            )
            if fresh is not None and fresh["fresh"]:
                return None
            await conn.execute(
                "DELETE FROM lexeme_stats WHERE tenant_id = %(t)s AND agent_id = %(a)s", params
            )
            # ts_stat takes the query as text; the scope goes in as literals (format %L quotes them).
            await conn.execute(
                """INSERT INTO lexeme_stats (tenant_id, agent_id, lexeme, docs)
                   SELECT %(t)s, %(a)s, s.word, s.ndoc
                   FROM ts_stat(format(
                       'SELECT search_text FROM memories WHERE tenant_id = %%L AND agent_id = %%L
                          AND status = ''active''', %(t)s::text, %(a)s::text)) AS s""",
                params,
            )
            await conn.execute(
                """INSERT INTO scope_stats (tenant_id, agent_id, docs, refreshed_at)
                   SELECT %(t)s, %(a)s, count(*), now() FROM memories
                   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND status = 'active'
                   ON CONFLICT (tenant_id, agent_id)
                   DO UPDATE SET docs = EXCLUDED.docs, refreshed_at = EXCLUDED.refreshed_at""",
                params,
            )
            row = await fetch_one(
                conn,
                "SELECT count(*) AS n FROM lexeme_stats WHERE tenant_id = %(t)s AND agent_id = %(a)s",
                params,
            )
        return int(row["n"]) if row else 0

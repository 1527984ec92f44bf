"""Keys not in their stored form, on Postgres (the maintenance step ``key_case``): migration 029's rule
applied by ``hindsight_settle_key_case`` (migrations 030, 031) to the scope's rows written or changed since
the last completed maintenance cycle, then the write path's split of a
value a bounded fact interrupted (``key_resume.resume_after``), so the key ends as it would had its values
been written on one spelling."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.key_resume import resume_after
from hindsight.adapters.postgres.memory_writes import KEY_LOCKS, key_lock
from hindsight.adapters.postgres.rows import fetch_all, fetch_one, tenant_transaction
from hindsight.domain.maintenance import MAINTENANCE_ACTOR, KeyCaseCounts
from hindsight.domain.memory import Scope

_STRAY_KEYS = """SELECT count(*) AS changed,
       coalesce(array_agg(c.id) FILTER (WHERE c.form <> c.key), '{}') AS ids,
       coalesce(array_agg(DISTINCT c.form) FILTER (WHERE c.form <> c.key), '{}') AS keys
   FROM (SELECT m.id, m.key,
                CASE WHEN m.key ~ '[A-Z]' OR octet_length(m.key) <> char_length(m.key)
                     THEN hindsight_key_form(m.key) END AS form
         FROM (SELECT id, key FROM memories
               WHERE tenant_id = %(t)s AND agent_id = %(a)s AND key IS NOT NULL
                 AND (%(since)s::timestamptz IS NULL OR greatest(created_at, updated_at) >= %(since)s)
               OFFSET 0) AS m
         OFFSET 0) AS c"""
"""How many of the scope's keyed rows were written or changed at or after ``since`` (all when NULL), and of
those the ids and stored forms of the keys written in another form. ``OFFSET 0`` keeps the time filter
below the key form, so an unchanged row costs a timestamp comparison, not ``hindsight_key_form``'s
normalize/translate, which runs once per changed key that may need it (a capital or a non-ASCII
character)."""
_SETTLE = "SELECT old_id, new_id, link, ended_before FROM hindsight_settle_key_case(%s, %s, %s, %s::uuid[])"


class PostgresKeyCase:
    """``settle_key_case`` of the MaintenanceStore port (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def settle_key_case(self, scope: Scope, since: datetime | None) -> KeyCaseCounts | None:
        """Lower the keys not in stored form among the scope's rows written or changed at or after ``since``
        (every keyed row when None) and settle the values that meet (module doc), under the worker's
        advisory lock of each key they join, so no write of the new code on it interleaves. Counts of what
        was done (``KeyCaseCounts``; empty when those keys are all in stored form); None when no keyed row
        of the scope was written or changed since ``since``."""
        t, a = scope.tenant_id, scope.agent_id
        async with tenant_transaction(self._pool, t) as conn:
            found = await fetch_one(conn, _STRAY_KEYS, {"t": t, "a": a, "since": since})
            if found is None or not found["changed"]:
                return None
            if not found["ids"]:
                return KeyCaseCounts()
            await conn.execute(KEY_LOCKS, ([key_lock(t, a, key) for key in found["keys"]],))
            rows = await fetch_all(conn, _SETTLE, (t, a, MAINTENANCE_ACTOR, found["ids"]))
            ended: dict[UUID, list[dict[str, Any]]] = {}
            for row in rows:
                if row["link"] == "supersedes":  # as the write path's replaced facts: active until then
                    old = {"id": row["old_id"], "status": "active", "until": row["ended_before"]}
                    ended.setdefault(row["new_id"], []).append(old)
            resumed = 0
            for fact, olds in ended.items():  # nothing unless the fact is bounded and ends inside them
                resumed += len(await resume_after(conn, t, fact, olds, MAINTENANCE_ACTOR))
        links = Counter(r["link"] for r in rows)
        return KeyCaseCounts(
            lowered=links["renamed"],
            superseded=links["supersedes"],
            kept=links["contradicts"],
            related=links["related"],
            resumed=resumed,
        )

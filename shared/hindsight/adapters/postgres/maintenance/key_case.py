"""Keys not in their stored form, on Postgres (the maintenance step ``key_case``): migration 029's rule
applied to one scope by ``hindsight_settle_key_case`` (migration 030), then the write path's split of a
value a bounded fact interrupted (``key_resume.resume_after``), so the key ends as it would had its values
been written on one spelling."""

from __future__ import annotations

from collections import Counter
from typing import Any
from uuid import UUID

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.key_resume import resume_after
from hindsight.adapters.postgres.memory_writes import KEY_LOCKS, key_lock
from hindsight.adapters.postgres.rows import fetch_all, tenant_transaction
from hindsight.domain.maintenance import MAINTENANCE_ACTOR, KeyCaseCounts
from hindsight.domain.memory import Scope

_STRAY_KEYS = """SELECT DISTINCT hindsight_key_form(key) AS key FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND key IS NOT NULL
     AND (key ~ '[A-Z]' OR octet_length(key) <> char_length(key)) AND key <> hindsight_key_form(key)"""
"""The stored forms of the scope's keys written in another form (an index scan of ``memories_key``)."""
_SETTLE = "SELECT old_id, new_id, link, ended_before FROM hindsight_settle_key_case(%s, %s, %s)"


class PostgresKeyCase:
    """``settle_key_case`` of the MaintenanceStore port (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def settle_key_case(self, scope: Scope) -> KeyCaseCounts:
        """Lower the scope's keys not in stored form and settle the values that meet (module doc), under
        the worker's advisory lock of each key they join, so no write of the new code on it interleaves.
        Counts of what was done (``KeyCaseCounts``); nothing when every key is in its stored form."""
        t, a = scope.tenant_id, scope.agent_id
        async with tenant_transaction(self._pool, t) as conn:
            keys = await fetch_all(conn, _STRAY_KEYS, (t, a))
            if not keys:
                return KeyCaseCounts()
            await conn.execute(KEY_LOCKS, ([key_lock(t, a, r["key"]) for r in keys],))
            rows = await fetch_all(conn, _SETTLE, (t, a, MAINTENANCE_ACTOR))
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

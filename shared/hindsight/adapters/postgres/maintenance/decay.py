"""Decay and archive on Postgres: one set-based statement per batch, history rows included."""

from __future__ import annotations

from datetime import datetime

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_one, tenant_transaction
from hindsight.domain.maintenance import MAINTENANCE_ACTOR, DecayCounts, DecayPolicy
from hindsight.domain.memory import Scope

# The decay rule of hindsight.domain.maintenance.decay_step, in SQL: one statement per batch selects the
# due rows (locking them, skipping rows another transaction holds), applies the step, archives what went
# under the cold threshold and writes both history rows. The anchor is the latest of created_at,
# last_accessed_at (its own table, migration 018), updated_at, decayed_at and valid_from (a fact that
# holds from a later date does not fade before it holds: trial F7; greatest() ignores NULLs).
_DECAY = """
WITH due AS (
    SELECT m.id, m.importance AS before, d.after
    FROM memories m
    CROSS JOIN LATERAL (
        SELECT m.importance * power(
            0.5::float8,
            greatest(0, extract(epoch FROM %(now)s::timestamptz - greatest(
                m.created_at, (SELECT a.last_accessed_at FROM memory_access a WHERE a.memory_id = m.id),
                m.updated_at, m.decayed_at, m.valid_from)))
            / CASE m.layer WHEN 'episodic' THEN %(h_episodic)s::float8 ELSE %(h_semantic)s::float8 END
        ) AS after
    ) d
    WHERE m.tenant_id = %(t)s AND m.agent_id = %(a)s AND m.status = 'active'
      AND m.importance < %(core)s::real  -- compared as stored (real): 0.9 written is 0.9 here
      AND m.importance - d.after >= %(step)s
    ORDER BY m.id
    LIMIT %(limit)s
    FOR UPDATE OF m SKIP LOCKED
),
upd AS (
    UPDATE memories m
    SET importance = due.after,
        decayed_at = %(now)s,
        status = CASE WHEN due.after < %(cold)s THEN 'archived' ELSE m.status END,
        updated_at = CASE WHEN due.after < %(cold)s THEN %(now)s ELSE m.updated_at END
    FROM due
    WHERE m.id = due.id AND m.tenant_id = %(t)s
    RETURNING m.id, due.before, due.after, due.after < %(cold)s AS archived
),
decayed AS (
    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
    SELECT id, %(t)s, 'decayed', %(decay_reason)s,
           jsonb_build_object('importance', jsonb_build_object('from', round(before::numeric, 4),
                                                               'to', round(after::numeric, 4))),
           %(actor)s, %(now)s
    FROM upd
),
archived AS (
    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
    SELECT id, %(t)s, 'archived', %(archive_reason)s,
           '{"status": {"from": "active", "to": "archived"}}'::jsonb, %(actor)s,
           %(now)s + interval '1 microsecond'  -- after its 'decayed' row
    FROM upd WHERE archived
)
SELECT count(*) AS decayed, count(*) FILTER (WHERE archived) AS archived FROM upd
"""


class PostgresDecay:
    """The MaintenanceStore port's decay step (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def decay(self, scope: Scope, policy: DecayPolicy, now: datetime, limit: int) -> DecayCounts:
        """Apply one batch of at most ``limit`` due decay steps (``domain.maintenance.decay_step``) in
        one transaction; rows just decayed are no longer due, so repeated calls make progress."""
        params = {
            "t": scope.tenant_id,
            "a": scope.agent_id,
            "now": now,
            "h_episodic": policy.episodic_half_life.total_seconds(),
            "h_semantic": policy.semantic_half_life.total_seconds(),
            "core": policy.core_importance,
            "step": policy.min_step,
            "cold": policy.cold_threshold,
            "limit": limit,
            "actor": MAINTENANCE_ACTOR,
            "decay_reason": "importance decay since last access",
            "archive_reason": f"importance fell below the cold threshold {policy.cold_threshold:g}",
        }
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            row = await fetch_one(conn, _DECAY, params)
        return (
            DecayCounts(decayed=int(row["decayed"]), archived=int(row["archived"])) if row else DecayCounts()
        )

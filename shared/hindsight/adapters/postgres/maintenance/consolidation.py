"""Consolidation on Postgres: reading the candidates, and writing a summary, its ``part_of`` links and the
archived members in one transaction."""

from __future__ import annotations

from datetime import datetime

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.maintenance.episodes import EPISODE_COLUMNS, episode_from_row
from hindsight.adapters.postgres.rows import fetch_all, tenant_transaction, vector_literal
from hindsight.domain.maintenance import (
    MAINTENANCE_ACTOR,
    SUMMARY_METADATA_KEY,
    ConsolidationPlan,
    Episode,
)
from hindsight.domain.memory import Scope, content_hash


class PostgresConsolidation:
    """The MaintenanceStore port's consolidation step (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def consolidation_candidates(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active episodic memories of the scope with event time ≥ ``since`` that are not summaries,
        most recent first, at most ``limit``, with their embeddings."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                f"""SELECT {EPISODE_COLUMNS}, content, embedding FROM memories
                    WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'episodic' AND status = 'active'
                      AND coalesce(occurred_at, created_at) >= %(since)s AND NOT metadata ? %(marker)s
                    ORDER BY coalesce(occurred_at, created_at) DESC, id LIMIT %(limit)s""",
                {
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                    "since": since,
                    "marker": SUMMARY_METADATA_KEY,
                    "limit": limit,
                },
            )
        return [episode_from_row(r, with_embedding=True) for r in rows]

    async def consolidate(self, scope: Scope, plan: ConsolidationPlan, now: datetime) -> bool:
        """Write the summary, link each member to it (``part_of``) and archive the members, with history,
        in one transaction. False (nothing written) when a member is no longer active or the summary
        exists already."""
        members = list(plan.member_ids)
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            locked = await fetch_all(
                conn,
                """SELECT id FROM memories
                   WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s AND layer = 'episodic'
                     AND status = 'active'
                   ORDER BY id FOR UPDATE""",
                (members, scope.tenant_id, scope.agent_id),
            )
            if len(locked) != len(members):
                return False
            cur = await conn.execute(
                """INSERT INTO memories (id, tenant_id, agent_id, layer, key, content, content_hash,
                                         importance, created_at, updated_at, occurred_at, metadata,
                                         embedding, source, tags, entities, entity_terms, task_type,
                                         outcome, lessons, decayed_at)
                   SELECT %(id)s, %(t)s, %(a)s, 'episodic', %(key)s, %(content)s, %(hash)s, %(importance)s,
                          %(now)s, %(now)s, %(occurred_at)s, %(metadata)s, %(e)s::vector, %(source)s,
                          %(tags)s::text[], r.entities,
                          ARRAY(SELECT DISTINCT term FROM memories x, unnest(x.entity_terms) AS term
                                WHERE x.id = ANY(%(members)s) AND x.tenant_id = %(t)s ORDER BY term),
                          %(task_type)s, %(outcome)s, %(lessons)s, %(now)s
                   FROM memories r WHERE r.id = %(rep)s AND r.tenant_id = %(t)s
                   ON CONFLICT (id) DO NOTHING""",
                {
                    "id": plan.summary_id,
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                    "key": plan.key,
                    "content": plan.content,
                    "hash": content_hash(plan.content),
                    "importance": plan.importance,
                    "now": now,
                    "occurred_at": plan.occurred_at,
                    "metadata": Jsonb(plan.metadata),
                    "e": vector_literal(plan.embedding),
                    "source": plan.source,
                    "tags": plan.tags,
                    "members": members,
                    "task_type": plan.task_type,
                    "outcome": plan.outcome,
                    "lessons": plan.lessons,
                    "rep": plan.representative_id,
                },
            )
            if cur.rowcount != 1:
                return False
            reason = f"consolidated into summary {plan.summary_id}"
            await conn.execute(
                """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
                   SELECT %(t)s, member, %(summary)s, 'part_of', %(reason)s
                   FROM unnest(%(members)s::uuid[]) AS member
                   ON CONFLICT (from_id, to_id, kind) DO NOTHING""",
                {"t": scope.tenant_id, "summary": plan.summary_id, "members": members, "reason": reason},
            )
            await conn.execute(
                """UPDATE memories SET status = 'archived', updated_at = %s
                   WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s""",
                (now, members, scope.tenant_id, scope.agent_id),
            )
            await conn.execute(
                """INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
                   SELECT %(summary)s, %(t)s, 'created', %(created)s, %(changes)s, %(actor)s, %(now)s
                   UNION ALL
                   SELECT member, %(t)s, 'archived', %(reason)s,
                          '{"status": {"from": "active", "to": "archived"}}'::jsonb, %(actor)s, %(now)s
                   FROM unnest(%(members)s::uuid[]) AS member""",
                {
                    "summary": plan.summary_id,
                    "t": scope.tenant_id,
                    "created": f"consolidation of {len(members)} near-identical episodes",
                    "changes": Jsonb({"members": [str(m) for m in members]}),
                    "reason": reason,
                    "members": members,
                    "actor": MAINTENANCE_ACTOR,
                    "now": now,
                },
            )
        return True

"""Consolidation on Postgres: reading the candidates, and writing a summary, its ``part_of`` links and the
archived members in one transaction; checking summaries written under an earlier merge rule, and undoing
those that hide a word of a member or stand for events that differ."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.injection_labels import injection_params
from hindsight.adapters.postgres.maintenance.episodes import (
    EPISODE_COLUMNS,
    episode_from_row,
    lock_unchanged,
)
from hindsight.adapters.postgres.rows import fetch_all, tenant_transaction, vector_literal
from hindsight.domain.maintenance import (
    CONSOLIDATION_RULE,
    MAINTENANCE_ACTOR,
    SUMMARY_METADATA_KEY,
    ConsolidationPlan,
    Episode,
)
from hindsight.domain.maintenance.stale import UNDONE_AT
from hindsight.domain.memory import Scope, content_hash

UNCHECKED_SUMMARY = f"""layer = 'episodic' AND status = 'active' AND metadata ? '{SUMMARY_METADATA_KEY}'
    AND NOT (metadata -> '{SUMMARY_METADATA_KEY}' @> '{{"rule": {CONSOLIDATION_RULE}}}')"""
"""A summary written under an earlier merge rule (no ``rule`` in its metadata, or a lower one): the
predicate of the partial index ``memories_unchecked_summaries`` (infra/migrations/024), spelt alike so the
planner uses it."""


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
        exists already, or a member changed since the plan read it (``lock_unchanged``)."""
        members = list(plan.member_ids)
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            if not await lock_unchanged(conn, scope, members, plan.member_versions, ("active",)):
                return False
            # Recall hint and context: the representative's, dated (the plan's); entities, metadata and
            # shared_with: the members' (equal in a plan).
            cur = await conn.execute(
                """INSERT INTO memories (id, tenant_id, agent_id, layer, key, query, context, content,
                                         content_hash, importance, created_at, updated_at, occurred_at,
                                         occurred_end, metadata, embedding, source, tags, entities,
                                         shared_with, entity_terms, task_type, outcome, lessons, decayed_at,
                                         injection_signals, injection_stamp)
                   SELECT %(id)s, %(t)s, %(a)s, 'episodic', %(key)s, %(query)s, %(context)s, %(content)s,
                          %(hash)s, %(importance)s, %(now)s, %(now)s, %(occurred_at)s, %(occurred_end)s,
                          %(metadata)s, %(e)s::vector, %(source)s,
                          %(tags)s::text[], %(entities)s, %(shared_with)s::text[],
                          ARRAY(SELECT DISTINCT term FROM memories x, unnest(x.entity_terms) AS term
                                WHERE x.id = ANY(%(members)s) AND x.tenant_id = %(t)s ORDER BY term),
                          %(task_type)s, %(outcome)s, %(lessons)s, %(now)s,
                          %(injection_signals)s, %(injection_stamp)s
                   FROM memories r WHERE r.id = %(rep)s AND r.tenant_id = %(t)s
                   ON CONFLICT (id) DO NOTHING""",
                {
                    "id": plan.summary_id,
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                    "key": plan.key,
                    "query": plan.query,
                    "context": plan.context,
                    "content": plan.content,
                    "hash": content_hash(plan.content),
                    "importance": plan.importance,
                    "now": now,
                    "occurred_at": plan.occurred_at,
                    "occurred_end": plan.occurred_end,
                    "metadata": Jsonb(plan.metadata),
                    "e": vector_literal(plan.embedding),
                    "source": plan.source,
                    "tags": plan.tags,
                    "entities": Jsonb(plan.entities),
                    "shared_with": plan.shared_with,
                    "members": members,
                    "task_type": plan.task_type,
                    "outcome": plan.outcome,
                    "lessons": plan.lessons,
                    "rep": plan.representative_id,
                    **injection_params(
                        plan.content,
                        plan.key,
                        plan.query,
                        None,
                        plan.lessons,
                        (),
                        plan.metadata,
                        plan.entities,
                    ),
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
            await record_history(
                conn,
                scope.tenant_id,
                MAINTENANCE_ACTOR,
                HistoryRow(
                    plan.summary_id,
                    "created",
                    f"consolidation of {len(members)} repeats of one event",
                    {"members": [str(m) for m in members]},
                ),
                *(HistoryRow(m, "archived", reason, status_change("active", "archived")) for m in members),
                at=now,
            )
        return True

    async def unchecked_summaries(self, scope: Scope, limit: int) -> list[tuple[Episode, list[Episode]]]:
        """Up to ``limit`` active summaries of the scope written under an earlier merge rule
        (``UNCHECKED_SUMMARY``), each with the members linked to it by ``part_of``. The partial index of
        schema 024 holds exactly these rows, so a scope without any costs one empty index probe."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            summaries = await fetch_all(
                conn,
                f"""SELECT {EPISODE_COLUMNS}, content FROM memories
                    WHERE tenant_id = %(t)s AND agent_id = %(a)s AND {UNCHECKED_SUMMARY}
                    ORDER BY id LIMIT %(limit)s""",
                {"t": scope.tenant_id, "a": scope.agent_id, "limit": limit},
            )
            if not summaries:
                return []
            members = await fetch_all(
                conn,
                f"""SELECT summary_id, {EPISODE_COLUMNS}, content FROM memories
                    JOIN (SELECT from_id, to_id AS summary_id FROM memory_relations
                          WHERE tenant_id = %(t)s AND kind = 'part_of' AND to_id = ANY(%(ids)s)) AS r
                      ON r.from_id = memories.id
                    WHERE tenant_id = %(t)s AND agent_id = %(a)s
                    ORDER BY id""",
                {"t": scope.tenant_id, "a": scope.agent_id, "ids": [r["id"] for r in summaries]},
            )
        by_summary: dict[UUID, list[Episode]] = {r["id"]: [] for r in summaries}
        for row in members:
            by_summary[row["summary_id"]].append(episode_from_row(row, with_embedding=False))
        return [(episode_from_row(r, with_embedding=False), by_summary[r["id"]]) for r in summaries]

    async def mark_summaries_checked(self, scope: Scope, summary_ids: list[UUID]) -> None:
        """Record that these summaries keep every word of their members, who say the same words in the
        same order (metadata ``rule``: ``CONSOLIDATION_RULE``); not a change
        of the memory, so ``updated_at`` and history stay as they are."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            await conn.execute(
                """UPDATE memories
                   SET metadata = jsonb_set(metadata, ARRAY[%(k)s, 'rule'], to_jsonb(%(rule)s::int), true)
                   WHERE id = ANY(%(ids)s) AND tenant_id = %(t)s AND agent_id = %(a)s
                     AND metadata ? %(k)s""",
                {
                    "k": SUMMARY_METADATA_KEY,
                    "rule": CONSOLIDATION_RULE,
                    "ids": summary_ids,
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                },
            )

    async def undo_consolidation(self, scope: Scope, summary_id: UUID, now: datetime) -> int:
        """Make the archived members of a summary active again and archive the summary (``undo_summary``,
        by maintenance, the history rows saying the re-check found it wrong); returns the members
        restored."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            restored = await undo_summary(conn, scope, summary_id, now, RECHECK_UNDONE, MAINTENANCE_ACTOR)
        return len(restored)


RECHECK_UNDONE = (
    "consolidation undone: the summary did not keep every identifier, number or name, or stood for"
    " events that differ (the same words in another order, or other entities, metadata or sharing)"
)
"""The history reason of a summary of an earlier rule that its re-check undid, and of its members."""


async def undo_summary(
    conn: AsyncConnection, scope: Scope, summary_id: UUID, now: datetime, reason: str, actor: str
) -> list[UUID]:
    """In the caller's transaction: archive an active summary and make its archived members active again,
    history rows by ``actor`` saying ``reason``; the members restored (none when the summary is not
    active). Members that changed status since (forgotten, superseded) are left alone; the ``part_of``
    links stay as the record of what happened."""
    summary = await fetch_all(
        conn,
        """UPDATE memories SET status = 'archived', updated_at = %(now)s,
                  metadata = jsonb_set(metadata, ARRAY[%(k)s, %(undone)s], to_jsonb(%(iso)s::text))
           WHERE id = %(id)s AND tenant_id = %(t)s AND agent_id = %(a)s AND status = 'active'
           RETURNING id""",
        {
            "now": now,
            "iso": now.isoformat(),
            "k": SUMMARY_METADATA_KEY,
            "undone": UNDONE_AT,
            "id": summary_id,
            "t": scope.tenant_id,
            "a": scope.agent_id,
        },
    )
    if not summary:
        return []
    restored = await fetch_all(
        conn,
        """UPDATE memories m SET status = 'active', updated_at = %(now)s
           FROM memory_relations r
           WHERE r.to_id = %(id)s AND r.tenant_id = %(t)s AND r.kind = 'part_of'
             AND m.id = r.from_id AND m.tenant_id = r.tenant_id AND m.agent_id = %(a)s
             AND m.status = 'archived'
           RETURNING m.id""",
        {"now": now, "id": summary_id, "t": scope.tenant_id, "a": scope.agent_id},
    )
    await record_history(
        conn,
        scope.tenant_id,
        actor,
        HistoryRow(summary_id, "archived", reason, status_change("active", "archived")),
        *(HistoryRow(r["id"], "restored", reason, status_change("archived", "active")) for r in restored),
        at=now,
    )
    return [r["id"] for r in restored]

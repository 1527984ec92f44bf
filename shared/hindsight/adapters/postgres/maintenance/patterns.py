"""Episodic → semantic on Postgres: reading the evidence, and writing or extending an inferred memory with
its ``related`` evidence links."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.conflicts import relate_if_new, unsure
from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.injection_labels import injection_params
from hindsight.adapters.postgres.maintenance.episodes import (
    EPISODE_COLUMNS,
    episode_from_row,
    lock_unchanged,
)
from hindsight.adapters.postgres.rows import fetch_all, fetch_one, tenant_transaction, vector_literal
from hindsight.domain.contradiction import CONFLICT_CANDIDATES, compare_facts
from hindsight.domain.maintenance import (
    MAINTENANCE_ACTOR,
    PATTERN_CONTENT_CHARS,
    PATTERN_METADATA_KEY,
    SUMMARY_METADATA_KEY,
    WITHDRAWN_AT,
    Episode,
    PatternPlan,
)
from hindsight.domain.memory import MemoryStatus, Scope, content_hash
from hindsight.ports import Vector


async def _flag_contradicted_facts(
    conn: AsyncConnection, scope: Scope, plan: PatternPlan, vector: str
) -> None:
    """Link the new inference ``contradicts`` to each of the ``CONFLICT_CANDIDATES`` active semantic
    memories nearest to it whose text contradicts its statement, or may (``compare_facts``), so recall
    flags both ``possible_conflict`` (new-user trial: the fact "I prefer window seats" and the inference
    "I prefer aisle seats" were listed side by side, unflagged). Never supersedes: the write path's
    rule keeps a ``user_stated`` fact over an ``agent_inferred`` one, and an inference from past episodes
    is not proof that a fact of any source is stale. Unlike the write path, keys are not compared: a
    pattern's key is derived from its text, not a statement of the agent about what it describes. No
    cosine floor: the rules, not the similarity, tell a contradiction (``domain.contradiction``), and the
    inference's text ("Preference stated in 3 episodes: …") is not phrased like the fact's."""
    if not plan.statement:
        return
    rows = await fetch_all(
        conn,
        """SELECT id, content FROM memories
           WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND status = 'active'
             AND id <> %(id)s
           ORDER BY embedding <=> %(e)s::vector LIMIT %(n)s""",
        {
            "t": scope.tenant_id,
            "a": scope.agent_id,
            "id": plan.memory_id,
            "e": vector,
            "n": CONFLICT_CANDIDATES,
        },
    )
    for row in rows:
        verdict = compare_facts(plan.statement, row["content"])
        if verdict.relation in ("contradiction", "possible_conflict"):
            await relate_if_new(
                conn, scope.tenant_id, plan.memory_id, row["id"], "contradicts", unsure(verdict)
            )


CONTESTED = "a later episode takes this preference back; both kept"
"""The reason of the ``contradicts`` link from an inferred preference to the episode that contests it."""


class PostgresPatterns:
    """The MaintenanceStore port's episodic → semantic step (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def pattern_evidence(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active and archived episodic memories of the scope with event time ≥ ``since`` that are not
        summaries, most recent first, at most ``limit``; content cut to ``PATTERN_CONTENT_CHARS``."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                f"""SELECT {EPISODE_COLUMNS}, left(content, %(chars)s) AS content FROM memories
                    WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'episodic'
                      AND status IN ('active', 'archived')
                      AND coalesce(occurred_at, created_at) >= %(since)s AND NOT metadata ? %(marker)s
                    ORDER BY coalesce(occurred_at, created_at) DESC, id LIMIT %(limit)s""",
                {
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                    "since": since,
                    "marker": SUMMARY_METADATA_KEY,
                    "limit": limit,
                    "chars": PATTERN_CONTENT_CHARS,
                },
            )
        return [episode_from_row(r, with_embedding=False) for r in rows]

    async def statuses(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, MemoryStatus]:
        """The status of each of ``ids`` that is a memory of the scope (missing ids: no such memory)."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                "SELECT id, status FROM memories WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s",
                (list(ids), scope.tenant_id, scope.agent_id),
            )
        return {r["id"]: r["status"] for r in rows}

    async def create_pattern(self, scope: Scope, plan: PatternPlan, embedding: Vector, now: datetime) -> bool:
        """Insert the inferred semantic memory (source ``agent_inferred``), its ``related`` links to the
        evidence that still exists and its history, in one transaction. False if the id exists, or an
        evidence episode changed since the plan read it (``lock_unchanged``)."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            if not await self._evidence_unchanged(conn, scope, plan):
                return False
            cur = await conn.execute(
                """INSERT INTO memories (id, tenant_id, agent_id, layer, key, query, content, content_hash,
                                         importance, created_at, updated_at, metadata, embedding, source,
                                         last_verified_at, valid_from, decayed_at, injection_signals,
                                         injection_stamp)
                   VALUES (%(id)s, %(t)s, %(a)s, 'semantic', %(key)s, %(query)s, %(content)s, %(hash)s,
                           %(importance)s, %(now)s, %(now)s, %(metadata)s, %(e)s::vector, 'agent_inferred',
                           %(now)s, %(now)s, %(now)s, %(injection_signals)s, %(injection_stamp)s)
                   ON CONFLICT (id) DO NOTHING""",
                {
                    "id": plan.memory_id,
                    "t": scope.tenant_id,
                    "a": scope.agent_id,
                    "key": plan.key,
                    "query": plan.query,
                    "content": plan.content,
                    "hash": content_hash(plan.content),
                    "importance": plan.importance,
                    "now": now,
                    "metadata": Jsonb(plan.metadata),
                    "e": vector_literal(embedding),
                    **injection_params(
                        plan.content, plan.key, plan.query, None, None, (), plan.metadata, None
                    ),
                },
            )
            if cur.rowcount != 1:
                return False
            await _flag_contradicted_facts(conn, scope, plan, vector_literal(embedding))
            linked = await self._link_evidence(conn, scope, plan)
            await record_history(
                conn,
                scope.tenant_id,
                MAINTENANCE_ACTOR,
                HistoryRow(
                    plan.memory_id,
                    "created",
                    f"inferred from {linked} episodes ({plan.kind})",
                    {"evidence": [str(i) for i in plan.evidence_ids]},
                ),
                at=now,
            )
        return True

    async def extend_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> int:
        """Link new evidence to an existing *active* inferred memory; when there is any, refresh its
        evidence count and last_verified_at (a history row says so). Returns the evidence links added.
        Links it ``contradicts`` to the later episodes that contest it (``PatternPlan.contested_by``).
        Nothing (0) when an evidence episode changed since the plan read it (``lock_unchanged``)."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            # Evidence first, then the inference: the order an evidence edit locks them in.
            if not await self._evidence_unchanged(conn, scope, plan):
                return 0
            row = await fetch_one(
                conn,
                """SELECT id FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s
                   AND status = 'active' FOR UPDATE""",
                (plan.memory_id, scope.tenant_id, scope.agent_id),
            )
            if row is None:
                return 0
            for episode in plan.contested_by:  # taken back since: recall flags both possible_conflict
                await relate_if_new(conn, scope.tenant_id, plan.memory_id, episode, "contradicts", CONTESTED)
            added = await self._link_evidence(conn, scope, plan)
            if added == 0:
                return 0
            total = await fetch_one(
                conn,
                """SELECT count(*) AS n FROM memory_relations
                   WHERE from_id = %s AND tenant_id = %s AND kind = 'related'""",
                (plan.memory_id, scope.tenant_id),
            )
            episodes = int(total["n"]) if total else added
            await conn.execute(
                """UPDATE memories
                   SET metadata = jsonb_set(metadata, ARRAY[%(k)s, 'episodes'], to_jsonb(%(n)s::int), true),
                       last_verified_at = %(now)s, updated_at = %(now)s
                   WHERE id = %(id)s AND tenant_id = %(t)s""",
                {
                    "k": PATTERN_METADATA_KEY,
                    "n": episodes,
                    "now": now,
                    "id": plan.memory_id,
                    "t": scope.tenant_id,
                },
            )
            await record_history(
                conn,
                scope.tenant_id,
                MAINTENANCE_ACTOR,
                HistoryRow(
                    plan.memory_id,
                    "updated",
                    f"{added} more episodes support this {plan.kind}",
                    {"episodes": {"from": episodes - added, "to": episodes}},
                ),
                at=now,
            )
        return added

    async def reinstate_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> bool:
        """An inferred memory an edit of its evidence withdrew (archived, metadata ``WITHDRAWN_AT``), active
        again from ``plan`` — enough episodes state it again: its text, count and span from the plan (the
        mark gone), the plan's evidence linked, facts it contradicts linked as when it was created, a
        history row ``restored``. False, nothing changed, when it is not so withdrawn (archived by the user
        or by decay: left alone)."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            row = await fetch_one(
                conn,
                """SELECT content, embedding::text AS e FROM memories
                   WHERE id = %s AND tenant_id = %s AND agent_id = %s AND status = 'archived'
                     AND metadata -> %s ? %s
                   FOR UPDATE""",
                (plan.memory_id, scope.tenant_id, scope.agent_id, PATTERN_METADATA_KEY, WITHDRAWN_AT),
            )
            if row is None:
                return False
            await conn.execute(
                """UPDATE memories SET status = 'active', content = %(content)s, content_hash = %(hash)s,
                          metadata = %(metadata)s, last_verified_at = %(now)s, updated_at = %(now)s
                   WHERE id = %(id)s AND tenant_id = %(t)s""",
                {
                    "content": plan.content,
                    "hash": content_hash(plan.content),
                    "metadata": Jsonb(plan.metadata),
                    "now": now,
                    "id": plan.memory_id,
                    "t": scope.tenant_id,
                },
            )
            await _flag_contradicted_facts(conn, scope, plan, row["e"])
            await self._link_evidence(conn, scope, plan)
            changes: dict[str, Any] = status_change("archived", "active")
            if plan.content != row["content"]:
                changes["content"] = {"from": row["content"], "to": plan.content}
            why = f"{len(plan.evidence_ids)} episodes state this {plan.kind} again"
            await record_history(
                conn,
                scope.tenant_id,
                MAINTENANCE_ACTOR,
                HistoryRow(plan.memory_id, "restored", why, changes),
                at=now,
            )
        return True

    @staticmethod
    async def _evidence_unchanged(conn: AsyncConnection, scope: Scope, plan: PatternPlan) -> bool:
        return await lock_unchanged(
            conn, scope, plan.evidence_ids, plan.evidence_versions, ("active", "archived")
        )

    @staticmethod
    async def _link_evidence(conn: Any, scope: Scope, plan: PatternPlan) -> int:
        cur = await conn.execute(
            """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
               SELECT %(t)s, %(id)s, m.id, 'related', %(reason)s FROM memories m
               WHERE m.id = ANY(%(evidence)s) AND m.tenant_id = %(t)s AND m.agent_id = %(a)s
               ON CONFLICT (from_id, to_id, kind) DO NOTHING""",
            {
                "t": scope.tenant_id,
                "a": scope.agent_id,
                "id": plan.memory_id,
                "evidence": list(plan.evidence_ids),
                "reason": f"evidence of an inferred {plan.kind}",
            },
        )
        return int(cur.rowcount)

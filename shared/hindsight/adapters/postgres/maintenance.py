"""The MaintenanceStore port on Postgres: the cycle's lease and resume point, scope enumeration, decay
and archive as one set-based statement per batch, consolidation and inferred-pattern writes.

Every statement that touches memories runs in a ``tenant_transaction`` of one tenant and names the
tenant and agent in its WHERE clause; every change writes its ``memory_history`` rows (actor
``maintenance``) in the same transaction. Only two statements cross tenants: listing the scopes to
visit (through ``hindsight_scopes``, schema 004), and the ``maintenance_state`` row (schema 003), which
belongs to no tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_all, fetch_one, tenant_transaction, vector_literal
from hindsight.domain.maintenance import (
    MAINTENANCE_ACTOR,
    PATTERN_CONTENT_CHARS,
    PATTERN_METADATA_KEY,
    SUMMARY_METADATA_KEY,
    ConsolidationPlan,
    DecayCounts,
    DecayPolicy,
    Episode,
    MaintenanceState,
    PatternPlan,
)
from hindsight.domain.memory import MemoryStatus, Scope, content_hash
from hindsight.ports import Vector

_STATE_COLUMNS = "step, cursor_tenant_id, cursor_agent_id, position, cycle_started_at, changed_since"

# The decay rule of hindsight.domain.maintenance.decay_step, in SQL: one statement per batch selects the
# due rows (locking them, skipping rows another transaction holds), applies the step, archives what went
# under the cold threshold and writes both history rows. The anchor is the latest of created_at,
# last_accessed_at, updated_at and decayed_at (greatest() ignores NULLs).
_DECAY = """
WITH due AS (
    SELECT m.id, m.importance AS before, d.after
    FROM memories m
    CROSS JOIN LATERAL (
        SELECT m.importance * power(
            0.5::float8,
            greatest(0, extract(epoch FROM %(now)s::timestamptz - greatest(
                m.created_at, m.last_accessed_at, m.updated_at, m.decayed_at)))
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

_EPISODE_COLUMNS = """id, key, task_id, task_type, outcome, lessons, tags, importance, source, status,
                      coalesce(occurred_at, created_at) AS event_time"""


def _floats(value: Any) -> list[float]:
    """A vector column as floats: pgvector's ``Vector`` (``to_list``), a numpy array or a sequence."""
    if hasattr(value, "to_list"):
        return [float(x) for x in value.to_list()]
    if hasattr(value, "tolist"):
        return [float(x) for x in value.tolist()]
    return [float(x) for x in value]


def _episode(row: dict[str, Any], with_embedding: bool) -> Episode:
    embedding = row.get("embedding") if with_embedding else None
    return Episode(
        id=row["id"],
        content=row["content"],
        event_time=row["event_time"],
        importance=float(row["importance"]),
        source=row["source"],
        status=row["status"],
        key=row["key"],
        task_id=row["task_id"],
        task_type=row["task_type"],
        outcome=row["outcome"],
        lessons=row["lessons"],
        tags=tuple(row["tags"] or ()),
        embedding=_floats(embedding) if embedding is not None else (),
    )


class PostgresMaintenanceStore:
    """The MaintenanceStore port."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    # ---- the cycle's lease and resume point ------------------------------------------------------

    async def acquire(self, name: str, owner: str, lease: timedelta) -> MaintenanceState | None:
        """Take the lease of cycle ``name`` for ``lease`` (database clock) unless another owner holds an
        unexpired one; returns the saved state, or None when the lease is held elsewhere."""
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO maintenance_state (name) VALUES (%s) ON CONFLICT (name) DO NOTHING", (name,)
            )
            row = await fetch_one(
                conn,
                f"""UPDATE maintenance_state
                    SET lease_owner = %(owner)s, lease_until = now() + %(lease)s, updated_at = now()
                    WHERE name = %(name)s
                      AND (lease_owner IS NULL OR lease_owner = %(owner)s OR lease_until < now())
                    RETURNING {_STATE_COLUMNS}""",
                {"name": name, "owner": owner, "lease": lease},
            )
        if row is None:
            return None
        cursor = (
            Scope(tenant_id=row["cursor_tenant_id"], agent_id=row["cursor_agent_id"])
            if row["cursor_tenant_id"] is not None and row["cursor_agent_id"] is not None
            else None
        )
        return MaintenanceState(
            step=row["step"],
            cursor=cursor,
            position=row["position"],
            cycle_started_at=row["cycle_started_at"],
            changed_since=row["changed_since"],
        )

    async def save(self, name: str, owner: str, state: MaintenanceState, lease: timedelta) -> bool:
        """Persist ``state`` and extend the lease; False when ``owner`` no longer holds it."""
        async with self._pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                """UPDATE maintenance_state
                   SET step = %(step)s, cursor_tenant_id = %(ct)s, cursor_agent_id = %(ca)s,
                       position = %(position)s, cycle_started_at = %(started)s, changed_since = %(since)s,
                       lease_until = now() + %(lease)s, updated_at = now()
                   WHERE name = %(name)s AND lease_owner = %(owner)s""",
                {
                    "name": name,
                    "owner": owner,
                    "step": state.step,
                    "ct": state.cursor.tenant_id if state.cursor else None,
                    "ca": state.cursor.agent_id if state.cursor else None,
                    "position": state.position,
                    "started": state.cycle_started_at,
                    "since": state.changed_since,
                    "lease": lease,
                },
            )
            return cur.rowcount == 1

    async def release(self, name: str, owner: str) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                """UPDATE maintenance_state SET lease_owner = NULL, lease_until = NULL, updated_at = now()
                   WHERE name = %s AND lease_owner = %s""",
                (name, owner),
            )

    # ---- scopes --------------------------------------------------------------------------------

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

    # ---- decay ---------------------------------------------------------------------------------

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

    # ---- consolidation -------------------------------------------------------------------------

    async def consolidation_candidates(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active episodic memories of the scope with event time ≥ ``since`` that are not summaries,
        most recent first, at most ``limit``, with their embeddings."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                f"""SELECT {_EPISODE_COLUMNS}, content, embedding FROM memories
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
        return [_episode(r, with_embedding=True) for r in rows]

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

    # ---- episodic → semantic -------------------------------------------------------------------

    async def pattern_evidence(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        """Active and archived episodic memories of the scope with event time ≥ ``since`` that are not
        summaries, most recent first, at most ``limit``; content cut to ``PATTERN_CONTENT_CHARS``."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                f"""SELECT {_EPISODE_COLUMNS}, left(content, %(chars)s) AS content FROM memories
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
        return [_episode(r, with_embedding=False) for r in rows]

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
        evidence that still exists and its history, in one transaction. False if the id exists."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            cur = await conn.execute(
                """INSERT INTO memories (id, tenant_id, agent_id, layer, key, query, content, content_hash,
                                         importance, created_at, updated_at, metadata, embedding, source,
                                         last_verified_at, valid_from, decayed_at)
                   VALUES (%(id)s, %(t)s, %(a)s, 'semantic', %(key)s, %(query)s, %(content)s, %(hash)s,
                           %(importance)s, %(now)s, %(now)s, %(metadata)s, %(e)s::vector, 'agent_inferred',
                           %(now)s, %(now)s, %(now)s)
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
                },
            )
            if cur.rowcount != 1:
                return False
            linked = await self._link_evidence(conn, scope, plan)
            await conn.execute(
                """INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
                   VALUES (%s, %s, 'created', %s, %s, %s, %s)""",
                (
                    plan.memory_id,
                    scope.tenant_id,
                    f"inferred from {linked} episodes ({plan.kind})",
                    Jsonb({"evidence": [str(i) for i in plan.evidence_ids]}),
                    MAINTENANCE_ACTOR,
                    now,
                ),
            )
        return True

    async def extend_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> int:
        """Link new evidence to an existing *active* inferred memory; when there is any, refresh its
        evidence count and last_verified_at (a history row says so). Returns the links added."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            row = await fetch_one(
                conn,
                """SELECT id FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s
                   AND status = 'active' FOR UPDATE""",
                (plan.memory_id, scope.tenant_id, scope.agent_id),
            )
            if row is None:
                return 0
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
            await conn.execute(
                """INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
                   VALUES (%s, %s, 'updated', %s, %s, %s, %s)""",
                (
                    plan.memory_id,
                    scope.tenant_id,
                    f"{added} more episodes support this {plan.kind}",
                    Jsonb({"episodes": {"from": episodes - added, "to": episodes}}),
                    MAINTENANCE_ACTOR,
                    now,
                ),
            )
        return added

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

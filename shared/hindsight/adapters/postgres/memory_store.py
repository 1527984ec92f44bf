"""MemoryStore over Postgres + pgvector: hybrid candidate retrieval and idempotent, deduplicating writes."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.domain.memory import Candidate, Scope, SearchRequest, StoredMemory, StoreResult, WriteJob
from hindsight.domain.text import or_tsquery
from hindsight.ports import Vector

log = logging.getLogger(__name__)

MEMORY_COLUMNS = sql.SQL(
    "m.id, m.tenant_id, m.agent_id, m.layer, m.key, m.query, m.content, m.importance, m.access_count, "
    "m.last_accessed_at, m.created_at, m.occurred_at, m.metadata, m.status"
)
_MEMORY_FIELDS = set(StoredMemory.model_fields)


def memory_from_row(row: dict[str, Any]) -> StoredMemory:
    """A StoredMemory from a dict row holding at least MEMORY_COLUMNS."""
    return StoredMemory.model_validate({k: v for k, v in row.items() if k in _MEMORY_FIELDS})


def _filters(scope: Scope, request: SearchRequest) -> tuple[sql.Composable, dict[str, Any]]:
    """The WHERE clause every signal shares: only the filters present, so plans stay specific."""
    clauses = [
        sql.SQL("tenant_id = %(tenant)s"),
        sql.SQL("agent_id = %(agent)s"),
        sql.SQL("status = 'active'"),
    ]
    params: dict[str, Any] = {"tenant": scope.tenant_id, "agent": scope.agent_id}
    if request.key is not None:
        clauses.append(sql.SQL("key = %(key)s"))
        params["key"] = request.key
    if request.min_importance > 0:
        clauses.append(sql.SQL("importance >= %(min_importance)s"))
        params["min_importance"] = request.min_importance
    return sql.SQL(" AND ").join(clauses), params


class PostgresMemoryStore:
    """The MemoryStore port. Every statement carries the tenant in its WHERE clause."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    # ---- read path -----------------------------------------------------------------------------

    async def search_candidates(
        self, scope: Scope, request: SearchRequest, embedding: Vector, pool: int
    ) -> list[Candidate]:
        where, params = _filters(scope, request)
        params |= {"embedding": _vector_literal(embedding), "pool": pool, "tsquery": or_tsquery(request.text)}
        keyword_cte = (
            sql.SQL(
                """, kw AS (
                    SELECT id, ts_rank_cd(search_text, q) AS score
                    FROM memories, to_tsquery('english', %(tsquery)s) AS q
                    WHERE {where} AND search_text @@ q
                    ORDER BY score DESC
                    LIMIT %(pool)s)"""
            ).format(where=where)
            if params["tsquery"]
            else sql.SQL(", kw AS (SELECT NULL::uuid AS id, NULL::real AS score WHERE false)")
        )
        query = sql.SQL(
            """WITH vec AS (
                   SELECT id, 1 - (embedding <=> %(embedding)s::vector) AS similarity
                   FROM memories
                   WHERE {where}
                   ORDER BY embedding <=> %(embedding)s::vector
                   LIMIT %(pool)s){keyword_cte}
               SELECT {columns}, vec.similarity, kw.score AS keyword_score
               FROM (SELECT id FROM vec UNION SELECT id FROM kw) AS ids
               JOIN memories m ON m.id = ids.id
               LEFT JOIN vec ON vec.id = m.id
               LEFT JOIN kw ON kw.id = m.id"""
        ).format(where=where, keyword_cte=keyword_cte, columns=MEMORY_COLUMNS)
        async with self._pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            await cur.execute(query, params)
            rows = await cur.fetchall()
        return _ranked_candidates(rows)

    async def write_results(self, tenant_id: str, job_ids: Sequence[UUID]) -> dict[UUID, StoreResult]:
        if not job_ids:
            return {}
        async with self._pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            await cur.execute(
                """SELECT job_id, outcome, memory_id, reason FROM write_results
                   WHERE tenant_id = %s AND job_id = ANY(%s)""",
                (tenant_id, list(job_ids)),
            )
            rows = await cur.fetchall()
        return {
            r["job_id"]: StoreResult(
                job_id=r["job_id"], outcome=r["outcome"], memory_id=r["memory_id"], reason=r["reason"]
            )
            for r in rows
        }

    # ---- write path ----------------------------------------------------------------------------

    async def store(
        self, jobs: Sequence[WriteJob], embeddings: Sequence[Vector], dedup_cosine: float
    ) -> list[StoreResult]:
        """Store a batch: one transaction per tenant; if that fails, each job alone to isolate the bad one.

        Jobs that fail are returned with outcome ``failed`` and are *not* recorded, so the queue
        redelivers them (a database outage must not turn into lost writes).
        """
        if len(jobs) != len(embeddings):
            raise ValueError("one embedding per job")
        results: dict[UUID, StoreResult] = {}
        by_tenant: dict[str, list[tuple[WriteJob, Vector]]] = defaultdict(list)
        for job, emb in zip(jobs, embeddings, strict=True):
            by_tenant[job.tenant_id].append((job, emb))
        for items in by_tenant.values():
            try:
                async with self._pool.connection() as conn, conn.transaction():
                    for job, emb in items:
                        results[job.id] = await _store_one(conn, job, emb, dedup_cosine)
            except Exception as batch_exc:
                log.warning("batch store failed (%s); retrying its %d jobs one by one", batch_exc, len(items))
                for job, emb in items:
                    try:
                        async with self._pool.connection() as conn, conn.transaction():
                            results[job.id] = await _store_one(conn, job, emb, dedup_cosine)
                    except Exception as exc:
                        results[job.id] = StoreResult(
                            job_id=job.id, outcome="failed", reason=f"{type(exc).__name__}: {exc}"
                        )
        return [results[job.id] for job in jobs]


def _vector_literal(embedding: Vector) -> str:
    """pgvector's text form; cheaper to send than a list adapter for a single query vector."""
    return "[" + ",".join(f"{x:.7g}" for x in embedding) + "]"


def _ranked_candidates(rows: list[dict[str, Any]]) -> list[Candidate]:
    by_vector = sorted((r for r in rows if r["similarity"] is not None), key=lambda r: -r["similarity"])
    by_keyword = sorted(
        (r for r in rows if r["keyword_score"] is not None), key=lambda r: -r["keyword_score"]
    )
    vector_rank = {r["id"]: i for i, r in enumerate(by_vector, start=1)}
    keyword_rank = {r["id"]: i for i, r in enumerate(by_keyword, start=1)}
    return [
        Candidate(
            memory=memory_from_row(r),
            vector_rank=vector_rank.get(r["id"]),
            vector_similarity=float(r["similarity"]) if r["similarity"] is not None else None,
            keyword_rank=keyword_rank.get(r["id"]),
            keyword_score=float(r["keyword_score"]) if r["keyword_score"] is not None else None,
        )
        for r in rows
    ]


async def _store_one(
    conn: AsyncConnection, job: WriteJob, embedding: Vector, dedup_cosine: float
) -> StoreResult:
    """Insert one job's memory, or merge it into an active near-duplicate in the same scope and key."""
    draft = job.draft
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(
        "SELECT outcome, memory_id, reason FROM write_results WHERE job_id = %s AND tenant_id = %s",
        (job.id, job.tenant_id),
    )
    done = await cur.fetchone()
    if done is not None:  # redelivery of a job already processed: a no-op
        return StoreResult(
            job_id=job.id, outcome=done["outcome"], memory_id=done["memory_id"], reason=done["reason"]
        )
    # Serialise writers of one (tenant, agent, key) so two near-duplicates cannot both be inserted.
    await cur.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
        (f"{job.tenant_id}\x1f{job.agent_id}\x1f{draft.key or ''}",),
    )
    vector = _vector_literal(embedding)
    # Episodic memories are events: the same words at another time are another event, not a duplicate
    # (repeated events are consolidated later by maintenance).
    await cur.execute(
        """SELECT id, 1 - (embedding <=> %(e)s::vector) AS similarity
           FROM memories
           WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = %(layer)s
             AND key IS NOT DISTINCT FROM %(key)s AND status = 'active'
             AND (layer = 'semantic' OR occurred_at IS NOT DISTINCT FROM %(occurred_at)s)
           ORDER BY embedding <=> %(e)s::vector
           LIMIT 1""",
        {
            "e": vector,
            "t": job.tenant_id,
            "a": job.agent_id,
            "layer": draft.layer,
            "key": draft.key,
            "occurred_at": draft.occurred_at,
        },
    )
    nearest = await cur.fetchone()
    if nearest is not None and nearest["similarity"] >= dedup_cosine:
        memory_id = nearest["id"]
        await cur.execute(
            """UPDATE memories
               SET importance = GREATEST(importance, %(importance)s),
                   metadata = %(metadata)s || metadata,  -- keys already there win
                   updated_at = now()
               WHERE id = %(id)s AND tenant_id = %(t)s""",
            {
                "importance": draft.importance,
                "metadata": Jsonb(draft.metadata),
                "id": memory_id,
                "t": job.tenant_id,
            },
        )
        outcome = "merged"
    else:
        memory_id = job.id
        await cur.execute(
            """INSERT INTO memories (id, tenant_id, agent_id, layer, key, query, content, content_hash,
                                     importance, created_at, occurred_at, metadata, embedding)
               VALUES (%(id)s, %(t)s, %(a)s, %(layer)s, %(key)s, %(query)s, %(content)s, %(hash)s,
                       %(importance)s, %(created_at)s, %(occurred_at)s, %(metadata)s, %(e)s::vector)
               ON CONFLICT (id) DO NOTHING""",
            {
                "id": job.id,
                "t": job.tenant_id,
                "a": job.agent_id,
                "layer": draft.layer,
                "key": draft.key,
                "query": draft.query,
                "content": draft.content,
                "hash": job.content_hash,
                "importance": draft.importance,
                "created_at": job.submitted_at,
                "occurred_at": draft.occurred_at,
                "metadata": Jsonb(draft.metadata),
                "e": vector,
            },
        )
        outcome = "stored"
    await cur.execute(
        """INSERT INTO write_results (job_id, tenant_id, outcome, memory_id)
           VALUES (%s, %s, %s, %s) ON CONFLICT (job_id) DO NOTHING""",
        (job.id, job.tenant_id, outcome, memory_id),
    )
    return StoreResult(job_id=job.id, outcome=outcome, memory_id=memory_id)

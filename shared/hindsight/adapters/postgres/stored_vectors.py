"""``MemoryWriter.stored_vectors`` on Postgres: the vectors the write path already computed for the exact
text of a write (new-user trial F2: an identical repeat of a 32,000-emoji write spent ~10 minutes in the
model only to end ``merged``).

A memory's vectors are reused only when they are the write path's own for the same texts: the memory was
stored by a write (its ``write_results`` row, job id = memory id, ``stored``), no edit has changed its
content, context or recall hint since (an edit embeds the whole content in one vector), and the caller
checks that its chunk texts are the ones the job's content is cut into now.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from uuid import UUID

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_all, tenant_transaction
from hindsight.domain.memory import WriteJob
from hindsight.ports import StoredVectors

_REPEATS = """SELECT DISTINCT ON (q.n) q.n, m.id, m.embedding::text AS embedding,
          (SELECT coalesce(json_agg(json_build_array(c.content, c.embedding::text) ORDER BY c.chunk_no), '[]')
           FROM memory_chunks c WHERE c.memory_id = m.id AND c.tenant_id = m.tenant_id) AS chunks
   FROM unnest(%(n)s::int[], %(a)s::text[], %(hash)s::text[], %(content)s::text[], %(context)s::text[],
               %(query)s::text[]) AS q(n, a, hash, content, context, query)
   JOIN memories m ON m.tenant_id = %(t)s AND m.agent_id = q.a AND m.content_hash = q.hash
    AND m.content = q.content AND m.context IS NOT DISTINCT FROM q.context
    AND m.query IS NOT DISTINCT FROM q.query
   WHERE EXISTS (SELECT 1 FROM write_results w
                 WHERE w.tenant_id = m.tenant_id AND w.job_id = m.id AND w.outcome = 'stored')
     AND NOT EXISTS (SELECT 1 FROM memory_history h
                     WHERE h.memory_id = m.id AND h.action = 'updated'
                       AND h.changes ?| array['content', 'context', 'query'])
   ORDER BY q.n, m.created_at DESC"""
"""Per job (``n``), the newest memory of its agent with the same content (found by the
``memories_dedup`` index on the content hash), context and recall hint whose vectors are the write
path's: its own vector and its chunks' (text, vector) in order."""


def _vector(text: str) -> list[float]:
    return [float(x) for x in text.strip("[]").split(",")]


async def stored_vectors(pool: AsyncConnectionPool, jobs: Sequence[WriteJob]) -> dict[UUID, StoredVectors]:
    """See ``MemoryWriter.stored_vectors``: one query per tenant."""
    out: dict[UUID, StoredVectors] = {}
    by_tenant: dict[str, list[tuple[int, WriteJob]]] = {}
    for n, job in enumerate(jobs):
        by_tenant.setdefault(job.tenant_id, []).append((n, job))
    for tenant, numbered in by_tenant.items():
        async with tenant_transaction(pool, tenant) as conn:
            rows = await fetch_all(
                conn,
                _REPEATS,
                {
                    "t": tenant,
                    "n": [n for n, _ in numbered],
                    "a": [j.agent_id for _, j in numbered],
                    "hash": [j.content_hash for _, j in numbered],
                    "content": [j.draft.content for _, j in numbered],
                    "context": [j.draft.context for _, j in numbered],
                    "query": [j.draft.query for _, j in numbered],
                },
            )
        for row in rows:
            chunks = row["chunks"] if isinstance(row["chunks"], list) else json.loads(row["chunks"])
            out[jobs[row["n"]].id] = StoredVectors(
                memory_id=row["id"],
                embedding=_vector(row["embedding"]),
                chunks=[(text, _vector(vector)) for text, vector in chunks],
            )
    return out

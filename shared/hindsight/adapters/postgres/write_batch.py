"""The worker's write path for a whole batch of one tenant in one transaction, with set-based statements.

It decides exactly what ``memory_writes._store_one`` would decide job by job, in the batch's order (the
module docstring there has the rules), but reads and writes in bulk: one query finds the jobs already
recorded, one statement takes every writer lock (sorted, so two batches cannot take them in opposite
orders), one query each fetches the near-duplicate, replaced-fact and conflict candidates of every job
against the store as it was before the batch; then the decisions are made in memory, job after job, with
the memories stored earlier in the batch added to the candidates (their similarity computed here), and
the writes go out together: memories, chunks, merges, supersedes, relations, history, write results —
about half the plain new memories in a second transaction beside the batch's (``batch_writes``).

Before the batch writes anything, its transaction reads what any connection reads; the questions about
each job (near-duplicates, conflict candidates) then go half on the batch's connection and half on a
second one the pool has idle, pipelined, so two backends answer them (issue 15: in one profiled run of
the worker's database part, 2000 jobs in batches of 100 at load ~4, the questions took 0.55 of 2.44 ms
per job, on one backend while the other idled). Embeddings go to Postgres in pgvector's binary form
(``vectors``).

Where the batch's own writes would change what a job's query returned — a candidate superseded earlier
in the batch, another fact on the same key stored earlier in the batch — the batch is cut before that
job: what is decided is written, and the queries run again from that job on (the store now holds the
earlier writes). Jobs whose rules read more of the store (``supersedes``, a causal parent, a session's
chain) are stored by ``_store_one`` itself between two such segments.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
from psycopg import AsyncConnection

from hindsight.adapters.postgres.batch_writes import Lane, Writes, write_segment
from hindsight.adapters.postgres.conflicts import (
    LATER_FACT,
    contradicted_past_reason,
    held_from_words_of,
    open_conflict,
    past_over_present,
    past_over_present_part,
    unsure,
)
from hindsight.adapters.postgres.history import HistoryRow, status_change
from hindsight.adapters.postgres.injection_labels import Labelled
from hindsight.adapters.postgres.memory_writes import (
    DEDUP_CANDIDATES,
    KEY_LOCKS,
    PAST_VALUE,
    held,
    insert_params,
    kept_reason,
    lock_key,
    merge_history,
    merge_params,
    merged_values,
    near_duplicate_params,
    near_duplicates,
    order_on_key,
    past_value_reason,
    redated_on_key,
    repeat_of,
    supersedes_reason,
)
from hindsight.adapters.postgres.rows import fetch_all, rows_of, tenant_rows_on
from hindsight.adapters.postgres.vectors import VectorRows, vector_param
from hindsight.domain.contradiction import (
    CONFLICT_CANDIDATES,
    compare_facts,
    conflict_floor,
    gated,
    is_additive,
    order_contradiction,
)
from hindsight.domain.inferred_order import inferred_anchor, undated_past_over_present
from hindsight.domain.memory import OpenConflict, PreparedWrite, StoreResult, WriteJob
from hindsight.domain.repeat import Held
from hindsight.domain.take_back import may_leave_values

_MARGIN = 1e-9
"""How far below a threshold ``_Segment._similar_stored`` still keeps a candidate (a matrix product may
round its last bits differently from the one dot product that decides)."""
StoreOne = Callable[[AsyncConnection, PreparedWrite], Awaitable[StoreResult]]
Reader = Callable[[], AbstractAsyncContextManager[AsyncConnection | None]]
"""Lends a connection the pool has idle (autocommit), or None (``rows.spare_connection``)."""
SPLIT_MIN_JOBS = 8
"""The fewest jobs whose questions to the store (``_Segment._per_job``) are split between the batch's
connection and a second one: the second costs a pool checkout and a round trip (~0.1-0.3 ms), and each
job's questions ~0.2-0.3 ms of server time (the worker's database part, 2000 jobs of 100)."""

_DONE = """SELECT job_id, outcome, memory_id, reason FROM write_results
   WHERE tenant_id = %s AND job_id = ANY(%s)"""
_CLOSE = """WITH q AS MATERIALIZED (
       SELECT q.*, coalesce(q.key, '') AS k, q.key IS NULL AS keyless,
              CASE WHEN q.layer = 'semantic' THEN '-infinity' ELSE q.occ END AS ev,
              CASE WHEN q.layer = 'semantic' THEN '' ELSE q.prec END AS evp
       FROM unnest(%(n)s::int[], %(a)s::text[], %(layer)s::text[], %(key)s::text[],
                   %(e)s::vector[], %(occ)s::timestamptz[], %(prec)s::text[], %(ctx)s::bool[],
                   %(hash)s::text[]) AS q(n, a, layer, key, e, occ, prec, ctx, hash)),
   s AS MATERIALIZED (
       SELECT m.id, m.agent_id, m.layer, coalesce(m.key, '') AS k, m.key IS NULL AS keyless, m.content_hash,
              CASE WHEN m.layer = 'semantic' THEN '-infinity' ELSE m.occurred_at END AS ev,
              CASE WHEN m.layer = 'semantic' THEN ''
                   ELSE coalesce(m.occurred_precision, 'instant') END AS evp,
              m.embedding
       FROM memories m
       WHERE m.tenant_id = %(t)s AND m.status = 'active' AND m.agent_id = ANY(%(a)s::text[])
         AND (m.key = ANY(%(key)s::text[]) OR (m.key IS NULL AND %(keyless)s))
         AND ((m.layer = 'semantic' AND %(semantic)s)
              OR (m.layer = 'episodic' AND m.occurred_at = ANY(%(occ)s::timestamptz[])))),
   ranked AS (
       SELECT q.n, s.id, s.embedding <=> q.e AS d,
              row_number() OVER (PARTITION BY q.n ORDER BY s.embedding <=> q.e, s.id) AS r
       FROM q JOIN s ON s.agent_id = q.a AND s.layer = q.layer AND s.k = q.k AND s.keyless = q.keyless
                    AND s.ev = q.ev AND s.evp = q.evp
       WHERE (NOT q.ctx OR s.content_hash = q.hash) AND 1 - (s.embedding <=> q.e) >= %(min)s)
   SELECT r.n, r.id, m.content, m.source, m.importance, m.entities, m.tags, m.metadata, m.occurred_at,
          m.shared_with,
          1 - r.d AS similarity
   FROM ranked r JOIN memories m ON m.id = r.id AND m.tenant_id = %(t)s
   WHERE r.r <= %(limit)s"""
"""``_store_one``'s near-duplicate query for every job at once, reading the scope once: the active memories
that can be a candidate of some job (``s``) are joined with the jobs on the scope's equalities (agent,
layer, key — ``IS NOT DISTINCT FROM`` written as two equalities a hash join can use —, and for events the
occurred_at and its precision), instead of one index scan of the agent's memories per job. Only
candidates at or above the dedup similarity (``min``) are ranked: a job merges only into one of those,
and the nearest ones at or above it are the same rows as the nearest ones, cut at it (the comparison is
the one ``_decide`` makes, on the same float8). Ties in distance are broken by id. Both CTEs are
materialised so the plan cannot fall back to a scan of the scope per job. On a scope of ``LARGE_SCOPE``
memories or more, ``_close_each`` instead."""
LARGE_SCOPE = 10_000
"""Active memories of the jobs' agents from which ``_CLOSE``'s one pass over the scope gives way to one
index-served query per job (``_close_each``): at 100,000 memories, 36,000 of them the agent's keyless
facts, ``_CLOSE`` took 3.6 s for 100 keyless semantic jobs, one query per job 0.2 s in all; at the
benchmark's 2,000 rows the one pass is the cheaper (``_CONFLICTING`` measured the cross-over below 20,000)."""
_SCOPE = """SELECT count(*) AS n FROM (
       SELECT 1 FROM memories WHERE tenant_id = %s AND agent_id = ANY(%s) AND status = 'active' LIMIT %s
   ) AS s"""
"""How many active memories the jobs' agents have, counted up to ``LARGE_SCOPE`` (the scope index)."""
_ON_KEY = """SELECT q.n, r.id, r.source, r.since, r.status, r.valid_to, r.derived
   FROM unnest(%(n)s::int[], %(a)s::text[], %(key)s::text[], %(since)s::timestamptz[]) AS q(n, a, key, since)
   CROSS JOIN LATERAL (
       SELECT id, source, status, created_at, valid_to, (metadata->>'resumes') IS NOT NULL AS derived,
              coalesce(valid_from, occurred_at, created_at) AS since
       FROM memories
       WHERE tenant_id = %(t)s AND agent_id = q.a AND layer = 'semantic' AND key = q.key
         AND (status = 'active'
              OR ((status = 'superseded' OR (status = 'archived' AND source = 'user_stated'))
                  AND coalesce(valid_to, 'infinity') > q.since))
       ) AS r
   ORDER BY q.n, r.created_at DESC, r.id DESC"""
"""``_facts_to_replace`` (without ``supersedes``) for every keyed semantic job at once: every active fact
on the job's key, newest first — and the past values still valid when the job's value begins
(``memory_writes.PAST_ON_KEY``) and the archived user statements (``ARCHIVED_STATEMENTS``): a job that
meets one is stored by ``_store_one``, which settles it with them."""
_CONFLICTING = """SELECT q.n, c.id, c.content, c.source, c.similarity, c.since
   FROM unnest(%(n)s::int[], %(id)s::uuid[], %(a)s::text[], %(key)s::text[], %(e)s::vector[])
        AS q(n, id, a, key, e)
   CROSS JOIN LATERAL (
       SELECT m.id, m.content, m.source, 1 - (m.embedding <=> q.e) AS similarity,
              coalesce(m.valid_from, m.occurred_at, m.created_at) AS since FROM memories m
       WHERE m.tenant_id = %(t)s AND m.agent_id = q.a AND m.layer = 'semantic' AND m.status = 'active'
         AND m.id <> q.id AND (q.key IS NULL OR m.key IS NULL OR m.key = q.key)
       ORDER BY m.embedding <=> q.e LIMIT %(limit)s) AS c"""
"""``conflicts.check_conflicts``' candidates for every semantic job at once (more than it keeps: the
facts a job's key replaces are left out afterwards). Still one top-k per job, unlike ``_CLOSE``: on a
large scope the planner serves each one from the HNSW index, as it does ``check_conflicts`` itself (at
20,000 memories: 37-53 ms for 50 jobs, against 190-220 ms for one exact scan of the scope)."""
_CONFLICTING_SCOPE = """WITH q AS MATERIALIZED (
       SELECT * FROM unnest(%(n)s::int[], %(id)s::uuid[], %(a)s::text[], %(key)s::text[], %(e)s::vector[])
           AS q(n, id, a, key, e)),
   s AS MATERIALIZED (
       SELECT m.id, m.agent_id, m.key, m.created_at, m.embedding FROM memories m
       WHERE m.tenant_id = %(t)s AND m.agent_id = ANY(%(a)s::text[]) AND m.layer = 'semantic'
         AND m.status = 'active'),
   c AS (
       SELECT q.n, x.id, x.d, x.created_at FROM q CROSS JOIN LATERAL (
           SELECT s.id, s.embedding <=> q.e AS d, s.created_at FROM s
           WHERE s.agent_id = q.a AND s.id <> q.id AND (q.key IS NULL OR s.key IS NULL OR s.key = q.key)
           ORDER BY s.embedding <=> q.e, s.created_at, s.id LIMIT %(limit)s) AS x)
   SELECT c.n, m.id, m.content, m.source, 1 - c.d AS similarity, m.since
   FROM c CROSS JOIN LATERAL (
       SELECT m.id, m.content, m.source, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since
       FROM memories m WHERE m.id = c.id AND m.tenant_id = %(t)s LIMIT 1) AS m
   ORDER BY c.n, c.d, c.created_at, c.id"""
"""``_CONFLICTING`` on a scope of fewer than ``LARGE_SCOPE`` memories: the agents' active semantic memories
are read once (``s``, from the scope index) and each job's nearest are ranked among them in memory,
instead of one scan of the agent's memories per job (the planner served ``_CONFLICTING`` at the
benchmark's sizes by reading every memory of the agent through the timeline index and sorting, per job:
at 2,000 memories 654-901 ms for 50 jobs against 111-175 ms this way, same rows, load ~8). The rows and
their similarity are ``_CONFLICTING``'s (the same ``<=>`` of the same stored vectors); ties in distance
go to the memory written first (then by id): the order ``_nearest`` gives the memories stored earlier in
the batch, which it puts after the store's at equal similarity, so a batch and its jobs stored one by one
keep the same candidates (the hash embedder ties often). The kept candidates' rows are then read by
primary key, one each (the ``LATERAL … LIMIT 1`` keeps the planner from making it a join): as a plain
join it was planned, on a table without statistics yet (autovacuum's first ANALYZE comes a minute after a
store's first writes), as a scan of every memory of the tenant per statement (worker's database part,
2,000 jobs in batches of 100: ~1,800 rows by its end)."""


def needs_own_path(job: WriteJob) -> bool:
    """Jobs whose rules read more of the store than the batch's queries do: stored by ``_store_one``."""
    d = job.draft
    return d.supersedes is not None or d.causal_parent is not None or job.session_seq is not None


async def store_batch(
    conn: AsyncConnection,
    items: Sequence[PreparedWrite],
    dedup_cosine: float,
    conflict_cosine: float,
    store_one: StoreOne,
    lane: Lane | None = None,
    reader: Reader | None = None,
    ahead: Labelled | None = None,
) -> list[StoreResult]:
    """Store ``items`` (one tenant) in the caller's transaction — a share of the plain new memories in a
    second transaction opened by ``lane``, when given (``batch_writes``); one result per item, in order.
    ``reader``, when given, lends a second connection that asks the store about half the jobs of the
    first segment beside the batch's (``_Segment._query``). ``ahead``: injection labels computed before the
    transaction (``injection_labels.labels_ahead``), taken by each insert whose text they were computed
    for. Raises whatever a statement raises (the caller
    then stores the jobs one by one to isolate the bad one)."""
    tenant = items[0].job.tenant_id
    rows = await fetch_all(conn, _DONE, (tenant, [i.job.id for i in items]))
    done = {r["job_id"]: (r["outcome"], r["memory_id"], r["reason"]) for r in rows}
    keys = sorted({lock_key(i.job) for i in items if i.job.id not in done and i.skip is None})
    if keys:
        await conn.execute(KEY_LOCKS, (keys,))
    results: list[StoreResult | None] = [None] * len(items)
    start = 0
    while start < len(items):
        # Until the first segment's writes, this transaction has written nothing: what it reads, a
        # statement on another connection reads too (both see what is committed when each statement
        # starts, and the key locks taken above hold the same either way), so its questions can go in
        # two halves to two backends. From then on, only this transaction sees its own writes.
        beside = reader if start == 0 else None
        segment = _Segment(
            conn, lane, tenant, items, dedup_cosine, conflict_cosine, done, results, beside, ahead
        )
        end = await segment.run(start)
        await segment.flush()
        if end < len(items) and (end == start or needs_own_path(items[end].job)):
            item = items[end]
            if item.job.id in done:
                results[end] = _answer(item.job.id, done[item.job.id])
            else:
                result = await store_one(conn, item)
                results[end] = result
                done[item.job.id] = (result.outcome, result.memory_id, result.reason)
            end += 1
        start = end
    return [r for r in results if r is not None]


def _answer(job_id: UUID, row: tuple[str, UUID | None, str | None]) -> StoreResult:
    outcome, memory_id, reason = row
    refused = outcome == "failed"  # a recorded failure is a refusal (``PostgresMemoryWriter._failed``)
    return StoreResult(job_id=job_id, outcome=outcome, memory_id=memory_id, reason=reason, refused=refused)  # type: ignore[arg-type]


@dataclass
class _Stored:
    """A memory stored earlier in the segment, as the later jobs' queries would have seen it."""

    id: UUID
    index: int
    job: WriteJob
    active: bool = True


class _Restart(Exception):
    """The batch's own writes would change this job's candidates: cut the segment before it."""


class _Segment:
    """Jobs ``start..`` up to the first one that needs its own path or a fresh look at the store."""

    def __init__(
        self,
        conn: AsyncConnection,
        lane: Lane | None,
        tenant: str,
        items: Sequence[PreparedWrite],
        dedup_cosine: float,
        conflict_cosine: float,
        done: dict[UUID, tuple[str, UUID | None, str | None]],
        results: list[StoreResult | None],
        reader: Reader | None = None,
        ahead: Labelled | None = None,
    ) -> None:
        self._conn, self._lane, self._tenant, self._items = conn, lane, tenant, items
        self._ahead = ahead  # injection labels computed before the transaction (``store_batch``)
        self._reader = reader  # a second connection for half the jobs' questions (``_query``)
        self._dedup, self._conflict = dedup_cosine, conflict_cosine
        self._done, self._results = done, results
        self._writes = Writes()
        self._stored: list[_Stored] = []
        self._stored_keys: set[tuple[str, str]] = set()  # (agent, key) of the semantic facts in _stored
        self._touched: set[UUID] = set()  # memories whose status this segment changed
        self._held: dict[UUID, Held] = {}  # what memories merged into in this segment now hold
        self._merged: dict[UUID, dict[str, Any]] = {}  # and their importance and source (merged_values)
        self._close: dict[int, list[dict[str, Any]]] = {}
        self._on_key: dict[int, list[dict[str, Any]]] = {}
        self._conflicting: dict[int, list[dict[str, Any]]] = {}
        self._unit: dict[int, Any] = {}
        self._vectors: dict[int, Any] = {}  # each job's embedding as a binary parameter (``vector_param``)
        self._hashes: dict[int, str] = {}  # each job's content hash, computed once
        # the unit vectors of ``_stored``, row k for ``_stored[k]`` (allocated by ``_query``)
        self._stored_units: Any = None
        # (job index, how many stored, their similarities to it): one product for both of its floors
        self._sims: tuple[int, int, Any] = (-1, 0, None)

    async def run(self, start: int) -> int:
        """Decide jobs from ``start``; the index where the segment ends (``len(items)``: all decided)."""
        end = start
        while end < len(self._items) and not needs_own_path(self._items[end].job):
            end += 1
        await self._query(range(start, end))
        for index in range(start, end):
            item = self._items[index]
            if item.job.id in self._done:
                self._results[index] = _answer(item.job.id, self._done[item.job.id])
                continue
            try:
                result = self._decide(index, item)
            except _Restart:
                return index
            self._results[index] = result
            self._done[item.job.id] = (result.outcome, result.memory_id, result.reason)
        return end

    async def _query(self, indexes: range) -> None:
        todo = [i for i in indexes if self._items[i].job.id not in self._done and self._items[i].skip is None]
        if not todo:
            return
        jobs = {i: self._items[i].job for i in todo}
        vectors = self._vectors
        for i in todo:
            vectors[i] = vector_param(self._items[i].embedding)
        for i in todo:
            v = np.asarray(self._items[i].embedding, dtype=np.float64)
            norm = float(np.linalg.norm(v))
            self._unit[i] = v / norm if norm else v
            self._hashes[i] = jobs[i].content_hash
        self._stored_units = np.empty((len(indexes), len(self._unit[todo[0]])))
        agents = sorted({jobs[i].agent_id for i in todo})
        keyed = [i for i in todo if jobs[i].draft.layer == "semantic" and jobs[i].draft.key is not None]
        first: list[tuple[str, Any]] = [(_SCOPE, (self._tenant, agents, LARGE_SCOPE))]
        if keyed:
            first.append(
                (
                    _ON_KEY,
                    {
                        "t": self._tenant,
                        "n": keyed,
                        "a": [jobs[i].agent_id for i in keyed],
                        "key": [jobs[i].draft.key for i in keyed],
                        "since": [jobs[i].valid_since for i in keyed],
                    },
                )
            )
        scope, *on_key = await rows_of(self._conn, first)
        for rows in on_key:
            for r in rows:
                self._on_key.setdefault(r["n"], []).append(r)
        large = scope[0]["n"] >= LARGE_SCOPE
        # the facts a job's key replaces are left out of its conflict candidates afterwards: as many more
        # as the most held
        limit = CONFLICT_CANDIDATES + max((len(h) for h in self._on_key.values()), default=1)
        if self._reader is None or len(todo) < SPLIT_MIN_JOBS:
            parts = [await rows_of(self._conn, self._per_job(todo, jobs, large, limit))]
        else:
            half = (len(todo) + 1) // 2
            async with self._reader() as other:
                if other is None:  # no connection idle: this transaction asks for every job
                    parts = [await rows_of(self._conn, self._per_job(todo, jobs, large, limit))]
                else:
                    # both finish before the connection goes back to the pool, whichever fails
                    answers = await asyncio.gather(
                        rows_of(self._conn, self._per_job(todo[:half], jobs, large, limit)),
                        tenant_rows_on(other, self._tenant, self._per_job(todo[half:], jobs, large, limit)),
                        return_exceptions=True,
                    )
                    for answer in answers:
                        if isinstance(answer, BaseException):
                            raise answer
                    parts = [a for a in answers if not isinstance(a, BaseException)]
        for close, *conflicting in parts:
            for r in close:
                self._close.setdefault(r["n"], []).append(r)
            for rows in conflicting:
                for r in rows:
                    self._conflicting.setdefault(r["n"], []).append(r)

    def _per_job(
        self, todo: list[int], jobs: dict[int, WriteJob], large: bool, limit: int
    ) -> list[tuple[str, Any]]:
        """The statements that ask the store about each job of ``todo``, each job's rows its own (so the
        jobs can be asked in parts): its near-duplicates (``_CLOSE``, or ``_close_each`` on a ``large``
        scope), then, when some are semantic, their conflict candidates (``_CONFLICTING_SCOPE``, or
        ``_CONFLICTING`` on a ``large`` scope; ``limit`` each)."""
        vectors = self._vectors
        if large:
            statements = [self._close_each(todo, jobs)]
        else:
            spans = {i: jobs[i].draft.event_span for i in todo}
            statements = [
                (
                    _CLOSE,
                    {
                        "t": self._tenant,
                        "limit": DEDUP_CANDIDATES,
                        "n": todo,
                        "a": [jobs[i].agent_id for i in todo],
                        "layer": [jobs[i].draft.layer for i in todo],
                        "key": [jobs[i].draft.key for i in todo],
                        "e": VectorRows.of([vectors[i] for i in todo]),
                        "occ": [jobs[i].draft.event_at for i in todo],
                        "prec": [s.precision if (s := spans[i]) else None for i in todo],
                        "ctx": [jobs[i].draft.context is not None for i in todo],
                        "hash": [self._hashes[i] for i in todo],
                        "keyless": any(jobs[i].draft.key is None for i in todo),
                        "semantic": any(jobs[i].draft.layer == "semantic" for i in todo),
                        "min": self._dedup,
                    },
                )
            ]
        semantic = [i for i in todo if jobs[i].draft.layer == "semantic"]
        if semantic:
            statements.append(
                (
                    _CONFLICTING if large else _CONFLICTING_SCOPE,
                    {
                        "t": self._tenant,
                        "limit": limit,
                        "n": semantic,
                        "id": [jobs[i].id for i in semantic],
                        "a": [jobs[i].agent_id for i in semantic],
                        "key": [jobs[i].draft.key for i in semantic],
                        "e": VectorRows.of([vectors[i] for i in semantic]),
                    },
                )
            )
        return statements

    def _close_each(self, todo: list[int], jobs: dict[int, WriteJob]) -> tuple[str, dict[str, Any]]:
        """``_CLOSE`` on a large scope (the statement and its parameters): ``_store_one``'s own
        near-duplicate query for every job, in one statement (the copies joined by UNION ALL, each with its
        own parameters, so the planner sees every job's values and serves each from the HNSW index, or
        from the key's index when the scope is small), cut at the dedup similarity as ``_CLOSE`` cuts."""
        each = " UNION ALL ".join(
            f"(SELECT {i} AS n, c.* FROM ({near_duplicates(str(i))}) AS c)" for i in todo
        )
        params: dict[str, Any] = {"t": self._tenant, "candidates": DEDUP_CANDIDATES, "min": self._dedup}
        for i in todo:
            params |= near_duplicate_params(jobs[i], self._vectors[i], str(i))
        return f"SELECT * FROM ({each}) AS c WHERE similarity >= %(min)s", params

    def _similarity(self, a: int, b: int) -> float:
        return float(self._unit[a] @ self._unit[b])

    def _similar_stored(self, index: int, floor: float) -> list[_Stored]:
        """The memories stored earlier in the segment whose similarity to job ``index`` may reach
        ``floor``, in ``_stored``'s order: one matrix-vector product over them all, made once for both of
        the job's floors (near-duplicate, conflict) while no memory is added (the exact value of
        each is ``_similarity``'s, computed by the caller; the margin keeps any whose product rounds
        differently). Candidates below a threshold are never taken, so the others need no look."""
        if not self._stored:
            return []
        count = len(self._stored)
        if self._sims[:2] != (index, count):
            self._sims = (index, count, self._stored_units[:count] @ self._unit[index])
        sims = self._sims[2]
        return [self._stored[k] for k in np.flatnonzero(sims >= floor - _MARGIN)]

    def _record(self, job: WriteJob, outcome: str, memory_id: UUID, reason: str | None = None) -> StoreResult:
        self._writes.results.append((job.id, job.agent_id, outcome, memory_id, reason))
        return StoreResult(job_id=job.id, outcome=outcome, memory_id=memory_id, reason=reason)  # type: ignore[arg-type]

    def _decide(self, index: int, item: PreparedWrite) -> StoreResult:
        job, draft = item.job, item.job.draft
        if item.skip is not None:
            return self._record(job, "skipped", job.id, item.skip)
        nearest, absorbed, not_merged = repeat_of(draft, self._close_candidates(index, job), self._dedup)
        if nearest is not None and absorbed is not None:
            target = nearest["id"]
            self._writes.merges.append(merge_params(job, target, absorbed))
            self._writes.history.append(merge_history(job, nearest, absorbed))
            self._writes.adopt.append((job.id, target))
            # a later repeat in the batch sees the memory as this merge leaves it
            self._held[target] = absorbed.after(held(nearest))
            self._merged[target] = merged_values(nearest, draft)
            return self._record(job, "merged", target, absorbed.reason(target))

        replaced = self._facts_to_replace(index, job)
        if redated_on_key(job, replaced)[1] is not None:
            raise _Restart  # its inferred date yields to when it was said: ``_store_one`` re-dates it
        # the fact this write is a past value of: the one on its key, or a later contradicting fact
        holder: dict[str, Any] | None = None
        kept: list[dict[str, Any]] = []
        additive = is_additive(draft.content)
        if replaced and not additive:
            replaced, kept, holder = order_on_key(job, replaced)
        semantic = draft.layer == "semantic" and holder is None  # a past value is not compared: not current
        conflicts = self._conflict_candidates(index, job, replaced + kept, additive) if semantic else []
        if conflicts and inferred_anchor(draft) is not None:
            close = [r for r in conflicts if r["similarity"] >= self._conflict]
            judged = [(r, compare_facts(draft.content, r["content"])) for r in close]
            if held_from_words_of(job, judged) is not None:
                raise _Restart  # its inferred date yields to when it was said: ``_store_one`` re-dates it
        # Every check has passed: from here on the job's writes are decided.
        vector, content_hash = self._vectors[index], self._hashes[index]
        self._writes.inserts.append(insert_params(job, vector, content_hash, self._ahead))
        for number, (text, chunk_embedding) in enumerate(item.chunks, start=1):
            self._writes.chunks.append(
                (job.id, number, self._tenant, job.agent_id, text, vector_param(chunk_embedding))
            )
        self._stored_units[len(self._stored)] = self._unit[index]
        self._stored.append(_Stored(job.id, index, job))
        if draft.layer == "semantic" and draft.key is not None:
            self._stored_keys.add((job.agent_id, draft.key))
        reason = None
        if replaced and additive:
            newest = replaced[0]["id"]
            self._writes.relations.append(
                (self._tenant, job.id, newest, "related", "adds to the fact on the same key")
            )
            reason = f"adds to {newest} (same key, both active)"
            replaced = []
        on_key = []
        for old in replaced:
            self._supersede(job.id, old["id"], job.valid_since, "newer fact on the same key")
            on_key.append(supersedes_reason(old["id"], job))
        for old in kept if holder is None else []:  # a past value is not current: it contradicts nothing now
            why, part = kept_reason(old)
            self._writes.relations.append((self._tenant, job.id, old["id"], "contradicts", why))
            on_key.append(part)
        if holder is not None:
            on_key.append(past_value_reason(holder["id"], holder["since"]))
        reason = "; ".join(on_key) or reason
        open_: list[OpenConflict] = []
        if semantic:
            superseded, kept, unsure_ = [], [], []
            past_of: tuple[UUID, datetime, str] | None = None
            floor = conflict_floor(draft.content, self._conflict)  # lower for "moved to …", "got fired"
            for row in conflicts:
                if row["similarity"] < floor:
                    continue
                verdict = gated(
                    compare_facts(draft.content, row["content"]), row["similarity"], self._conflict
                )
                if verdict.relation == "contradiction" and undated_past_over_present(draft, row["content"]):
                    self._writes.reasoned_relations.append(  # ``conflicts.check_conflicts``: kept, flagged
                        (self._tenant, job.id, row["id"], "contradicts", past_over_present(verdict))
                    )
                    unsure_.append(row["id"])
                elif verdict.relation == "contradiction":
                    self._writes.reasoned_relations.append(
                        (self._tenant, job.id, row["id"], "contradicts", verdict.reason)
                    )
                    order = order_contradiction(draft.source, job.valid_since, row["source"], row["since"])
                    if order == "supersede":
                        why = f"newer fact that contradicts it: {verdict.reason}"
                        self._supersede(job.id, row["id"], job.valid_since, why)
                        superseded.append(row["id"])
                    elif order == "superseded" and past_of is None:  # ``conflicts.check_conflicts``
                        past_of = (row["id"], row["since"], f"{LATER_FACT}: {verdict.reason}")
                    else:
                        kept.append(row["id"])
                elif verdict.relation == "possible_conflict":
                    self._writes.reasoned_relations.append(
                        (self._tenant, job.id, row["id"], "contradicts", unsure(verdict))
                    )
                    open_.append(open_conflict(job.id, draft, row))
            parts = [f"supersedes {i} (contradiction)" for i in superseded]
            parts += [f"contradicts {i} (user_stated, kept active)" for i in kept]
            parts += [past_over_present_part(i) for i in unsure_]
            parts += [f"possible conflict with {c.old_id}" for c in open_]
            if past_of is not None:
                parts.append(contradicted_past_reason(past_of[0], past_of[1]))
                holder = {"id": past_of[0], "since": past_of[1], "why": past_of[2]}
            reason = "; ".join(r for r in (reason, "; ".join(parts) or None) if r) or None
        self._writes.adopt.append((job.id, job.id))
        self._writes.history.append(HistoryRow(job.id, "created"))
        if holder is not None:
            self._supersede(holder["id"], job.id, holder["since"], holder.get("why", PAST_VALUE))
        reason = "; ".join(r for r in (not_merged, reason) if r) or None
        result = self._record(job, "stored", job.id, reason)
        return result.model_copy(update={"open_conflicts": open_}) if open_ else result

    def _supersede(self, new_id: UUID, old_id: UUID, until: datetime, why: str) -> None:
        """``conflicts.supersede``: the update, its link and its history row (completed at the flush
        with the end of validity the update gave it)."""
        self._writes.supersedes.append((old_id, until, len(self._writes.history)))
        self._writes.reasoned_relations.append((self._tenant, new_id, old_id, "supersedes", why))
        self._writes.history.append(
            HistoryRow(old_id, "superseded", f"superseded by {new_id}", status_change("active", "superseded"))
        )
        self._retire(old_id)

    def _retire(self, memory_id: UUID) -> None:
        self._touched.add(memory_id)
        for stored in self._stored:
            if stored.id == memory_id:
                stored.active = False

    def _close_candidates(self, index: int, job: WriteJob) -> list[dict[str, Any]]:
        """The near-duplicate query's rows as ``_store_one`` would see them at this point of the batch."""
        rows = self._close.get(index, [])
        if any(r["id"] in self._touched for r in rows):
            raise _Restart
        draft = job.draft
        span = draft.event_span
        precision = span.precision if span else None
        extra = []
        for s in self._similar_stored(index, self._dedup):  # below it a candidate is never merged into
            d = s.job.draft
            same_scope = s.job.agent_id == job.agent_id and d.layer == draft.layer and d.key == draft.key
            if not (s.active and same_scope):
                continue
            if draft.layer != "semantic":
                other = d.event_span
                if precision is None or d.event_at is None or d.event_at != draft.event_at:
                    continue
                if (other.precision if other else "instant") != precision:
                    continue
            if draft.context is not None and self._hashes[s.index] != self._hashes[index]:
                continue
            similarity = self._similarity(index, s.index)
            if similarity >= self._dedup:
                row = {"id": s.id, "content": d.content, "source": d.source, "similarity": similarity}
                row |= {"importance": d.importance}
                row |= {"entities": d.entities, "tags": list(d.tags), "metadata": d.metadata}
                row |= {"shared_with": list(d.shared_with)}
                extra.append(row | {"occurred_at": d.event_at})
        rows = [
            r | _columns(self._held[r["id"]]) | self._merged[r["id"]] if r["id"] in self._held else r
            for r in rows + extra
        ]
        return _nearest(rows, DEDUP_CANDIDATES)

    def _facts_to_replace(self, index: int, job: WriteJob) -> list[dict[str, Any]]:
        """``memory_writes._facts_to_replace`` (every active fact on the key, newest first) for a job
        without ``supersedes``."""
        draft = job.draft
        if draft.layer != "semantic" or draft.key is None:
            return []
        if (job.agent_id, draft.key) in self._stored_keys:
            raise _Restart  # a fact on the key may be one of the batch's: ask the store
        rows = self._on_key.get(index, [])
        inferred = draft.source == "agent_inferred"
        if any(r["id"] in self._touched or r["status"] == "superseded" for r in rows) or (
            inferred and any(r["status"] == "archived" for r in rows)
        ):
            raise _Restart  # a past value, an archived user statement: ``_store_one`` settles it with them
        rows = [r for r in rows if r["status"] == "active"]
        if any(r["derived"] for r in rows):
            raise _Restart  # a continuation: its stated start is its original's (``memory_writes.STATED``)
        if rows and draft.valid_to is not None:
            raise _Restart  # a bounded value: the fact it ends may hold again after it (``key_resume``)
        if any(r["valid_to"] is not None for r in rows):
            raise _Restart  # a fact given an end: a value that began before it may hold again after it
        if rows and not is_additive(draft.content) and (len(rows) > 1 or may_leave_values(draft.content)):
            raise _Restart  # several values (an additive pair) or a take-back: ``_take_back`` may leave some
        return rows

    def _conflict_candidates(
        self, index: int, job: WriteJob, replaced: list[dict[str, Any]], additive: bool
    ) -> list[dict[str, Any]]:
        rows = self._conflicting.get(index, [])
        if any(r["id"] in self._touched for r in rows):
            raise _Restart
        # an additive write keeps the facts on its key active, and compares with them like any other
        exclude = {r["id"] for r in replaced} if not additive else set()
        rows = [r for r in rows if r["id"] not in exclude][:CONFLICT_CANDIDATES]
        key = job.draft.key
        extra = []
        floor = conflict_floor(job.draft.content, self._conflict)
        for s in self._similar_stored(index, floor):  # below it a candidate is never compared
            d = s.job.draft
            if not (s.active and s.job.agent_id == job.agent_id and d.layer == "semantic" and s.id != job.id):
                continue
            if s.id in exclude or (key is not None and d.key is not None and d.key != key):
                continue
            similarity = self._similarity(index, s.index)
            if similarity >= floor:
                extra.append(
                    {
                        "id": s.id,
                        "content": d.content,
                        "source": d.source,
                        "similarity": similarity,
                        "since": s.job.valid_since,
                    }
                )
        return _nearest(rows + extra, CONFLICT_CANDIDATES)

    async def flush(self) -> None:
        """Write what the segment decided (``batch_writes.write_segment``)."""
        await write_segment(self._conn, self._lane, self._tenant, self._writes)
        self._writes = Writes()


def _columns(held: Held) -> dict[str, Any]:
    """A candidate row's columns as ``held`` has them (a memory merged into earlier in the segment)."""
    return {
        "entities": held.entities,
        "tags": held.tags,
        "metadata": held.metadata,
        "shared_with": held.shared_with,
    }


def _nearest(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: -float(r["similarity"]))[:limit]

"""The writes of one ``write_batch`` segment, and how they reach the store: in the batch's transaction, and
— for a share of the plain new memories — in a second transaction of the same tenant beside it.

Why a second transaction: linking a new row into the HNSW graph is most of a stored job's database time
(issue 15: the worker's database part ran 666 jobs/s with the index, 1929 without), and one backend does
it on one core. pgvector links rows inserted by concurrent transactions concurrently, so the other half
of a segment's new memories, inserted on a second connection, are linked by a second backend.

What may go beside (``Writes.beside``): a job stored as a new memory whose writes touch only its own new
row — its row, chunks, ``created`` history row, result and pending children (``ADOPT``) — and that no
other write of the segment names (no merge into it, no supersede of it, no relation from or to it). Every
decision is still made by the batch's transaction, job after job (``write_batch``); only the writes go
two ways, so what is stored is the same. The second transaction:

* takes no advisory lock: the batch's transaction holds every key lock of the batch from before the
  decisions until after the second one has committed, so another writer of those keys waits and then
  sees these rows, as it would see the batch's own;
* commits only once the batch's share of the segment is written too, before the batch's transaction
  reads the store again (a later segment's queries see its rows, committed); any error in either
  share rolls it back and fails the batch, which the caller then stores job by job, as before;
* never waits for a row lock held by the batch's transaction, nor makes it wait for one of its own: the
  batch's transaction holds its row locks until it commits, after this one, so either wait would never
  end. Its new rows are its own, and no write of the batch's share names them; the only rows that
  exist already which it locks are the children waiting for its jobs (``ADOPT``), and it locks them
  after the batch's share is written (every row lock of that share taken), without waiting
  (``ADOPT_NOWAIT``): a child the batch's share locked too fails the batch, stored job by job then.
* is not opened when the pool has no connection idle (``rows.spare_transaction``): the batch's
  transaction then writes both shares, one after the other.

Per-job idempotency holds: each job's row and its ``write_results`` row are written in one transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.errors import LockNotAvailable

from hindsight.adapters.postgres.conflicts import RELATE_WITH_REASON, SUPERSEDED_END
from hindsight.adapters.postgres.history import HistoryRow, record_history
from hindsight.adapters.postgres.memory_writes import (
    INSERT_CHUNK,
    INSERT_MEMORIES,
    MERGE_INTO,
    RELATE,
    WORKER,
    insert_rows,
)

Lane = Callable[[], AbstractAsyncContextManager[AsyncConnection | None]]
"""Opens a second transaction of the batch's tenant on a connection of its own, committed when the block
ends without an error, rolled back otherwise; None when the pool has no connection idle
(``rows.spare_transaction`` on the writer's pool)."""

BESIDE_MIN_ROWS = 8
"""The fewest new memories worth a second transaction: it costs a pool checkout, four round trips (BEGIN,
tenant setting, the writes, COMMIT) and a second commit's WAL flush, the commit after the batch's share
is written. In one profiled run of the worker's database part (2000 hash-embedder jobs in batches of 100,
server durations logged, load ~6) a COMMIT took 7.4 ms on average and the memories INSERT 3.2 ms per row:
a commit costs about what two or three rows do, so eight rows beside save several times that."""

ADOPT = """WITH w AS (
       SELECT * FROM unnest(%(written)s::uuid[], %(memory)s::uuid[]) AS w(written, memory_id)),
   links AS (
       DELETE FROM pending_causal_links p USING w WHERE p.parent_id = w.written AND p.tenant_id = %(t)s
       RETURNING p.child_id, w.memory_id)
   UPDATE memories m SET causal_parent = l.memory_id FROM links l
   WHERE m.id = l.child_id AND m.tenant_id = %(t)s
     AND m.agent_id = (SELECT x.agent_id FROM memories x WHERE x.id = l.memory_id AND x.tenant_id = %(t)s)"""
"""``_adopt_pending_children`` for every write of the batch at once."""
ADOPT_NOWAIT = """WITH w AS (
       SELECT * FROM unnest(%(written)s::uuid[], %(memory)s::uuid[]) AS w(written, memory_id)),
   links AS (
       DELETE FROM pending_causal_links p USING w WHERE p.parent_id = w.written AND p.tenant_id = %(t)s
       RETURNING p.child_id, w.memory_id),
   children AS (
       SELECT m.id, l.memory_id FROM memories m JOIN links l ON m.id = l.child_id
       WHERE m.tenant_id = %(t)s
         AND m.agent_id = (SELECT x.agent_id FROM memories x WHERE x.id = l.memory_id AND x.tenant_id = %(t)s)
       FOR UPDATE OF m NOWAIT)
   UPDATE memories m SET causal_parent = c.memory_id FROM children c
   WHERE m.id = c.id AND m.tenant_id = %(t)s"""
"""``ADOPT`` for the second transaction: a child row locked by anyone (the batch's own transaction
included) fails the statement at once (``LockNotAvailable``) instead of waiting (module docstring)."""
SUPERSEDE = f"""UPDATE memories m SET status = 'superseded', updated_at = now(),
          valid_to = {SUPERSEDED_END.format(until="u.until")}
   FROM unnest(%(ids)s::uuid[], %(until)s::timestamptz[]) AS u(id, until)
   JOIN memories before ON before.id = u.id AND before.tenant_id = %(t)s
   WHERE m.id = u.id AND m.tenant_id = %(t)s
   RETURNING m.id, before.valid_to AS before, m.valid_to AS after"""
"""``conflicts.supersede``'s update for every memory the batch supersedes (each at most once)."""
RESULTS = """INSERT INTO write_results (job_id, tenant_id, agent_id, outcome, memory_id, reason)
   SELECT r.j, %(t)s, r.a, r.o, r.m, r.r
   FROM unnest(%(j)s::uuid[], %(a)s::text[], %(o)s::text[], %(m)s::uuid[], %(r)s::text[]) AS r(j, a, o, m, r)
   ON CONFLICT (job_id) DO NOTHING"""


@dataclass
class Writes:
    """What a segment decided, in the order ``_store_one`` would write it."""

    inserts: list[dict[str, Any]] = field(default_factory=list)
    """``insert_params`` of each new memory"""
    chunks: list[tuple[Any, ...]] = field(default_factory=list)
    """``INSERT_CHUNK`` parameters, the memory's id first"""
    merges: list[dict[str, Any]] = field(default_factory=list)
    supersedes: list[tuple[UUID, datetime, int]] = field(default_factory=list)
    """(memory, valid until, index of its history row)"""
    relations: list[tuple[Any, ...]] = field(default_factory=list)
    """``RELATE`` parameters: (tenant, from, to, kind, reason)"""
    reasoned_relations: list[tuple[Any, ...]] = field(default_factory=list)
    history: list[HistoryRow] = field(default_factory=list)
    adopt: list[tuple[UUID, UUID]] = field(default_factory=list)
    """(write, memory it became or merged into)"""
    results: list[tuple[UUID, str, str, UUID | None, str | None]] = field(default_factory=list)
    """(job, agent, outcome, memory, reason)"""

    def beside(self) -> tuple[Writes, Writes] | None:
        """(the batch's share, the second transaction's share) — the latter about half the new memories
        (counting chunks), taken from the plain ones (module docstring) — or None when fewer than
        ``BESIDE_MIN_ROWS`` would go beside."""
        named: set[UUID] = {m["id"] for m in self.merges} | {s[0] for s in self.supersedes}
        named |= {r[i] for r in self.relations + self.reasoned_relations for i in (1, 2)}
        named |= {h.memory_id for h in self.history if h.action != "created"}
        named |= {i for pair in self.adopt if pair[0] != pair[1] for i in pair}
        weight: dict[UUID, int] = {row["id"]: 1 for row in self.inserts}
        for chunk in self.chunks:
            weight[chunk[0]] += 1
        half = sum(weight.values()) // 2
        side: set[UUID] = set()
        taken = 0
        for memory_id, rows in weight.items():
            if taken >= half:
                break
            if memory_id not in named:
                side.add(memory_id)
                taken += rows
        if taken < BESIDE_MIN_ROWS:
            return None
        return self._without(side), self._only(side)

    def _only(self, ids: set[UUID]) -> Writes:
        return Writes(
            inserts=[r for r in self.inserts if r["id"] in ids],
            chunks=[c for c in self.chunks if c[0] in ids],
            history=[h for h in self.history if h.memory_id in ids],
            adopt=[a for a in self.adopt if a[0] in ids],
            results=[r for r in self.results if r[0] in ids],
        )

    def _without(self, ids: set[UUID]) -> Writes:
        kept = [i for i, h in enumerate(self.history) if h.memory_id not in ids]
        at = {old: new for new, old in enumerate(kept)}  # the supersedes' history rows, renumbered
        rest = Writes(**{f.name: getattr(self, f.name) for f in fields(self)})
        rest.inserts = [r for r in self.inserts if r["id"] not in ids]
        rest.chunks = [c for c in self.chunks if c[0] not in ids]
        rest.history = [self.history[i] for i in kept]
        rest.supersedes = [(m, until, at[i]) for m, until, i in self.supersedes]
        rest.adopt = [a for a in self.adopt if a[0] not in ids]
        rest.results = [r for r in self.results if r[0] not in ids]
        return rest


async def write_segment(conn: AsyncConnection, lane: Lane | None, tenant: str, writes: Writes) -> None:
    """Write ``writes`` in the batch's transaction (``conn``), a share of them in a second one (``lane``,
    module docstring) when enough can go beside and the pool has a connection idle. Raises what a
    statement raises, after the second transaction has rolled back."""
    shares = writes.beside() if lane is not None else None
    if shares is None or lane is None:
        await write(conn, tenant, writes)
        return
    own, side = shares
    own_written = asyncio.Event()
    own_failed = False

    async def write_own() -> None:
        nonlocal own_failed
        try:
            await write(conn, tenant, own)
        except BaseException:
            own_failed = True
            raise
        finally:
            own_written.set()

    async def write_side() -> None:
        async with lane() as other:
            if other is None:  # no connection idle: the batch's transaction writes this share too
                await own_written.wait()
                if not own_failed:
                    await write(conn, tenant, side)
                return
            await write(other, tenant, replace(side, adopt=[]))
            # Only now the rows that exist already (children waiting for their parent): the batch's
            # share holds every row lock it takes by then, so a conflict fails here, never waits.
            await own_written.wait()
            if own_failed:
                raise _OwnShareFailed  # roll back this one too: the caller stores the jobs one by one
            try:
                await adopt(other, tenant, side.adopt, ADOPT_NOWAIT)
            except LockNotAvailable as exc:  # an OperationalError, which would read as an outage
                raise RowWantedTwice(exc.diag.message_primary or "a row was locked") from None

    outcomes = await asyncio.gather(write_own(), write_side(), return_exceptions=True)
    for outcome in outcomes:  # the batch's own error first: the other share's may only be its echo
        if isinstance(outcome, BaseException) and not isinstance(outcome, _OwnShareFailed):
            raise outcome


class RowWantedTwice(Exception):
    """A child row the second transaction would link was locked (by the batch's own transaction, or
    another writer): the batch fails, and its jobs are stored one by one."""


class _OwnShareFailed(Exception):
    """The batch's share failed: the second transaction rolls back with it."""


async def adopt(conn: AsyncConnection, tenant: str, pairs: list[tuple[UUID, UUID]], sql: str = ADOPT) -> None:
    """Children stored before their parent's write get the memory it became or merged into
    (``pairs``: (write, memory)); their pending links are done."""
    if pairs:
        written, memory = [a for a, _ in pairs], [m for _, m in pairs]
        await conn.execute(sql, {"t": tenant, "written": written, "memory": memory})


async def write(conn: AsyncConnection, tenant: str, w: Writes) -> None:
    """Write ``w`` in ``conn``'s transaction, in the order ``_store_one`` would (rows before the updates,
    relations and history that refer to them), pipelined: one round trip, and one more when memories
    are superseded (their history rows need the end of validity the update gave them)."""
    if not w.results:
        return
    async with conn.pipeline():
        cur = conn.cursor()
        if w.inserts:
            await cur.execute(INSERT_MEMORIES, insert_rows(w.inserts))
        if w.chunks:
            await cur.executemany(INSERT_CHUNK, w.chunks)
        if w.merges:
            await cur.executemany(MERGE_INTO, w.merges)
        if w.supersedes:
            await cur.execute(
                SUPERSEDE,
                {"t": tenant, "ids": [s[0] for s in w.supersedes], "until": [s[1] for s in w.supersedes]},
            )
            ends = {r[0]: (r[1], r[2]) for r in await cur.fetchall()}
            for memory_id, _, at in w.supersedes:
                before, after = ends.get(memory_id, (None, None))
                if after is not None and before != after:
                    row = w.history[at]
                    was = before.isoformat() if before is not None else None
                    changes = row.changes | {"valid_to": {"from": was, "to": after.isoformat()}}
                    w.history[at] = HistoryRow(row.memory_id, row.action, row.reason, changes)
        if w.relations:
            await cur.executemany(RELATE, w.relations)
        if w.reasoned_relations:
            await cur.executemany(RELATE_WITH_REASON, w.reasoned_relations)
        await adopt(conn, tenant, w.adopt)
        await record_history(conn, tenant, WORKER, *w.history)
        await conn.execute(
            RESULTS,
            {
                "t": tenant,
                "j": [r[0] for r in w.results],
                "a": [r[1] for r in w.results],
                "o": [r[2] for r in w.results],
                "m": [r[3] for r in w.results],
                "r": [r[4] for r in w.results],
            },
        )

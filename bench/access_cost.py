"""What a search's deferred access bookkeeping costs, on bench/latency.py's synthetic tier.

    python bench/access_cost.py [--size 100000] [--queries 200] [--chunk 10] [--rounds 2]

Every ``memory_search`` schedules one UPDATE of its hits' access counters (``AccessLog.note``);
bench/latency.py and bench/ab_search.py await it after the clock stops, so their figures leave it out.
Here, on one loaded tier (``latency.load_tier``, the keyword statistics counted):

* ``update``: each query searched with ``record_access=False``, then the access bookkeeping of its hits
  (``MemoryEditor.record_access``) run and timed alone; ``pg_stat_user_tables`` before/after gives how
  many row versions of ``memories`` it wrote and how many of those were HOT;
* ``concurrent``: back-to-back searches (query embeddings cached, so the search is SQL and ranking) in
  chunks of ``--chunk``, alternating per chunk between the bookkeeping on and not awaited (as the MCP
  server runs it) and ``record_access=False``; per-search latency of each mode, and each chunk's wall
  time up to the last pending bookkeeping done (throughput).

Prints JSON with the 1-minute load average before and after each phase.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from typing import Any

import latency
from common import bench_tmpdir, log, percentiles

from hindsight.bootstrap import build_container
from hindsight.domain.memory import Scope
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery, resolve

WARMUP = 20


def _load() -> float:
    return round(os.getloadavg()[0], 2)


TABLES = ("memories", "memory_access")
"""Where the bookkeeping may write: ``memories`` (before migration 018), ``memory_access`` (after)."""


async def _table_stats(pool: Any) -> dict[str, dict[str, int]]:
    await asyncio.sleep(1.5)  # other backends flush their statistics about once a second
    async with pool.connection() as conn:
        cur = await conn.execute(
            """SELECT relname, n_tup_upd, n_tup_hot_upd, n_tup_ins FROM pg_stat_user_tables
               WHERE relname = ANY(%s)""",
            (list(TABLES),),
        )
        rows = await cur.fetchall()
    return {r[0]: {"updates": r[1], "hot_updates": r[2], "inserts": r[3]} for r in rows}


async def _storage(pool: Any) -> dict[str, int]:
    """The WAL position and the sizes of memories' indexes (HNSW apart) and memory_access, in bytes."""
    async with pool.connection() as conn:
        cur = await conn.execute(
            """SELECT pg_current_wal_lsn() - '0/0'::pg_lsn,
                      pg_relation_size('memories_embedding_hnsw'),
                      pg_indexes_size('memories'),
                      coalesce(pg_total_relation_size(to_regclass('memory_access')), 0)"""
        )
        row = await cur.fetchone()
    return {"wal": int(row[0]), "hnsw": row[1], "memories_indexes": row[2], "memory_access": row[3]}


def _delta(after: dict[str, dict[str, int]], before: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Per table: row versions written by UPDATE (and how many HOT) and rows inserted in between."""
    out: dict[str, Any] = {}
    for table, now in after.items():
        then = before.get(table, {"updates": 0, "hot_updates": 0, "inserts": 0})
        upd, hot = now["updates"] - then["updates"], now["hot_updates"] - then["hot_updates"]
        out[table] = {
            "row_updates": upd,
            "hot": hot,
            "hot_fraction": round(hot / upd, 3) if upd else None,
            "inserts": now["inserts"] - then["inserts"],
        }
    return out


async def measure(settings: Any, data: Any, chunk: int, rounds: int) -> dict[str, Any]:
    container = await build_container(settings, with_queue=False)
    out: dict[str, Any] = {}
    try:
        recall = latency.cached_recall(container, settings)
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        editor = container.editor

        async def search(text: str, record: bool) -> tuple[float, list[Any]]:
            started = time.perf_counter()
            hits = await recall.search(
                scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW), record_access=record
            )
            return (time.perf_counter() - started) * 1000, [h.memory.id for h in hits]

        for text in [*data.warmups, *data.queries]:  # embeddings into the query cache, buffers warm
            await search(text, False)

        # 1. the bookkeeping alone
        load0 = _load()
        before = await _table_stats(container.pool)
        update_ms: list[float] = []
        growth = dict.fromkeys(("wal", "hnsw", "memories_indexes", "memory_access"), 0)
        for text in data.queries:
            _, ids = await search(text, False)
            pre = await _storage(container.pool)
            started = time.perf_counter()
            await editor.record_access(scope, ids, container.clock.now())
            update_ms.append((time.perf_counter() - started) * 1000)
            post = await _storage(container.pool)
            for k in growth:
                growth[k] += post[k] - pre[k]
        after = await _table_stats(container.pool)
        out["update"] = {
            "ms": percentiles(update_ms),
            "bookkeeping_wal_bytes_per_search": round(growth["wal"] / len(data.queries)),
            "bookkeeping_growth_kib": {k: round(v / 1024) for k, v in growth.items() if k != "wal"},
            **_delta(after, before),
            "load_1m": [load0, _load()],
        }
        log(f"access_cost: update {out['update']}")

        # 2. searches with the bookkeeping running beside them vs without, interleaved per chunk
        load0 = _load()
        before = await _table_stats(container.pool)
        stored = await _storage(container.pool)
        lat: dict[str, list[float]] = {"on": [], "off": []}
        wall: dict[str, list[float]] = {"on": [], "off": []}
        queries = list(data.queries)
        n = 0
        for _ in range(rounds):
            for start in range(0, len(queries), chunk):
                texts = queries[start : start + chunk]
                modes = ("on", "off") if n % 2 == 0 else ("off", "on")
                n += 1
                for mode in modes:
                    started = time.perf_counter()
                    for text in texts:
                        ms, _ = await search(text, mode == "on")
                        lat[mode].append(ms)
                    await container.access_log.flush()
                    wall[mode].append((time.perf_counter() - started) * 1000 / len(texts))
        after = await _table_stats(container.pool)
        out["concurrent"] = {
            "search_ms": {m: percentiles(v) for m, v in lat.items()},
            "chunk_wall_ms_per_search": {m: percentiles(v) for m, v in wall.items()},
            "p50_ratio_on_off": round(percentiles(lat["on"])["p50"] / percentiles(lat["off"])["p50"], 3),
            "throughput_ratio_on_off": round(sum(wall["off"]) / sum(wall["on"]), 3),
            **_delta(after, before),
            "growth_kib": {
                k: round((v - stored[k]) / 1024) for k, v in (await _storage(container.pool)).items()
            },
            "load_1m": [load0, _load()],
        }
        log(f"access_cost: concurrent {out['concurrent']}")
    finally:
        await container.aclose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    data = latency.build_dataset(args.queries, WARMUP)
    with LocalStack(bench_tmpdir("access"), ephemeral=True) as stack:
        settings = stack.require_settings()
        tier = latency.load_tier(settings.require_database_url(), data, args.size)
        tier["keyword_stats"] = asyncio.run(latency.keyword_stats(settings))
        log(f"access_cost: tier {args.size} loaded: {tier['db_size_mib']}")
        result = asyncio.run(measure(settings, data, args.chunk, args.rounds))
    result["size"] = args.size
    result["command"] = " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]])
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

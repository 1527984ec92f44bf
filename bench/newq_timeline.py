"""Where a new query's ``memory_search`` spends its wall time after the query embedding arrives (issue 15):
a timeline probe.

    HINDSIGHT_EMBED_THREADS=1 PYTHONPATH=<checkout>/shared:bench python bench/newq_timeline.py \
        --keep-stack var/keep100k [--queries 200]

Loads (or reuses, ``--keep-stack``) ``bench/latency.py``'s 100k tier, warms the plans with the warm-up
queries, then runs ``--queries`` new queries through ``Recall.search`` (default ranker, top 10; every
search computes its query embedding) and, per search, the milliseconds from its start at which each step
began and ended: the embedding (``embed``), each round trip of the store (``rt:<statements>``: the
keyword, vector and entity statements of ``search_candidates``, the hits' rows and relations), the
candidates returned (``candidates``), the scoring (``score``), and the end (``total``); and the main
thread's CPU time after the embedding arrived (``post_cpu``). Prints the median of each step's start and
end, and ``uptime`` before and after. A probe, not a product path: it wraps ``rows.tenant_rows_on`` and
the use case's ``score_candidates``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

T0: dict[str, float] = {}
EVENTS: list[tuple[str, float, float]] = []


def _now() -> float:
    return (time.perf_counter() - T0["t"]) * 1000


def _kind(query: Any) -> str:
    text = query.as_string(None) if hasattr(query, "as_string") else str(query)
    if "hindsight_keyword_queries" in text:
        return "keyword"
    if "hindsight_entity_matches" in text:
        return "entity"
    if "embedding <=>" in text:
        return "vector"
    if "memory_relations" in text and "FROM memories m" not in text:
        return "relations"
    return "rows"


def patch() -> None:
    """Time every round trip and the scoring."""
    import hindsight.adapters.postgres.memory_reads as reads
    import hindsight.adapters.postgres.rows as rows
    import hindsight.usecases.recall as recall

    original_on = rows.tenant_rows_on

    async def tenant_rows_on(conn: Any, tenant_id: str, statements: Any, *rows: Any) -> Any:
        started = _now()
        try:
            return await original_on(conn, tenant_id, statements, *rows)
        finally:
            EVENTS.append(("rt:" + "+".join(_kind(q) for q, _ in statements), started, _now()))

    rows.tenant_rows_on = tenant_rows_on  # type: ignore[assignment]

    async def tenant_rows_of(pool: Any, tenant_id: str, statements: Any, *rows: Any) -> Any:
        started = got = _now()
        try:
            async with pool.connection() as conn:
                got = _now()
                return await tenant_rows_on(conn, tenant_id, statements, *rows)
        finally:
            EVENTS.append(("checkout:" + "+".join(_kind(q) for q, _ in statements), started, got))

    rows.tenant_rows_of = tenant_rows_of  # type: ignore[assignment]
    reads.tenant_rows_of = tenant_rows_of  # type: ignore[assignment]

    async def tenant_rows(pool: Any, tenant_id: str, query: Any, params: Any = None, *rows: Any) -> Any:
        [out] = await tenant_rows_of(pool, tenant_id, [(query, params)], *rows)
        return out

    rows.tenant_rows = tenant_rows  # type: ignore[assignment]
    reads.tenant_rows = tenant_rows  # type: ignore[assignment]
    original_score = recall.score_candidates

    def score_candidates(*args: Any, **kwargs: Any) -> Any:
        started = _now()
        try:
            return original_score(*args, **kwargs)
        finally:
            EVENTS.append(("score", started, _now()))

    recall.score_candidates = score_candidates  # type: ignore[assignment]


class _TimedEmbedder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.arrived_cpu = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def embed_query(self, text: str) -> Any:
        started = _now()
        try:
            return await self.inner.embed_query(text)
        finally:
            EVENTS.append(("embed", started, _now()))
            self.arrived_cpu = time.thread_time()


class _TimedReader:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def search_candidates(self, *args: Any, **kwargs: Any) -> Any:
        started = _now()
        try:
            return await self.inner.search_candidates(*args, **kwargs)
        finally:
            EVENTS.append(("candidates", started, _now()))


async def _serve(settings: Any, data: Any, queries: int) -> None:
    import latency
    from common import uptime

    from hindsight.bootstrap import build_container, ranking_policy
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import Recall, RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    try:
        embedder = _TimedEmbedder(container.embedder)
        recall = Recall(
            _TimedReader(container.reader),  # type: ignore[arg-type]
            embedder,  # type: ignore[arg-type]
            container.clock,
            container.access_log,
            ranking_policy(settings),
            settings.candidate_pool,
        )
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        samples: dict[str, list[tuple[float, float]]] = defaultdict(list)
        post_cpu: list[float] = []

        async def one(text: str) -> None:
            EVENTS.clear()
            T0["t"] = time.perf_counter()
            await recall.search(scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW))
            end, cpu = _now(), time.thread_time()
            await container.access_log.flush()
            seen: dict[str, int] = defaultdict(int)
            for name, started, ended in EVENTS:
                seen[name] += 1
                key = name if seen[name] == 1 else f"{name}#{seen[name]}"
                samples[key].append((started, ended))
            samples["total"].append((0.0, end))
            post_cpu.append((cpu - embedder.arrived_cpu) * 1000)

        for text in data.warmups:
            await one(text)
        samples.clear()
        post_cpu.clear()
        load = [uptime()]
        for text in data.queries[:queries]:
            await one(text)
        load.append(uptime())
        print(f"{queries} new queries; {load[0]} -> {load[1]}")
        print(f"{'step':<34}{'n':>5}{'start p50':>11}{'end p50':>10}{'dur p50':>10}{'dur mean':>10}")
        order = sorted(samples, key=lambda k: statistics.median(s for s, _ in samples[k]))
        for key in order:
            values = samples[key]
            durations = [e - s for s, e in values]
            print(
                f"{key:<34}{len(values):>5}{statistics.median(s for s, _ in values):>11.2f}"
                f"{statistics.median(e for _, e in values):>10.2f}{statistics.median(durations):>10.2f}"
                f"{statistics.fmean(durations):>10.2f}"
            )
        print(f"post_cpu (main thread after the embedding) p50 {statistics.median(post_cpu):.2f} ms")
    finally:
        await container.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep-stack", type=Path, default=None)
    args = parser.parse_args()
    import latency
    from common import bench_tmpdir

    from hindsight.local.stack import LocalStack

    patch()
    data = latency.build_dataset(args.queries, 20)
    folder = args.keep_stack if args.keep_stack is not None else bench_tmpdir("newq")
    with LocalStack(folder, ephemeral=args.keep_stack is None) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, args.size, args.keep_stack)
        asyncio.run(latency.keyword_stats(settings))
        asyncio.run(_serve(settings, data, args.queries))


if __name__ == "__main__":
    main()

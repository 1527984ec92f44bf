"""Where a cached-embedding ``memory_search`` spends its time, step by step (issue 15).

    PYTHONPATH=<checkout>/shared:bench python bench/search_spans.py [--size 100000] [--rounds 2]
                                                                    [--profile OUT.prof] [--keep-stack DIR]

Loads ``bench/latency.py``'s tier of ``--size`` memories into a throw-away stack (as ``bench/ab_search.py``'s
child does), runs its 20 warm-up and 200 queries once (the query embeddings cached, the plans warm), then
the 200 ``--rounds`` more times through ``Recall.search`` (default ranker, top 10) with spans around its
steps: the search SQL (``search_candidates``, decoding, ``_merged`` and ``_ranked`` included), the
driver's decoding of every read (``fetchall``), the features (``pool_features``; the texts' content
features, ``PoolTexts.add``, run as each statement returns), the model, ``score_candidates`` as a whole,
the returned rows' round trip (``get_many_with_relations``) and their models, the hits and their labels,
the conflict labels, the access note and the trace line. Each span is reported as wall time and, marked
``[cpu]``, as this thread's CPU time (on a shared machine the wall time of a step includes waiting for a
core; both are per search: p50 and mean). Spans nest, so they do not add up. ``--profile`` also writes a
cProfile of one more round; ``--keep-stack`` keeps the loaded stack in DIR and reuses it next time
(``latency.load_or_reuse``, as ``bench/run.py latency --keep-stack``). The deferred access UPDATE of
each search is awaited after the clock stops, as in ``bench/latency.py``. The code measured is
whichever ``hindsight`` the PYTHONPATH finds first.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import subprocess
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

SPANS: dict[str, float] = defaultdict(float)
CPU: dict[str, float] = defaultdict(float)


def _timed_sync(name: str, fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPANS[name] += time.perf_counter() - started
            CPU[name] += time.thread_time() - cpu

    return wrapper


def _timed_async(name: str, fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return await fn(*args, **kwargs)
        finally:
            SPANS[name] += time.perf_counter() - started
            CPU[name] += time.thread_time() - cpu

    return wrapper


def instrument() -> None:
    """Wrap the steps of a search in spans (module attributes, so the callers pick up the wrappers)."""
    from psycopg import AsyncCursor

    import hindsight.adapters.postgres.memory_reads as reads
    import hindsight.domain.learned_ranker as learned
    import hindsight.domain.ranking as ranking
    import hindsight.domain.ranking_features as features
    import hindsight.usecases.recall as recall

    fetchall = AsyncCursor.fetchall

    async def timed_fetchall(self: Any) -> Any:  # the results are in: this is the decoding
        started = time.perf_counter()
        try:
            return await fetchall(self)
        finally:
            SPANS["decode (fetchall, all reads)"] += time.perf_counter() - started

    AsyncCursor.fetchall = timed_fetchall  # type: ignore[method-assign]
    reads._merged = _timed_sync("_merged", reads._merged)
    reads._ranked = _timed_sync("_ranked", reads._ranked)
    reads.memory_from_row = _timed_sync("memory_from_row", reads.memory_from_row)
    ranking.pool_features = _timed_sync("pool_features", ranking.pool_features)
    features.PoolTexts.add = _timed_sync("PoolTexts.add (texts' features)", features.PoolTexts.add)  # type: ignore[method-assign]
    learned.stage_two_features = _timed_sync("stage_two_features", learned.stage_two_features)
    learned.LearnedRanker.score = _timed_sync("model (score, incl. stage two)", learned.LearnedRanker.score)  # type: ignore[method-assign]
    recall.score_candidates = _timed_sync("score_candidates (all)", recall.score_candidates)
    recall.demote_injections = _timed_sync("demote_injections", recall.demote_injections)
    ranking.flags_for = _timed_sync("flags_for", ranking.flags_for)
    reader = reads.PostgresMemoryReader
    reader.get_many_with_relations = _timed_async(  # type: ignore[method-assign]
        "get_many_with_relations (round trip)", reader.get_many_with_relations
    )
    Recall = recall.Recall
    Recall._hits = _timed_async("_hits (models, flags)", Recall._hits)  # type: ignore[method-assign]
    Recall._hits_and_relations = _timed_async("_hits_and_relations (all)", Recall._hits_and_relations)  # type: ignore[method-assign]
    Recall._with_conflicts = _timed_async("_with_conflicts", Recall._with_conflicts)  # type: ignore[method-assign]
    Recall._observe = _timed_sync("_observe", Recall._observe)  # type: ignore[method-assign]


async def _serve(settings: Any, data: Any, rounds: int, profile: str | None) -> None:
    import latency
    from common import TimedReader

    import hindsight.usecases.recall as recall_module
    from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
    from hindsight.bootstrap import build_container, ranking_policy
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    try:
        reader = TimedReader(container.reader)
        embedder = CachedQueryEmbedder(container.embedder)

        class Access:
            def note(self, *args: Any) -> None:
                started = time.perf_counter()
                container.access_log.note(*args)
                SPANS["access note"] += time.perf_counter() - started

        recall = recall_module.Recall(
            reader,
            _TimedEmbedder(embedder),  # type: ignore[arg-type]
            container.clock,
            Access(),  # type: ignore[arg-type]
            ranking_policy(settings),
            settings.candidate_pool,
        )
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)

        async def one(text: str) -> dict[str, float]:
            SPANS.clear()
            CPU.clear()
            request = resolve(RecallQuery(text=text, top_k=10), latency.NOW)
            started, cpu = time.perf_counter(), time.thread_time()
            await recall.search(scope, request)
            total, cpu = time.perf_counter() - started, time.thread_time() - cpu
            await container.access_log.flush()
            out = {k: v * 1000 for k, v in SPANS.items()} | {"total": total * 1000}
            out |= {f"{k} [cpu]": v * 1000 for k, v in CPU.items()} | {"total [cpu]": cpu * 1000}
            out["search SQL (search_candidates)"] = reader.sql_ms[-1]
            return out

        for text in [*data.warmups, *data.queries]:  # the embeddings cached, the plans warm
            await one(text)
        samples: dict[str, list[float]] = defaultdict(list)
        load = [_uptime()]
        for _ in range(rounds):
            for text in data.queries:
                for k, v in (await one(text)).items():
                    samples[k].append(v)
        load.append(_uptime())
        n = len(samples["total"])
        print(f"{n} cached searches; {load[0]} -> {load[1]}")
        print(f"{'span':<40} {'p50':>8} {'mean':>8}  (ms per search)")
        for k, vs in sorted(samples.items(), key=lambda kv: -statistics.fmean(kv[1])):
            vs = vs + [0.0] * (n - len(vs))
            print(f"{k:<40} {statistics.median(vs):>8.3f} {statistics.fmean(vs):>8.3f}")
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
            for text in data.queries:
                await one(text)
            prof.disable()
            prof.dump_stats(profile)
            print(f"profile of {len(data.queries)} searches: {profile}")
    finally:
        await container.aclose()


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


class _TimedEmbedder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def embed_query(self, text: str) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.embed_query(text)
        finally:
            SPANS["embed_query (cached)"] += time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--keep-stack", type=Path, default=None, help="a folder to keep the stack in")
    args = parser.parse_args()
    import latency
    from common import bench_tmpdir

    from hindsight.local.stack import LocalStack

    instrument()
    data = latency.build_dataset(200, 20)
    folder = args.keep_stack if args.keep_stack is not None else bench_tmpdir("spans")
    with LocalStack(folder, ephemeral=args.keep_stack is None) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, args.size, args.keep_stack)
        asyncio.run(latency.keyword_stats(settings))
        asyncio.run(_serve(settings, data, args.rounds, args.profile))


if __name__ == "__main__":
    main()

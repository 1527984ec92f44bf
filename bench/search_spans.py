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
whichever ``hindsight`` the PYTHONPATH finds first. The command line and the stack are
``bench/search_harness.py``'s.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from typing import Any

from common import uptime
from search_harness import run_on_tier, timed

SPANS: dict[str, float] = defaultdict(float)
CPU: dict[str, float] = defaultdict(float)


def _add(name: str, started: float, ended: float, cpu: float) -> None:
    """A step's wall and CPU time added to this search's (``search_harness.Record``)."""
    SPANS[name] += ended - started
    CPU[name] += cpu


def instrument() -> None:
    """Wrap the steps of a search in spans (module attributes, so the callers pick up the wrappers)."""
    from psycopg import AsyncCursor

    import hindsight.adapters.postgres.memory_reads as reads
    import hindsight.domain.learned_ranker as learned
    import hindsight.domain.ranking as ranking
    import hindsight.domain.ranking_features as features
    import hindsight.usecases.recall as recall
    from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder

    fetchall = AsyncCursor.fetchall

    async def timed_fetchall(self: Any) -> Any:  # the results are in: this is the decoding
        started = time.perf_counter()
        try:
            return await fetchall(self)
        finally:
            SPANS["decode (fetchall, all reads)"] += time.perf_counter() - started

    AsyncCursor.fetchall = timed_fetchall  # type: ignore[method-assign]
    reads._merged = timed("_merged", reads._merged, _add)
    reads._ranked = timed("_ranked", reads._ranked, _add)
    reads.memory_from_row = timed("memory_from_row", reads.memory_from_row, _add)
    ranking.pool_features = timed("pool_features", ranking.pool_features, _add)
    features.PoolTexts.add = timed("PoolTexts.add (texts' features)", features.PoolTexts.add, _add)  # type: ignore[method-assign]
    learned.stage_two_features = timed("stage_two_features", learned.stage_two_features, _add)
    learned.LearnedRanker.score = timed("model (score, incl. stage two)", learned.LearnedRanker.score, _add)  # type: ignore[method-assign]
    recall.score_candidates = timed("score_candidates (all)", recall.score_candidates, _add)
    recall.demote_injections = timed("demote_injections", recall.demote_injections, _add)
    ranking.flags_for = timed("flags_for", ranking.flags_for, _add)
    CachedQueryEmbedder.embed_query = timed("embed_query (cached)", CachedQueryEmbedder.embed_query, _add)  # type: ignore[method-assign]
    reader = reads.PostgresMemoryReader
    reader.get_many_with_relations = timed(  # type: ignore[method-assign]
        "get_many_with_relations (round trip)", reader.get_many_with_relations, _add
    )
    Recall = recall.Recall
    Recall._hits = timed("_hits (models, flags)", Recall._hits, _add)  # type: ignore[method-assign]
    Recall._hits_and_relations = timed("_hits_and_relations (all)", Recall._hits_and_relations, _add)  # type: ignore[method-assign]
    Recall._with_conflicts = timed("_with_conflicts", Recall._with_conflicts, _add)  # type: ignore[method-assign]
    Recall._observe = timed("_observe", Recall._observe, _add)  # type: ignore[method-assign]


async def _serve(settings: Any, data: Any, rounds: int, profile: str | None) -> None:
    import latency
    from common import TimedReader

    from hindsight.bootstrap import build_container
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    try:
        reader = TimedReader(container.reader)
        container.access_log.note = timed("access note", container.access_log.note, _add)  # type: ignore[method-assign]
        recall = latency.cached_recall(container, settings, reader)
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
        load = [uptime()]
        for _ in range(rounds):
            for text in data.queries:
                for k, v in (await one(text)).items():
                    samples[k].append(v)
        load.append(uptime())
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


def main() -> None:
    run_on_tier(__doc__, "spans", instrument, _serve)


if __name__ == "__main__":
    main()

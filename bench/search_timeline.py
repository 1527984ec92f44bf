"""A cached-embedding ``memory_search``'s timeline at a size (issue 15): when each piece starts and ends.

    PYTHONPATH=<checkout>/shared:bench python bench/search_timeline.py [--size 100000] [--rounds 2]
                                                                       [--keep-stack DIR] [--profile OUT]

Loads (or reuses, ``--keep-stack``) ``bench/latency.py``'s tier as ``bench/search_spans.py`` does, runs its
warm-up and queries once (embeddings cached, plans warm), then ``--rounds`` more times through
``Recall.search`` (default ranker, top 10), recording for each search, in ms from its start, each piece's
start and end and the main thread's CPU inside it: every round trip of the reader (named by the function
that sent it: ``vector_rows``, ``keyword_rows``, ``get_many_with_relations``, ...) split into pool
checkout, composing and sending (``compose+send``: until the pipeline holds every statement), the wait for
the server (until the pipeline's exit has every result), the rows' decoding (``fetchall``) and the
connection's return; the texts' content features (``PoolTexts.add``, every call of a search together);
``_merged``, ``_ranked``, ``score_candidates``, ``_hits``, the conflict labels, the access note and the
trace line. Prints per piece the p50 of its start, end, wall time and CPU, and in how many searches it ran;
then the search's total wall and CPU, in how many searches the vector round trip ended after the keyword
one, the p50 of the time after the later of the two (the tail: decoding, ranking, the rows' round trip,
the hits), and Python's garbage collections during the measured searches (count and time per
generation). Pieces overlap in time: the two statements' round trips run at once, and the texts of the
first to return are tokenised while the other is in flight; a wait's CPU is what the event loop ran
meanwhile (other tasks included). The p50s of start and end are taken separately, so they are a shape,
not one search. The clock calls themselves (``thread_time`` is a system call) add to the CPU figures:
compare runs of this script, not with ``bench/latency.py``. ``--profile OUT`` also writes a cProfile of
one more round, timed by thread CPU (not wall, which on a loaded machine charges waits for a core to
whatever ran), and prints its top entries. The deferred access write is awaited after the clock stops.
The code measured is whichever ``hindsight`` the PYTHONPATH finds first. The command line and the stack
are ``bench/search_harness.py``'s.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from common import uptime
from search_harness import run_on_tier, timed

EVENTS: list[tuple[str, float, float, float]] = []
"""(piece, start, end, main-thread CPU), seconds (perf_counter / thread_time)."""


def _event(name: str, started: float, ended: float, cpu: float) -> None:
    """A piece of this search (``search_harness.Record``)."""
    EVENTS.append((name, started, ended, cpu))


def instrument() -> None:
    """Wrap the round trips and the CPU steps of a search (module attributes, so callers see them)."""
    from psycopg.rows import dict_row

    import hindsight.adapters.postgres.memory_reads as reads
    import hindsight.adapters.postgres.rows as rows_module
    import hindsight.domain.ranking_features as features
    import hindsight.usecases.recall as recall

    set_tenant = rows_module._SET_TENANT

    async def tenant_rows_of(pool: Any, tenant_id: str, statements: Any, row_factory: Any = dict_row) -> Any:
        label = sys._getframe(1).f_code.co_name
        if label == "tenant_rows":
            label = sys._getframe(2).f_code.co_name
        t0, c0 = time.perf_counter(), time.thread_time()
        async with pool.connection() as conn:
            t1, c1 = time.perf_counter(), time.thread_time()
            async with conn.pipeline():
                await conn.execute(set_tenant, (tenant_id,))
                cursors = []
                for query, params in statements:
                    cursors.append(cur := conn.cursor(row_factory=row_factory))
                    await cur.execute(query, params)
                t2, c2 = time.perf_counter(), time.thread_time()
            t3, c3 = time.perf_counter(), time.thread_time()
            out = [await cur.fetchall() for cur in cursors]
            t4, c4 = time.perf_counter(), time.thread_time()
        t5, c5 = time.perf_counter(), time.thread_time()
        EVENTS.append((f"{label}: checkout", t0, t1, c1 - c0))
        EVENTS.append((f"{label}: compose+send", t1, t2, c2 - c1))
        EVENTS.append((f"{label}: pipeline wait (server)", t2, t3, c3 - c2))
        EVENTS.append((f"{label}: decode (fetchall)", t3, t4, c4 - c3))
        EVENTS.append((f"{label}: return to pool", t4, t5, c5 - c4))
        EVENTS.append((f"{label} (all)", t0, t5, c5 - c0))
        return out

    async def tenant_rows(pool: Any, tenant_id: str, query: Any, params: Any = None, *rows_: Any) -> Any:
        [rows] = await tenant_rows_of(pool, tenant_id, [(query, params)], *rows_)
        return rows

    reads.tenant_rows_of = tenant_rows_of  # type: ignore[assignment]
    reads.tenant_rows = tenant_rows  # type: ignore[assignment]
    reads._merged = timed("_merged", reads._merged, _event)
    reads._ranked = timed("_ranked", reads._ranked, _event)
    features.PoolTexts.add = timed("PoolTexts.add", features.PoolTexts.add, _event)  # type: ignore[method-assign]
    recall.score_candidates = timed("score_candidates", recall.score_candidates, _event)
    recall.demote_injections = timed("demote_injections", recall.demote_injections, _event)
    Recall = recall.Recall
    Recall._hits = timed("_hits", Recall._hits, _event)  # type: ignore[method-assign]
    Recall._with_conflicts = timed("_with_conflicts", Recall._with_conflicts, _event)  # type: ignore[method-assign]
    Recall._observe = timed("_observe", Recall._observe, _event)  # type: ignore[method-assign]
    Recall._scored = timed("_scored (statements+ranking)", Recall._scored, _event)  # type: ignore[method-assign]


async def _serve(settings: Any, data: Any, rounds: int, profile: str | None = None) -> None:
    import latency

    from hindsight.bootstrap import build_container
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    try:
        recall = latency.cached_recall(container, settings)
        container.access_log.note = timed("access note", container.access_log.note, _event)  # type: ignore[method-assign]
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)

        async def one(text: str) -> tuple[float, float, list[tuple[str, float, float, float]]]:
            EVENTS.clear()
            request = resolve(RecallQuery(text=text, top_k=10), latency.NOW)
            started, cpu = time.perf_counter(), time.thread_time()
            await recall.search(scope, request)
            total, cpu = time.perf_counter() - started, time.thread_time() - cpu
            events = [(n, s - started, e - started, c) for n, s, e, c in EVENTS]
            await container.access_log.flush()
            return total, cpu, events

        for text in [*data.warmups, *data.queries]:
            await one(text)
        collections: dict[int, list[float]] = defaultdict(list)
        gc_started = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                gc_started[0] = time.perf_counter()
            else:
                collections[info["generation"]].append(time.perf_counter() - gc_started[0])

        gc.callbacks.append(on_gc)
        load = [uptime()]
        totals: list[float] = []
        cpus: list[float] = []
        pieces: dict[str, list[tuple[float, float, float, float]]] = defaultdict(
            list
        )  # start, end, cpu, wall
        order: list[tuple[float, float, float]] = []  # (vector end - keyword end, tail after both, total)
        for _ in range(rounds):
            for text in data.queries:
                total, cpu, events = await one(text)
                totals.append(total)
                cpus.append(cpu)
                merged: dict[str, list[float]] = {}
                for name, s, e, c in events:  # a piece run more than once: first start, last end, sums
                    if name in merged:
                        m = merged[name]
                        m[0], m[1], m[2], m[3] = min(m[0], s), max(m[1], e), m[2] + c, m[3] + e - s
                    else:
                        merged[name] = [s, e, c, e - s]
                for name, (s, e, c, w) in merged.items():
                    pieces[name].append((s, e, c, w))
                if "vector_rows (all)" in merged and "keyword_rows (all)" in merged:
                    v, k = merged["vector_rows (all)"][1], merged["keyword_rows (all)"][1]
                    order.append((v - k, total - max(v, k), total))
        load.append(uptime())
        gc.callbacks.remove(on_gc)
        n = len(totals)
        for generation, spent in sorted(collections.items()):
            print(
                f"gc generation {generation}: {len(spent)} collections in {n} searches, "
                f"{sum(spent) * 1000 / n:.3f} ms a search (p50 {statistics.median(spent) * 1000:.3f} ms, "
                f"max {max(spent) * 1000:.3f} ms); objects tracked now {len(gc.get_objects())}"
            )
        print(f"{n} cached searches; {load[0]} -> {load[1]}")
        print(f"{'piece':<48} {'start':>7} {'end':>7} {'wall':>7} {'cpu':>7} {'n':>5}  (ms, p50)")
        for name, vs in sorted(pieces.items(), key=lambda kv: statistics.median(v[0] for v in kv[1])):
            start, end, cpu_s, wall = (statistics.median(v[i] for v in vs) * 1000 for i in range(4))
            print(f"{name:<48} {start:>7.3f} {end:>7.3f} {wall:>7.3f} {cpu_s:>7.3f} {len(vs):>5}")
        print(
            f"{'search total':<48} {0:>7.3f} {statistics.median(totals) * 1000:>7.3f} "
            f"{statistics.median(totals) * 1000:>7.3f} {statistics.median(cpus) * 1000:>7.3f} {n:>5}"
        )
        if order:
            later = sum(1 for d, _, _ in order if d > 0)
            print(
                f"vector round trip ended after the keyword one in {later} of {len(order)} searches; "
                f"p50 (vector end - keyword end) {statistics.median(d for d, _, _ in order) * 1000:.3f} ms; "
                f"p50 tail after the later one {statistics.median(t for _, t, _ in order) * 1000:.3f} ms"
            )
        print(
            f"mean total {statistics.fmean(totals) * 1000:.3f} ms, "
            f"mean CPU {statistics.fmean(cpus) * 1000:.3f} ms"
        )
        if profile:
            import cProfile
            import pstats

            prof = cProfile.Profile(time.thread_time)
            prof.enable()
            for text in data.queries:
                await one(text)
            prof.disable()
            prof.dump_stats(profile)
            pstats.Stats(profile).sort_stats("tottime").print_stats(45)
    finally:
        await container.aclose()


def main() -> None:
    run_on_tier(
        __doc__,
        "timeline",
        instrument,
        _serve,
        profile_help="also write (and print) a cProfile of one more round",
    )


if __name__ == "__main__":
    main()

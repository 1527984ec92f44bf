"""Whether two checkouts' ``memory_search`` return the same hits, exactly, on ``bench/latency.py``'s tier.

    python bench/search_same.py <checkout A> <checkout B> [--size 10000] [--queries 200]

Each checkout gets a child process (``PYTHONPATH=<checkout>/shared:<this bench folder>``, as in
``bench/ab_search.py``), one after the other, on one database: the first loads the latency tier of
``--size`` memories (``bench/latency.py``'s corpus, vectors, queries and seeds) into a stack kept on disk,
the second starts a stack on the same data directory (HNSW builds differ from one build to the next, so
two loads would not give the same vector candidates). Each runs each of the first
``--queries`` queries through ``Recall.search`` (default ranker, top 10) in five forms: as is, with
``valid_at`` and with ``known_at`` (at the query time), on the semantic layer only, and with
``min_importance`` 0.5 (a filter: the text helpers return every match); and ``Recall.trace`` of the
plain query (every candidate of the pool, ranked). Each hit is written as its id, every score (floats
as hex: bit for bit) and its labels (flags), and so is each search's candidate pool
(``search_candidates``, by id). The parent compares the two sides' lists, prints the searches that
differ and says whether the pools (the rows and signals of the store) and the hits (ranked) agree. Exit
status 1 when any differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WARMUP = 5


def _hex(value: Any) -> Any:
    return value.hex() if isinstance(value, float) else value


def child(checkout: Path, size: int, queries: int, out: Path, data_dir: Path, load: bool) -> None:
    """Run the searches against the stack in ``data_dir`` (``load``: load the tier into it first) with
    ``checkout``'s code; one JSON line per search."""
    import asyncio

    import latency

    import hindsight
    from hindsight.local.stack import LocalStack

    shared = str(checkout.resolve() / "shared")
    if not hindsight.__file__ or not hindsight.__file__.startswith(shared):
        raise SystemExit(f"hindsight imported from {hindsight.__file__}, not {shared}")
    data = latency.build_dataset(queries, WARMUP)
    with LocalStack(data_dir) as stack:
        settings = stack.require_settings()
        if load:
            latency.load_tier(settings.require_database_url(), data, size)
            asyncio.run(latency.keyword_stats(settings))
        asyncio.run(_searches(settings, data, out))


async def _searches(settings: Any, data: Any, out: Path) -> None:
    import latency

    from hindsight.bootstrap import build_container
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    forms: dict[str, dict[str, Any]] = {
        "plain": {},
        "valid_at": {"valid_at": latency.NOW},
        "known_at": {"known_at": latency.NOW},
        "semantic": {"layers": ("semantic",)},
        "important": {"min_importance": 0.5},
    }

    class Recorder:
        """The reader, keeping what ``search_candidates`` returned last (compared as a set: by id)."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner
            self.last: Any = []

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        async def search_candidates(self, *args: Any) -> Any:
            self.last = await self.inner.search_candidates(*args)
            return self.last

    reader = Recorder(container.reader)
    try:
        recall = latency.cached_recall(container, settings, reader)
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        with out.open("w") as f:
            for n, text in enumerate(data.queries):
                for form, extra in forms.items():
                    request = resolve(RecallQuery(text=text, top_k=10, **extra), latency.NOW)
                    hits = await recall.search(scope, request, record_access=False)
                    rows = [
                        [str(h.memory.id), {k: _hex(v) for k, v in h.scores.model_dump().items()}, h.flags]
                        for h in hits
                    ]
                    f.write(json.dumps({"query": n, "form": form, "hits": rows}) + "\n")
                    pool = sorted(
                        ([str(c.memory.id), {k: _hex(v) for k, v in c.model_dump(mode="json").items()}])
                        for c in reader.last
                    )
                    f.write(json.dumps({"query": n, "form": f"{form} candidates", "hits": pool}) + "\n")
                trace = await recall.trace(scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW))
                rows = [
                    [
                        str(r.hit.memory.id),
                        r.vector_rank,
                        r.keyword_rank,
                        r.entity_rank,
                        {k: _hex(v) for k, v in r.hit.scores.model_dump().items()},
                    ]
                    for r in trace.rows
                ]
                f.write(json.dumps({"query": n, "form": "trace", "hits": rows}) + "\n")
    finally:
        await container.aclose()


def run_side(checkout: Path, size: int, queries: int, out: Path, data_dir: Path, load: bool) -> None:
    checkout = checkout.resolve()
    own = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": f"{checkout / 'shared'}{os.pathsep}{HERE}"}
    python = str(own) if own.exists() else sys.executable
    argv = [str(checkout), str(size), str(queries), str(out), str(data_dir), "load" if load else "reuse"]
    subprocess.run(
        [python, str(Path(__file__).resolve()), "--child", *argv],
        cwd=checkout,
        env=env,
        check=True,
        stdout=sys.stderr,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hindsight-same-"))
    results = []
    try:
        for label, checkout in (("a", args.a), ("b", args.b)):
            out = folder / f"{label}.jsonl"
            run_side(checkout, args.size, args.queries, out, folder / "stack", label == "a")
            results.append([json.loads(line) for line in out.read_text().splitlines()])
    finally:
        shutil.rmtree(folder / "stack", ignore_errors=True)
    a, b = results
    differ = [x for x, y in zip(a, b, strict=True) if x != y]
    pools = [x for x in a if x["form"].endswith("candidates")]
    print(
        f"{args.size:,} memories, {args.queries} queries: {len(pools)} candidate pools "
        f"({sum(len(x['hits']) for x in pools)} candidates), {len(a) - len(pools)} searches and traces "
        f"({sum(len(x['hits']) for x in a if x not in pools)} hits or trace rows); differ: "
        f"{sum(x['form'].endswith('candidates') for x in differ)} pools, "
        f"{sum(not x['form'].endswith('candidates') for x in differ)} searches or traces"
    )
    for x in differ[:10]:
        print(f"  query {x['query']} {x['form']}")
    if differ or len(a) != len(b):
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(
            Path(sys.argv[2]),
            int(sys.argv[3]),
            int(sys.argv[4]),
            Path(sys.argv[5]),
            Path(sys.argv[6]),
            sys.argv[7] == "load",
        )
    else:
        main()

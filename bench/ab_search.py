"""Same-run A/B of ``memory_search`` latency between two checkouts of this repository.

    python bench/ab_search.py <baseline checkout> <candidate checkout> [--size 10000] [--queries 200]
                              [--rounds 2] [--chunk 10] [--record] [--note TEXT]
                              [--keep-stacks DIR_A DIR_B]

Each checkout gets a child process of its own (``--child``) with ``PYTHONPATH=<checkout>/shared:<this
bench folder>``: the product code (search, ranking, SQL, migrations, the learned ranker's model) is the
checkout's own, the harness is this one for both sides, so the data are identical: ``bench/latency.py``'s
synthetic corpus, vectors and queries (same seeds, the same ``var/bench-cache`` embeddings), loaded by
its ``load_tier`` into a throw-away ``LocalStack`` of each child (the checkout's own migrations), the
tenant's keyword statistics counted as the maintenance step would. The harness calls only product APIs
that exist since 8100270 (``build_container``, ``Recall``, ``RecallQuery``/``resolve``,
``CachedQueryEmbedder``, ``ranking_policy``; ``valid_at``/``known_at`` only where ``RecallQuery`` has them).

Both children stay up; the parent hands them the same work in chunks of ``--chunk`` queries, alternating
which side goes first (A B, B A, ...), so both see the same drift of this shared machine's load:

* ``new``: a query text neither side has seen, so its embedding is computed (``Recall.search`` exactly as
  the MCP tool runs it, default ranker, top 10); every round has its own ``--queries`` texts;
* ``cached``: the same texts again, the embedding served by the in-process query cache (everything but
  the model); where the checkout has them, the same search with ``valid_at`` and with ``known_at`` (both
  at the query time, so every row qualifies) right after each default one.

``new_cpu`` and ``cached_cpu`` are the CPU time of the child's event-loop thread during each search (the
model's threads not counted): on this shared machine it moves less with the load than the wall time.
The deferred access UPDATE of each search is awaited after the clock stops, as in ``bench/latency.py``.
Prints medians, p95, p99 per side and kind, the ratio B/A (overall and per round), and ``uptime`` before
and after; ``--record`` also writes the result into ``bench/results/latest.json`` (section ``ab_search``,
one entry per pair) for ``bench/report.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
WARMUP = 20
POINT_KINDS = ("valid_at", "known_at")


# ---- child: one checkout's stack ----------------------------------------------------------------


def child(checkout: Path, size: int, searches: int, kept: Path | None = None) -> None:
    """Serve timing requests (JSON lines on stdin) against a loaded stack of ``checkout``'s code (in
    ``kept``, reusing the tier it holds: ``latency.load_or_reuse``; else a throw-away one)."""
    # The protocol owns the real stdout; anything the product or the harness prints goes to stderr.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    import asyncio

    import hindsight
    import hindsight.adapters.postgres.rows as rows

    # bench/latency.py imports tenant_rows (newer than 8100270) for its floor probe, unused here
    if not hasattr(rows, "tenant_rows"):
        rows.tenant_rows = None  # type: ignore[attr-defined]
    import latency
    from common import bench_tmpdir

    from hindsight.local.stack import LocalStack
    from hindsight.usecases.recall import RecallQuery

    shared = str(checkout.resolve() / "shared")
    if not hindsight.__file__ or not hindsight.__file__.startswith(shared):
        raise SystemExit(f"hindsight imported from {hindsight.__file__}, not {shared}")
    point = [k for k in POINT_KINDS if k in RecallQuery.model_fields]
    data = latency.build_dataset(searches, WARMUP)
    with LocalStack(kept or bench_tmpdir("ab"), ephemeral=kept is None) as stack:
        settings = stack.require_settings()
        tier = latency.load_or_reuse(settings.require_database_url(), data, size, kept)
        tier["keyword_stats"] = asyncio.run(latency.keyword_stats(settings))
        hello = {"hindsight": hindsight.__file__, "point_in_time": point, "tier": tier}
        asyncio.run(_serve(settings, data, hello, proto))


async def _serve(settings: Any, data: Any, hello: dict[str, Any], proto: IO[str]) -> None:
    import asyncio

    import latency
    from common import TimedEmbedder, TimedReader

    from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
    from hindsight.bootstrap import build_container, ranking_policy
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import Recall, RecallQuery, resolve

    container = await build_container(settings, with_queue=False)
    try:
        embedder, reader = TimedEmbedder(container.embedder), TimedReader(container.reader)
        recall = Recall(
            reader,
            CachedQueryEmbedder(embedder),
            container.clock,
            container.access_log,
            ranking_policy(settings),
            settings.candidate_pool,
        )
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        hits_seen: list[int] = []

        cpu_ms: list[float] = []  # the event loop thread's CPU time of each search (ms)

        async def one(text: str, **point: Any) -> float:
            started, cpu = time.perf_counter(), time.thread_time()
            query = RecallQuery(text=text, top_k=10, **point)
            hits = await recall.search(scope, resolve(query, latency.NOW))
            elapsed = (time.perf_counter() - started) * 1000
            cpu_ms.append((time.thread_time() - cpu) * 1000)
            hits_seen.append(len(hits))
            await container.access_log.flush()  # the deferred access UPDATE, off the clock
            return elapsed

        for text in data.warmups:
            await one(text)
        proto.write(json.dumps(hello, default=str) + "\n")
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            order = json.loads(line)
            texts = [data.queries[i] for i in order["idx"]]
            out: dict[str, list[float]] = {}
            if order["op"] == "new":
                for text in texts:
                    out.setdefault("new", []).append(await one(text))
                    out.setdefault("new_cpu", []).append(cpu_ms[-1])
                    out.setdefault("new_embed", []).append(embedder.query_ms[-1])
                    out.setdefault("new_sql", []).append(reader.sql_ms[-1])
            elif order["op"] == "cached":
                for text in texts:
                    out.setdefault("cached", []).append(await one(text))
                    out.setdefault("cached_cpu", []).append(cpu_ms[-1])
                    out.setdefault("cached_sql", []).append(reader.sql_ms[-1])
                    for kind in hello["point_in_time"]:
                        out.setdefault(kind, []).append(await one(text, **{kind: latency.NOW}))
            else:
                return
            proto.write(json.dumps({"samples": out, "mean_hits": _mean(hits_seen)}) + "\n")
    finally:
        await container.aclose()


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


# ---- parent: the interleaving -------------------------------------------------------------------


class Side:
    """One checkout's child process."""

    def __init__(
        self, label: str, checkout: Path, size: int, searches: int, logs: Path, kept: Path | None = None
    ) -> None:
        self.label, self.checkout = label, checkout.resolve()
        own = self.checkout / ".venv" / "bin" / "python"
        python = str(own) if own.exists() else sys.executable
        env = {**os.environ, "PYTHONPATH": f"{self.checkout / 'shared'}{os.pathsep}{HERE}"}
        self.log_path = logs / f"{label}.log"
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--child", str(self.checkout), str(size), str(searches)]
            + ([str(kept.resolve())] if kept is not None else []),
            cwd=self.checkout,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log_path.open("w"),
            text=True,
        )
        from common import checkout_sha

        self.sha = checkout_sha(self.checkout)
        self.samples: dict[str, list[list[float]]] = {}  # kind -> per round
        self.hello: dict[str, Any] = {}
        self.mean_hits = 0.0

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            tail = self.log_path.read_text()[-3000:]
            raise SystemExit(f"{self.label} ({self.checkout}) stopped:\n{tail}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def ask(self, op: str, idx: list[int], round_no: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, "idx": idx}) + "\n")
        self.proc.stdin.flush()
        reply = self.read()
        self.mean_hits = reply["mean_hits"]
        for kind, values in reply["samples"].items():
            per_round = self.samples.setdefault(kind, [])
            while len(per_round) <= round_no:
                per_round.append([])
            per_round[round_no].extend(values)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(30)


def _ratio(b: float | None, a: float | None) -> float | None:
    return round(b / a, 3) if a and b is not None else None


def summarise(a: Side, b: Side) -> dict[str, Any]:
    from common import percentiles

    out: dict[str, Any] = {"kinds": {}}
    for kind in ("new", "cached", "new_embed", "new_sql", "cached_sql", "new_cpu", "cached_cpu"):
        pa = percentiles([x for r in a.samples.get(kind, []) for x in r])
        pb = percentiles([x for r in b.samples.get(kind, []) for x in r])
        out["kinds"][kind] = {
            "a": pa,
            "b": pb,
            "ratio_p50": _ratio(pb.get("p50"), pa.get("p50")),
            "ratio_p99": _ratio(pb.get("p99"), pa.get("p99")),
            "ratio_p50_per_round": [
                _ratio(percentiles(rb).get("p50"), percentiles(ra).get("p50"))
                for ra, rb in zip(a.samples.get(kind, []), b.samples.get(kind, []), strict=False)
            ],
        }
    point: dict[str, Any] = {}
    for side, key in ((a, "a"), (b, "b")):
        default = percentiles([x for r in side.samples.get("cached", []) for x in r])
        for kind in POINT_KINDS:
            if kind in side.samples:
                p = percentiles([x for r in side.samples[kind] for x in r])
                point.setdefault(key, {})[kind] = {
                    **p,
                    "to_default_cached_p50": _ratio(p.get("p50"), default.get("p50")),
                }
    out["point_in_time"] = point
    return out


def report_lines(result: dict[str, Any]) -> list[str]:
    s, a, b = result["summary"], result["a"], result["b"]
    lines = [
        f"A = {a['sha']} ({a['checkout']}), B = {b['sha']} ({b['checkout']}); {result['size']:,} memories "
        f"(+{result['other_rows']:,} of other tenants), {result['queries']} new queries x "
        f"{result['rounds']} rounds, chunks of {result['chunk']} alternating A/B; "
        f"HINDSIGHT_EMBED_THREADS={result['embed_threads']}",
        f"uptime before: {result['uptime_before']}",
        f"uptime after:  {result['uptime_after']}",
        "kind             A p50 / p95 / p99 ms        B p50 / p95 / p99 ms        B/A p50  B/A p99  rounds",
    ]
    for kind, k in s["kinds"].items():
        pa, pb = k["a"], k["b"]
        if not pa.get("n"):
            continue
        lines.append(
            f"{kind:<16} {pa['p50']:>7} / {pa['p95']:>7} / {pa['p99']:>7}   "
            f"{pb['p50']:>7} / {pb['p95']:>7} / {pb['p99']:>7}   {k['ratio_p50']:>6}   {k['ratio_p99']:>6}   "
            f"{k['ratio_p50_per_round']}"
        )
    for key, kinds in s["point_in_time"].items():
        for kind, p in kinds.items():
            lines.append(
                f"{key.upper()} {kind}: p50 {p['p50']} / p99 {p['p99']} ms "
                f"(x{p['to_default_cached_p50']} of its default cached-embedding p50)"
            )
    return lines


def _command() -> str:
    """How this run was started (the embedding threads included; the note is reported on its own)."""
    argv = list(sys.argv)
    if "--note" in argv:
        del argv[argv.index("--note") : argv.index("--note") + 2]
    threads = os.environ.get("HINDSIGHT_EMBED_THREADS")
    return (f"HINDSIGHT_EMBED_THREADS={threads} " if threads else "") + "python " + shlex.join(argv)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200, help="new queries per round and side")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=10, help="queries a side runs before the other's turn")
    parser.add_argument("--record", action="store_true", help="merge into bench/results/latest.json")
    parser.add_argument("--note", default="", help="what the pair isolates, for the report")
    parser.add_argument(
        "--keep-stacks",
        nargs=2,
        type=Path,
        metavar=("DIR_A", "DIR_B"),
        help="a stack folder per side, its tier reused when it holds it (latency.load_or_reuse; two "
        "copies of one kept stack: the same HNSW graph on both sides), else loaded and kept there",
    )
    args = parser.parse_args()
    if args.queries % args.chunk:
        parser.error("--queries must be a multiple of --chunk")
    searches = args.queries * args.rounds
    logs = Path(tempfile.mkdtemp(prefix="hindsight-ab-"))
    print(f"child logs in {logs}", flush=True)
    from common import uptime

    # one after the other: the first fills var/bench-cache, the second only reads it
    kept_a, kept_b = args.keep_stacks or (None, None)
    a = Side("a", args.baseline, args.size, searches, logs, kept_a)
    a.hello = a.read()
    b = Side("b", args.candidate, args.size, searches, logs, kept_b)
    try:
        b.hello = b.read()
        uptime_before, load_before = uptime(), os.getloadavg()
        started = time.monotonic()
        for r in range(args.rounds):
            idx = list(range(r * args.queries, (r + 1) * args.queries))
            chunks = [idx[i : i + args.chunk] for i in range(0, len(idx), args.chunk)]
            for op in ("new", "cached"):
                for k, chunk in enumerate(chunks):
                    for side in (a, b) if (r + k) % 2 == 0 else (b, a):
                        side.ask(op, chunk, r)
            print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", flush=True)
        uptime_after, load_after = uptime(), os.getloadavg()
    finally:
        a.close()
        b.close()
    result: dict[str, Any] = {
        "a": {"sha": a.sha, "checkout": str(a.checkout), "mean_hits": a.mean_hits, **a.hello},
        "b": {"sha": b.sha, "checkout": str(b.checkout), "mean_hits": b.mean_hits, **b.hello},
        "size": args.size,
        "other_rows": 10_000,
        "queries": args.queries,
        "rounds": args.rounds,
        "chunk": args.chunk,
        "warmup": WARMUP,
        "embed_threads": os.environ.get("HINDSIGHT_EMBED_THREADS", "(default)"),
        "uptime_before": uptime_before,
        "uptime_after": uptime_after,
        "load_1_5_15_before": [round(x, 2) for x in load_before],
        "load_1_5_15_after": [round(x, 2) for x in load_after],
        "measuring_s": round(time.monotonic() - started),
        "command": _command(),
        "note": args.note,
    }
    result["summary"] = summarise(a, b)
    print("\n".join(report_lines(result)), flush=True)
    out = logs / "result.json"
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(f"raw: {out}", flush=True)
    if args.record:
        from common import load_results, merge_results

        section = load_results().get("ab_search", {})
        section[f"{a.sha}..{b.sha}"] = result
        merge_results("ab_search", section, result["command"])


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "--child":
        child(
            Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5]) if sys.argv[5:] else None
        )
    else:
        main()

"""The Python CPU of ``memory_search`` after its SQL returns, replayed without a database (issue 15).

    python bench/cpu_replay.py capture [--size 100000] [--keep-stack DIR]
    python bench/cpu_replay.py ab <A checkout> <B checkout> [--rounds 6] [--cold]
    python bench/cpu_replay.py dump <checkout> OUT.pkl
    python bench/cpu_replay.py same A.pkl B.pkl
    python bench/cpu_replay.py profile <checkout> [--rounds 2] [--cold]

``capture`` loads ``bench/latency.py``'s tier (same corpus, queries and seeds) into a throw-away stack (or
reuses the one kept in ``--keep-stack``: ``latency.load_or_reuse``),
runs its 200 queries through ``Recall.search`` (default ranker, top 10) and saves, per search, the request
and what the reader returned: both search statements' rows, the full rows fetched for the hits and the
relations read (``var/bench-cache/search-rows-<size>.pkl``).

The other commands replay those searches through a checkout's own ``Recall.search`` (``PYTHONPATH=
<checkout>/shared``, one child process per checkout) with a reader that serves the captured rows through
the checkout's row code (``_merged``, ``_ranked``, ``memory_from_row``) and a constant query embedding:
what is measured is the CPU after the SQL returns — candidates, features, model, scoring, hits, labels.
``ab`` alternates the two children round by round and reports thread CPU time per search (the machine is
shared: CPU time moves less with the load than wall time); ``--cold`` clears the injection detector's
cache before each search, as for hits never labelled before. ``dump`` writes every candidate, feature
matrix, score (as float hex) and hit of the learned and the RRF ranker; ``same`` compares two dumps
exactly. The RRF ranker's hits are not all among the captured full rows: those get their candidate row
and defaults (the same for both sides).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pickle
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / "var" / "bench-cache"


def capture_path(size: int) -> Path:
    return CACHE / f"search-rows-{size}.pkl"


def _load(path: Path) -> Any:
    with path.open("rb") as f:
        return pickle.load(f)  # noqa: S301 - files this script wrote


# ---- capture ------------------------------------------------------------------------------------


def capture(size: int, kept: Path | None = None) -> None:
    """Load the latency tier of ``size`` memories and record what the reader returns for its queries."""
    sys.path.insert(0, str(HERE))
    import latency
    from common import bench_tmpdir, log

    import hindsight.adapters.postgres.memory_reads as reads
    from hindsight.bootstrap import build_container
    from hindsight.domain.memory import Scope
    from hindsight.local.stack import LocalStack
    from hindsight.usecases.recall import RecallQuery, resolve

    current: dict[str, Any] = {}
    merged, from_row = reads._merged, reads.memory_from_row

    def recording_merged(vector_rows: list[dict[str, Any]], *text: list[dict[str, Any]]) -> Any:
        # the text signals' rows as one row per memory with all three text columns, as the single
        # text statement of older checkouts returned them (every checkout's _merged reads that shape)
        current["vector_rows"] = [dict(r) for r in vector_rows]
        copies = merged(*([dict(r) for r in rows] for rows in text))
        current["text_rows"] = [{k: v for k, v in r.items() if k != "similarity"} for r in copies]
        return merged(vector_rows, *text)

    def recording_from_row(row: dict[str, Any]) -> Any:
        current.setdefault("rows", []).append(dict(row))
        return from_row(row)

    reads._merged = recording_merged  # type: ignore[assignment]
    reads.memory_from_row = recording_from_row  # type: ignore[assignment]

    class Recorder:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        async def get_many(self, scope: Any, ids: Any) -> Any:
            current["rows"] = []
            out = await self.inner.get_many(scope, ids)
            current.setdefault("get_many", []).append((list(ids), current.pop("rows")))
            return out

        async def relations(self, scope: Any, ids: Any) -> Any:
            out = await self.inner.relations(scope, ids)
            current.setdefault("relations", []).append((list(ids), out))
            return out

        async def get_many_with_relations(self, scope: Any, ids: Any, relation_ids: Any) -> Any:
            # recorded as the two reads it stands for (a checkout without it makes them)
            return await self.get_many(scope, ids), await self.relations(
                scope, relation_ids
            ) if relation_ids else []

    async def run(settings: Any, data: Any) -> list[dict[str, Any]]:
        container = await build_container(settings, with_queue=False)
        try:
            recall = latency.cached_recall(container, settings, Recorder(container.reader))
            scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
            for text in data.warmups:
                await recall.search(scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW))
                await container.access_log.flush()
            captured = []
            for text in data.queries:
                current.clear()
                request = resolve(RecallQuery(text=text, top_k=10), latency.NOW)
                hits = await recall.search(scope, request)
                await container.access_log.flush()
                captured.append(
                    {
                        "request": request,
                        "pool": settings.candidate_pool,
                        "vector_rows": current["vector_rows"],
                        "text_rows": current["text_rows"],
                        "get_many": current.get("get_many", []),
                        "relations": current.get("relations", []),
                        "hits": [h.model_dump(mode="json") for h in hits],
                    }
                )
            return captured
        finally:
            await container.aclose()

    data = latency.build_dataset(200, 20)
    with LocalStack(kept or bench_tmpdir("replay"), ephemeral=kept is None) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, size, kept)
        asyncio.run(latency.keyword_stats(settings))
        captured = asyncio.run(run(settings, data))
    CACHE.mkdir(parents=True, exist_ok=True)
    with capture_path(size).open("wb") as f:
        pickle.dump(captured, f, protocol=pickle.HIGHEST_PROTOCOL)
    log(f"cpu_replay: {len(captured)} searches captured to {capture_path(size)}")


# ---- replay (in a child whose PYTHONPATH is a checkout's shared/) --------------------------------


def _replayer(searches: list[dict[str, Any]], learned: bool) -> Any:
    import hindsight.adapters.postgres.memory_reads as reads
    from hindsight.adapters.system_clock import SystemClock
    from hindsight.config import Settings
    from hindsight.domain.memory import Scope
    from hindsight.factories import ranking_policy
    from hindsight.usecases.recall import Recall

    class Reader:
        q: dict[str, Any]
        rows: tuple[list[dict[str, Any]], list[dict[str, Any]]]

        def load(self, q: dict[str, Any]) -> None:
            self.q = q  # fresh row dicts, made off the clock (the driver's are fresh too)
            self.rows = ([dict(r) for r in q["vector_rows"]], [dict(r) for r in q["text_rows"]])

        async def search_candidates(self, *args: Any) -> Any:
            if len(args) > 4 and args[4] is not None:  # prepare: each statement's texts, as they arrive
                for rows in reversed(self.rows):  # the text statements end first on a new query
                    args[4]([r["content"] for r in rows])
            return reads._ranked(reads._merged(*self.rows))

        async def get_many(self, scope: Any, ids: Any) -> Any:
            full = {r["id"]: r for _, rows in self.q["get_many"] for r in rows}
            pool = {r["id"]: r for r in (*self.q["vector_rows"], *self.q["text_rows"])}
            signals = ("similarity", "keyword_score", "entity_matches", "entity_distance")
            defaults = {"tenant_id": "bench", "agent_id": "default", "key": None, "query": None}
            defaults |= {"metadata": {}, "status": "active", "last_accessed_at": None}
            out = []
            for i in ids:
                row = full.get(i) or {k: v for k, v in pool[i].items() if k not in signals} | defaults
                out.append(reads.memory_from_row(row))
            return out

        async def relations(self, scope: Any, ids: Any) -> Any:
            return {tuple(w): out for w, out in self.q["relations"]}.get(tuple(ids), [])

        async def get_many_with_relations(self, scope: Any, ids: Any, relation_ids: Any) -> Any:
            return await self.get_many(scope, ids), await self.relations(
                scope, relation_ids
            ) if relation_ids else []

    class Embedder:
        async def embed_query(self, text: str) -> list[float]:
            return [0.0]

    class NoAccess:
        def note(self, *_: Any) -> None:
            pass

    policy = ranking_policy(Settings())
    reader = Reader()
    recall = Recall(
        reader,  # type: ignore[arg-type]
        Embedder(),  # type: ignore[arg-type]
        SystemClock(),
        NoAccess(),
        policy if learned else replace(policy, learned=None),
        searches[0]["pool"],
    )
    return recall, reader, Scope(tenant_id="bench", agent_id="default")


def _cpu_ms(searches: list[dict[str, Any]], rounds: int, cold: bool, learned: bool = True) -> list[float]:
    from hindsight.domain.injection import injection_signals

    recall, reader, scope = _replayer(searches, learned)
    samples: list[float] = []

    async def go() -> None:
        for _ in range(rounds):
            for q in searches:
                reader.load(q)
                if cold:
                    injection_signals.cache_clear()
                started = time.thread_time()
                await recall.search(scope, q["request"])
                samples.append((time.thread_time() - started) * 1000)

    asyncio.run(go())
    return samples


def _dump(searches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from hindsight.domain.ranking import score_candidates
    from hindsight.domain.ranking_features import candidate_features

    out: list[dict[str, Any]] = []
    for learned in (True, False):
        recall, reader, scope = _replayer(searches, learned)

        async def go(
            recall: Any = recall, reader: Any = reader, scope: Any = scope, learned: bool = learned
        ) -> None:
            for q in searches:
                request = q["request"]
                reader.load(q)
                candidates = await reader.search_candidates()
                scored = score_candidates(
                    candidates,
                    policy=recall._policy,
                    now=request.now,
                    intent=request.time_intent,
                    request=request,
                )
                reader.load(q)
                hits = await recall.search(scope, request)
                out.append(
                    {
                        "candidates": [c.model_dump() for c in candidates],
                        "features": candidate_features(candidates, request).tobytes(),
                        "scored": [
                            (
                                str(s.candidate.memory.id),
                                *(None if v is None else v.hex() for v in (s.rrf, s.model, s.relevance)),
                                *(v.hex() for v in (s.time, s.frequency, s.final)),
                            )
                            for s in scored
                        ],
                        "hits": [h.model_dump_json() for h in hits],
                        "fields_set": [
                            (sorted(h.model_fields_set), sorted(h.scores.model_fields_set)) for h in hits
                        ],
                        "as_captured": learned and [h.model_dump(mode="json") for h in hits] == q["hits"],
                    }
                )

        asyncio.run(go())
    return out


def child(args: argparse.Namespace) -> None:
    """Serve the parent: ``{"op": "time", "rounds": n, "cold": b}`` → CPU ms per search, one JSON line."""
    import hindsight

    searches = _load(capture_path(args.size))
    print(json.dumps({"hindsight": hindsight.__file__}), flush=True)
    _cpu_ms(searches, 1, cold=False)  # warm-up: imports, the model, the detector's patterns
    for line in sys.stdin:
        order = json.loads(line)
        print(json.dumps(_cpu_ms(searches, order["rounds"], order["cold"])), flush=True)


def _spawn(checkout: Path, size: int) -> subprocess.Popen[str]:
    env = os.environ | {"PYTHONPATH": f"{checkout.resolve() / 'shared'}:{HERE}"}
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", "--size", str(size)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    print(f"{checkout}: {json.loads(proc.stdout.readline())['hindsight']}")
    return proc


def _summary(samples: list[float]) -> str:
    xs = sorted(samples)
    n = len(xs)
    mean, p50, p90, p99 = statistics.fmean(xs), xs[n // 2], xs[int(n * 0.9)], xs[int(n * 0.99)]
    return f"mean {mean:.3f}  p50 {p50:.3f}  p90 {p90:.3f}  p99 {p99:.3f}"


def ab(a: Path, b: Path, size: int, rounds: int, cold: bool) -> None:
    print(f"uptime before: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    procs = {"A": _spawn(a, size), "B": _spawn(b, size)}
    samples: dict[str, list[float]] = {"A": [], "B": []}
    for r in range(rounds):
        for side in ("A", "B") if r % 2 == 0 else ("B", "A"):
            proc = procs[side]
            assert proc.stdin is not None
            assert proc.stdout is not None
            proc.stdin.write(json.dumps({"rounds": 1, "cold": cold}) + "\n")
            proc.stdin.flush()
            samples[side] += json.loads(proc.stdout.readline())
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    print(f"uptime after:  {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(
        f"CPU ms per search ({'detector cache cleared' if cold else 'detector cache warm'}), {rounds} rounds:"
    )
    for side in ("A", "B"):
        print(f"  {side}: {_summary(samples[side])}")
    ratio = statistics.median(samples["B"]) / statistics.median(samples["A"])
    print(f"  B/A p50: {ratio:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=100_000)
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("capture")
    p.add_argument("--keep-stack", type=Path, default=None, help="a folder to keep the stack in")
    p = sub.add_parser("ab")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--cold", action="store_true")
    p = sub.add_parser("dump")
    p.add_argument("checkout", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("same")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    p = sub.add_parser("profile")
    p.add_argument("checkout", type=Path)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--cold", action="store_true")
    p = sub.add_parser("_dump")
    p.add_argument("out", type=Path)
    p = sub.add_parser("_profile")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    if args.child:
        child(args)
    elif args.command == "capture":
        capture(args.size, args.keep_stack)
    elif args.command == "ab":
        ab(args.a, args.b, args.size, args.rounds, args.cold)
    elif args.command in ("dump", "profile"):
        env = os.environ | {"PYTHONPATH": f"{args.checkout.resolve() / 'shared'}:{HERE}"}
        rest = (
            [str(args.out)]
            if args.command == "dump"
            else ["--rounds", str(args.rounds)] + ["--cold"] * args.cold
        )
        subprocess.run(
            [sys.executable, __file__, "--size", str(args.size), f"_{args.command}", *rest],
            env=env,
            check=True,
        )
    elif args.command == "_dump":
        searches = _load(capture_path(args.size))
        out = _dump(searches)
        with args.out.open("wb") as f:
            pickle.dump(out, f)
        same = sum(o["as_captured"] for o in out)
        print(f"{len(out)} searches dumped; the replay equals the live search for {same} of them")
    elif args.command == "_profile":
        import cProfile
        import pstats

        searches = _load(capture_path(args.size))
        _cpu_ms(searches, 1, cold=False)
        profile = cProfile.Profile()
        profile.enable()
        _cpu_ms(searches, args.rounds, cold=args.cold)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    elif args.command == "same":
        a, b = _load(args.a), _load(args.b)
        differing: dict[str, int] = {}
        for x, y in zip(a, b, strict=True):
            for key in x:
                if x[key] != y[key]:
                    differing[key] = differing.get(key, 0) + 1
        print(f"{len(a)} searches (learned, then RRF): {differing or 'identical'}")
        if differing:
            raise SystemExit(1)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()

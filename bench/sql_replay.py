"""The database time of ``memory_search``'s statements: captured from a checkout, replayed with server CPU.

    python bench/sql_replay.py capture <checkout> OUT.pkl --stack DIR [--queries 60] [--repeat]
    python bench/sql_replay.py ab A.pkl B.pkl --stack DIR [--rounds 4]
    python bench/sql_replay.py explain A.pkl --stack DIR [--search 0] [--kind vec]

``capture`` starts the stack kept in ``--stack`` (``bench/run.py latency --keep-stack DIR``: the latency
tier, its corpus, queries and seeds), runs the first ``--queries`` benchmark queries through the
checkout's own ``Recall.search`` (``PYTHONPATH=<checkout>/shared``, default ranker, top 10, a cold query
embedding cache, so each is a new query; ``--repeat``: each query run twice and the second, a repeated
query with the embedding at hand, kept) and saves every round trip the reader made, in order: its
statements, as text, with their parameters (``rows.tenant_rows_of``'s pipelines).

``ab`` replays two captures on the same stack, one connection per side (the role and session settings
of the product's pool, ``psycopg``'s default prepare threshold, so a statement is prepared from its
sixth run on, as on a pool connection), search by search, alternating which side goes first, ``--rounds``
times over the searches. Each round trip is sent as the product sends it (the tenant setting and the
statements in one pipeline) and measured by the server's CPU time for it: the backend's run time from
/proc/<pid>/schedstat (a loaded machine inflates it far less than wall time). Per side: the median of
each kind of round trip (``kw`` keyword, ``vec`` vector, ``ent`` entity, ``vec+ent``, ``rows`` the hits'
rows and relations) and of the whole search, p90, and the B/A ratio of the medians, per round and
overall. The rows each statement returned are compared between the sides (a difference is printed: a
change of plan may change results). Run ``ab A.pkl A.pkl`` beside it for the noise.

``explain`` prints EXPLAIN (ANALYZE, BUFFERS) of one captured statement.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _kind(text: str) -> str:
    if "hindsight_keyword_queries" in text:
        return "kw"
    if "hindsight_entity_matches" in text:
        return "ent"
    if "<=>" in text:
        return "vec"
    return "rows"


# ---- capture (child: the checkout's code) -------------------------------------------------------


def _capture_child(stack_dir: Path, queries: int, out: Path, repeat: bool, form: str) -> None:
    import asyncio

    import latency

    import hindsight.adapters.postgres.memory_reads as reads
    import hindsight.adapters.postgres.rows as rows
    from hindsight.local.stack import LocalStack

    data = latency.build_dataset(queries, 0)
    trips: list[list[tuple[str, Any]]] = []
    original = rows.tenant_rows_of

    async def recording(pool: Any, tenant_id: str, statements: Any) -> Any:
        async with pool.connection() as conn:
            trips.append(
                [(q.as_string(conn) if hasattr(q, "as_string") else str(q), p) for q, p in statements]
            )
        return await original(pool, tenant_id, statements)

    rows.tenant_rows_of = recording  # type: ignore[assignment]
    if hasattr(reads, "tenant_rows_of"):
        reads.tenant_rows_of = recording  # type: ignore[attr-defined]

    async def run(settings: Any) -> list[list[list[tuple[str, Any]]]]:
        from hindsight.bootstrap import build_container
        from hindsight.domain.memory import Scope
        from hindsight.usecases.recall import RecallQuery, resolve

        container = await build_container(settings, with_queue=False)
        searches = []
        try:
            recall = latency.cached_recall(container, settings)
            scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
            for text in data.queries[:queries]:
                extra = {
                    "plain": {},
                    "valid_at": {"valid_at": latency.NOW},
                    "known_at": {"known_at": latency.NOW},
                    "semantic": {"layers": ("semantic",)},
                    "important": {"min_importance": 0.5},
                }[form]
                request = resolve(RecallQuery(text=text, top_k=10, **extra), latency.NOW)
                if repeat:
                    await recall.search(scope, request, record_access=False)
                trips.clear()
                await recall.search(scope, request, record_access=False)
                searches.append(list(trips))
        finally:
            await container.aclose()
        return searches

    with LocalStack(stack_dir) as stack:
        searches = asyncio.run(run(stack.require_settings()))
    with out.open("wb") as f:
        pickle.dump({"searches": searches}, f)
    print(f"captured {len(searches)} searches, {sum(len(s) for s in searches)} round trips", file=sys.stderr)


def capture(checkout: Path, out: Path, stack_dir: Path, queries: int, repeat: bool, form: str) -> None:
    checkout = checkout.resolve()
    own = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": f"{checkout / 'shared'}{os.pathsep}{HERE}"}
    argv = [str(stack_dir.resolve()), str(queries), str(out.resolve()), "repeat" if repeat else "new", form]
    subprocess.run(
        [str(own) if own.exists() else sys.executable, str(Path(__file__).resolve()), "--child", *argv],
        cwd=checkout,
        env=env,
        check=True,
    )


# ---- replay (this checkout's driver) ------------------------------------------------------------


def _backend_cpu(pid: int) -> float:
    """Milliseconds ``pid`` has run on a CPU (/proc/<pid>/schedstat's first field, in ns)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6


def _load(path: Path) -> Any:
    with path.open("rb") as f:
        return pickle.load(f)  # noqa: S301 - files this script wrote


class _Side:
    def __init__(self, url: str, options: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True, options=options)
        row = self.conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        self.pid = int(row[0])

    def trip(self, tenant: str, statements: list[tuple[str, Any]]) -> tuple[float, list[Any]]:
        from psycopg.rows import dict_row

        from hindsight.adapters.postgres.rows import _SET_TENANT

        before = _backend_cpu(self.pid)
        with self.conn.pipeline():
            self.conn.execute(_SET_TENANT, (tenant,))
            cursors = []
            for query, params in statements:
                cursors.append(cur := self.conn.cursor(row_factory=dict_row))
                cur.execute(query.encode(), params)  # bytes: psycopg takes them as a query as is
        results = [cur.fetchall() for cur in cursors]
        return _backend_cpu(self.pid) - before, results


def _label(statements: list[tuple[str, Any]]) -> str:
    return "+".join(_kind(q) for q, _ in statements if not q.startswith("SELECT set_config"))


def _comparable(rows: list[dict[str, Any]]) -> list[Any]:
    return [tuple(sorted((k, repr(v)) for k, v in r.items())) for r in rows]


def ab(a_path: Path, b_path: Path, stack_dir: Path, rounds: int) -> None:
    sys.path.insert(0, str(HERE))
    import latency

    from hindsight.bootstrap import session_settings
    from hindsight.local.stack import LocalStack

    a, b = _load(a_path)["searches"], _load(b_path)["searches"]
    n = min(len(a), len(b))
    with LocalStack(stack_dir) as stack:
        settings = stack.require_settings()
        gucs = {
            **session_settings(settings),
            **({"role": settings.db_app_role} if settings.db_app_role else {}),
        }
        options = " ".join(f"-c {k}={v}" for k, v in gucs.items())
        url = settings.require_database_url()
        sides = {"A": _Side(url, options), "B": _Side(url, options)}
        captured = {"A": a, "B": b}
        cpu: dict[str, dict[str, list[list[float]]]] = {"A": {}, "B": {}}
        differ = 0
        for r in range(rounds):
            for side in ("A", "B"):
                for per in cpu[side].values():
                    per.append([])
            for i in range(n):
                order = ("A", "B") if (i + r) % 2 == 0 else ("B", "A")
                got: dict[str, list[tuple[tuple[str, int], Any]]] = {}
                for side in order:
                    total = 0.0
                    got[side] = []
                    for statements in captured[side][i]:
                        ms, results = sides[side].trip(latency.TENANT, statements)
                        total += ms
                        label = _label(statements)
                        cpu[side].setdefault(label, [[] for _ in range(r + 1)])[r].append(ms)
                        # each statement's rows by its place in the trip (vec+ent: the vector rows, then
                        # the entity rows)
                        got[side].extend(((label, j), _comparable(x)) for j, x in enumerate(results))
                    cpu[side].setdefault("search", [[] for _ in range(r + 1)])[r].append(total)
                if r == 0:
                    by_a = dict(got["A"])
                    for (label, j), rows in got["B"]:
                        # the same kind of round trip on both sides: its statements' rows, as returned
                        compared = label.split("+")[0] in ("kw", "vec", "ent")
                        if compared and by_a.get((label, j)) not in (None, rows):
                            differ += 1
                            print(f"  search {i}: {label} statement {j + 1} rows differ", file=sys.stderr)
        for name, s in sides.items():
            for row in s.conn.execute(
                "SELECT generic_plans, custom_plans, left(regexp_replace(statement, '\\s+', ' ', 'g'), 70)"
                " FROM pg_prepared_statements ORDER BY 3"
            ):
                print(f"  {name} prepared: generic {row[0]} custom {row[1]} {row[2]}", file=sys.stderr)
            s.conn.close()
    print(f"{n} searches x {rounds} rounds; round trips whose rows differ (round 1): {differ}")
    labels = sorted(set(cpu["A"]) & set(cpu["B"]), key=lambda x: (x == "search", x))
    for label in labels:
        flat = {s: [x for per in cpu[s][label] for x in per] for s in ("A", "B")}
        if not flat["A"] or not flat["B"]:
            continue
        ma, mb = statistics.median(flat["A"]), statistics.median(flat["B"])
        rounds_ratio = [
            statistics.median(pb) / statistics.median(pa)
            for pa, pb in zip(cpu["A"][label], cpu["B"][label], strict=True)
            if pa and pb and statistics.median(pa) > 0
        ]
        q = {s: statistics.quantiles(flat[s], n=10)[-1] if len(flat[s]) > 1 else flat[s][0] for s in flat}
        print(
            f"{label:>12}: n {len(flat['A'])}/{len(flat['B'])}  server CPU ms p50 {ma:.3f} -> {mb:.3f} "
            f"(B/A {mb / ma if ma else float('nan'):.3f}; "
            f"rounds {', '.join(f'{x:.3f}' for x in rounds_ratio)})"
            f"  mean {statistics.fmean(flat['A']):.3f} -> {statistics.fmean(flat['B']):.3f}"
            f"  p90 {q['A']:.3f} -> {q['B']:.3f}"
        )


def explain(path: Path, stack_dir: Path, search: int, kind: str, runs: int) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of the ``kind`` statement of one captured search, as run in its round
    trip the ``runs``-th time on one connection (from the 6th, a prepared statement: its plan is the one
    the plan cache chose), by auto_explain into the server's log, which is printed."""
    sys.path.insert(0, str(HERE))
    import latency

    from hindsight.bootstrap import session_settings
    from hindsight.local.stack import LocalStack

    searches = _load(path)["searches"]
    with LocalStack(stack_dir) as stack:
        settings = stack.require_settings()
        gucs = session_settings(settings)
        side = _Side(settings.require_database_url(), " ".join(f"-c {k}={v}" for k, v in gucs.items()))
        trip = next(t for t in searches[search] if _label(t).split("+")[0] == kind)
        log = stack_dir / "pgdata" / "log"
        side.conn.execute("LOAD 'auto_explain'")
        if settings.db_app_role:
            side.conn.execute(f"SET ROLE {settings.db_app_role}")
        for n in range(runs):
            if n == runs - 1:
                side.conn.execute("RESET ROLE")
                side.conn.execute("SET auto_explain.log_min_duration = 0")
                side.conn.execute("SET auto_explain.log_analyze = on")
                side.conn.execute("SET auto_explain.log_buffers = on")
                side.conn.execute("SET auto_explain.log_nested_statements = on")
                if settings.db_app_role:
                    side.conn.execute(f"SET ROLE {settings.db_app_role}")
                start = log.stat().st_size
            ms, _ = side.trip(latency.TENANT, trip)
        side.conn.close()
        with log.open("rb") as f:
            f.seek(start)
            text = f.read().decode(errors="replace")
        import re

        print(re.sub(r"\[[-0-9.e,]{200,}\]", "[vector]", text))
        print(f"server CPU of the last run: {ms:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture")
    c.add_argument("checkout", type=Path)
    c.add_argument("out", type=Path)
    c.add_argument("--stack", type=Path, required=True)
    c.add_argument("--queries", type=int, default=60)
    c.add_argument("--repeat", action="store_true")
    c.add_argument(
        "--form", default="plain", choices=["plain", "valid_at", "known_at", "semantic", "important"]
    )
    r = sub.add_parser("ab")
    r.add_argument("a", type=Path)
    r.add_argument("b", type=Path)
    r.add_argument("--stack", type=Path, required=True)
    r.add_argument("--rounds", type=int, default=4)
    e = sub.add_parser("explain")
    e.add_argument("capture", type=Path)
    e.add_argument("--stack", type=Path, required=True)
    e.add_argument("--search", type=int, default=0)
    e.add_argument("--kind", default="vec")
    e.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.checkout, args.out, args.stack, args.queries, args.repeat, args.form)
    elif args.command == "ab":
        ab(args.a, args.b, args.stack, args.rounds)
    else:
        explain(args.capture, args.stack, args.search, args.kind, args.runs)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _capture_child(
            Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]), sys.argv[5] == "repeat", sys.argv[6]
        )
    else:
        main()

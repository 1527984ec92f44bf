"""Where the keyword statement of ``memory_search`` spends its server time, piece by piece (issue 15).

    python bench/kwprof.py --keep-stack DIR [--size 100000] [--queries 60] [--repeat 3] [--json OUT]

Runs ``bench/latency.py``'s queries (default ranker, top 10) through ``Recall.search`` on the tier kept
in ``DIR`` (``latency.load_or_reuse``: loaded there first if it is not), capturing each search's keyword
statement and parameters as the reader sends them. Then, on a connection of its own, for each captured
statement, the best of ``--repeat`` ``EXPLAIN (ANALYZE, TIMING OFF)`` execution times of:

* ``statement``: the whole keyword statement, as the app's role, in the tenant's setting;
* ``queries``: ``hindsight_keyword_queries`` alone (lexeme counts, the query's tsvector, the tsqueries);
* ``matches``: ``hindsight_text_matches`` alone, given that function's output;
* and the body of ``hindsight_text_matches`` (as the superuser, which row-level security does not
  limit; the helper runs as its owner, which it does not limit either) in parts: ``scan_ids`` (both
  probes' scans, ids only), ``scan_rows`` (the same with the tsvector read: detoasting),
  ``scored`` (plus ``ts_rank_cd`` of each row), ``body`` (plus the sort and limit: the body as is).

``join`` is ``statement`` less ``queries`` and ``matches``: the join back to ``memories`` under the
search's filters and the candidate columns. Prints the median of each piece over the queries, and the
storage of ``search_text`` (inline/compressed/external, bytes). Diagnostics only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import latency
import psycopg
from common import log
from psycopg import sql
from psycopg.rows import dict_row

import hindsight.adapters.postgres.memory_reads as memory_reads
from hindsight.bootstrap import build_container
from hindsight.domain.memory import Scope
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery, resolve

WARMUP = 20


async def capture(settings: Any, queries: list[str]) -> list[tuple[Any, dict[str, Any]]]:
    """Each search's keyword statement and parameters, as the reader sends them."""
    captured: list[tuple[Any, dict[str, Any]]] = []
    original = memory_reads.tenant_rows

    async def recording(pool: Any, tenant_id: str, query: Any, params: Any = None, *rows: Any) -> Any:
        if isinstance(query, sql.Composable) and isinstance(params, dict) and "max_ranked" in params:
            text = query.as_string(None)
            if "hindsight_keyword_queries" in text:
                captured.append((query, dict(params)))
        return await original(pool, tenant_id, query, params, *rows)

    container = await build_container(settings, with_queue=False)
    memory_reads.tenant_rows = recording  # type: ignore[assignment]
    try:
        recall = latency.cached_recall(container, settings)
        scope = Scope(tenant_id=latency.TENANT, agent_id=latency.AGENT)
        for text in queries:
            await recall.search(
                scope, resolve(RecallQuery(text=text, top_k=10), latency.NOW), record_access=False
            )
    finally:
        memory_reads.tenant_rows = original  # type: ignore[assignment]
        await container.aclose()
    return captured


def _ms(conn: psycopg.Connection[Any], query: Any, params: Any, repeat: int) -> float:
    """Best of ``repeat`` EXPLAIN (ANALYZE, TIMING OFF) execution times, in ms."""
    best = float("inf")
    for _ in range(repeat):
        with conn.transaction():
            conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (latency.TENANT,))
            plan = conn.execute(
                sql.SQL("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ") + query, params
            ).fetchone()
        assert plan is not None
        doc = plan[0] if not isinstance(plan[0], str) else json.loads(plan[0])
        best = min(best, float(doc[0]["Execution Time"]))
    return best


BODY = """WITH two AS MATERIALIZED (
        SELECT m.id{rows} FROM memories m
        WHERE %(pairs)s::tsquery IS NOT NULL
          AND m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ %(pairs)s::tsquery
          AND (m.agent_id = (%(readers)s::text[])[1] OR m.shared_with && %(readers)s::text[])
          AND m.status = ANY(%(statuses)s::text[]) AND m.layer = ANY(%(layers)s::text[])
        LIMIT %(ranked)s),
    one AS (
        SELECT m.id{rows} FROM memories m
        WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ %(probe)s::tsquery
          AND (%(pairs)s::tsquery IS NULL OR NOT m.search_text @@ %(pairs)s::tsquery)
          AND (m.agent_id = (%(readers)s::text[])[1] OR m.shared_with && %(readers)s::text[])
          AND m.status = ANY(%(statuses)s::text[]) AND m.layer = ANY(%(layers)s::text[])
        LIMIT greatest(%(ranked)s - (SELECT count(*) FROM two), 0))
    {tail}"""
PARTS = {
    "scan_ids": ("", "SELECT count(*) FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c"),
    "scan_rows": (
        ", m.search_text",
        "SELECT count(length(c.search_text)) FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c",
    ),
    "scored": (
        ", m.search_text",
        "SELECT count(ts_rank_cd(c.search_text, %(q)s::tsquery))"
        " FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c",
    ),
    "body": (
        ", m.search_text",
        "SELECT c.id, ts_rank_cd(c.search_text, %(q)s::tsquery) AS score"
        " FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c ORDER BY score DESC LIMIT %(max_rows)s",
    ),
}


def profile(url: str, captured: list[tuple[Any, dict[str, Any]]], repeat: int) -> dict[str, Any]:
    pieces: dict[str, list[float]] = {}
    facts: dict[str, list[float]] = {}
    with (
        psycopg.connect(url, autocommit=True) as admin,
        psycopg.connect(url, autocommit=True, options="-c role=hindsight_app") as app,
    ):
        storage = admin.execute(
            """SELECT count(*) AS rows, avg(pg_column_size(search_text))::int AS avg_bytes,
                      avg(octet_length(search_text::text))::int AS avg_text_chars,
                      count(*) FILTER (WHERE pg_column_compression(search_text) IS NOT NULL) AS compressed,
                      avg(pg_column_size(m.*))::int AS avg_row_bytes
               FROM memories m WHERE tenant_id = %s""",
            (latency.TENANT,),
        ).fetchone()
        toast = admin.execute(
            """SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'memories'::regclass"""
        ).fetchone()
        for query, params in captured:
            pieces.setdefault("statement", []).append(_ms(app, query, params, repeat))
            kq_sql = sql.SQL(
                """SELECT * FROM hindsight_keyword_queries(%(text)s, %(tenant)s, %(agent)s, %(max_share)s,
                   %(min_docs)s, %(keep_at_least)s, %(max_ranked)s, %(ranked_when_binding)s)"""
            )
            pieces.setdefault("queries", []).append(_ms(app, kq_sql, params, repeat))
            with app.transaction():
                app.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (latency.TENANT,))
                kq = app.cursor(row_factory=dict_row).execute(kq_sql, params).fetchone()
            assert kq is not None
            args = {
                "q": kq["score_query"],
                "probe": kq["probe_query"],
                "pairs": kq["pair_query"],
                "ranked": kq["ranked"],
                "readers": params["readers"],
                "statuses": params["helper_statuses"],
                "layers": params["all_layers"],
                "max_rows": params["helper_limit"],
            }
            tm_sql = sql.SQL(
                """SELECT * FROM hindsight_text_matches(
                       %(q)s::tsquery, %(probe)s::tsquery, %(pairs)s::tsquery, %(readers)s::text[],
                       %(statuses)s::text[], %(layers)s::text[], %(max_rows)s, %(ranked)s)"""
            )
            pieces.setdefault("matches", []).append(_ms(app, tm_sql, args, repeat))
            for name, (rows, tail) in PARTS.items():
                body = sql.SQL(BODY.format(rows=rows, tail=tail))  # type: ignore[arg-type]
                pieces.setdefault(name, []).append(_ms(admin, body, args, repeat))
            with admin.transaction():
                admin.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (latency.TENANT,))
                counted = admin.execute(
                    sql.SQL(
                        BODY.format(
                            rows="", tail="SELECT (SELECT count(*) FROM two), (SELECT count(*) FROM one)"
                        )
                    ),  # type: ignore[arg-type]
                    args,
                ).fetchone()
            assert counted is not None
            facts.setdefault("rows_two", []).append(counted[0])
            facts.setdefault("rows_one", []).append(counted[1])
            facts.setdefault("pairs_set", []).append(1.0 if kq["pair_query"] is not None else 0.0)
            facts.setdefault("score_terms", []).append(
                len(re.findall(r"'[^']*'", str(kq["score_query"] or "")))
            )
    n = len(captured)
    med = {k: round(statistics.median(v), 3) for k, v in pieces.items()}
    med["join (statement - queries - matches)"] = round(
        statistics.median(
            s - q - m
            for s, q, m in zip(pieces["statement"], pieces["queries"], pieces["matches"], strict=True)
        ),
        3,
    )
    return {
        "searches": n,
        "median_ms": med,
        "mean_ms": {k: round(statistics.fmean(v), 3) for k, v in pieces.items()},
        "facts_median": {k: statistics.median(v) for k, v in facts.items()},
        "search_text_storage": dict(
            zip(
                ["rows", "avg_bytes", "avg_text_chars", "compressed", "avg_row_bytes"],
                storage or [],
                strict=False,
            )
        ),
        "toast_bytes": toast[0] if toast else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep-stack", type=Path, required=True)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = latency.build_dataset(args.queries, WARMUP)
    with LocalStack(args.keep_stack, ephemeral=False) as stack:
        settings = stack.require_settings()
        latency.load_or_reuse(settings.require_database_url(), data, args.size, args.keep_stack)
        captured = asyncio.run(capture(settings, data.queries))
        log(f"kwprof: {len(captured)} keyword statements captured")
        result = profile(settings.require_database_url(), captured, args.repeat)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    sys.exit(main())

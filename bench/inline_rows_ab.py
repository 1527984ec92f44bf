"""Same-run A/B of migration 014 (rows inline instead of TOAST; the keyword-statistics lookup by key) at one
tier of bench/latency.py, in one throw-away stack: "before" resets the table's toast_tuple_target and puts
013's hindsight_keyword_queries back, "after" applies 014's; the tier is reloaded for each, alternating.

    HINDSIGHT_EMBED_THREADS=1 PYTHONPATH=shared:bench .venv/bin/python bench/inline_rows_ab.py 10000 [ROUNDS]

Prints one JSON line per phase: heap and TOAST MiB, EXPLAIN ANALYZE of the search statement (median of 20
queries, per part), in-process search percentiles (bench/latency.py's in_process) and the load average.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import psycopg
import sqlplan
from common import bench_tmpdir
from latency import AGENT, NOW, TENANT, build_dataset, in_process, keyword_stats, load_tier

from hindsight.domain.memory import Scope
from hindsight.local.stack import LocalStack

MIGRATIONS = Path(__file__).resolve().parents[1] / "infra" / "migrations"


def _keyword_function(migration: str) -> str:
    text = (MIGRATIONS / migration).read_text()
    found = re.search(r"CREATE (OR REPLACE )?FUNCTION hindsight_keyword_queries.*?\$\$;", text, re.S)
    assert found is not None
    return found.group(0).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")


def main() -> None:
    size = int(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    before = ["ALTER TABLE memories RESET (toast_tuple_target)", _keyword_function("013_keyword_probe.sql")]
    after = ["ALTER TABLE memories SET (toast_tuple_target = 8160)", _keyword_function("014_inline_rows.sql")]
    data = build_dataset(200, 20)
    with LocalStack(bench_tmpdir("inline-rows-ab"), ephemeral=True) as stack:
        settings = stack.require_settings()
        url = settings.require_database_url()
        for phase in range(2 * rounds):
            label, statements = ("before", before) if phase % 2 == 0 else ("after", after)
            with psycopg.connect(url, autocommit=True) as conn:
                for statement in statements:
                    conn.execute(statement)
            tier = load_tier(url, data, size)
            with psycopg.connect(url) as conn:
                heap, table = conn.execute(
                    "SELECT pg_relation_size('memories'), pg_table_size('memories')"
                ).fetchone() or (0, 0)
            asyncio.run(keyword_stats(settings))
            plan = asyncio.run(
                sqlplan.explain_searches(settings, Scope(tenant_id=TENANT, agent_id=AGENT), data.warmups, NOW)
            )
            load_start = os.getloadavg()[0]
            ip = asyncio.run(in_process(settings, data))
            row = {
                "phase": label,
                "heap_mib": round(heap / 2**20, 1),
                "toast_and_maps_mib": round((table - heap) / 2**20, 2),
                "hnsw_build_s": tier["hnsw_build_s"],
                "explain_ms": plan["execution_ms_median"],
                "explain_part_ms": plan["cte_ms_median"],
                "new_query_p50": ip["search_cold_cache"]["p50"],
                "new_query_p99": ip["search_cold_cache"]["p99"],
                "embed_p50": ip["embed"]["p50"],
                "sql_p50": ip["sql"]["p50"],
                "sql_rank_p50": ip["search_warm_cache"]["p50"],
                "sql_rank_p99": ip["search_warm_cache"]["p99"],
                "load": [round(load_start, 2), round(os.getloadavg()[0], 2)],
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

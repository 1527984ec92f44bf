"""HNSW recall@10 and probe cost against the index's settings, on one loaded store (issue 15).

    HINDSIGHT_EMBED_THREADS=1 nice -n 15 .venv/bin/python bench/hnsw_sweep.py --size 100000 \\
        [--ef 100,200,400,800,rule] [--modes relaxed_order,strict_order,off] [--max-scan-tuples 20000] \\
        [--limits 100,400] [--builds 16:64,24:128] [--halfvec] [--structure] [--keep-stack] [--record]

Loads bench/latency.py's tier of ``size`` memories once (the same rows, COPY and index builds as
``bench/run.py latency``), then, without reloading:

* ``sweep``: one connection per setting (iterative scan x ef_search x max_scan_tuples x LIMIT); the
  benchmark's 200 query embeddings go round-robin over the connections (interleaved, so every setting sees
  the same machine load), each running the search's vector probe: ``ORDER BY embedding <=> q LIMIT
  candidate_pool`` in the tenant's agent (adapters/postgres/memory_reads.py, ``whole``; ``--limits``: other
  LIMITs, the rows returned then sorted by exact distance as the search's ``vec`` does). Probe = wall
  time of the statement from this client. recall@10 = the 10 closest rows returned (the search orders its
  vector candidates by similarity) against the exact top 10 (numpy over the tier's target rows);
  ``recall_first10``: the first 10 rows in returned order, as bench/latency.py's ``ann_check`` counts;
  ``recall_tie_aware``: a returned row also counts when its exact distance is within ``TIE_EPS`` of the
  exact 10th (rows the exact order cannot tell apart);
  ``--keep-stack``: the loaded stack is kept (``bench/latency.py``'s ``load_or_reuse``, the folder
  ``bench/run.py latency --keep-stack`` uses) and reused when it holds the same tier; ``--builds``
  rebuilds its index, so the next run loads it again;
* ``builds``: the index rebuilt with other (m, ef_construction), build timed, swept again;
* ``halfvec``: an expression index on ``embedding::halfvec`` beside the vector one, its build timed,
  probed with the halfvec expression, recall against the exact float32 top 10;
* ``structure`` (the clustering question): bare tables of ``size`` vectors from the same generator
  with other cluster densities and noise scales, each with the index as migrated, swept over ef_search;
* ``gaps``: per query, the exact 10th and 11th distances' gap and how many rows lie within
  ``TIE_EPS`` of the 10th.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from typing import Any

import latency
import numpy as np
import psycopg
import synthetic
from common import bench_tmpdir, load_results, log, merge_results, percentiles
from pgvector.psycopg import register_vector

from hindsight.adapters.postgres.hnsw import BUILD_OPTIONS, HNSW_EF_CONSTRUCTION, HNSW_M, ef_search_for
from hindsight.config import Settings
from hindsight.local.stack import LocalStack

TIE_EPS = 1e-5
"""Cosine distances closer than this are a tie: pgvector sums in float32 and numpy in another order;
the largest disagreement seen on the same pairs is recorded as ``float_noise_max``."""
INDEX = "memories_embedding_hnsw"
BUFFER_QUERIES = 50
"""Queries whose probe is also run under EXPLAIN (ANALYZE, BUFFERS) per setting."""
PROBE = """SELECT id, embedding <=> %(e)s AS d FROM memories
           WHERE tenant_id = %(t)s AND agent_id = %(a)s AND status = 'active'
           ORDER BY {order} LIMIT %(pool)s"""


def exact_top(queries: np.ndarray, vectors: np.ndarray, k: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers and cosine distances of each query's ``k`` nearest rows, closest first (float64
    dot products over unit vectors, in chunks of 100k rows)."""
    q = queries.astype(np.float64)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    best_i = np.empty((len(q), 0), dtype=np.int64)
    best_d = np.empty((len(q), 0))
    for start in range(0, len(vectors), 100_000):
        chunk = vectors[start : start + 100_000].astype(np.float64)
        chunk /= np.linalg.norm(chunk, axis=1, keepdims=True)
        d = 1 - q @ chunk.T
        part = np.argpartition(d, min(k, d.shape[1] - 1), axis=1)[:, :k]
        best_i = np.concatenate([best_i, part + start], axis=1)
        best_d = np.concatenate([best_d, np.take_along_axis(d, part, axis=1)], axis=1)
        order = np.argsort(best_d, axis=1)[:, :k]
        best_i, best_d = np.take_along_axis(best_i, order, 1), np.take_along_axis(best_d, order, 1)
    return best_i, best_d


def gaps(dist: np.ndarray) -> dict[str, Any]:
    """How far apart the exact 10th and 11th neighbours are, and near-ties at the 10th."""
    gap = dist[:, 10] - dist[:, 9]
    spread = dist[:, 9] - dist[:, 0]
    within = (np.abs(dist - dist[:, 9:10]) <= TIE_EPS).sum(axis=1) - 1
    return {
        "gap_10_11": {p: float(np.percentile(gap, p)) for p in (5, 25, 50)},
        "gap_over_top10_spread_p50": round(float(np.median(gap / np.maximum(spread, 1e-12))), 4),
        "queries_with_a_tie_at_10th": int((within > 0).sum()),
        "d1_p50": round(float(np.median(dist[:, 0])), 4),
        "d10_p50": round(float(np.median(dist[:, 9])), 4),
    }


def _recall(got: list[tuple[Any, float]], truth: set[Any], d10: float, dist_of: Any) -> tuple[float, ...]:
    closest = [i for i, _ in sorted(got, key=lambda r: r[1])[:10]]
    first = [i for i, _ in got[:10]]
    tie = sum(1 for i in closest if i in truth or dist_of(i) <= d10 + TIE_EPS)
    return len(truth & set(closest)) / 10, len(truth & set(first)) / 10, min(tie, 10) / 10


def sweep(
    url: str,
    configs: list[dict[str, str]],
    queries: np.ndarray,
    truth_rows: np.ndarray,
    truth_dist: np.ndarray,
    key_of_row: Any,
    row_of_key: dict[Any, int],
    vectors: np.ndarray,
    sql: str,
    params: dict[str, Any],
    warmup: int = 20,
) -> list[dict[str, Any]]:
    """Each config on its own connection; queries round-robin over them; recall and probe ms. A config's
    dotted keys are GUCs (``hnsw.ef_search``), its others the statement's parameters (``pool``: its LIMIT)
    over ``params``."""
    conns = []
    for config in configs:
        options = " ".join(f"-c {k}={v}" for k, v in config.items() if "." in k)
        conn = psycopg.connect(url, autocommit=True, options=options)
        register_vector(conn)
        conns.append(conn)
    times: list[list[float]] = [[] for _ in configs]
    recalls: list[list[tuple[float, ...]]] = [[] for _ in configs]
    counts: list[list[int]] = [[] for _ in configs]
    noise = 0.0
    plans = []
    blocks: list[list[int]] = [[] for _ in configs]
    own = [params | {k: int(v) for k, v in config.items() if "." not in k} for config in configs]
    try:
        for conn, mine in zip(conns, own, strict=True):
            plan = conn.execute("EXPLAIN " + sql, {**mine, "e": queries[0]}).fetchall()
            plans.append("hnsw" in "\n".join(str(r[0]) for r in plan))
            for qv in queries[:warmup]:
                conn.execute(sql, {**mine, "e": qv}).fetchall()
        for j, qv in enumerate(queries):
            truth = {key_of_row(int(r)) for r in truth_rows[j, :10]}
            qn = qv.astype(np.float64) / np.linalg.norm(qv)

            def dist_of(key: Any, qn: np.ndarray = qn) -> float:
                v = vectors[row_of_key[key]].astype(np.float64)
                return float(1 - qn @ v / np.linalg.norm(v))

            for step in range(len(conns)):
                c = (j + step) % len(conns)
                started = time.perf_counter()
                got = conns[c].execute(sql, {**own[c], "e": qv}).fetchall()
                times[c].append((time.perf_counter() - started) * 1000)
                counts[c].append(len(got))
                recalls[c].append(_recall(got, truth, float(truth_dist[j, 9]), dist_of))
                if j < BUFFER_QUERIES:
                    blocks[c].append(_buffers(conns[c], sql, {**own[c], "e": qv}))
                if got:
                    noise = max(noise, abs(dist_of(got[0][0]) - float(got[0][1])))
    finally:
        for conn in conns:
            conn.close()
    out = []
    for c, config in enumerate(configs):
        row: dict[str, Any] = {
            **config,
            "recall_at_10": round(statistics.fmean(r[0] for r in recalls[c]), 4),
            "recall_first10": round(statistics.fmean(r[1] for r in recalls[c]), 4),
            "recall_tie_aware": round(statistics.fmean(r[2] for r in recalls[c]), 4),
            "probe_ms": percentiles(times[c]),
            "index_blocks_p50": statistics.median(blocks[c]),
            "rows_p50": statistics.median(counts[c]),
            "plan_uses_hnsw": plans[c],
            "float_noise_max": noise,
        }
        out.append(row)
        log(
            f"hnsw_sweep: {config}: recall@10 {row['recall_at_10']} (tie-aware "
            f"{row['recall_tie_aware']}), probe p50 {row['probe_ms']['p50']} ms, "
            f"{row['index_blocks_p50']} blocks"
        )
    return out


def _buffers(conn: psycopg.Connection[Any], sql: str, params: dict[str, Any]) -> int:
    """Shared blocks the statement touched (hit + read): the probe's cost independent of the load."""
    plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params).fetchone()
    assert plan is not None
    top = plan[0][0]["Plan"]
    return int(top["Shared Hit Blocks"] + top["Shared Read Blocks"])


def _configs(
    modes: list[str], efs: list[int], tuples: list[int], limits: list[int] | None = None
) -> list[dict[str, str]]:
    """Every setting to sweep; ``limits`` (the probe's LIMIT, ``pool``) only when given."""
    return [
        {"hnsw.iterative_scan": m, "hnsw.ef_search": str(ef), "hnsw.max_scan_tuples": str(t)}
        | ({"pool": str(limit)} if limit is not None else {})
        for m in modes
        for ef in efs
        for t in (tuples if m != "off" else tuples[:1])
        for limit in (limits or [None])
    ]


def _build(url: str, size: int, statement: str) -> dict[str, Any]:
    """Run one CREATE INDEX with the tier's HNSW build settings; seconds, and notices (on-disk build)."""
    notices: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: notices.append(str(d.message_primary)))
        for setting, value in latency.hnsw_build_settings(size).items():
            conn.execute(f"SET {setting} = '{value}'")
        load = os.getloadavg()[0]
        started = time.monotonic()
        conn.execute(statement)
        seconds = round(time.monotonic() - started, 1)
        name = statement.split()[2]
        mib = conn.execute("SELECT pg_relation_size(%s::regclass)", (name,)).fetchone()
        conn.execute("ANALYZE memories") if "memories" in statement else None
    return {
        "build_s": seconds,
        "size_mib": round(mib[0] / 2**20, 1) if mib else None,
        "load_1m_at_start": round(load, 2),
        "notices": notices,
    }


def structure(url: str, data: latency.Dataset, size: int, efs: list[int]) -> dict[str, Any]:
    """The clustering question: the same index (``hnsw.BUILD_OPTIONS``) on bare tables of ``size``
    vectors whose clusters are denser/looser than the benchmark's, recall@10 over ef_search."""
    real = data.vectors[: latency.REAL_SAMPLE]
    fill = size - latency.REAL_SAMPLE
    # as many rows per real vector as the 1M tier has (333), at this size
    dense = max(1, round(latency.REAL_SAMPLE * size / latency.MAX_SIZE))
    variants = {
        "bench: 3000 bases, scale 0.5": data.vectors[latency.target_rows(size)],
        f"{dense} bases, scale 0.5": np.concatenate(
            [real[:dense], synthetic.perturbed(real, size - dense, seed=3, bases=dense)]
        ),
        "3000 bases, scale 0.25": np.concatenate([real, synthetic.perturbed(real, fill, seed=3, scale=0.25)]),
        "3000 bases, scale 1.0": np.concatenate([real, synthetic.perturbed(real, fill, seed=3, scale=1.0)]),
    }
    out: dict[str, Any] = {}
    for name, vectors in variants.items():
        vectors = vectors.astype(np.float32)
        with psycopg.connect(url, autocommit=True) as conn:
            register_vector(conn)
            conn.execute("DROP TABLE IF EXISTS hnsw_probe_vecs")
            conn.execute(
                f"CREATE TABLE hnsw_probe_vecs (id int PRIMARY KEY, embedding vector({vectors.shape[1]}))"
            )
            with (
                conn.cursor() as cur,
                cur.copy("COPY hnsw_probe_vecs FROM STDIN WITH (FORMAT BINARY)") as copy,
            ):
                copy.set_types(["int4", "vector"])
                for i, v in enumerate(vectors):
                    copy.write_row([i, v])
        build = _build(
            url,
            size,
            "CREATE INDEX hnsw_probe_vecs_hnsw ON hnsw_probe_vecs "
            f"USING hnsw (embedding vector_cosine_ops) WITH ({BUILD_OPTIONS})",
        )
        rows, dist = exact_top(data.query_vectors, vectors)
        sql = (
            "SELECT id, embedding <=> %(e)s AS d FROM hnsw_probe_vecs ORDER BY embedding <=> %(e)s LIMIT 100"
        )
        result = sweep(
            url,
            _configs(["relaxed_order"], efs, [20_000]),
            data.query_vectors,
            rows,
            dist,
            int,
            {i: i for i in range(len(vectors))},
            vectors,
            sql,
            {},
        )
        out[name] = {
            "build": build,
            "index": BUILD_OPTIONS,
            "gaps": gaps(dist),
            "neighbours": synthetic.neighbour_stats(vectors, data.query_vectors),
            "by_ef_search": {
                r["hnsw.ef_search"]: {k: r[k] for k in ("recall_at_10", "recall_tie_aware")} for r in result
            },
        }
        log(f"hnsw_sweep: structure {name}: {out[name]['by_ef_search']}")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE hnsw_probe_vecs")
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    size = args.size
    # "rule": the breadth a search gets at this size (the target rows + the other tenants' rows)
    efs = [ef_search_for(size + latency.OTHER_ROWS) if x == "rule" else int(x) for x in args.ef.split(",")]
    modes = args.modes.split(",")
    tuples = [int(x) for x in args.max_scan_tuples.split(",")]
    data = latency.build_dataset(args.searches, args.warmup, size)
    rows = latency.target_rows(size)
    truth_rows, truth_dist = exact_top(data.query_vectors, data.vectors[rows])
    keys = [latency.row_id(int(r)) for r in rows]
    row_of_key: dict[uuid.UUID, int] = {k: int(r) for k, r in zip(keys, rows, strict=True)}
    result: dict[str, Any] = {"size": size, "gaps": gaps(truth_dist), "searches": args.searches}
    log(f"hnsw_sweep: exact neighbours ready; gaps {result['gaps']}")
    settings = Settings.load()
    kept = latency.KEPT_STACKS / "latency" if args.keep_stack else None
    limits = [int(x) for x in args.limits.split(",")] if args.limits else None
    with LocalStack(kept or bench_tmpdir("hnsw-sweep"), ephemeral=kept is None) as stack:
        url = stack.require_settings().require_database_url()
        log(f"hnsw_sweep: loading {size} memories …")
        result["load"] = latency.load_or_reuse(url, data, size, kept)
        log(f"hnsw_sweep: loaded; HNSW build {result['load']['hnsw_build_s']}s")
        params = {"t": latency.TENANT, "a": latency.AGENT, "pool": settings.candidate_pool}
        vec_sql = PROBE.format(order="embedding <=> %(e)s")

        def key_of(r: int) -> uuid.UUID:
            return keys[r]

        def one(configs: list[dict[str, str]], sql: str = vec_sql) -> list[dict[str, Any]]:
            load = round(os.getloadavg()[0], 2)
            out = sweep(
                url,
                configs,
                data.query_vectors,
                truth_rows,
                truth_dist,
                key_of,
                row_of_key,
                data.vectors,
                sql,
                params,
            )
            for r in out:
                r["load_1m"] = [load, round(os.getloadavg()[0], 2)]
            return out

        # the index as migrated: hindsight.adapters.postgres.hnsw's build options
        result["sweep"] = {f"m{HNSW_M}_efc{HNSW_EF_CONSTRUCTION}": one(_configs(modes, efs, tuples, limits))}
        for spec in [b for b in args.builds.split(",") if b]:
            m, efc = (int(x) for x in spec.split(":"))
            latency.forget_kept_tier(kept)
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"DROP INDEX {INDEX}")
            build = _build(
                url,
                size,
                f"CREATE INDEX {INDEX} ON memories USING hnsw (embedding vector_cosine_ops) "
                f"WITH (m = {m}, ef_construction = {efc})",
            )
            log(f"hnsw_sweep: rebuilt m {m} ef_construction {efc}: {build}")
            result["sweep"][f"m{m}_efc{efc}"] = {
                "build": build,
                "sweep": one(_configs(["relaxed_order"], efs, tuples[:1])),
            }
        if args.halfvec:
            dim = data.vectors.shape[1]
            build = _build(
                url,
                size,
                f"CREATE INDEX memories_embedding_half_hnsw ON memories USING hnsw "
                f"((embedding::halfvec({dim})) halfvec_cosine_ops) WITH ({BUILD_OPTIONS})",
            )
            log(f"hnsw_sweep: halfvec index: {build}")
            half_sql = PROBE.format(order=f"embedding::halfvec({dim}) <=> %(e)s::halfvec({dim})")
            result["halfvec"] = {
                "build": build,
                "sweep": one(_configs(["relaxed_order"], efs, tuples[:1]), half_sql),
            }
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("DROP INDEX memories_embedding_half_hnsw")
        if args.structure:
            result["structure"] = structure(url, data, size, efs)
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=100_000)
    p.add_argument("--searches", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--ef", default="100,200,400,800", help="ef_search values; 'rule': the size's own")
    p.add_argument("--modes", default="relaxed_order,strict_order,off")
    p.add_argument("--max-scan-tuples", default="20000")
    p.add_argument("--limits", default="", help="the probe's LIMITs (default: the candidate pool)")
    p.add_argument(
        "--keep-stack",
        action="store_true",
        help="keep the loaded stack in var/bench-stack/latency and reuse it (as run.py latency --keep-stack)",
    )
    p.add_argument(
        "--builds", default="", help="m:ef_construction,… rebuilt and swept after the migrated one"
    )
    p.add_argument("--halfvec", action="store_true")
    p.add_argument("--structure", action="store_true")
    p.add_argument("--record", action="store_true", help="merge into bench/results/latest.json (hnsw_sweep)")
    p.add_argument("--label", help="the run's key in the section (default: the size)")
    args = p.parse_args()
    command = "python bench/hnsw_sweep.py " + " ".join(sys.argv[1:])
    result = {"command": command, **run(args), "load_1m_at_end": round(os.getloadavg()[0], 2)}
    print(json.dumps(result, indent=2, default=str))
    if args.record:
        section = load_results().get("hnsw_sweep", {})
        section[args.label or str(args.size)] = result
        merge_results("hnsw_sweep", section, command)


if __name__ == "__main__":
    main()

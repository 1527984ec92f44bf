"""Helpers every benchmark piece shares: the results file, machine facts, percentiles, timing wrappers."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "latest.json"
DOCS = ROOT / "docs" / "benchmarks.md"
PLOT = ROOT / "docs" / "bench" / "latency.png"


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", flush=True)


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    """n, mean, p50, p95, p99, max (nearest-rank on the sorted samples), rounded to 0.01 ms."""
    values = sorted(samples_ms)
    if not values:
        return {"n": 0}

    def rank(p: float) -> float:
        return values[min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))]

    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 2),
        "p50": round(statistics.median(values), 2),
        "p95": round(rank(95), 2),
        "p99": round(rank(99), 2),
        "max": round(values[-1], 2),
    }


def load_results() -> dict[str, Any]:
    if RESULTS.exists():
        data: dict[str, Any] = json.loads(RESULTS.read_text())
        return data
    return {}


def merge_results(section: str, value: Any, command: str) -> dict[str, Any]:
    """Write one section into latest.json, keeping the others; refresh machine, git and time stamps."""
    data = load_results()
    data[section] = value
    now = datetime.now(UTC).isoformat(timespec="seconds")
    data.setdefault("sections", {})[section] = {
        "measured_at": now,
        "command": command,
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }
    data["machine"] = machine_info()
    data["git_sha"] = git_sha()
    data["timestamp"] = now
    data["command"] = command
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    return data


def git_sha() -> str:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def checkout_sha(checkout: Path) -> str:
    """The short commit of another ``checkout`` (an A/B side), or its folder name when git cannot say."""
    return (
        subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or checkout.name
    )


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _ram_gib() -> float:
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    return 0.0


_PG_VERSION: dict[str, str] = {}


def remember_postgres_version(url: str) -> None:
    """Ask the running server once; machine_info() reports it from then on."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT version()").fetchone()
        ext = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row:
        _PG_VERSION["postgres"] = str(row[0]).split(" on ")[0]
    if ext:
        _PG_VERSION["pgvector"] = str(ext[0])


def machine_info() -> dict[str, Any]:
    previous = load_results().get("machine", {}) if RESULTS.exists() else {}
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "ram_gib": _ram_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "postgres": _PG_VERSION.get("postgres", previous.get("postgres", "unknown")),
        "pgvector": _PG_VERSION.get("pgvector", previous.get("pgvector", "unknown")),
        "load_average_at_write": [round(x, 2) for x in os.getloadavg()],
    }


def stack_function_env(settings: Any) -> dict[str, str]:
    """The environment a Lambda function's process needs to run against a local stack (its database,
    Redis and write queue, the emulator's endpoint, any Host header, quiet logs): for cold-start probes
    that import ``functions/<name>/app.py`` in a fresh interpreter."""
    return {
        "HINDSIGHT_DATABASE_URL": settings.require_database_url(),
        "HINDSIGHT_REDIS_URL": settings.redis_url,
        "HINDSIGHT_WRITE_QUEUE_URL": settings.require_write_queue_url(),
        "HINDSIGHT_AWS_ENDPOINT_URL": settings.aws_endpoint_url or "",
        "HINDSIGHT_ALLOWED_HOSTS": '["*"]',
        "HINDSIGHT_LOG_LEVEL": "WARNING",
    }


LAMBDA_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "hindsight-local",
    "AWS_SECRET_ACCESS_KEY": "hindsight-local",
    "AWS_SESSION_TOKEN": "hindsight-local-session",
}
"""What Lambda gives every function's process: its role's temporary credentials, as these three variables
(dummies: the emulator accepts any)."""


def stack_database_secret_env(settings: Any) -> dict[str, str]:
    """The environment of a function that reads its database from Secrets Manager, as deployed
    (template.yaml: ``HINDSIGHT_DATABASE_SECRET_ARN``, no URL), against a local stack: an RDS-shaped
    secret is created in the stack's emulator (moto over HTTP) naming the stack's database.

    The embedded Postgres listens on a Unix socket only; libpq reads a percent-encoded socket folder as a
    URI's host, so that is the secret's ``host`` (the adapter puts the host into the URL as it is). The
    password is a placeholder the local server never asks for (it trusts local connections). The caller
    drops ``HINDSIGHT_DATABASE_URL`` from ``stack_function_env``'s environment."""
    from urllib.parse import parse_qs, quote, urlparse

    import boto3

    url = urlparse(settings.require_database_url())
    secret = {
        "engine": "postgres",
        "host": quote(parse_qs(url.query)["host"][0], safe=""),
        "port": url.port or 5432,
        "username": url.username,
        "password": "unused-local-trust",
        "dbname": url.path.lstrip("/"),
    }
    region = settings.aws_region
    client: Any = boto3.client(
        "secretsmanager",
        endpoint_url=settings.aws_endpoint_url,
        region_name=region,
        aws_access_key_id=LAMBDA_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=LAMBDA_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    arn: str = client.create_secret(
        Name=f"hindsight/database-{os.getpid()}-{time.monotonic_ns()}", SecretString=json.dumps(secret)
    )["ARN"]
    return {
        "HINDSIGHT_DATABASE_SECRET_ARN": arn,
        "HINDSIGHT_AWS_REGION": region,
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        **LAMBDA_CREDENTIALS,
    }


def layer_probe(
    python: str, side: Path, script: str, args: Sequence[str], env: dict[str, str], timeout: float
) -> Any:
    """Run ``<side>/probe/bench/<script> args`` in a fresh ``python -S`` on the side's Lambda layer (its
    ``layer/python`` as the only path, its ``env.json`` over ``env``), as the A/B cold-start harnesses lay a
    side out; the last line of its stdout, as JSON. Raises SystemExit with the probe's stderr if it fails."""
    proc = subprocess.run(
        [python, "-S", str(side / "probe" / "bench" / script), *args],
        env={
            **env,
            **json.loads((side / "env.json").read_text()),
            "PYTHONPATH": str(side / "layer" / "python"),
        },
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise SystemExit(f"probe failed ({side}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_tmpdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"hindsight-bench-{prefix}-"))


def uptime() -> str:
    """``uptime``'s line (the load averages): printed before and after a measurement on a shared machine."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def stopwatch() -> Iterator[list[float]]:
    """``with stopwatch() as t: ...`` then ``t[0]`` is the elapsed milliseconds."""
    box: list[float] = []
    started = time.perf_counter()
    try:
        yield box
    finally:
        box.append((time.perf_counter() - started) * 1000)


class TimedEmbedder:
    """Embedder port wrapper that adds up the time spent in each call (per-call list for queries)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.query_ms: list[float] = []
        self.passage_s = 0.0
        self.passages = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    async def embed_query(self, text: str) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.embed_query(text)
        finally:
            self.query_ms.append((time.perf_counter() - started) * 1000)

    async def embed_passages(self, texts: Sequence[str]) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.embed_passages(texts)
        finally:
            self.passage_s += time.perf_counter() - started
            self.passages += len(texts)

    def passage_window(self) -> Any:
        return self.inner.passage_window()


class TimedReader:
    """MemoryReader wrapper timing ``search_candidates`` (the SQL of a search); the rest delegates.

    A reader that asks for the query embedding itself (its third argument a callable, run while the
    full-text statement runs) is timed from when the embedding arrived: ``sql_ms`` is what the search's
    SQL adds after the model, as it was for a reader given the vector."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sql_ms: list[float] = []

    async def search_candidates(self, *args: Any, **kwargs: Any) -> Any:
        started = [time.perf_counter()]
        if len(args) > 2 and callable(args[2]):
            embed = args[2]

            async def timed_embed() -> Any:
                try:
                    return await embed()
                finally:
                    started[0] = time.perf_counter()

            args = (*args[:2], timed_embed, *args[3:])
        try:
            return await self.inner.search_candidates(*args, **kwargs)
        finally:
            self.sql_ms.append((time.perf_counter() - started[0]) * 1000)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class TimedWriter:
    """MemoryWriter wrapper adding up the time the worker spends storing (DB)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.store_s = 0.0

    async def store(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.store(*args, **kwargs)
        finally:
            self.store_s += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextlib.contextmanager
def external_sqs(*, speed_up: bool = False) -> Iterator[tuple[str, Any]]:
    """The SQS emulator (moto server) in a process of its own, with the stack's queues created.

    For measurements that involve SQS the emulator must not share the benchmark's interpreter (in
    production SQS is a remote service): its Python threads would compete for the GIL with the code under
    test. ``speed_up``: moto's SQS with a per-call cost independent of the queue's depth, as the local
    stack runs it (``hindsight.local.moto_sqs``); False: moto as released (what the write-ack benchmarks
    compare against; at their queue depth of ~0 the two are the same). Yields (endpoint URL, QueueUrls).
    """
    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.local.sqs_emulator import SqsEmulator, create_queues

    emulator = SqsEmulator(speed_up=speed_up).start(timeout_s=30)
    try:
        queues = create_queues(sqs_client("us-east-1", emulator.endpoint_url))
        yield emulator.endpoint_url, queues
    finally:
        emulator.stop()


class NoAccessLog:
    """An access log that records nothing: rankings compared on one store must not change each other
    through access counts."""

    def note(self, scope: Any, ids: Any, at: Any) -> None:
        return None


async def store_through_worker(
    container: Any, scope: Any, jobs: Sequence[Any], batch: int = 10
) -> dict[str, Any]:
    """Store ``jobs`` (WriteJobs of ``scope``) through the worker's use case (``container.store_memories``:
    embedding, near-duplicate merge, keys, entity terms), ``batch`` at a time (10: the SQS batch maximum, as
    the worker receives them), then refresh the scope's keyword statistics as maintenance would.

    Returns ``{"outcomes": {outcome: count}, "seconds": wall seconds, 0.1 s}``. Raises RuntimeError with the
    reason of the first failed write."""
    from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore

    started = time.monotonic()
    outcomes: dict[str, int] = {}
    for i in range(0, len(jobs), batch):
        for result in await container.store_memories(jobs[i : i + batch]):
            if result.outcome == "failed":
                raise RuntimeError(f"write failed: {result.reason}")
            outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
    await PostgresMaintenanceStore(container.pool).refresh_keyword_stats(scope)
    return {"outcomes": outcomes, "seconds": round(time.monotonic() - started, 1)}


class LabelRankings:
    """One scope's stored memories ranked for a question, each named by its ``metadata.label``: by
    ``memory_search``'s recall under each of several policies, and by exact cosine top-k over the stored
    active embeddings (``vector``, bench/baselines.py: VectorIndex). Build with ``await
    LabelRankings.of(...)``."""

    def __init__(self, scope: Any, recalls: dict[str, Any], vector: Any, embedder: Any) -> None:
        self.scope, self.recalls, self.vector, self.embedder = scope, recalls, vector, embedder

    @classmethod
    async def of(cls, container: Any, scope: Any, policies: dict[str, Any]) -> LabelRankings:
        """Rankings by each of ``policies`` (name → RankingPolicy) and by ``vector``, over what ``scope``
        holds now in ``container``'s store (the vector index is read once, here)."""
        import numpy as np
        from baselines import VectorIndex

        from hindsight.adapters.postgres.rows import tenant_transaction
        from hindsight.usecases.recall import Recall

        embedder = container.recall._embedder
        recalls = {
            name: Recall(container.reader, embedder, container.clock, NoAccessLog(), policy)
            for name, policy in policies.items()
        }
        async with tenant_transaction(container.pool, scope.tenant_id) as conn:
            cur = await conn.execute(
                """SELECT metadata->>'label', embedding FROM memories
                   WHERE tenant_id = %s AND agent_id = %s AND status = 'active' ORDER BY created_at, id""",
                (scope.tenant_id, scope.agent_id),
            )
            rows = await cur.fetchall()
        vectors = np.stack(
            [
                np.asarray(r[1].to_numpy() if hasattr(r[1], "to_numpy") else r[1], dtype=np.float32)
                for r in rows
            ]
        )
        return cls(scope, recalls, VectorIndex([str(r[0]) for r in rows], vectors), embedder)

    async def rank(self, question: str, asked: datetime, top_k: int) -> dict[str, list[str]]:
        """The top ``top_k`` labels for ``question`` asked at ``asked``: each policy's, then ``vector``'s."""
        from hindsight.usecases.recall import RecallQuery, resolve

        request = resolve(RecallQuery(text=question, top_k=top_k, as_of=asked), asked)
        ranked = {
            name: [str(h.memory.metadata.get("label", "")) for h in await recall.search(self.scope, request)]
            for name, recall in self.recalls.items()
        }
        ranked["vector"] = self.vector.search(await self.embedder.embed_query(question), top_k)
        return ranked


def mean_recalls(rows: Sequence[dict[str, Any]], system: str, ks: Sequence[int]) -> dict[str, Any]:
    """``{"questions": n, "recall_at_<k>": mean of the rows' ``row[system]["recall_at_<k>"]``, 4 places}``."""
    out: dict[str, Any] = {"questions": len(rows)}
    for k in ks:
        out[f"recall_at_{k}"] = round(sum(r[system][f"recall_at_{k}"] for r in rows) / len(rows), 4)
    return out


def wait_for_quiet(threshold: float, max_wait_s: float, what: str) -> dict[str, Any]:
    """Wait (up to ``max_wait_s``) until the 1-minute load average is at most ``threshold``.

    This machine is shared: other sessions' test runs can push the load far above its 2 cores, and a
    2-thread embedding model then slows down many times over. Returns what was seen, for the results.
    """
    started = time.monotonic()
    first = os.getloadavg()[0]
    while os.getloadavg()[0] > threshold and time.monotonic() - started < max_wait_s:
        time.sleep(5)
    load = os.getloadavg()
    waited = time.monotonic() - started
    if waited > 5:
        log(f"{what}: waited {waited:.0f}s for the machine to calm down (load {first:.1f} → {load[0]:.1f})")
    return {"load_1m_at_start": round(load[0], 2), "waited_s": round(waited), "quiet": load[0] <= threshold}

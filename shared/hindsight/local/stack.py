"""The embedded local stack: everything ``make run`` and the test suite need, on this machine only.

Embedded Postgres+pgvector (data folder survives restarts), Redis (the running one, or one we start),
the SQS emulator with the write, bulk-write and reflection queues and their DLQs, migrations, a dev API
key, and the pollers that play Lambda's event source mappings for the embedding and reflection workers.

The emulator keeps its queues in memory only, so every start begins with empty queues: a write
acknowledged by a previous run and not processed before it stopped (a forced stop, a crash) is then on
no queue any more. Its body and "queued" status are still in the operation log (Redis), and a persistent
stack re-enqueues every such job when it starts (``requeue_queued_jobs``), before any poller runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

from hindsight.adapters.sqs_queue import sqs_client
from hindsight.api.sqs_worker import ReflectJobWorker, WriteJobWorker
from hindsight.bootstrap import build_container, run_migrations
from hindsight.config import Settings
from hindsight.local.localstack import LocalStackEmulator
from hindsight.local.poller import SqsPoller
from hindsight.local.ports import port_is_free
from hindsight.local.postgres import EmbeddedPostgres, start_postgres
from hindsight.local.redis_server import LocalRedis, ensure_redis, start_redis
from hindsight.local.sqs_emulator import QueueUrls, SqsEmulator, create_queues

log = logging.getLogger(__name__)
DEV_TENANT = "local"
ENV_FILE = "hindsight.env"
PORTS_FILE = "ports.json"
"""In a persistent stack's data folder: the ports its SQS emulator and private Redis last had."""


class LocalStack:
    """Start with ``start()``, stop with ``stop()`` (or use it as a context manager).

    ``ephemeral`` stacks (tests) delete their data on stop and always start a private Redis.
    Persistent stacks re-enqueue, at start, the jobs a previous run left queued (``requeued_at_start``).
    ``overrides`` are Settings fields (e.g. ``embedder="hash"``). The SQS emulator keeps its queues per
    process and region, not per server: a second stack in one process (fault tests) needs its own
    ``aws_region`` override, or the two would share queues.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        ephemeral: bool = False,
        redis_url: str | None = None,
        localstack_python: str | Path | None = None,
        **overrides: Any,
    ) -> None:
        self.data_dir = data_dir.resolve()
        self.ephemeral = ephemeral
        self.localstack_python = localstack_python
        """With an interpreter that has localstack-core: LocalStack in host mode is the AWS emulator."""
        self._preferred_redis = redis_url
        self._overrides = overrides
        self._region = str(overrides.get("aws_region", "us-east-1"))
        self.postgres: EmbeddedPostgres | None = None
        self.redis: LocalRedis | None = None
        self.sqs: SqsEmulator | LocalStackEmulator | None = None
        self.queues: QueueUrls | None = None
        self.settings: Settings | None = None
        self._pollers: list[SqsPoller] = []
        self._workers: list[WriteJobWorker | ReflectJobWorker] = []
        self.requeued_at_start = 0
        self._redis_down: tuple[Path, int | None] | None = None
        """Jobs re-enqueued by ``start()`` because the operation log still listed them as queued."""

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> LocalStack:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.postgres = start_postgres(self.data_dir / "pgdata", delete_on_stop=self.ephemeral)
            self.redis = (
                start_redis(self.data_dir / "redis")
                if self.ephemeral
                else ensure_redis(self._preferred_redis, self.data_dir / "redis", self._last_port("redis"))
            )
            sqs_port = self._last_port("sqs")
            self.sqs = self._emulator(sqs_port if sqs_port and port_is_free(sqs_port) else None).start()
            self._remember_ports()
            self.queues = self._create_queues()
            self.settings = Settings.load(
                **{
                    "database_url": self.postgres.url,
                    "redis_url": self.redis.url,
                    "write_queue_url": self.queues.writes,
                    "bulk_queue_url": self.queues.bulk,
                    "reflect_queue_url": self.queues.reflections,
                    "aws_endpoint_url": self.sqs.endpoint_url,
                    "inspector": True,  # the memory inspector page, behind the same API keys
                    **self._overrides,
                }
            )
            asyncio.run(run_migrations(self.settings))
            if not self.ephemeral:  # an ephemeral stack starts with a fresh Redis: nothing can be queued
                self.requeued_at_start = self.requeue_queued_jobs()
        except BaseException:
            self.stop()
            raise
        return self

    def _last_port(self, service: str) -> int | None:
        """The port ``service`` had in the previous run of a persistent stack: started on it again when
        it is free, the endpoints in ``hindsight.env`` (CLI, ``hindsight worker``) stay valid."""
        if self.ephemeral:
            return None
        try:
            return int(json.loads((self.data_dir / PORTS_FILE).read_text())[service])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _remember_ports(self) -> None:
        if self.ephemeral:
            return
        ports = {"sqs": self.sqs.port if self.sqs else None, "redis": self.redis.port if self.redis else None}
        (self.data_dir / PORTS_FILE).write_text(json.dumps(ports))

    def _emulator(self, port: int | None = None) -> SqsEmulator | LocalStackEmulator:
        """moto, or LocalStack in host mode when ``localstack_python`` is set (files in the data folder)."""
        if self.localstack_python is not None:
            return LocalStackEmulator(self.localstack_python, self.data_dir / "localstack", port)
        return SqsEmulator(port)

    def _create_queues(self) -> QueueUrls:
        """The queues with the visibility timeout and receive count the settings name (idempotent)."""
        queue_settings = Settings.load(**self._overrides)
        return create_queues(
            self.sqs_client(),
            visibility_timeout_s=queue_settings.queue_visibility_timeout_s,
            max_receive_count=queue_settings.queue_max_receive_count,
        )

    def heal(self) -> list[str]:
        """Restart what died of the services this stack started (a crash, a kill) and return their names.

        Redis comes back on the same port with its append-only file; the SQS emulator on the same port
        with its queues created again — its messages died with it, so every job the operation log still
        lists as queued is re-enqueued at once (workers are idempotent per job id, so a job that was in
        fact processed is not stored twice); Postgres on the same socket (crash recovery replays its
        WAL). Clients keep their URLs. ``hindsight run`` calls this twice a second. A restart that fails
        is logged and tried again at the next call; it never raises.
        """
        healed: list[str] = []
        if self.redis is not None and self.redis.died and self.redis.data_dir is not None:
            self._redis_down = (self.redis.data_dir, self.redis.port)
            self.redis.stop()  # reaps the dead process, forgets its atexit hook and owner.json
        if self._redis_down is not None:
            data_dir, port = self._redis_down
            try:
                self.redis = start_redis(data_dir, port=port)
                self._redis_down = None
                healed.append("redis")
            except Exception as exc:
                log.warning("Redis died and could not be restarted yet: %s", exc)
        if self.sqs is not None and not self.sqs.alive:
            dead_sqs = self.sqs
            dead_sqs.stop()
            try:
                self.sqs = self._emulator(dead_sqs.port).start()
                self.queues = self._create_queues()
                healed.append("sqs")
            except Exception as exc:
                self.sqs = dead_sqs
                log.warning("the SQS emulator died and could not be restarted yet: %s", exc)
            else:
                requeued = self.requeue_queued_jobs()
                log.warning("the SQS emulator was restarted; %d queued job(s) re-enqueued", requeued)
        if self.postgres is not None and not self.postgres.running():
            try:
                self.postgres.start_server()
                healed.append("postgres")
            except Exception as exc:
                log.warning("Postgres is down and could not be restarted yet: %s", exc)
        return healed

    def requeue_queued_jobs(self) -> int:
        """Re-enqueue every job the operation log still lists as queued and Postgres has no result for,
        whatever its age, and return how many. Run at start, before the pollers: the emulator's queues
        are new, so no such job is on them. The stuck-work sweep does the work (it skips processed jobs
        and jobs past their delivery limit); workers are idempotent per job id, so a job that was in
        fact delivered is not stored twice. A failure (Redis unreachable) is logged, not raised: the
        scheduled sweep re-enqueues the jobs later."""
        settings = self.require_settings()

        async def requeue() -> int:
            container = await build_container(settings)
            try:
                sweeper = container.sweeper
                if sweeper is None:
                    return 0
                # Everything queued before now. A sweep reads the whole log before its cutoff; a
                # re-enqueued job is re-scored at its new enqueue time, after the cutoff, so the loop ends.
                cutoff = time.time()
                total = 0
                while (count := await sweeper.sweep(timedelta(seconds=max(0.0, time.time() - cutoff)))) > 0:
                    total += count
                return total
            finally:
                await container.aclose()

        try:
            requeued = asyncio.run(requeue())
        except Exception as exc:
            log.warning("could not re-enqueue the jobs left queued by a previous run: %s", exc)
            return 0
        log.info("re-enqueued %d job(s) left queued by a previous run", requeued)
        return requeued

    def stop(self, *, abandon_work: bool = False) -> None:
        """Stop the pollers, the workers and the services this stack started, in that order; each step
        runs even if an earlier one failed (logged). Idempotent. ``abandon_work`` (a forced stop, the
        process ends next): the pollers are told to stop without waiting for the batch they run, and the
        workers are not closed (a worker's loop may still run that batch; its connections end with the
        process): the batch never commits once Postgres is stopped, or is only not deleted, and comes
        back either way (the operation log re-enqueues it at the next start; the workers are idempotent)."""
        for poller in self._pollers:
            _quietly(partial(poller.stop, 0.0) if abandon_work else poller.stop, "stopping a poller")
        self._pollers.clear()
        for worker in [] if abandon_work else self._workers:
            _quietly(worker.close, "closing a worker")
        self._workers.clear()
        if self.sqs is not None:
            _quietly(self.sqs.stop, "stopping the SQS emulator")
            self.sqs = None
        if self.redis is not None:
            _quietly(self.redis.stop, "stopping Redis")
            self.redis = None
        if self.postgres is not None:
            _quietly(self.postgres.stop, "stopping Postgres")
            self.postgres = None

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- pieces ------------------------------------------------------------------------------

    def require_settings(self) -> Settings:
        if self.settings is None:
            raise RuntimeError("the local stack is not started")
        return self.settings

    def sqs_client(self) -> Any:
        if self.sqs is None:
            raise RuntimeError("the SQS emulator is not running")
        return sqs_client(self._region, self.sqs.endpoint_url)

    def mint_token(
        self,
        tenant_id: str = DEV_TENANT,
        name: str = "dev",
        agent_ids: list[str] | None = None,
        read_only: bool = False,
        trusted: bool = False,
    ) -> str:
        """A new API key for ``tenant_id``; returns the token (shown once, stored as a digest)."""
        settings = self.require_settings()

        async def mint() -> str:
            container = await build_container(settings, with_queue=False)
            try:
                minted, _ = await container.keys.create(tenant_id, name, agent_ids, read_only, trusted)
                return minted.token
            finally:
                await container.aclose()

        return asyncio.run(mint())

    def dev_token(self) -> str:
        """The local dev token, kept in the data folder (mode 0600) so it survives restarts."""
        path = self.data_dir / "dev-token"
        if path.exists():
            token = path.read_text().strip()
            if self._token_valid(token):
                return token
        token = self.mint_token(DEV_TENANT, "local dev token")
        path.write_text(token + "\n")
        path.chmod(0o600)
        return token

    def _token_valid(self, token: str) -> bool:
        settings = self.require_settings()

        async def check() -> bool:
            container = await build_container(settings, with_queue=False)
            try:
                return await container.authenticate(token) is not None
            finally:
                await container.aclose()

        return asyncio.run(check())

    def write_env_file(self) -> Path:
        """``hindsight.env`` in the data folder: the settings CLI commands need to reach this stack."""
        settings = self.require_settings()
        assert self.queues is not None
        lines = {
            "HINDSIGHT_DATABASE_URL": settings.require_database_url(),
            "HINDSIGHT_REDIS_URL": settings.redis_url,
            "HINDSIGHT_WRITE_QUEUE_URL": self.queues.writes,
            "HINDSIGHT_BULK_QUEUE_URL": settings.bulk_queue_url or "",
            "HINDSIGHT_REFLECT_QUEUE_URL": self.queues.reflections,
            "HINDSIGHT_AWS_ENDPOINT_URL": settings.aws_endpoint_url or "",
            "HINDSIGHT_EMBEDDER": settings.embedder,
            "HINDSIGHT_EMBEDDING_DIM": str(settings.embedding_dim),
        }
        path = self.data_dir / ENV_FILE
        path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
        path.chmod(0o600)
        return path

    def start_write_poller(
        self, *, batch_size: int = 10, batching_window_s: float = 0.05, background: bool = True
    ) -> SqsPoller:
        """The embedding worker fed by a poller, as Lambda's event source mappings would feed it: the
        write queue, and the bulk lane's queue with a worker of its own (``job_poller``; unless the
        settings turn the lane off with an empty ``bulk_queue_url``): in the background the two run
        apart; driven one step at a time (``background=False``), the write queue first."""
        assert self.queues is not None
        return self._start_poller(
            WriteJobWorker, self.queues.writes, "embed_worker", batch_size, batching_window_s, background
        )

    def start_reflect_poller(
        self, *, batch_size: int = 10, batching_window_s: float = 0.05, background: bool = True
    ) -> SqsPoller:
        """The reflection worker fed by a poller."""
        assert self.queues is not None
        return self._start_poller(
            ReflectJobWorker,
            self.queues.reflections,
            "reflect_worker",
            batch_size,
            batching_window_s,
            background,
        )

    def _start_poller(
        self,
        worker_type: type[WriteJobWorker] | type[ReflectJobWorker],
        queue_url: str,
        name: str,
        batch_size: int,
        batching_window_s: float,
        background: bool,
    ) -> SqsPoller:
        poller, workers = job_poller(
            self.sqs_client(),
            self.require_settings(),
            worker_type,
            queue_url,
            name,
            region=self._region,
            batch_size=batch_size,
            batching_window_s=batching_window_s,
        )
        self._workers.extend(workers)
        if background:
            poller.start()
        self._pollers.append(poller)
        return poller


def job_poller(
    client: Any,
    settings: Settings,
    worker_type: type[WriteJobWorker] | type[ReflectJobWorker],
    queue_url: str,
    name: str,
    *,
    region: str,
    batch_size: int = 10,
    batching_window_s: float = 0.05,
) -> tuple[SqsPoller, list[WriteJobWorker | ReflectJobWorker]]:
    """A poller feeding ``queue_url`` to a new ``worker_type`` worker (not started), and the workers it
    invokes, to close once it has stopped. The embedding worker's poller takes the bulk lane's queue too
    (unless the settings turn the lane off with an empty ``bulk_queue_url``), with a second worker of its
    own for it, as the bulk queue's event source mapping has instances of its own in AWS: started, the
    poller runs the two apart, so a long bulk batch never holds up the write queue (``SqsPoller``). The
    bulk worker's model runs on ``bulk_embed_threads`` threads: the two share this machine's cores."""
    worker = worker_type(lambda: build_container(settings, with_queue=False))
    bulk_url = settings.bulk_queue_url if worker_type is WriteJobWorker else None
    bulk_worker = None
    if bulk_url:
        bulk_settings = settings.replace(embed_threads=settings.bulk_embed_threads)
        bulk_worker = WriteJobWorker(lambda: build_container(bulk_settings, with_queue=False))
    poller = SqsPoller(
        client,
        queue_url,
        worker,
        function_name=name,
        batch_size=batch_size,
        batching_window_s=batching_window_s,
        region=region,
        bulk_queue_url=bulk_url,
        bulk_share=settings.bulk_poll_share,
        bulk_batch_size=min(batch_size, settings.bulk_poll_batch_size),
        bulk_handler=bulk_worker,
    )
    return poller, [worker] + ([bulk_worker] if bulk_worker else [])


def _quietly(step: Callable[[], object], what: str) -> None:
    try:
        step()
    except Exception:
        log.warning("%s failed", what, exc_info=True)


def default_data_dir() -> Path:
    """``$HINDSIGHT_DATA_DIR``, else ``./var/local``."""
    return Path(os.environ.get("HINDSIGHT_DATA_DIR", "var/local"))

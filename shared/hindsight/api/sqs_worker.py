"""SQS workers: the embedding worker (write jobs) and the reflection worker (task reports).

Both follow one shape: parse every record; *prepare* the whole batch (one embedding call; for
reflections, the reflection first); *commit* the whole batch in one call — one transaction per tenant
with set-based statements, each job in its own transaction only when that fails, so a bad job never
fails its batch-mates (``MemoryWriter.store``) — between two pipelined rounds of Redis idempotency
records (claim every job, then record every outcome: ``adapters.idempotency``); then Powertools' batch
processor reports exactly the records that were not stored as ``batchItemFailures`` (partial batch
response), so SQS redelivers those and only those, and after the queue's maxReceiveCount moves them to
the dead-letter queue. Every failure is logged with the message id and the reason.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, ValidationError

from hindsight.adapters.idempotency import Claim, RedisIdempotency
from hindsight.api.runtime import ProcessLoop
from hindsight.container import Container
from hindsight.correlation import bound
from hindsight.domain.errors import HindsightError
from hindsight.domain.memory import PreparedWrite, StoreResult, WriteJob
from hindsight.domain.reflection import ReflectJob
from hindsight.domain.trust import admit_draft

log = logging.getLogger(__name__)
J = TypeVar("J", bound=BaseModel)


class RecordNotStored(Exception):
    """Raised for a record the batch could not store; Powertools turns it into a batch item failure."""


class _Worker(Generic[J]):
    """``handler(event, context)`` for SQS events whose bodies are ``job_model`` JSON."""

    job_model: type[J]

    def __init__(self, factory: Callable[[], Awaitable[Container]]) -> None:
        self._factory = factory
        self._runtime = ProcessLoop()
        self._container: Container | None = None
        self._idempotency: RedisIdempotency | None = None

    def metrics(self) -> object | None:
        """The container's Metrics (None before the first invocation built it)."""
        return self._container.metrics if self._container is not None else None

    def container(self) -> Container:
        if self._container is None:
            self._container = self._runtime.run(self._factory())
            settings = self._container.settings
            self._idempotency = RedisIdempotency(
                settings.redis_url, settings.idempotency_ttl_s, namespace=self._container.store_id
            )
        return self._container

    async def prepare(self, container: Container, jobs: list[J]) -> list[PreparedWrite | Exception]:
        raise NotImplementedError

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        container = self.container()
        assert self._idempotency is not None
        self._idempotency.register_context(context)
        failures: dict[str, str] = {}
        jobs: dict[str, J] = {}
        for record in event.get("Records", []):
            message_id = record.get("messageId", "?")
            try:
                jobs[message_id] = self.job_model.model_validate_json(record.get("body", ""))
            except ValidationError as exc:
                fields = sorted({".".join(str(p) for p in e["loc"]) for e in exc.errors()})
                failures[message_id] = (
                    f"malformed {self.job_model.__name__} (fields: {', '.join(fields) or 'body'})"
                )
        if jobs:
            try:
                prepared = self._runtime.run(self.prepare(container, list(jobs.values())))
            except Exception as exc:  # the model or its server is down: every record goes back to the queue
                prepared = [exc] * len(jobs)
            ready: dict[str, PreparedWrite] = {}
            for message_id, item in zip(jobs, prepared, strict=True):
                if isinstance(item, PreparedWrite):
                    ready[message_id] = item
                else:
                    failures[message_id] = _reason(item)
            failures.update(self._commit(container, ready))
        max_receives = container.settings.queue_max_receive_count
        for record in event.get("Records", []):
            message_id = record.get("messageId", "?")
            if message_id not in failures:
                continue
            receives = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1") or 1)
            last = receives >= max_receives
            with bound(correlation_id=message_id, message_id=message_id):
                log.warning(
                    "job not stored",
                    extra={"reason": failures[message_id], "receive_count": receives, "dead_letter": last},
                )
            if container.metrics is not None:
                container.metrics.count("JobsFailed")
                if last:
                    container.metrics.count("JobsDeadLettered")

        def record_handler(record: SQSRecord) -> None:
            reason = failures.get(record.message_id)
            if reason is not None:
                raise RecordNotStored(reason)

        processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
        return dict(response)

    def _commit(self, container: Container, ready: dict[str, PreparedWrite]) -> dict[str, str]:
        """Commit the prepared jobs (message id → job) in one call — one transaction per tenant, each
        job alone only when that fails (``MemoryWriter.store``) — between two pipelined rounds of
        idempotency records; the failure reason per message that was not stored."""
        assert self._idempotency is not None
        if not ready:
            return {}
        keys = {m: self._idempotency.key(_key(item.job)) for m, item in ready.items()}
        first: dict[str, str] = {}  # idempotency key → the message that commits it (a job delivered twice)
        for message_id, key in keys.items():
            first.setdefault(key, message_id)
        claims = self._idempotency.claim(list(first))
        answers: dict[str, dict[str, Any]] = {}  # idempotency key → the job's result
        failures: dict[str, str] = {}  # idempotency key → why not stored
        to_run: list[str] = []
        for key, claim in zip(first, claims or [Claim("run")] * len(first), strict=True):
            if claim.state == "run":
                to_run.append(key)
            elif claim.state == "done" and claim.result is not None:
                answers[key] = claim.result
            else:
                failures[key] = "another delivery of this job is being stored; retried later"
        try:
            results = self._runtime.run(container.store_memories.commit([ready[first[k]] for k in to_run]))
        except Exception as exc:  # the database is down: the whole batch goes back to the queue
            results = [
                StoreResult(job_id=ready[first[k]].job.id, outcome="failed", reason=_reason(exc))
                for k in to_run
            ]
        completed: dict[str, dict[str, Any]] = {}
        for key, result in zip(to_run, results, strict=True):
            if result.outcome == "failed" and not result.refused:  # a refusal is recorded: answered
                failures[key] = result.reason or "not stored"
            else:
                completed[key] = answers[key] = result.model_dump(mode="json", exclude={"open_conflicts"})
        if claims is not None:
            self._idempotency.finish(completed, [k for k in to_run if k in failures])
        return {m: failures[k] for m, k in keys.items() if k in failures}

    def close(self) -> None:
        if self._idempotency is not None:
            self._idempotency.close()
            self._idempotency = None
        if self._container is not None:
            self._runtime.run(self._container.aclose())
            self._container = None


def _reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, RecordNotStored | HindsightError) else f"{type(exc).__name__}: {exc}"


def _key(job: WriteJob) -> dict[str, Any]:
    return {"id": str(job.id), "kind": job.kind, "content_hash": _payload_hash(job)}


def _payload_hash(job: WriteJob) -> str:
    return hashlib.sha256(job.draft.model_dump_json().encode()).hexdigest()


class WriteJobWorker(_Worker[WriteJob]):
    """The embedding worker: embed the batch in one call, then store/merge/supersede each job."""

    job_model = WriteJob

    async def prepare(self, container: Container, jobs: list[WriteJob]) -> list[PreparedWrite | Exception]:
        return list(await container.store_memories.prepare(jobs))


class ReflectJobWorker(_Worker[ReflectJob]):
    """The reflection worker: each task report becomes one episodic record, stored like a write whose
    memory id is the reflection job's id (so ``memory_status`` answers for it), its importance capped
    unless the job's key was trusted, as memory_write's is (``domain.trust.admit_draft``)."""

    job_model = ReflectJob

    async def prepare(self, container: Container, jobs: list[ReflectJob]) -> list[PreparedWrite | Exception]:
        writes: list[WriteJob | Exception] = []
        for job in jobs:
            try:
                reflection = await container.reflect(job.report)
                draft, _ = admit_draft(reflection.draft, job.trusted)  # memory_write's cap (domain.trust)
                writes.append(
                    WriteJob(
                        id=job.id,
                        tenant_id=job.tenant_id,
                        agent_id=job.agent_id,
                        submitted_at=job.submitted_at,
                        draft=draft,
                    )
                )
            except Exception as exc:  # one report the reflector cannot handle fails alone
                writes.append(exc)
        ready = [w for w in writes if isinstance(w, WriteJob)]
        prepared = iter(await container.store_memories.prepare(ready))
        return [next(prepared) if isinstance(w, WriteJob) else w for w in writes]

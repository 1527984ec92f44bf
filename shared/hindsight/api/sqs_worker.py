"""SQS workers: the embedding worker (write jobs) and the reflection worker (task reports).

Both follow one shape: parse every record; *prepare* the whole batch (one embedding call; for
reflections, the reflection first); *commit* job by job, each inside Powertools idempotency with a
Redis persistence layer; then Powertools' batch processor reports exactly the records that were not
stored as ``batchItemFailures`` (partial batch response), so SQS redelivers those and only those, and
after the queue's maxReceiveCount moves them to the dead-letter queue. Every failure is logged with
the message id and the reason.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, ValidationError

from hindsight.adapters.idempotency import RedisIdempotency
from hindsight.api.runtime import ProcessLoop
from hindsight.container import Container
from hindsight.correlation import bound
from hindsight.domain.errors import HindsightError, Unavailable
from hindsight.domain.memory import PreparedWrite, StoreResult, WriteJob
from hindsight.domain.reflection import ReflectJob

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
            outage: str | None = None  # the database is down: the rest of the batch goes back at once
            for message_id, item in zip(jobs, prepared, strict=True):
                with bound(correlation_id=message_id, message_id=message_id):
                    if outage is not None:
                        reason: str | None = outage
                    elif isinstance(item, PreparedWrite):
                        try:
                            reason = self._commit(container, item)
                        except Unavailable as exc:
                            reason = outage = _reason(exc)
                    else:
                        reason = _reason(item)
                if reason is not None:
                    failures[message_id] = reason
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

    def _commit(self, container: Container, item: PreparedWrite) -> str | None:
        """Commit one prepared job under the idempotency layer; the failure reason, or None.
        Raises Unavailable when the database cannot be reached (the caller fails the whole batch)."""
        assert self._idempotency is not None

        def thunk() -> dict[str, Any]:
            (result,) = self._runtime.run(container.store_memories.commit([item]))
            if result.outcome == "failed":
                raise RecordNotStored(result.reason or "not stored")
            return result.model_dump(mode="json")

        key = {"id": str(item.job.id), "kind": item.job.kind, "content_hash": _payload_hash(item.job)}
        try:
            StoreResult.model_validate(self._idempotency.run(key, thunk))
        except Unavailable:
            raise
        except Exception as exc:
            return _reason(exc)
        return None

    def close(self) -> None:
        if self._container is not None:
            self._runtime.run(self._container.aclose())
            self._container = None


def _reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, RecordNotStored | HindsightError) else f"{type(exc).__name__}: {exc}"


def _payload_hash(job: WriteJob) -> str:
    return hashlib.sha256(job.draft.model_dump_json().encode()).hexdigest()


class WriteJobWorker(_Worker[WriteJob]):
    """The embedding worker: embed the batch in one call, then store/merge/supersede each job."""

    job_model = WriteJob

    async def prepare(self, container: Container, jobs: list[WriteJob]) -> list[PreparedWrite | Exception]:
        return list(await container.store_memories.prepare(jobs))


class ReflectJobWorker(_Worker[ReflectJob]):
    """The reflection worker: each task report becomes one episodic record, stored like a write whose
    memory id is the reflection job's id (so ``memory_status`` answers for it)."""

    job_model = ReflectJob

    async def prepare(self, container: Container, jobs: list[ReflectJob]) -> list[PreparedWrite | Exception]:
        writes: list[WriteJob | Exception] = []
        for job in jobs:
            try:
                reflection = await container.reflect(job.report)
                writes.append(
                    WriteJob(
                        id=job.id,
                        tenant_id=job.tenant_id,
                        agent_id=job.agent_id,
                        submitted_at=job.submitted_at,
                        draft=reflection.draft,
                    )
                )
            except Exception as exc:  # one report the reflector cannot handle fails alone
                writes.append(exc)
        ready = [w for w in writes if isinstance(w, WriteJob)]
        prepared = iter(await container.store_memories.prepare(ready))
        return [next(prepared) if isinstance(w, WriteJob) else w for w in writes]

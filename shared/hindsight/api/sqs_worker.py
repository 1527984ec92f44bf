"""SQS → StoreMemories: the embedding worker's Lambda entry logic.

The whole batch is embedded in one model call and stored in one transaction per tenant; Powertools'
batch processor then reports exactly the records that were not stored as ``batchItemFailures``
(partial batch response), so SQS redelivers those and only those.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import ValidationError

from hindsight.api.runtime import ProcessLoop
from hindsight.bootstrap import Container
from hindsight.domain.memory import WriteJob

log = logging.getLogger(__name__)


class RecordNotStored(Exception):
    """Raised for a record the batch could not store; Powertools turns it into a batch item failure."""


class WriteJobWorker:
    """``handler(event, context)`` for SQS events carrying WriteJob bodies."""

    def __init__(self, factory: Callable[[], Awaitable[Container]]) -> None:
        self._factory = factory
        self._runtime = ProcessLoop()
        self._container: Container | None = None

    def container(self) -> Container:
        if self._container is None:
            self._container = self._runtime.run(self._factory())
        return self._container

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        container = self.container()
        failures: dict[str, str] = {}
        jobs: dict[str, WriteJob] = {}
        for record in event.get("Records", []):
            message_id = record.get("messageId", "?")
            try:
                jobs[message_id] = WriteJob.model_validate_json(record.get("body", ""))
            except ValidationError as exc:
                fields = sorted({".".join(str(p) for p in e["loc"]) for e in exc.errors()})
                failures[message_id] = f"malformed write job (fields: {', '.join(fields) or 'body'})"
        if jobs:
            try:
                results = self._runtime.run(container.store_memories(list(jobs.values())))
                for message_id, result in zip(jobs, results, strict=True):
                    if result.outcome == "failed":
                        failures[message_id] = result.reason or "not stored"
            except Exception as exc:  # embedder or database down: every record goes back to the queue
                log.warning("write batch failed: %s", exc)
                for message_id in jobs:
                    failures[message_id] = f"{type(exc).__name__}: {exc}"
        for message_id, reason in failures.items():
            log.warning("write job not stored", extra={"message_id": message_id, "reason": reason})

        def record_handler(record: SQSRecord) -> None:
            reason = failures.get(record.message_id)
            if reason is not None:
                raise RecordNotStored(reason)

        processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
        return dict(response)

    def close(self) -> None:
        if self._container is not None:
            self._runtime.run(self._container.aclose())
            self._container = None

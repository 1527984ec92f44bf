"""Bulk ingestion (``hindsight ingest``): many memory writes from a file, through the queue or directly.

``queue`` (the default) sends the items through ``RememberBatch`` — up to 100 writes of one agent a call,
each admitted exactly as an agent's ``memory_write`` (redaction, idempotency, status tracking), queued ten
to an SQS request, on the bulk lane (an import must not hold up the agents' own writes); then the
embedding worker batches, deduplicates and supersedes, as for an agent's write. An item the queue
refuses is reported (``failed``), never dropped silently. An item the worker has already processed (a
re-ingest: same idempotency key, same arguments) is not queued again (``already_processed``), so the
jobs a run queued are exactly those without a result yet: waiting for their results (``--wait``) waits
until each job it queued has been processed.
``direct`` skips the queue: the items are redacted, embedded in large batches and stored by
``StoreMemories`` in this process (the same dedup/supersede rules), which is several times faster for
a bulk load but needs the embedding model here and bypasses the workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import groupby
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight.domain.auth import Principal
from hindsight.domain.errors import HindsightError, InvalidInput, RateLimited, Unavailable
from hindsight.domain.interchange import IngestItem
from hindsight.domain.limits import MAX_BATCH_ITEMS
from hindsight.domain.memory import WriteJob, check_draft_outcome_time, check_period_end
from hindsight.domain.redaction import DRAFT_TEXT_FIELDS, Redactor, ensure_key_unredacted, redact_model
from hindsight.ports import Clock
from hindsight.usecases.remember import BatchItem, ItemOutcome, RememberBatch, job_id
from hindsight.usecases.store_memories import StoreMemories

Mode = Literal["queue", "direct"]


class ItemFailure(BaseModel):
    """Why one item was not queued (or, ``--direct``, not stored): ``item`` is its number in the file
    (1-based, blank and comment lines not counted), ``where`` its place ("line 3", a LoCoMo turn: as
    ``IngestItem.origin``); ``field`` the argument refused (None when the item as a
    whole was); ``limit`` the bound it broke, if any. ``retryable``: a transient failure (the queue
    unavailable, a rate limit) that the same item may pass later; otherwise the service refused the item's
    data, and it would be refused again until the line is fixed."""

    model_config = ConfigDict(frozen=True)

    item: int
    where: str
    message: str
    field: str | None = None
    limit: Any = None
    retryable: bool = False

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def item_failure(number: int, item: IngestItem, exc: ValidationError | HindsightError) -> ItemFailure:
    """The ``ItemFailure`` of item ``number`` refused with ``exc`` (a pydantic error: its first field)."""
    if isinstance(exc, ValidationError):
        first = exc.errors(include_url=False, include_input=False)[0]
        field = ".".join(str(p) for p in first["loc"] if p != "draft") or None
        text = first["msg"].removeprefix("Value error, ")
        message = f"{field}: {text}" if field else text
        return ItemFailure(item=number, where=item.origin, message=message, field=field)
    if isinstance(exc, InvalidInput):
        return ItemFailure(item=number, where=item.origin, message=str(exc), field=exc.field, limit=exc.limit)
    retryable = isinstance(exc, Unavailable | RateLimited)
    return ItemFailure(item=number, where=item.origin, message=str(exc), retryable=retryable)


class IngestReport(BaseModel):
    """Counts per outcome; ``ids`` are the memory (job) ids in file order (of the items queued, stored, or
    already processed); ``queued`` counts the jobs sent to the queue, ``already_processed`` the items whose
    job had been processed before (not queued again); ``failed`` items were not queued (not stored),
    ``failures`` says why, each (``ItemFailure``) with whether a retry may pass."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    items: int
    queued: int = 0
    already_processed: int = 0
    failed: int = 0
    failures: list[ItemFailure] = Field(default_factory=list)
    outcomes: dict[str, int] = Field(default_factory=dict)
    ids: list[UUID] = Field(default_factory=list)
    not_stored: list[str] = Field(default_factory=list)
    """``--wait``: the jobs the worker recorded ``failed`` ("id: reason": data the store refuses)."""
    unfinished: int = 0
    """``--wait``: jobs still without a result when it stopped waiting (no progress for its timeout)."""


class Ingest:
    """Writes ``IngestItem``s for one tenant (``default_agent`` for items that name none)."""

    def __init__(
        self,
        remember: RememberBatch | None,
        store: StoreMemories,
        clock: Clock,
        redactor: Redactor | None = None,
    ) -> None:
        self._remember = remember
        self._store = store
        self._clock = clock
        self._redactor = redactor or Redactor()

    async def __call__(
        self,
        items: Iterable[IngestItem],
        *,
        tenant_id: str,
        default_agent: str,
        mode: Mode = "queue",
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> IngestReport:
        """Raises RuntimeError (queue mode without a queue), Unavailable (queue or database down)."""
        # the operator's import: importances are kept as the file gives them (domain.trust)
        principal = Principal(tenant_id=tenant_id, key_id="cli-ingest", trusted=True)
        advance = progress or (lambda _: None)
        ids: list[UUID] = []
        outcomes: dict[str, int] = {}
        if mode == "queue":
            if self._remember is None:
                raise RuntimeError("no write queue configured: set HINDSIGHT_WRITE_QUEUE_URL or use --direct")
            return await self._queue(principal, list(items), default_agent, advance)
        batch: list[WriteJob] = []
        failures: list[ItemFailure] = []
        for number, item in enumerate(items, start=1):
            try:
                batch.append(self._job(tenant_id, item.agent_id or default_agent, item))
            except InvalidInput as exc:  # a key redaction would change, an empty period: that line only
                failures.append(item_failure(number, item, exc))
                advance(1)
                continue
            if len(batch) >= batch_size:
                await self._store_batch(batch, ids, outcomes, advance)
                batch = []
        if batch:
            await self._store_batch(batch, ids, outcomes, advance)
        return IngestReport(
            mode=mode, items=len(ids), outcomes=outcomes, ids=ids, failed=len(failures), failures=failures
        )

    async def _queue(
        self,
        principal: Principal,
        items: list[IngestItem],
        default_agent: str,
        advance: Callable[[int], None],
    ) -> IngestReport:
        """Runs of one agent's items, MAX_BATCH_ITEMS a call, in file order."""
        assert self._remember is not None
        ids: list[UUID] = []
        failures: list[ItemFailure] = []
        before = 0
        numbered = list(enumerate(items, start=1))
        for agent, run in groupby(numbered, key=lambda pair: pair[1].agent_id or default_agent):
            run_items = list(run)
            for start in range(0, len(run_items), MAX_BATCH_ITEMS):
                chunk = run_items[start : start + MAX_BATCH_ITEMS]
                batch: list[BatchItem | ItemOutcome] = [BatchItem(draft=item.draft) for _, item in chunk]
                for (number, item), outcome in zip(
                    chunk, await self._remember(principal, agent, batch, lane="bulk"), strict=True
                ):
                    if outcome.ack is not None:
                        ids.append(outcome.ack.id)
                        before += outcome.processed_before
                    else:
                        assert outcome.error is not None  # an outcome has an ack or an error
                        failures.append(item_failure(number, item, outcome.error))
                advance(len(chunk))
        return IngestReport(
            mode="queue",
            items=len(items),
            queued=len(ids) - before,
            already_processed=before,
            failed=len(failures),
            failures=failures,
            ids=ids,
        )

    def _job(self, tenant_id: str, agent_id: str, item: IngestItem) -> WriteJob:
        ensure_key_unredacted(self._redactor, item.draft.key, "key")
        draft = redact_model(self._redactor, item.draft, DRAFT_TEXT_FIELDS)
        now = self._clock.now()
        check_period_end(draft, now)  # as a queued write is (Remember.admit)
        check_draft_outcome_time(draft, now)
        return WriteJob(
            id=job_id(tenant_id, agent_id, draft.idempotency_key),
            tenant_id=tenant_id,
            agent_id=agent_id,
            submitted_at=now,
            draft=draft,
        )

    async def _store_batch(
        self, batch: list[WriteJob], ids: list[UUID], outcomes: dict[str, int], advance: Callable[[int], None]
    ) -> None:
        for result in await self._store(batch):
            outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
            ids.append(result.job_id)
        advance(len(batch))

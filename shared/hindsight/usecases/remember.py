"""Remember: accept a memory, give it an id, queue it, answer at once (the worker stores it).

``Remember`` takes one write (``memory_write``); ``RememberBatch`` takes up to ``MAX_BATCH_ITEMS``
(``memory_write_batch``, ``hindsight ingest``): each item is admitted exactly like a single write and
gets its own id and status, the valid ones are counted against the caller's item budget and queued with
as few queue requests as the queue allows (SQS: 10 a request).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight.domain.auth import Principal
from hindsight.domain.errors import HindsightError, IdempotencyKeyReused, InvalidInput, Unavailable
from hindsight.domain.ids import uuid7
from hindsight.domain.limits import MAX_BATCH_ITEMS, ensure_job_fits, shared_with_others
from hindsight.domain.memory import (
    Lane,
    MemoryDraft,
    Scope,
    WriteJob,
    check_draft_outcome_time,
    check_period_end,
    write_fingerprint,
)
from hindsight.domain.redaction import DRAFT_TEXT_FIELDS, Redactor, ensure_key_unredacted, redact_model
from hindsight.domain.timetravel import check_resumes
from hindsight.domain.trust import admit_draft
from hindsight.domain.unread_time import unread_time_note
from hindsight.ports import (
    Clock,
    IdempotencyRecord,
    IdempotencyRecords,
    JobQueue,
    Metrics,
    OperationLog,
    SessionSequence,
)
from hindsight.usecases.key_admission import ReplacedValues, check_on_key

log = logging.getLogger(__name__)
RECORD_CONCURRENCY = 10
"""Operation-log records written at once for one call. A batch of 100 all at once took 100 of the Redis
client's 100 pooled connections (redis-py's default), so concurrent calls' records failed with "Too many
connections" (seen under a 1,000-item `hindsight ingest` beside an agent, bench/neighbours.py) and those
writes had no status until stored, and no re-enqueue if SQS lost them."""


class WriteAck(BaseModel):
    """The answer to a write: the memory's id and that it is queued, not yet searchable."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: Literal["queued"] = "queued"
    submitted_at: datetime
    key: str | None = Field(
        default=None,
        description="The key the memory is stored under, for a write with one: keys are case-insensitive "
        "and stored in lower case ('User.Home' is stored as 'user.home', the same key).",
    )
    importance_capped_from: float | None = Field(
        default=None,
        description="The importance asked for, when it was lowered to 0.5: an agent_inferred write, or text "
        "that reads like a prompt injection, from a key that is not trusted.",
    )
    redacted: list[str] | None = Field(
        default=None,
        description="What redaction replaced before anything was stored (e.g. ['email']): the stored text "
        "reads [REDACTED:<kind>] there.",
    )
    replayed: bool | None = Field(
        default=None,
        description="True when the idempotency_key was already used with the same arguments: this is the "
        "first call's answer, and the write is stored once.",
    )
    time_not_read: str | None = Field(
        default=None,
        description="Said when no occurred_at was given and the words name a time the rules did not read "
        "('last March', 'in 2 weeks', two different times): which words, and that the memory is placed at "
        "its session's start or the write time. Give occurred_at to place it. Also when occurred_at was "
        "given and the words name a time with its year ('In 2019 …') that it is not in: both, and that "
        "the given one is kept. Also when a keyed fact's words are read at one time ('last month') and "
        "name another that was not read ('in 2019'): both, and where the memory is placed.",
    )
    key_note: str | None = Field(
        default=None,
        description="Said when an episodic write carries a key: an event is not the key's value, so it "
        "supersedes nothing on the key and is stored beside the fact there. Write the fact with layer "
        "'semantic' to make it the key's value.",
    )


def episodic_key_note(draft: MemoryDraft) -> str | None:
    """The write answer's ``key_note``: for an episodic draft with a key, that the key names what the event
    is about and the event is not the key's value (docs/tools.md, "Moving a memory onto a key": episodic
    keys do not name one fact), so nothing on the key is superseded; None otherwise. A write that looked
    like setting the key's value was stored beside it with no word of it (h-lows)."""
    if draft.layer != "episodic" or draft.key is None:
        return None
    return (
        f"an episodic memory is not its key's value: it supersedes nothing on '{draft.key}' and is stored "
        "beside the key's fact, if there is one (a key holds one current value in the semantic layer only); "
        "to make this the key's value, write it with layer 'semantic'"
    )


CausalParentCheck = Callable[[Scope, UUID], Awaitable[None]]
"""Raises InvalidInput when a write's causal_parent names nothing its agent wrote (``CheckCausalParent``)."""
KeyValuesRead = Callable[[Scope, str], Awaitable[list[str]]]
"""The contents of the active facts of the scope's agent on a key (``usecases.key_values.KeyValues``)."""

IDEMPOTENCY_NAMESPACE = UUID("5f0c2a6e-3b7d-4c1e-9a8f-68696e647369")


def job_id(tenant_id: str, agent_id: str, idempotency_key: str | None) -> UUID:
    """A new time-ordered id, or — with an idempotency key — the same id for every retry of that write
    (UUIDv5 of tenant, agent and key), so the worker stores it once."""
    if idempotency_key is None:
        return uuid7()
    return uuid5(IDEMPOTENCY_NAMESPACE, f"{tenant_id}\x1f{agent_id}\x1f{idempotency_key}")


REFLECTION_NAMESPACE = UUID("8d3e6f1a-2c4b-5e7d-9f10-7461736b2d69")
"""task_reflect's ids: a namespace of their own, so no ``idempotency_key`` (``task:X`` included) can name
the same id as a ``task_id``."""


def reflection_id(tenant_id: str, agent_id: str, task_id: str) -> UUID:
    """The episode id of a task report: the same for every report of ``task_id`` (UUIDv5 of tenant,
    agent and task id in ``REFLECTION_NAMESPACE``), never a memory_write's ``job_id``."""
    return uuid5(REFLECTION_NAMESPACE, f"{tenant_id}\x1f{agent_id}\x1f{task_id}")


class Remember:
    """``memory_write``: validate (already done by the draft model), assign an id, enqueue.

    A write whose content is at least ``bulk_bytes`` UTF-8 bytes goes to the ``bulk`` lane: embedding its
    many chunks takes seconds to minutes of the model (a 32,000-emoji write ~70 s of one core), which on
    the write queue every other agent's writes would wait for (new-user trial F2). None: no write is
    bulk by its size."""

    def __init__(
        self,
        queue: JobQueue,
        clock: Clock,
        redactor: Redactor | None = None,
        operations: OperationLog | None = None,
        metrics: Metrics | None = None,
        idempotency: IdempotencyRecords | None = None,
        sessions: SessionSequence | None = None,
        parents: CausalParentCheck | None = None,
        bulk_bytes: int | None = None,
        key_values: KeyValuesRead | None = None,
    ) -> None:
        self._key_values = key_values
        self._bulk_bytes = bulk_bytes
        self._parents = parents
        self._metrics = metrics
        self._operations = operations
        self._queue = queue
        self._clock = clock
        self._redactor = redactor or Redactor()
        self._idempotency = idempotency
        self._sessions = sessions

    async def __call__(
        self,
        principal: Principal,
        agent_id: str | None,
        draft: MemoryDraft,
        *,
        filter: bool = False,
        replaces: ReplacedValues | None = None,
    ) -> WriteAck:
        """Redact, cap what an untrusted write may claim as importance (``domain.trust``), assign an id,
        enqueue (``replaces``: as ``admit``'s). With an ``idempotency_key``, the key is bound to the
        fingerprint of the arguments (``write_fingerprint``) at its first use: a retry with the same
        arguments gets the first answer (same id and ``submitted_at``, ``replayed``), one with different
        arguments is refused. Raises
        Forbidden (read-only key, agent not allowed), IdempotencyKeyReused, ValidationError (text grew past
        a limit by redaction), InvalidInput (the job would be over MAX_JOB_BYTES) or Unavailable (queue
        down)."""
        principal.require_write("memory_write")
        job, ack = await self.admit(principal, principal.scope(agent_id), draft, filter, replaces)
        # The operation log's entry is written while the queue takes the job: its Redis round trip is
        # off the acknowledgement's path (bench/write_ack.py), which still waits for the queue. Its
        # readers allow an entry ahead of the queue: the sweep re-enqueues entries an hour old, and
        # memory_status may say "queued" for an id not yet given to its caller. If the queue refuses
        # the job, the entry is removed again (``_unnote``). (The local stack re-enqueues every entry
        # when it restarts a dead emulator: a write refused while that happens may still be stored,
        # once, as a write whose answer was lost could before.)
        noted = asyncio.ensure_future(self._note([job]))
        try:
            await self._queue.enqueue(job)  # a replay too: the first may be lost; the worker stores once
        except Exception:
            await noted
            await self._unnote(job, ack)
            await self.release(job, ack)
            raise
        await noted
        self._count_queued(1)
        return ack

    async def admit(
        self,
        principal: Principal,
        scope: Scope,
        draft: MemoryDraft,
        filter: bool,
        replaces: ReplacedValues | None = None,
    ) -> tuple[WriteJob, WriteAck]:
        """The job for one write and its answer, not queued yet: redacted, importance capped, id assigned,
        idempotency key claimed (``release`` it if the job is not queued after all), size checked.
        Raises IdempotencyKeyReused, ValidationError or InvalidInput (also: a valid_to at or before the
        start its period would be stored with, ``check_period_end``; a causal_parent that names
        nothing the agent wrote, ``usecases.causal_parents``; a key or conversation_id redaction would
        change, field ``key`` / ``conversation_id``: ``ensure_key_unredacted``; a ``metadata.resumes``,
        ``domain.timetravel.check_resumes``; a keyed fact whose words state an undated past value, field
        ``content``: ``domain.inferred_order.check_undated_past``; one whose words state only a past state
        with no date while a value on its key states the present, field ``content``:
        ``check_past_value_on_key``, the key's values read with ``key_values`` only for such a write; a
        keyed fact whose words ask a question or state a possibility or plan, field ``content``:
        ``domain.key_statements.check_value_on_key``; a keyed fact whose words tell a dated one-off event of
        the writer's, field ``content``: ``domain.one_off_event``; a keyed fact about another person ("My
        son is …") that would retire a value of the writer's on its key, field ``content``:
        ``domain.key_subject``, the key's values read only for such a write; ``usecases.key_admission``
        holds those key checks). The
        values a keyed write would replace are the key's active values, read with ``key_values``, unless
        the caller gives them (``replaces``: a supersede's, the memory it names)."""
        check_resumes(draft.metadata)  # the store's mark of a continuation: never the caller's
        now = self._clock.now()  # read once: the write's submitted_at and what its relative words count from
        check_draft_outcome_time(draft, now)  # a "failure" in 2030 has not happened (trial7 M4)
        await check_on_key(draft, now, self._replaced(scope, draft, replaces))  # one place: key_admission
        if draft.causal_parent is not None and self._parents is not None:
            await self._parents(scope, draft.causal_parent)
        ensure_key_unredacted(self._redactor, draft.key, "key")  # an identifier: never rewritten
        # stored verbatim (not a text field): an e-mail there would be personal data kept unredacted
        ensure_key_unredacted(
            self._redactor, draft.conversation_id, "conversation_id", "conversation id", "chat-42"
        )
        # the caller's arguments, before we change them; only a write with a key is ever compared
        fingerprint = write_fingerprint(draft, filter) if draft.idempotency_key is not None else None
        draft = draft.model_copy(
            update={"shared_with": shared_with_others(draft.shared_with, scope.agent_id)}
        )
        redacted: set[str] = set()
        draft = redact_model(self._redactor, draft, DRAFT_TEXT_FIELDS, redacted)  # before the text leaves us
        write_id = job_id(scope.tenant_id, scope.agent_id, draft.idempotency_key)
        first = await self._claim(scope.tenant_id, write_id, draft, fingerprint, now, principal.trusted)
        draft, asked = admit_draft(draft, trusted_as_first(first, principal.trusted))
        job = WriteJob(
            id=write_id,
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            submitted_at=first.submitted_at if first else now,
            draft=draft,
            filter=filter,
            lane=self._lane(draft),
        )
        if job.chains:
            job = job.model_copy(update={"session_seq": await self._sequence(job)})
        ack = WriteAck(
            id=job.id,
            submitted_at=job.submitted_at,
            key=draft.key,
            importance_capped_from=asked,
            redacted=sorted(redacted) or None,
            replayed=True if first else None,
            time_not_read=unread_time_note(draft, job.submitted_at),
            key_note=episodic_key_note(draft),
        )
        try:
            check_period_end(draft, job.submitted_at)  # what the table would refuse after the ack
            ensure_job_fits(job.model_dump_json(), draft.model_dump(mode="json", exclude_none=True))
        except Exception:
            await self.release(job, ack)
            raise
        return job, ack

    def _replaced(
        self, scope: Scope, draft: MemoryDraft, replaces: ReplacedValues | None
    ) -> ReplacedValues | None:
        """What ``draft`` would replace on its key, read only when a check asks: ``replaces`` when given,
        else the key's active values (``key_values``); None when neither can be known."""
        if replaces is not None:
            return replaces
        key_values, key = self._key_values, draft.key
        if key_values is None or key is None:
            return None

        async def read() -> Sequence[str]:
            return await key_values(scope, key)

        return read

    def _lane(self, draft: MemoryDraft) -> Lane:
        """``bulk`` for content of ``bulk_bytes`` or more (UTF-8: bytes follow the model's tokens across
        scripts far more closely than characters do, see ``Settings.bulk_write_bytes``)."""
        if self._bulk_bytes and len(draft.content.encode()) >= self._bulk_bytes:
            return "bulk"
        return "interactive"

    async def _sequence(self, job: WriteJob) -> int | None:
        """The write's place in its session's chain, numbered now, at acknowledgement (the queue does not
        keep order; the worker links by these numbers). None when no sequence is configured or it is
        down: the write is accepted and stored, outside the chain (logged and counted)."""
        if self._sessions is None or job.draft.session_id is None:
            return None
        try:
            return await self._sessions.next(job.tenant_id, job.agent_id, job.draft.session_id)
        except Unavailable as exc:
            log.warning("%s; write %s accepted outside its session's chain", exc, job.id)
            if self._metrics is not None:
                self._metrics.count("SessionSequenceUnavailable")
            return None

    async def release(self, job: WriteJob, ack: WriteAck) -> None:
        """Unbind the idempotency key this write claimed (it was not queued): a retry is a first use."""
        if not ack.replayed and job.draft.idempotency_key is not None and self._idempotency is not None:
            await self._idempotency.release(job.tenant_id, job.id)

    async def record(self, jobs: Sequence[WriteJob]) -> None:
        """Note queued jobs in the operation log (RECORD_CONCURRENCY at a time; never raises) and count
        them."""
        await self._note(jobs)
        self._count_queued(len(jobs))

    async def _note(self, jobs: Sequence[WriteJob]) -> None:
        """The operation log's entries for ``jobs``, RECORD_CONCURRENCY at a time. Never raises. One job's
        entry is recorded in this task, not a task of its own (``asyncio.gather`` makes one): its request
        then leaves in the same turn of the loop as the rate-limit lease started beside the tool, and the
        two share one Redis round trip (``adapters.redis_pipelines``)."""
        if self._operations is not None and len(jobs) == 1:
            await self._operations.record_queued(jobs[0])
        elif self._operations is not None:
            for start in range(0, len(jobs), RECORD_CONCURRENCY):
                chunk = jobs[start : start + RECORD_CONCURRENCY]
                await asyncio.gather(*(self._operations.record_queued(job) for job in chunk))

    async def _unnote(self, job: WriteJob, ack: WriteAck) -> None:
        """Remove the entry ``_note`` wrote for a job the queue refused, so no sweep enqueues a write its
        caller was told failed. Not a replay's: that entry is the first call's, whose job is queued.
        Never raises (logged: left behind, the entry is swept into the queue in an hour, and the worker
        stores a job id once)."""
        if self._operations is None or ack.replayed:
            return
        try:
            await self._operations.done(job.tenant_id, [job.id])
        except Exception as exc:
            log.warning("could not remove the operation-log entry of refused job %s: %s", job.id, exc)

    def _count_queued(self, count: int) -> None:
        if self._metrics is not None and count:
            self._metrics.count("WritesQueued", count)

    @property
    def queue(self) -> JobQueue:
        """The queue jobs go to."""
        return self._queue

    async def _claim(
        self,
        tenant_id: str,
        write_id: UUID,
        draft: MemoryDraft,
        fingerprint: str | None,
        now: datetime,
        trusted: bool,
    ) -> IdempotencyRecord | None:
        """``claim_first`` for a write with an idempotency key (``fingerprint`` its arguments'); None
        when it has none."""
        if draft.idempotency_key is None or fingerprint is None:
            return None
        return await claim_first(
            self._idempotency, tenant_id, write_id, fingerprint, now, "idempotency_key", trusted
        )


async def claim_first(
    records: IdempotencyRecords | None,
    tenant_id: str,
    record_id: UUID,
    fingerprint: str,
    now: datetime,
    field: str,
    trusted: bool,
) -> IdempotencyRecord | None:
    """Bind ``record_id`` (derived from an idempotency key: memory_write's ``idempotency_key``,
    task_reflect's ``task_id``) to ``fingerprint`` and the caller's ``trusted``: the record it was bound
    to first, or None (first use, no records). Raises IdempotencyKeyReused naming ``field`` when it was
    bound to other arguments. Records that cannot be read do not stop the call: the worker still stores a
    job's memory once."""
    if records is None:
        return None
    try:
        first = await records.claim(tenant_id, record_id, IdempotencyRecord(fingerprint, now, trusted))
    except Unavailable as exc:
        log.warning("%s; job %s accepted without its idempotency check", exc, record_id)
        return None
    if first is not None and first.fingerprint != fingerprint:
        raise IdempotencyKeyReused(str(record_id), field=field)
    return first


def trusted_as_first(first: IdempotencyRecord | None, trusted: bool) -> bool:
    """The trust a call is admitted with: a replay's is its first call's (the answer and the job repeat
    the first's importance cap, whichever key replays it); else the caller's own (``trusted``)."""
    return first.trusted if first is not None and first.trusted is not None else trusted


@dataclass(frozen=True)
class BatchItem:
    """One write of a batch: what ``memory_write`` would be given."""

    draft: MemoryDraft
    filter: bool = False


@dataclass(frozen=True)
class ItemOutcome:
    """What became of one item: ``ack`` when queued, else ``error`` — ValidationError or InvalidInput
    (the item is wrong: do not retry it as is), Unavailable (the queue did not take it: retry it; with
    its idempotency_key the retry keeps the same id)."""

    ack: WriteAck | None = None
    error: ValidationError | HindsightError | None = None
    processed_before: bool = False
    """A replay of a write the worker had already processed (``RememberBatch(processed=…)``): answered
    with its ack and not queued again."""


ChargeItems = Callable[[Principal, int], Awaitable[None]]
"""Counts a batch's items against the caller's budget (``CheckRateLimit.items``); raises RateLimited."""
ProcessedIds = Callable[[str, list[UUID]], Awaitable[Collection[UUID]]]
"""(tenant, job ids) → those the worker has processed already (a result recorded in the store)."""


class RememberBatch:
    """``memory_write_batch``: up to MAX_BATCH_ITEMS writes of one agent, each admitted like
    ``memory_write`` (``Remember.admit``), counted by items against the caller's budget, and queued in as
    few requests as the queue allows (``JobQueue.enqueue_many``).

    A call with at least ``bulk_items`` valid items is bulk work (an import or a backfill, not a turn's
    worth of memories): its jobs go to the ``bulk`` lane, so they never hold up other agents' writes; in a
    smaller call, so does each item long enough on its own (``Remember``'s ``bulk_bytes``).

    With ``processed`` (``hindsight ingest``), a replay of a write the worker has processed already is
    answered and not queued again (``ItemOutcome.processed_before``): a re-ingested file queues only what
    is not stored yet, so waiting for its jobs' results waits for every job it queued. ``memory_write``
    keeps re-enqueueing replays (the first may have been lost, and that check costs a query)."""

    def __init__(
        self,
        remember: Remember,
        charge: ChargeItems | None = None,
        bulk_items: int | None = None,
        processed: ProcessedIds | None = None,
    ) -> None:
        self._remember = remember
        self._charge = charge
        self._bulk_items = bulk_items
        self._processed = processed

    async def __call__(
        self,
        principal: Principal,
        agent_id: str | None,
        items: Sequence[BatchItem | ItemOutcome],
        lane: Lane | None = None,
    ) -> list[ItemOutcome]:
        """One outcome per item, in order. An ``ItemOutcome`` given in place of an item (the caller could
        not parse it) is passed through. ``lane`` forces the jobs' lane (``hindsight ingest``: bulk); by
        default it follows the number of valid items. Raises Forbidden (read-only key, agent not allowed),
        InvalidInput (more than MAX_BATCH_ITEMS) or RateLimited (the items are over the caller's item
        budget: nothing is queued) — errors of the whole call; everything else is an item's outcome."""
        principal.require_write("memory_write_batch")
        if len(items) > MAX_BATCH_ITEMS:
            raise InvalidInput(
                "items",
                f"at most {MAX_BATCH_ITEMS} items per call ({len(items)} given)",
                {"max_items": MAX_BATCH_ITEMS},
            )
        scope = principal.scope(agent_id)
        outcomes: list[ItemOutcome] = []
        admitted: dict[int, tuple[WriteJob, WriteAck]] = {}
        for index, item in enumerate(items):
            if isinstance(item, ItemOutcome):
                outcomes.append(item)
                continue
            try:
                admitted[index] = await self._remember.admit(principal, scope, item.draft, item.filter)
            except (ValidationError, HindsightError) as exc:
                outcomes.append(ItemOutcome(error=exc))
                continue
            outcomes.append(ItemOutcome(ack=admitted[index][1]))
        if self._processed is not None:
            # Keyed writes only (a key's write has the same id every time). Those the idempotency records
            # know have passed its check (same arguments); past its window the worker would keep the
            # first stored anyway.
            replays = {job.id: i for i, (job, _) in admitted.items() if job.draft.idempotency_key is not None}
            if replays:
                for write_id in await self._processed(scope.tenant_id, list(replays)):
                    index = replays[write_id]
                    outcomes[index] = ItemOutcome(ack=admitted.pop(index)[1], processed_before=True)
        if not admitted:
            return outcomes
        if self._charge is not None:
            try:
                await self._charge(principal, len(admitted))
            except HindsightError:
                for job, ack in admitted.values():
                    await self._remember.release(job, ack)
                raise
        order = list(admitted)
        if lane is None:
            bulk = self._bulk_items is not None and len(admitted) >= self._bulk_items
            lane = "bulk" if bulk else "interactive"
        if lane != "interactive":
            for index in order:
                job, ack = admitted[index]
                admitted[index] = (job.model_copy(update={"lane": lane}), ack)
        errors = await self._remember.queue.enqueue_many([admitted[i][0] for i in order])
        queued: list[WriteJob] = []
        for index, error in zip(order, errors, strict=True):
            job, ack = admitted[index]
            if error is None:
                queued.append(job)
            else:
                await self._remember.release(job, ack)
                outcomes[index] = ItemOutcome(error=error)
        await self._remember.record(queued)
        return outcomes

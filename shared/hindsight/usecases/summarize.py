"""``memory_summarize``: an experience hint over the memories that match a query, a key, a task type or a
time window (``domain.experience``).

With a query the memories are recalled as ``memory_search`` ranks them, and those that share no word or
entity with the query are left out (``domain.experience.on_query``; the note says how many) — but not
under a ``key`` filter: the memories holding the key are what was asked for, whatever words the query
uses ("home" for "I live in Seattle"); without a query, the latest that pass the filters are read. A
key that nothing holds but keys below it do gets a note naming them (``usecases.key_filter``). Only
active memories count (a superseded fact is not a current value), and nothing is recorded as an access:
a summary is a digest, not a recall of each memory. Facts that contradict each other and were both kept
(search's ``possible_conflict``) are both shown, labelled, the other side added when only one matched. A
key no active memory holds gets a note naming its archived or superseded memories, if any. With a time
window (since, until), the note names the cited memories that have no time of their own
(``undated_note``): the window placed them at their write. The hint is
extractive (offline, deterministic) unless a chat model is configured; the model is given only the
memories kept, and its lines are used only when every line cites memories it was given, else the
extractive hint is returned with a note saying why.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, SummaryFailed
from hindsight.domain.experience import (
    DEFAULT_MAX_MEMORIES,
    ConflictWith,
    ExperienceHint,
    assemble,
    check_citations,
    conflict_sides,
    extract_hint,
    off_query_note,
    on_query,
    with_injection_labels,
    with_owner_labels,
    with_upcoming_labels,
)
from hindsight.domain.limits import KeyFilter
from hindsight.domain.memory import Scope, SearchRequest, StoredMemory, TaskType
from hindsight.domain.text import query_terms
from hindsight.domain.timeparse import detect_time_intent
from hindsight.ports import Clock, ExperienceWriter, MemoryReader
from hindsight.usecases.key_filter import check_key_filter, key_family_note
from hindsight.usecases.recall import Recall, conflict_partners, empty_window

log = logging.getLogger(__name__)

SELECTORS = ("query", "key", "task_type", "since", "until")
MAX_INACTIVE_SHOWN = 3
"""A key's archived or superseded memories a note names at most (latest first)."""


class SummaryRequest(BaseModel):
    """What to summarize: memories matching all of the given selectors (at least one)."""

    model_config = ConfigDict(frozen=True)

    query: str | None = None
    key: KeyFilter | None = None
    task_type: TaskType | None = None
    since: datetime | None = None
    until: datetime | None = None
    max_memories: int = DEFAULT_MAX_MEMORIES

    def focus(self) -> str:
        """What the agent asked about, in words, for the model."""
        parts = [f"{name}: {value}" for name in SELECTORS if (value := getattr(self, name)) is not None]
        return "; ".join(str(p) for p in parts)


class Summarize:
    """``memory_summarize``."""

    def __init__(
        self, recall: Recall, reader: MemoryReader, clock: Clock, writer: ExperienceWriter | None = None
    ) -> None:
        self._recall = recall
        self._reader = reader
        self._clock = clock
        self._writer = writer

    async def __call__(
        self, principal: Principal, agent_id: str | None, request: SummaryRequest
    ) -> ExperienceHint:
        """The hint over the scope's matching memories.

        Raises:
            InvalidInput: no selector given (field ``query``), ``since`` not before ``until``, or a ``key``
                outside the key grammar that no memory holds (``usecases.key_filter``).
            Forbidden: an agent the caller may not act for.
            Unavailable: the database is down.
        """
        if all(getattr(request, name) is None for name in SELECTORS):
            raise InvalidInput("query", "give at least one of query, key, task_type, since or until")
        if request.since is not None and request.until is not None and request.since >= request.until:
            raise InvalidInput("until", empty_window(request.since, "since", request.until, "until"))
        hint, memories = await self._hint(principal, agent_id, request)
        if request.since is None and request.until is None:
            return hint
        return hint.model_copy(update={"note": _notes(hint.note, undated_note(hint, memories))})

    async def _hint(
        self, principal: Principal, agent_id: str | None, request: SummaryRequest
    ) -> tuple[ExperienceHint, list[StoredMemory]]:
        """The hint and the memories it was built from (``__call__``, once the request is checked)."""
        now = self._clock.now()
        scope = principal.scope(agent_id)
        await check_key_filter(self._reader, scope, request.key, now)
        memories, note = await self._matching(scope, request, now)
        memories, conflicts = await self._with_conflicts(scope, memories)
        together = await self._held_together(scope, memories)
        drawn = extract_hint(memories, now=now, conflicts=conflicts, reader=scope.agent_id, together=together)
        note = _notes(note, await self._inactive_key_note(scope, request, now, memories))
        if not memories and request.key is not None:
            note = _notes(note, await key_family_note(self._reader, scope, request.key, ("active",)))
        extractive = drawn.model_copy(update={"note": _notes(note, drawn.note)})
        if self._writer is None or not memories:
            return extractive, memories
        try:
            lines = await self._writer.write(request.focus(), memories)
        except SummaryFailed as exc:
            log.warning("experience hint by the chat model failed, extractive hint used: %s", exc)
            failed = extractive.model_copy(
                update={"note": _notes(note, "the chat model gave no usable hint")}
            )
            return failed, memories
        problem = check_citations(lines, [m.id for m in memories])
        if problem is not None:
            log.warning("experience hint by the chat model refused (%s), extractive hint used", problem)
            refused = f"the chat model's hint was refused: {problem}"
            return extractive.model_copy(update={"note": _notes(note, refused)}), memories
        labelled = with_upcoming_labels(with_injection_labels(lines, memories, conflicts), memories, now)
        labelled = with_owner_labels(labelled, memories, scope.agent_id)
        return assemble(labelled, considered=len(memories), method="model", note=note), memories

    async def _inactive_key_note(
        self, scope: Scope, request: SummaryRequest, now: datetime, matched: Sequence[StoredMemory]
    ) -> str | None:
        """When a ``key`` is asked and no active memory holds it but archived (decayed unused, or by
        request) or superseded ones do: that they exist, which, and how to see them — an empty hint
        must not read as "nothing is known". None otherwise (forgotten ones are never mentioned). No
        lookup when a ``matched`` memory already holds the key: the usual case needs no second read."""
        if request.key is None or any(m.key == request.key and m.status == "active" for m in matched):
            return None
        lookup = SearchRequest(
            text="",
            top_k=MAX_INACTIVE_SHOWN,
            now=now,
            key=request.key,
            statuses=("active", "archived", "superseded"),
        )
        held = await self._reader.latest(scope, lookup, MAX_INACTIVE_SHOWN)
        if not held or any(m.status == "active" for m in held):
            return None
        return inactive_key_note(request.key, held)

    async def _held_together(self, scope: Scope, memories: list[StoredMemory]) -> set[UUID]:
        """The active facts of ``memories`` that hold their key together with another one of them: an
        additive pair ("also …"), or what a take-back of one of its values left — linked ``related`` by the
        write path (``memory_writes``). A hint shows them all, not only the latest value of the key
        (trial4 HIGH-3). One relations query, only when a key has two active values among them."""
        groups: dict[tuple[str, str], set[UUID]] = {}
        for m in memories:
            if m.layer == "semantic" and m.status == "active" and m.key is not None:
                groups.setdefault((m.agent_id, m.key), set()).add(m.id)
        several = [ids for ids in groups.values() if len(ids) > 1]
        if not several:
            return set()
        relations = await self._reader.relations(scope, [i for ids in several for i in ids])
        return {
            i
            for r in relations
            if r.kind == "related"
            for ids in several
            if r.from_id in ids and r.to_id in ids
            for i in (r.from_id, r.to_id)
        }

    async def _with_conflicts(
        self, scope: Scope, memories: list[StoredMemory]
    ) -> tuple[list[StoredMemory], dict[UUID, ConflictWith]]:
        """``memories`` with, after each fact that contradicts another one kept beside it (an active fact,
        or for an inference the user's archived statement: ``recall.conflict_partners``, as search flags
        ``possible_conflict``), the facts it contradicts that were not among them; and every fact in such
        a conflict with what says otherwise (``experience.conflict_sides``: the label names the other
        side's real status). A hint must not show one side only — least of all drop what the user stated
        for what an agent inferred."""
        partners = await conflict_partners(self._reader, scope, memories)
        if not partners:
            return memories, {}
        out: list[StoredMemory] = []
        seen = {m.id for m in memories}
        for memory in memories:
            out.append(memory)
            for other in partners.get(memory.id, []):
                if other.memory.id not in seen and other.memory.layer == "semantic":
                    seen.add(other.memory.id)
                    out.append(other.memory)
        sides = conflict_sides({mine: [p.memory for p in found] for mine, found in partners.items()})
        return out, sides

    async def _matching(
        self, scope: Scope, request: SummaryRequest, now: datetime
    ) -> tuple[list[StoredMemory], str | None]:
        """The memories the hint is built from, most relevant first, and the note on those left out."""
        text = request.query or ""
        search = SearchRequest(
            text=text,
            top_k=request.max_memories,
            now=now,
            key=request.key,
            task_type=request.task_type,
            since=request.since,
            until=request.until,
            query_terms=tuple(query_terms(text)),
            time_intent=detect_time_intent(text, now) if text else None,
        )
        if request.query is None:
            return await self._reader.latest(scope, search, request.max_memories), None
        hits = await self._recall.search(scope, search, record_access=False)
        if request.key is not None:  # every hit holds the key asked: what was asked for, on the query or not
            return [h.memory for h in hits], None
        kept = on_query(hits, request.query)
        return kept, off_query_note(len(hits) - len(kept), len(kept))


def inactive_key_note(key: str, held: Sequence[StoredMemory]) -> str:
    """The note for a key that no active memory holds, ``held`` (latest first, not empty) being the
    archived and superseded ones that do."""
    counts = Counter(m.status for m in held)
    which = " and ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    one = len(held) == 1
    ids = ", ".join(str(m.id) for m in held) + ("" if one else ", latest first")
    status = '["archived"]' if set(counts) == {"archived"} else '["archived", "superseded"]'
    return (
        f"no active memory holds key '{key}', but {which} {'one does' if one else 'ones do'} ({ids}): "
        f"see {'it' if one else 'them'} with memory_search status {status} or memory_get; memory_update "
        f"action 'restore' makes {'it' if one else 'one'} current again"
    )


def undated_note(hint: ExperienceHint, memories: Sequence[StoredMemory]) -> str | None:
    """For a hint asked with a time window (since, until): which memories it cites have no time of their
    own (no occurred_at; a turn's session start is stored as one) and were taken as of when they were
    written (the window's filter reads ``coalesce(occurred_at, created_at)``, as memory_search's does). A
    fact written this week about something long true is "in" a since=last-week window; the note lets the
    caller tell it from an event of that week (h-lows: such facts filled a since summary with nothing
    saying so). None when every cited memory has a time of its own."""
    undated = {m.id for m in memories if m.occurred_at is None}
    cited = [f"[{n}]" for n, memory_id in enumerate(hint.ids, 1) if memory_id in undated]
    if not cited:
        return None
    return (
        f"undated ({', '.join(cited)}): no occurred_at, so the time window took each as of when it was "
        "written, which may not be when it happened or held"
    )


def _notes(*notes: str | None) -> str | None:
    """The notes given, joined; None when there are none."""
    return "; ".join(n for n in notes if n) or None

"""Operations on one memory by id: get, update (update | supersede | archive | restore), forget,
link, feedback, and causal-chain recall.

Who may do what (docs/security.md): a memory belongs to the agent that wrote it. Reading (get, chain,
search) works for its owner and for the agents it is shared with (``shared_with``); changing it
(update, forget, link, feedback) only for its owner — another agent it is shared with gets Forbidden
(it can see the memory, so "not found" would be a lie). Any other id — another tenant's, or another
agent's private memory — is always "not found", never "forbidden", so ids reveal nothing.

Optimistic concurrency (domain.versions): update, forget and link take ``expected_version``; the editor
checks it under the row lock in the transaction that changes the memory, so of concurrent changes
expecting one version exactly one wins and the rest get ``VersionConflict`` (current version and
content). ``action='update'``, archive, restore, forget and link are synchronous. A supersede is stored
by the queue worker: its expected version is checked here, when the call can still be refused, and again
by the worker under the row lock (a change that landed in between makes the write ``skipped`` with a
version-conflict reason in ``memory_status``, nothing stored)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, JsonValue

from hindsight.domain.auth import Principal
from hindsight.domain.errors import Forbidden, InvalidInput, NotFound, Unavailable
from hindsight.domain.forgetting import ForgottenAlong, carried_over, carried_over_note
from hindsight.domain.inferred_order import check_past_supersede
from hindsight.domain.isotime import TimeSpan
from hindsight.domain.limits import MAX_CHAIN_DEPTH, shared_with_others
from hindsight.domain.maintenance.stale import restore_refusal
from hindsight.domain.memory import (
    HistoryEntry,
    MemoryChanges,
    MemoryDraft,
    MemoryStatus,
    Relation,
    RelationKind,
    Scope,
    SearchRequest,
    StoredMemory,
    StoreResult,
    check_outcome_time,
)
from hindsight.domain.redaction import Redactor, ensure_key_unredacted, redact_model
from hindsight.domain.relative_time import INFERRED_KEY, Redated, redated
from hindsight.domain.text import carried_entities, passage_text
from hindsight.domain.timetravel import (
    NOW,
    RESUMES_METADATA_KEY,
    PointInTime,
    check_resumes,
    is_upcoming,
    valid_at,
    valid_start,
)
from hindsight.domain.trust import importance_cap
from hindsight.domain.versions import check_memory_version
from hindsight.ports import (
    ChainDirection,
    ChainLink,
    Clock,
    EditedMemory,
    Embedder,
    MemoryEditor,
    MemoryReader,
    MemoryWriter,
)
from hindsight.usecases.key_admission import ReplacedValues, check_on_key, values_given
from hindsight.usecases.key_values import KeyValues
from hindsight.usecases.recall import links_at, memories_at
from hindsight.usecases.remember import Remember, WriteAck

log = logging.getLogger(__name__)
CHANGE_TEXT_FIELDS = ("content", "key", "query", "metadata", "entities")
UpdateAction = Literal["update", "supersede", "archive", "restore"]
USEFUL_BONUS = 0.1
UNUSED_PENALTY = -0.05
"""Feedback deltas from the seeds: +0.1 when a recalled memory helped, −0.05 when it was not used."""


class MemoryView(BaseModel):
    """A memory with its relations and, on request, its history."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory
    relations: list[Relation]
    history: list[HistoryEntry]


class UpdateResult(BaseModel):
    """``memory``: the memory after an in-place change; ``queued``: the new memory of a supersede;
    ``replaced_version``: the version the change replaced (the superseded memory's for a supersede)."""

    model_config = ConfigDict(frozen=True)

    action: UpdateAction
    memory: StoredMemory | None = None
    queued: WriteAck | None = None
    replaced_version: int | None = None
    redacted: list[str] | None = None
    """What redaction replaced in the changes or the reason (rule names, sorted), as ``WriteAck``."""
    superseded: list[UUID] | None = None
    """The facts an ``update`` (moving the memory onto their key) or a ``restore`` (of a fact on their key)
    superseded (None: none)."""
    note: str | None = None
    """What the caller may not expect: the memory is not valid yet (``upcoming_note``), a restore left it a
    past value of its key or left it as it was (``EditedMemory.note``)."""

    @classmethod
    def edited(cls, action: UpdateAction, edited: EditedMemory) -> UpdateResult:
        """The answer to an in-place change (``update``, ``archive``, ``restore``) the editor made."""
        return cls(
            action=action,
            memory=edited.memory,
            replaced_version=edited.replaced_version,
            superseded=list(edited.superseded) or None,
            note="; ".join(n for n in (edited.note, upcoming_note(edited.memory)) if n) or None,
        )


def upcoming_note(memory: StoredMemory) -> str | None:
    """Said when a changed memory is a fact not valid yet (``timetravel.is_upcoming`` at the change's
    time, ``updated_at``): search flags it ``upcoming`` and no ``valid_at`` before its start returns it."""
    if memory.updated_at is None or not is_upcoming(memory, memory.updated_at):
        return None
    assert memory.valid_from is not None
    return (
        f"memory {memory.id} is not valid yet: it holds from {memory.valid_from.isoformat()} (search flags "
        "it upcoming; memory_search with valid_at before then does not return it)"
    )


EMPTIED_KEY_SHOWN = 3
"""How many of a key's inactive values a forget's note names at most (latest first)."""


def emptied_key_note(key: str, held: list[StoredMemory]) -> str:
    """What a forget answers when it left ``key`` with no active value: the key's values that remain,
    ``held`` (superseded or archived, latest first, not empty), the latest quoted, and the call that makes
    it current again."""
    latest = held[0]
    words = latest.content if len(latest.content) <= 120 else latest.content[:117] + "…"
    others = f" (and {len(held) - 1} older: {', '.join(str(m.id) for m in held[1:])})" if held[1:] else ""
    return (
        f"key '{key}' now has no current value: its previous value {latest.id} ({latest.status}: "
        f"{words!r}){others} can be made current again with memory_update "
        f'{{"id": "{latest.id}", "action": "restore"}}'
    )


def unsuperseded_note(held: list[StoredMemory]) -> str:
    """What a forget answers when the memory it forgot had superseded ``held`` through ``supersedes``
    links (a keyless correction: "Tom is now living in Tacoma" retired "Tom lives in Seattle") and no
    other memory supersedes them now: they stay superseded (forget restores nothing: the forgotten
    memory may have been right to retire them, and a keyed forget does not restore either), each named
    with a short quote, oldest first as linked, and the call that makes the first current again. ``held``
    is not empty (at most ``EMPTIED_KEY_SHOWN``)."""
    quoted = ", ".join(
        f"{m.id} ({m.content if len(m.content) <= 120 else m.content[:117] + '…'!r})" for m in held
    )
    one = len(held) == 1
    calls = " and ".join(f'{{"id": "{m.id}", "action": "restore"}}' for m in held)
    return (
        f"the forgotten memory had superseded {quoted}: {'it is' if one else 'they are'} still "
        f"superseded and nothing current replaces {'it' if one else 'them'}; if "
        f"{'it still holds' if one else 'they still hold'}, make {'it' if one else 'them'} current again "
        f"with memory_update {calls}"
    )


class ForgetResult(BaseModel):
    """``memory``: the memory after a soft forget (None after a hard delete); ``replaced_version``: the
    version the forget replaced; ``along``: the derived memories forgotten (or deleted) with it, each with
    why (``domain.forgetting``); ``restored``: the originals made active again because the summary that
    stood for them went along; ``note``: that the forgotten fact's key now has no current value, naming
    the previous value that can be restored (``emptied_key_note``), and/or that the memories it had
    superseded through ``supersedes`` links (a keyless correction) are still superseded, with the call
    that restores them (``unsuperseded_note``), and/or, for the middle of a chain of corrections, that
    those stay superseded by the forgotten memory's successor (``carried_over_note``); None when none."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory | None
    replaced_version: int
    along: list[ForgottenAlong] = []
    restored: list[UUID] = []
    note: str | None = None


class LinkResult(BaseModel):
    """The relation made, as stored (``created_at`` set), with its from memory's version after it and the
    version it replaced; ``superseded``: the memory a ``supersedes`` link retired (None: none)."""

    model_config = ConfigDict(frozen=True)

    relation: Relation
    version: int
    replaced_version: int
    superseded: list[UUID] | None = None


def _not_found(memory_id: UUID, field: str = "id") -> NotFound:
    """``field`` (the argument that gave ``memory_id``): memory … not found."""
    return NotFound(f"memory {memory_id} not found", field)


def _write_not_memory(memory_id: UUID, result: StoreResult) -> NotFound:
    """Memory ``memory_id`` not found, said for an id that is a write's (``result``, its recorded outcome):
    the memory to use instead when it was merged into one, else why no memory has it (trial15)."""
    head = f"memory {memory_id} not found: {memory_id} is the id of a write that"
    merged = result.outcome == "merged" and result.memory_id is not None and result.memory_id != memory_id
    if result.memory_deleted:
        into = f"was merged into memory {result.memory_id}" if merged else "was stored"
        return NotFound(f"{head} {into}, deleted since (a hard forget)", "id")
    if merged:
        use = result.memory_id
        return NotFound(f"{head} was merged into memory {use} (a near-duplicate): use {use}", "id")
    if result.outcome in ("skipped", "failed"):
        done = "was skipped" if result.outcome == "skipped" else "failed"
        why = f" ({result.reason})" if result.reason else ""
        return NotFound(f"{head} {done}{why}: no memory was stored for it", "id")
    return _not_found(memory_id)  # stored under its own id, gone from this scope since


def _not_seen(memory: StoredMemory, point: PointInTime, readable_then: bool) -> NotFound:
    """Why a point-in-time read by id finds nothing: what the memory's times are (field: the time that
    does not see it). ``readable_then``: whether the reader could read the memory as it stood at
    ``known_at`` (``domain.timetravel.readable_by``)."""
    if memory.status == "forgotten":
        return _not_found(memory.id)
    if point.known_at is not None and memory.created_at > point.known_at:
        return NotFound(
            f"memory {memory.id} was not known at {point.known_at.isoformat()}: "
            f"it was stored at {memory.created_at.isoformat()}",
            "known_at",
        )
    if point.known_at is not None and not readable_then:
        return NotFound(
            f"memory {memory.id} of agent '{memory.agent_id}' was not shared with this agent at "
            f"{point.known_at.isoformat()} (or was forgotten then): another agent's memory is read at a "
            "point in time only as it stood while shared with this agent",
            "known_at",
        )
    if point.valid_at is not None and memory.key is not None and valid_at(memory, point.valid_at):
        # its period holds valid_at: an archived fact whose key another value holds then (memories_at)
        return NotFound(
            f"memory {memory.id} was not valid at {point.valid_at.isoformat()}: it was archived, and a "
            f"value of its key '{memory.key}' holds then (begun after it, or a live value over it); "
            "search with valid_at for what held then",
            "valid_at",
        )
    until = memory.valid_to.isoformat() if memory.valid_to else "open"
    return NotFound(
        f"memory {memory.id} was not valid at {point.valid_at.isoformat() if point.valid_at else '?'}: "
        f"valid from {valid_start(memory).isoformat()} until {until} (exclusive); search with valid_at "
        "for what held then",
        "valid_at",
    )


def _event_time(
    current: StoredMemory, changes: MemoryChanges, metadata: dict[str, JsonValue]
) -> Redated | None:
    """When ``current`` happened after ``changes`` (``metadata``: the metadata it has then), kept true to
    its words; None: as it is. A given occurred_at is the caller's (the record that it was inferred,
    ``relative_time.INFERRED_KEY``, is dropped); else a new content of a memory whose occurred_at was
    inferred from its old words is dated again from the same anchor, or loses the inferred time when the
    new words name none (``relative_time.redated``)."""
    if changes.occurred_at is not None:
        return Redated(changes.occurred_at, {k: v for k, v in metadata.items() if k != INFERRED_KEY})
    return None if changes.content is None else redated(current, changes.content, metadata)


def _with_event_time(changes: MemoryChanges, current: StoredMemory) -> MemoryChanges:
    """``changes`` with when ``current`` happened set as ``_event_time`` has it."""
    event = _event_time(current, changes, current.metadata if changes.metadata is None else changes.metadata)
    if event is None:
        return changes
    update = {"occurred_at": event.span, "clear_occurred_at": event.span is None, "metadata": event.metadata}
    return MemoryChanges.model_validate(changes.model_dump() | update)


def _not_owner(memory: StoredMemory) -> Forbidden:
    return Forbidden(
        f"memory {memory.id} belongs to agent '{memory.agent_id}' and is shared with this agent "
        "read-only: only its owner can change, forget or link it"
    )


def _nothing_to_update() -> str:
    """The refusal of an update with no change, naming the tool's own arguments (it named "changes", which
    no caller sends: the use case's model, not the tool's schema; h-lows)."""
    changes = ", ".join(name for name in MemoryChanges.model_fields if name not in MemoryChanges.FLAGS)
    return (
        f"action 'update' was given nothing to change: give at least one of {changes}, or verified=true to "
        "confirm the memory is still true"
    )


class ManageMemory:
    """The by-id tools. ``actor`` in history is the API key id."""

    def __init__(
        self,
        reader: MemoryReader,
        editor: MemoryEditor,
        embedder: Embedder,
        remember: Remember | None,
        redactor: Redactor | None,
        clock: Clock,
        writes: MemoryWriter | None = None,
    ) -> None:
        """``writes``: where a write's recorded outcome is read when an id names no memory (its
        ``write_results``: a merged write's id answers with the memory to use); None: not read."""
        self._redactor = redactor or Redactor()
        self._clock = clock
        self._reader = reader
        self._editor = editor
        self._embedder = embedder
        self._remember = remember
        self._writes = writes
        self._key_values = KeyValues(reader, clock)

    def _reason(self, reason: str | None, found: set[str] | None = None) -> str | None:
        """A caller's reason, redacted: it is stored (history, relations) like any other text. ``found``
        collects what was redacted, as ``Redactor.text``."""
        return self._redactor.text(reason, found) if reason is not None else None

    async def _existing(self, scope: Scope, memory_id: UUID) -> StoredMemory:
        """A memory the scope may read (own or shared with it). Raises NotFound."""
        memory = await self._reader.get(scope, memory_id)
        if memory is None:
            raise await self._missing(scope, memory_id)
        return memory

    async def _missing(self, scope: Scope, memory_id: UUID) -> NotFound:
        """NotFound for an id that names no memory of the scope: when it is the id of a write of the
        scope's agent that ended elsewhere (merged into another memory, skipped, failed), the message says
        so and names the memory to use (``_write_not_memory``); else "memory … not found". Read only on
        this path, never for a memory found; the same words for another agent's or tenant's write as for
        none (``write_results`` is asked for the scope's agent only)."""
        if self._writes is None:
            return _not_found(memory_id)
        try:
            result = (await self._writes.write_results(scope.tenant_id, [memory_id], scope.agent_id)).get(
                memory_id
            )
        except Unavailable as exc:
            log.warning("%s; write %s not looked up", exc, memory_id)
            return _not_found(memory_id)
        return _not_found(memory_id) if result is None else _write_not_memory(memory_id, result)

    async def _owned(self, scope: Scope, memory_id: UUID) -> StoredMemory:
        """A memory of the scope's own agent. Raises NotFound, or Forbidden when it is only shared."""
        memory = await self._existing(scope, memory_id)
        if memory.agent_id != scope.agent_id:
            raise _not_owner(memory)
        return memory

    async def _refusal(self, scope: Scope, memory_id: UUID) -> NotFound | Forbidden:
        """Why a change by id found nothing of the scope's own: shared read-only, or not found."""
        memory = await self._reader.get(scope, memory_id)
        if memory is not None and memory.agent_id != scope.agent_id:
            return _not_owner(memory)
        return _not_found(memory_id) if memory is not None else await self._missing(scope, memory_id)

    async def get(
        self,
        principal: Principal,
        agent_id: str | None,
        memory_id: UUID,
        with_history: bool = True,
        point: PointInTime = NOW,
    ) -> MemoryView:
        """The memory, its relations and history; at ``point`` as it stood then (history and relations
        up to ``known_at``). Raises NotFound, also when the read at ``point`` does not see it (stored
        later, not valid then: the message says which)."""
        scope = principal.scope(agent_id)
        memory = await self._existing(scope, memory_id)
        relations = await self._reader.relations(scope, [memory_id])
        history = await self._reader.history(scope, memory_id) if with_history else []
        if point.is_now:
            memory = await self._with_successor(scope, memory)
            return MemoryView(memory=memory, relations=relations, history=history)
        then = (await memories_at(self._reader, scope, [memory], point)).get(memory_id)
        if then is None:
            raise await self._why_not_seen(scope, memory, point)
        if point.known_at is not None:
            known_at = point.known_at
            relations = [r for r in relations if r.created_at is None or r.created_at <= known_at]
            # its creation counts from created_at (when the write was acknowledged), which its "created"
            # entry, recorded when the worker stored it, may follow by a moment
            history = [h for h in history if h.at <= known_at or h.action == "created"]
        return MemoryView(memory=then, relations=relations, history=history)

    async def _why_not_seen(self, scope: Scope, memory: StoredMemory, point: PointInTime) -> NotFound:
        """``_not_seen`` for a read at ``point`` that did not see ``memory``: for another agent's memory
        stored by ``known_at``, one more history query tells whether this agent could read it then."""
        readable_then = True
        if point.known_at is not None and memory.agent_id != scope.agent_id:
            known_then = PointInTime(known_at=point.known_at)
            readable_then = memory.created_at > point.known_at or memory.id in await memories_at(
                self._reader, scope, [memory], known_then
            )
        return _not_seen(memory, point, readable_then)

    async def update(
        self,
        principal: Principal,
        agent_id: str | None,
        memory_id: UUID,
        action: UpdateAction,
        changes: MemoryChanges,
        reason: str | None,
        expected_version: int | None = None,
    ) -> UpdateResult:
        """Raises NotFound, InvalidInput (nothing to change; supersede without new content; archive or
        restore with a change besides the status, naming it; a key redaction would change, field
        ``key``; a continuation dropped from its key's timeline, field ``id``: ``key_rejoin.drop``),
        Forbidden, VersionConflict (``expected_version`` given and the memory is at another). The result's
        ``redacted`` names what redaction replaced. A new ``key`` on an active semantic memory makes it the
        fact on that key: the agent's active facts already on it are superseded (``superseded``), as a
        ``memory_write`` with that key would do; so does a ``restore`` of a semantic memory with a key (it
        is valid again: the end its supersede gave it is removed). A new content re-dates an occurred_at
        inferred from the old words (``_event_time``); a given occurred_at replaces it (InvalidInput, field
        ``occurred_at``, when an event's period would then be empty). A supersede is a new fact: it holds
        from its own date (given, or read from its new words by the worker), else from when it is made,
        never from the old fact's occurred_at; it keeps the old fact's entities but the replaced values
        (``text.carried_entities``). An episode's supersede corrects the record of an event that happened
        once: it keeps the old occurred_at (re-dated as an update's, ``_event_time``) unless one is given.
        A fact's supersede by undated words that state only a past state, of a fact stated in the present,
        is refused (InvalidInput, field ``content``: ``domain.inferred_order.check_past_supersede``)."""
        principal.require_write("memory_update")
        scope = principal.scope(agent_id)
        ensure_key_unredacted(self._redactor, changes.key, "key")
        if changes.shared_with is not None:
            changes = changes.model_copy(
                update={"shared_with": shared_with_others(changes.shared_with, scope.agent_id)}
            )
        redacted: set[str] = set()
        changes = redact_model(self._redactor, changes, CHANGE_TEXT_FIELDS, redacted)
        reason = self._reason(reason, redacted)
        result = await self._update(principal, scope, memory_id, action, changes, reason, expected_version)
        return result.model_copy(update={"redacted": sorted(redacted) or None})

    async def _update(
        self,
        principal: Principal,
        scope: Scope,
        memory_id: UUID,
        action: UpdateAction,
        changes: MemoryChanges,
        reason: str | None,
        expected_version: int | None,
    ) -> UpdateResult:
        if action in ("archive", "restore"):
            if not changes.is_empty():  # never dropped silently: the caller meant to change that field
                given = next(name for name, value in changes if value not in (None, False))
                raise InvalidInput(
                    "valid_to" if given == "clear_valid_to" else given,
                    f"action '{action}' only changes the status and takes no other change; change the "
                    "memory with action 'update' (its own call), or leave this argument out",
                )
            status: MemoryStatus = "archived" if action == "archive" else "active"
            if action == "restore":
                current = await self._owned(scope, memory_id)
                if (why := restore_refusal(current.id, current.status, current.metadata)) is not None:
                    raise InvalidInput("id", why)
            edited = await self._editor.set_status(
                scope, memory_id, status, reason, principal.key_id, expected_version
            )
            if edited is None:
                raise await self._refusal(scope, memory_id)
            return UpdateResult.edited(action, await self._edited_with_successor(scope, edited))
        if action == "supersede":
            return await self._supersede(principal, scope, memory_id, changes, reason, expected_version)
        if changes.is_empty():
            raise InvalidInput("action", _nothing_to_update())
        current = await self._owned(scope, memory_id)
        check_memory_version(current, expected_version)  # early: no embedding for a refused change
        await self._check_on_key(scope, current, changes)
        check_resumes(changes.metadata, current.metadata)
        if changes.occurred_at is not None:  # a task's outcome moved into the future (trial7 M4)
            check_outcome_time(current.outcome, changes.occurred_at.start, self._clock.now(), "occurred_at")
        texts = [changes.content or current.content, changes.key or current.key or "", current.query or ""]
        cap = importance_cap(current.source, texts, principal.trusted)
        if cap is not None and changes.importance is not None and changes.importance > cap:
            changes = changes.model_copy(update={"importance": cap})  # domain.trust: untrusted claim
        changes = _with_event_time(changes, current)
        embedding = None
        if changes.content is not None and changes.content != current.content:
            draft = MemoryDraft(content=changes.content, query=changes.query or current.query)
            embedding = (await self._embedder.embed_passages([passage_text(draft)]))[0]
        edited = await self._editor.update(
            scope, memory_id, changes, embedding, reason, principal.key_id, expected_version
        )
        if edited is None:
            raise await self._refusal(scope, memory_id)
        return UpdateResult.edited(action, await self._edited_with_successor(scope, edited))

    async def _check_on_key(self, scope: Scope, current: StoredMemory, changes: MemoryChanges) -> None:
        """Refuse an in-place update that gives an active memory's key words memory_write refuses there
        (``key_admission.check_on_key``, trial23 H1: "My wife Maria is vegan" replaced "I'm vegetarian" on
        ``user.diet``). The words replace the value the memory held on its key, so that is the value the
        checks compare with; a new key makes the memory the fact on it, replacing the key's active values
        (``MemoryEditor.update``), as a write does. Nothing is checked when neither content nor key
        changes, for a memory that is not active (not its key's value), or without a key. The dates are
        those given in this call (the stored start is when the old words began to hold), and a start
        ahead (an upcoming value, ``is_upcoming``) is kept: it was the caller's. Raises InvalidInput,
        field ``content``."""
        key = changes.key or current.key
        content = changes.content or current.content
        if key is None or current.status != "active" or (key == current.key and content == current.content):
            return
        now = self._clock.now()
        start = changes.valid_from or (current.valid_from if is_upcoming(current, now) else None)
        draft = MemoryDraft(
            content=content,
            layer=current.layer,
            key=key,
            source=current.source,
            valid_from=start,
            valid_to=changes.valid_to if start is changes.valid_from else None,
            occurred_at=changes.occurred_at.start if changes.occurred_at is not None else None,
        )
        moved_to: str = key

        async def moved_onto() -> Sequence[str]:
            return await self._key_values(scope, moved_to)

        await check_on_key(draft, now, values_given([current.content]) if key == current.key else moved_onto)

    async def _with_successor(self, scope: Scope, memory: StoredMemory) -> StoredMemory:
        """``memory`` with its ``superseded_by`` (``MemoryReader.successors``: its successor in valid time)
        when it is superseded."""
        if memory.status != "superseded":
            return memory
        successor = (await self._reader.successors(scope, [memory.id])).get(memory.id)
        return memory.model_copy(update={"superseded_by": successor}) if successor else memory

    async def _edited_with_successor(self, scope: Scope, edited: EditedMemory) -> EditedMemory:
        """``edited`` with its memory's ``superseded_by`` when the change left it superseded, as ``get``
        answers it (trial 3: a restore that left a past value answered ``superseded_by`` null)."""
        return replace(edited, memory=await self._with_successor(scope, edited.memory))

    async def _supersede(
        self,
        principal: Principal,
        scope: Scope,
        memory_id: UUID,
        changes: MemoryChanges,
        reason: str | None,
        expected_version: int | None,
    ) -> UpdateResult:
        if changes.content is None:
            raise InvalidInput("content", "supersede needs the new fact's content")
        if self._remember is None:
            raise RuntimeError("no write queue configured in this process")
        old = await self._owned(scope, memory_id)
        check_memory_version(old, expected_version)
        if old.status != "active":
            raise InvalidInput(
                "id", f"memory {memory_id} is {old.status}; only an active memory can be superseded"
            )
        check_resumes(changes.metadata)  # the new fact is no continuation of anything
        # the new fact's own words are dated from now by the worker (``relative_time.with_inferred_time``):
        # the old fact's record of its inference describes the old words, so it does not carry over; a
        # continuation's mark stays with it too: the fact replacing it is a value of its own
        metadata: dict[str, JsonValue] = {
            k: v
            for k, v in {
                **old.metadata,
                **(changes.metadata or {}),
                **({"supersede_reason": reason} if reason else {}),
            }.items()
            if k != RESUMES_METADATA_KEY
        }
        occurred_at: datetime | TimeSpan | None = changes.occurred_at
        if old.layer == "episodic":
            # an event's supersede corrects the record of what happened then, not a state that holds from
            # now: it keeps when the event happened (re-dated from the same anchor when its new words name
            # another time, ``_event_time``), unless the caller gives an occurred_at
            event = _event_time(old, changes, metadata)
            occurred_at = old.occurred_at if event is None else event.span
            metadata = metadata if event is None else event.metadata
            record: dict[str, Any] = _task_record(old)
        else:
            metadata = {k: v for k, v in metadata.items() if k != INFERRED_KEY}
            record = {}
        draft = MemoryDraft(
            content=changes.content,
            layer=old.layer,
            key=changes.key or old.key,
            query=changes.query or old.query,
            importance=changes.importance if changes.importance is not None else old.importance,
            metadata=metadata,
            tags=changes.tags if changes.tags is not None else old.tags,
            entities=changes.entities
            if changes.entities is not None
            else carried_entities(old.entities, old.content, changes.content),
            source=old.source,
            # a new fact, not the old one's: it holds from its own date (given, or read from its words by
            # the worker), else from now; the old fact keeps the period it was true (trial 2 HIGH)
            occurred_at=occurred_at,
            valid_from=changes.valid_from,
            valid_to=changes.valid_to,
            supersedes=memory_id,
            supersedes_version=expected_version,
            # the replacement of a shared fact is shared as widely, unless the update says otherwise
            shared_with=changes.shared_with if changes.shared_with is not None else old.shared_with,
            **record,
        )
        check_past_supersede(old.content, draft)  # "lived in Rome" never retires "lives in Paris" undated
        ack = await self._remember(
            principal, scope.agent_id, draft, replaces=self._retired(scope, old, draft)
        )
        return UpdateResult(action="supersede", queued=ack, replaced_version=old.version)

    def _retired(self, scope: Scope, old: StoredMemory, draft: MemoryDraft) -> ReplacedValues:
        """The values a supersede of ``old`` by ``draft`` retires (``memory_writes._facts_to_replace``), read
        only when a key check asks (``key_admission``, trial23 H1): the memory it names, and the key's
        active facts too when it moves to another key."""

        async def retired() -> Sequence[str]:
            if draft.key is None or draft.key == old.key:
                return [old.content]
            return [old.content, *await self._key_values(scope, draft.key)]

        return retired

    async def forget(
        self,
        principal: Principal,
        agent_id: str | None,
        memory_id: UUID,
        hard: bool,
        reason: str | None,
        expected_version: int | None = None,
    ) -> ForgetResult:
        """Soft: status ``forgotten`` (out of search and chains, history kept, reversible with restore).
        Hard: the row, its relations and its history are deleted (``memory`` None). Either way, in the
        same transaction, what maintenance derived from it goes the same way and is listed in ``along``
        (``domain.forgetting``: a summary's archived originals, a summary or an inference that quotes it);
        the other originals of a summary that went along are made active again (``restored``). Nothing
        it superseded is restored: ``note`` names what it leaves without a current value and the restore
        call (``_emptied_key``, ``_unsuperseded``). Raises NotFound, Forbidden, VersionConflict."""
        principal.require_write("memory_forget")
        scope = principal.scope(agent_id)
        reason = self._reason(reason)
        # read first: a hard delete takes the relations along, and only an active memory's forget can
        # leave what it superseded without a current value
        found, relations = await self._reader.get_many_with_relations(scope, [memory_id], [memory_id])
        before = next(iter(found), None)
        outcome = await self._editor.forget(
            scope, memory_id, hard, reason, principal.key_id, expected_version
        )
        if outcome is None:
            raise await self._refusal(scope, memory_id)
        gone = outcome.memory or before
        notes = [
            await self._emptied_key(scope, gone) if gone is not None else None,
            await self._unsuperseded(scope, before, relations) if before is not None else None,
            await self._carry_over(scope, before, relations, principal.key_id)
            if before is not None
            else None,
        ]
        return ForgetResult(
            memory=outcome.memory,
            replaced_version=outcome.replaced_version,
            along=list(outcome.along),
            restored=list(outcome.restored),
            note="; ".join(n for n in notes if n) or None,
        )

    async def _unsuperseded(
        self, scope: Scope, before: StoredMemory, relations: list[Relation]
    ) -> str | None:
        """When ``before`` (the memory as it was before its forget, active, the scope agent's own) had
        superseded memories through ``supersedes`` links (``relations``, read before the forget) that
        are still superseded and that no other memory not forgotten supersedes now (``successors``):
        ``unsuperseded_note`` on them (trial8 H5: forgetting "Tom is now living in Tacoma" left "Tom
        lives in Seattle" superseded, no current value, and the answer said nothing). Values of
        ``before``'s own key are left to ``_emptied_key``. None otherwise."""
        if before.status != "active" or before.agent_id != scope.agent_id:
            return None
        targets = list(
            dict.fromkeys(r.to_id for r in relations if r.kind == "supersedes" and r.from_id == before.id)
        )
        if not targets:
            return None
        replaced = await self._reader.successors(scope, targets)
        retired = {m.id: m for m in await self._reader.get_many(scope, targets)}
        held = [
            m
            for i in targets
            if i not in replaced
            and (m := retired.get(i)) is not None
            and m.status == "superseded"
            and m.agent_id == scope.agent_id
            and (before.key is None or m.key != before.key)
        ]
        return unsuperseded_note(held[:EMPTIED_KEY_SHOWN]) if held else None

    async def _carry_over(
        self, scope: Scope, before: StoredMemory, relations: list[Relation], actor: str
    ) -> str | None:
        """When ``before`` (the forgotten memory as it was, the scope agent's own) was the middle of a chain
        of corrections — superseded by a memory not forgotten, and itself superseding memories through
        ``supersedes`` links (``relations``, read before the forget) that are still superseded and that no
        other memory not forgotten supersedes now: link its successor ``supersedes`` to each
        (``domain.forgetting`` rule 5, by ``actor``; a link to a memory that is not active retires
        nothing; on a key the store has given the forgotten value's time back already and linked the
        successor, ``key_rejoin``) and answer ``carried_over_note``. None otherwise."""
        if before.status != "superseded" or before.agent_id != scope.agent_id:
            return None
        after = [r.from_id for r in relations if r.kind == "supersedes" and r.to_id == before.id]
        retired_ids = list(
            dict.fromkeys(r.to_id for r in relations if r.kind == "supersedes" and r.from_id == before.id)
        )
        if not after or not retired_ids:
            return None
        found = {m.id: m for m in await self._reader.get_many(scope, [*after, *retired_ids])}
        successor = next(
            (found[i] for i in after if i in found and found[i].status not in ("forgotten", "archived")), None
        )
        if successor is None or successor.agent_id != scope.agent_id:
            return None
        replaced = await self._reader.successors(scope, retired_ids)
        retired = [  # by nothing now, or by the successor already (a key's timeline rejoined: ``key_rejoin``)
            m
            for i in retired_ids
            if replaced.get(i, successor.id) == successor.id
            and (m := found.get(i)) is not None
            and m.status == "superseded"
            and m.agent_id == scope.agent_id
        ][:EMPTIED_KEY_SHOWN]
        for memory in (m for m in retired if m.id not in replaced):
            relation = Relation(
                from_id=successor.id,
                to_id=memory.id,
                kind="supersedes",
                strength=1.0,
                reason=carried_over(before.id, memory.id),
            )
            await self._editor.link(scope, relation, None, actor)
        if not retired:
            return None
        return carried_over_note((successor.id, successor.content), [(m.id, m.content) for m in retired])

    async def _emptied_key(self, scope: Scope, gone: StoredMemory) -> str | None:
        """When forgetting ``gone`` (a keyed fact of the scope's agent) left its key with no active value
        while superseded or archived values remain: ``emptied_key_note`` on them (new-user trial M3: an
        agent undoing a wrong correction must learn that the true earlier value is still superseded).
        None otherwise."""
        if gone.layer != "semantic" or gone.key is None or gone.agent_id != scope.agent_id:
            return None
        lookup = SearchRequest(
            text="",
            top_k=EMPTIED_KEY_SHOWN,
            now=gone.updated_at or gone.created_at,
            key=gone.key,
            statuses=("active", "archived", "superseded"),
        )
        found = await self._reader.latest(scope, lookup, EMPTIED_KEY_SHOWN + 1)
        # keys are per agent: another agent's shared fact on the same key name is its own value
        held = [m for m in found if m.id != gone.id and m.agent_id == gone.agent_id][:EMPTIED_KEY_SHOWN]
        if not held or any(m.status == "active" for m in held):
            return None
        return emptied_key_note(gone.key, held)

    async def link(
        self,
        principal: Principal,
        agent_id: str | None,
        from_id: UUID,
        to_id: UUID,
        kind: RelationKind,
        strength: float,
        reason: str | None,
        expected_version: int | None = None,
    ) -> LinkResult:
        """Both ends must be the scope's own memories. A new or changed relation bumps the from memory's
        version (``expected_version`` is checked against it). A ``supersedes`` link to an active memory
        supersedes it (status, end of validity, history), as a newer fact would. Raises InvalidInput (a
        self-link; an inactive memory superseding an active one, field ``from_id``),
        Forbidden (an end is only shared with the agent, the other its own), NotFound (an end it cannot
        see), VersionConflict."""
        principal.require_write("memory_link")
        if from_id == to_id:
            raise InvalidInput("to_id", "a memory cannot be linked to itself")
        relation = Relation(
            from_id=from_id, to_id=to_id, kind=kind, strength=strength, reason=self._reason(reason)
        )
        scope = principal.scope(agent_id)
        edited = await self._editor.link(scope, relation, expected_version, principal.key_id)
        if edited is None:
            ends = {"from_id": from_id, "to_id": to_id}
            seen = {name: await self._reader.get(scope, end) for name, end in ends.items()}
            foreign = [m for m in seen.values() if m is not None and m.agent_id != scope.agent_id]
            missing = [name for name, memory in seen.items() if memory is None]
            if foreign and not missing:
                raise _not_owner(foreign[0])
            if missing:  # the first end it cannot see, named by its argument
                raise _not_found(ends[missing[0]], missing[0])
            raise NotFound(f"memory {from_id} or {to_id} not found")  # gone meanwhile
        return LinkResult(
            relation=edited.relation or relation,
            version=edited.memory.version,
            replaced_version=edited.replaced_version,
            superseded=list(edited.superseded) or None,
        )

    async def feedback(
        self, principal: Principal, agent_id: str | None, memory_id: UUID, useful: bool, reason: str | None
    ) -> StoredMemory:
        """Importance +0.1 when useful, −0.05 when recalled but not used (clamped to 0–1)."""
        principal.require_write("memory_feedback")
        delta = USEFUL_BONUS if useful else UNUSED_PENALTY
        memory = await self._editor.adjust_importance(
            principal.scope(agent_id),
            memory_id,
            delta,
            self._reason(reason) or ("useful" if useful else "not useful"),
            principal.key_id,
        )
        if memory is None:
            raise await self._refusal(principal.scope(agent_id), memory_id)
        return memory

    async def chain(
        self,
        principal: Principal,
        agent_id: str | None,
        memory_id: UUID,
        depth: int,
        direction: ChainDirection,
        point: PointInTime = NOW,
    ) -> list[ChainLink]:
        """The decision path around a memory; at ``point``, only the steps that read sees, as they stood
        then. Raises NotFound (also when the memory itself is not seen at ``point``), InvalidInput
        (depth)."""
        if not 1 <= depth <= MAX_CHAIN_DEPTH:
            raise InvalidInput("depth", f"must be 1–{MAX_CHAIN_DEPTH}", MAX_CHAIN_DEPTH)
        scope = principal.scope(agent_id)
        memory = await self._existing(scope, memory_id)
        if memory.status == "forgotten":
            raise _not_found(memory_id)
        links = await self._reader.causal_chain(scope, memory_id, depth, direction)
        if point.is_now:
            return links
        seen = await links_at(self._reader, scope, links, point)
        if not any(link.memory.id == memory_id for link in seen):
            raise await self._why_not_seen(scope, memory, point)
        return seen


def _task_record(old: StoredMemory) -> dict[str, Any]:
    """The task record an episode's supersede keeps: the corrected words describe the same event, so its
    task, how it ended, its summary, decisions, lessons and causal parent stay with it (the trial7 helper's
    finding: a superseded task record lost its ``outcome``, and ``memory_summarize`` its "Failed before")."""
    return {
        "task_id": old.task_id,
        "task_type": old.task_type,
        "outcome": old.outcome,
        "summary": old.summary,
        "key_decisions": list(old.key_decisions),
        "lessons": old.lessons,
        "causal_parent": old.causal_parent,
    }

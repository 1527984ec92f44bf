"""Working memory: set / get / clear items of one session's scratchpad, and promote an item to
long-term memory.

Scope is tenant + agent (from the principal, ``Principal.scope``) + a caller-chosen session id. Every
write counts the item's tokens with a real tokenizer, evicts the least retained non-core items when the
session would exceed its token budget (``domain.working_memory.plan_eviction``) and restarts the
session's TTL; reads record an access (recency and frequency feed the eviction score) but do not extend
the TTL.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, NotFound, Unavailable, VersionConflict
from hindsight.domain.limits import DEFAULT_IMPORTANCE
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.redaction import Redactor, ensure_key_unredacted
from hindsight.domain.working_memory import (
    DEFAULT_TTL_S,
    MAX_ITEMS_PER_SESSION,
    SESSION_ID,
    SessionChange,
    SessionScope,
    SessionState,
    WorkingMemoryItem,
    most_important_first,
    plan_eviction,
    session_tokens,
)
from hindsight.ports import Clock, TokenCounter, WorkingMemoryStore
from hindsight.usecases.remember import Remember


class WorkingMemoryPolicy(BaseModel):
    """Bounds of every session: token budget (tokens of the ``TokenCounter``), TTL (seconds), items."""

    model_config = ConfigDict(frozen=True)

    budget_tokens: int = Field(ge=1)
    ttl_s: int = Field(default=DEFAULT_TTL_S, ge=1)
    max_items: int = Field(default=MAX_ITEMS_PER_SESSION, ge=1)


class SetResult(BaseModel):
    """What ``working_memory_set`` returns: the stored item, what was evicted to make room (least
    retained first), the session's token use against its budget and seconds until it expires."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    item: WorkingMemoryItem
    evicted: list[WorkingMemoryItem]
    tokens_used: int
    budget_tokens: int
    expires_in_s: float | None
    redacted: list[str] | None = Field(
        default=None,
        description="What redaction replaced in the key or content before the item was kept (e.g. "
        "['email']), as memory_write answers: the item reads [REDACTED:<kind>] there.",
    )


class SessionView(BaseModel):
    """What ``working_memory_get`` returns: the items asked for, core first then most important."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    items: list[WorkingMemoryItem]
    count: int
    tokens_used: int = Field(description="Tokens of the whole session, not only of the items returned.")
    budget_tokens: int
    expires_in_s: float | None = Field(description="Seconds until the session expires; None when empty.")


class ClearResult(BaseModel):
    """What ``working_memory_clear`` returns: how many items were removed."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    cleared: int


class PromoteResult(BaseModel):
    """What ``working_memory_promote`` returns: the long-term memory's id (queued, as ``memory_write``
    answers) and whether the working-memory item is still there."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: Literal["queued"] = "queued"
    submitted_at: datetime
    key: str | None = Field(
        description="The long-term memory's key: memory_key when given, else None (the item's key names "
        "it within its session only)."
    )
    kept: bool


def _state_tokens(state: SessionState) -> int:
    return session_tokens(list(state.items.values()))


class WorkingMemory:
    """The working-memory use cases over a ``WorkingMemoryStore`` and a ``TokenCounter``.

    ``remember`` is the long-term write path used by ``promote``; None where no write queue is
    configured (``promote`` then raises Unavailable).
    """

    def __init__(
        self,
        store: WorkingMemoryStore,
        tokens: TokenCounter,
        clock: Clock,
        policy: WorkingMemoryPolicy,
        remember: Remember | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self._redactor = redactor or Redactor()
        self._store = store
        self._tokens = tokens
        self._clock = clock
        self.policy = policy
        self._remember = remember

    def _scope(self, principal: Principal, agent_id: str | None, session_id: str) -> SessionScope:
        """The session's scope. Raises InvalidInput when redaction would change ``session_id``: an
        identifier, carried into promoted memories' metadata (``SESSION_ID``)."""
        ensure_key_unredacted(self._redactor, session_id, "session_id", SESSION_ID.what, SESSION_ID.example)
        scope = principal.scope(agent_id)
        return SessionScope(tenant_id=scope.tenant_id, agent_id=scope.agent_id, session_id=session_id)

    def _key(self, key: str | None, field: str = "key") -> str | None:
        """``key`` as given. Raises InvalidInput when redaction would change it: a key is an identifier,
        and two keys redacted alike would name one item (``ensure_key_unredacted``)."""
        ensure_key_unredacted(self._redactor, key, field)
        return key

    async def count_tokens(self, key: str, content: str) -> int:
        """Tokens the item takes in a prompt, rendered as ``key: content``."""
        return await self._tokens.count(f"{key}: {content}")

    async def set(
        self,
        principal: Principal,
        agent_id: str | None,
        session_id: str,
        key: str,
        content: str,
        importance: float | None = None,
        core: bool | None = None,
        expected_version: int | None = None,
    ) -> SetResult:
        """Store (or replace) one item, evicting what must go so the session fits its budget.

        A replaced item keeps its creation time and access count (+1: a write is an access), and its
        importance and core flag unless given (a new item: ``DEFAULT_IMPORTANCE``, not core); its version
        goes up by one (a new item is version 1). The TTL restarts. With ``expected_version``
        the item is set only if it is at that version (0: only if the key is not set), checked inside
        the store's optimistic transaction (WATCH/MULTI: a write that lands between the read and the
        change aborts it and the check runs again on the fresh session), so two clients acting as the
        agent in one session never overwrite each other unknowingly (a session is per agent).

        Raises:
            Forbidden: read-only key, or agent not allowed.
            InvalidInput: the item does not fit even after evicting every non-core item (field
                ``content``, limit ``{"budget_tokens": …}``), or the session holds ``max_items`` core
                items (field ``key``), or redaction would change the key or session id (that field);
                nothing is changed.
            ValidationError: a field breaks its limit (session id, key, content, importance).
            VersionConflict: ``expected_version`` given and the item is at another version (0: not set);
                nothing is changed.
            Unavailable: Redis is down.
        """
        principal.require_write("working_memory_set")
        scope = self._scope(principal, agent_id, session_id)
        now = self._clock.now()
        self._key(key)
        redacted: set[str] = set()
        draft = WorkingMemoryItem(
            key=key,
            content=self._redactor.text(content, redacted),
            importance=DEFAULT_IMPORTANCE if importance is None else importance,
            core=bool(core),
            tokens=0,
            created_at=now,
            last_accessed_at=now,
        )
        tokens = await self.count_tokens(draft.key, draft.content)
        budget = self.policy.budget_tokens
        if tokens > budget:
            raise InvalidInput(
                "content",
                f"this item is {tokens} tokens; the session's working-memory budget is {budget} tokens",
                limit={"budget_tokens": budget},
            )
        draft = draft.model_copy(update={"tokens": tokens})

        def decide(items: Mapping[str, WorkingMemoryItem]) -> SessionChange:
            old = items.get(draft.key)
            current_version = old.version if old is not None else 0
            if expected_version is not None and expected_version != current_version:
                shown = old.model_dump(mode="json") if old is not None else {}
                raise VersionConflict(
                    f"working-memory item '{draft.key}'", expected_version, current_version, shown
                )
            item = draft
            if old is not None:
                item = draft.model_copy(
                    update={
                        "created_at": old.created_at,
                        "access_count": old.access_count + 1,
                        "version": old.version + 1,
                        # re-setting the content must not silently unprotect a core item
                        "importance": old.importance if importance is None else draft.importance,
                        "core": old.core if core is None else core,
                    }
                )
            evicted = plan_eviction(
                {**items, item.key: item},
                budget_tokens=budget,
                now=now,
                protected=frozenset({item.key}),
                max_items=self.policy.max_items,
            )
            return SessionChange(upsert=(item,), delete=tuple(evicted), refresh_ttl=True)

        update = await self._store.apply(scope, decide, self.policy.ttl_s)
        return SetResult(
            session_id=session_id,
            item=update.change.upsert[0],
            evicted=list(update.change.delete),
            tokens_used=_state_tokens(update.after),
            budget_tokens=budget,
            expires_in_s=update.after.expires_in_s,
            redacted=sorted(redacted) or None,
        )

    async def get(
        self, principal: Principal, agent_id: str | None, session_id: str, key: str | None = None
    ) -> SessionView:
        """One item (``key``) or every item of the session, core first then most important; each
        returned item's access is recorded. A missing key or session gives an empty list.

        Raises:
            Forbidden: agent not allowed (read-only keys may read).
            InvalidInput: redaction would change ``key`` or ``session_id`` (no item can have such a
                key, no session such an id).
            Unavailable: Redis is down.
        """
        scope = self._scope(principal, agent_id, session_id)
        now = self._clock.now()
        key = self._key(key)

        def decide(items: Mapping[str, WorkingMemoryItem]) -> SessionChange:
            chosen = list(items.values()) if key is None else [items[key]] if key in items else []
            return SessionChange(upsert=tuple(i.accessed(now) for i in chosen))

        update = await self._store.apply(scope, decide, self.policy.ttl_s)
        items = most_important_first(update.change.upsert, now)
        return SessionView(
            session_id=session_id,
            items=items,
            count=len(items),
            tokens_used=_state_tokens(update.after),
            budget_tokens=self.policy.budget_tokens,
            expires_in_s=update.after.expires_in_s,
        )

    async def clear(
        self, principal: Principal, agent_id: str | None, session_id: str, key: str | None = None
    ) -> ClearResult:
        """Remove one item (``key``) or the whole session (core items too). Clearing what is not there
        removes nothing and is not an error.

        Raises:
            Forbidden: read-only key, or agent not allowed.
            InvalidInput: redaction would change ``key`` or ``session_id`` (no item can have such a
                key, no session such an id).
            Unavailable: Redis is down.
        """
        principal.require_write("working_memory_clear")
        scope = self._scope(principal, agent_id, session_id)
        key = self._key(key)

        def decide(items: Mapping[str, WorkingMemoryItem]) -> SessionChange:
            if key is None:
                return SessionChange(delete=tuple(items.values()))
            return SessionChange(delete=(items[key],) if key in items else ())

        update = await self._store.apply(scope, decide, self.policy.ttl_s)
        return ClearResult(session_id=session_id, cleared=len(update.change.delete))

    async def promote(
        self,
        principal: Principal,
        agent_id: str | None,
        session_id: str,
        key: str,
        keep: bool = True,
        memory_key: str | None = None,
    ) -> PromoteResult:
        """Turn an item into a long-term semantic memory through ``Remember`` (same content and
        importance; metadata ``{"promoted_from": "working_memory", "session_id": …}``), queued like any
        ``memory_write``. The memory's key is ``memory_key``, none by default: an item's key names it
        within its session only, and as a long-term key 'goal' promoted from one session would
        supersede 'goal' promoted from another. Unless ``keep``, the item is then removed — only if it
        is unchanged, so a newer value written meanwhile survives.

        Raises:
            Forbidden: read-only key, or agent not allowed.
            InvalidInput: redaction would change ``key``, ``memory_key`` or ``session_id`` (that field).
            NotFound: no such item in the session (expired, evicted or never set).
            Unavailable: Redis or the write queue is down, or no queue is configured here.
        """
        principal.require_write("working_memory_promote")
        self._key(key)
        self._key(memory_key, "memory_key")
        if self._remember is None:
            raise Unavailable("long-term memory writes are not configured in this process")
        scope = self._scope(principal, agent_id, session_id)
        state = await self._store.read(scope)
        item = state.items.get(key)
        if item is None:
            raise NotFound(
                "no working-memory item with this key in this session (expired, evicted, never set)", "key"
            )
        draft = MemoryDraft(
            content=item.content,
            layer="semantic",
            key=memory_key,
            importance=item.importance,
            metadata={"promoted_from": "working_memory", "session_id": session_id},
        )
        ack = await self._remember(principal, agent_id, draft)
        kept = True
        if not keep:

            def decide(items: Mapping[str, WorkingMemoryItem]) -> SessionChange:
                current = items.get(key)
                unchanged = current is not None and current.content == item.content
                return SessionChange(delete=(current,) if unchanged and current is not None else ())

            update = await self._store.apply(scope, decide, self.policy.ttl_s)
            kept = not update.change.delete
        return PromoteResult(id=ack.id, submitted_at=ack.submitted_at, key=memory_key, kept=kept)

    async def aclose(self) -> None:
        """Release the store's connections."""
        await self._store.aclose()

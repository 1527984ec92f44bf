"""Working memory: the current session's scratchpad, bounded by a token budget.

The spec ("Memory model", first layer): working memory lives in Redis, keyed by agent and session,
with a TTL (the seeds use 30 minutes and expire whole sessions); it is bounded by a token budget of
about 30 % of the model's context window; eviction is LRU weighted by importance (recency of access,
access frequency, explicit preference/emotion, named entities); items marked *core* are never evicted.

This module holds the models, the limits (the one place for working-memory bounds; the content and
importance types are the long-term ones from ``domain.limits`` so a promoted item always fits) and the
pure eviction policy. No I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import Timestamp
from hindsight.domain.limits import (
    AGENT_ID_PATTERN,
    MAX_CONTENT_CHARS,
    MAX_KEY_CHARS,
    Content,
    Identifier,
    Importance,
    ItemKey,
)

# --- limits ------------------------------------------------------------------------------------------

MAX_SESSION_ID_CHARS = 128
"""Same bound as agent ids (``domain.limits.MAX_AGENT_ID_CHARS``): both are caller-chosen names."""

MAX_ITEMS_PER_SESSION = 256
"""Items one session may hold whatever their size. Our bound, not the spec's: it keeps one
``working_memory_get`` answer (and one Redis HGETALL) small when items are tiny and the token budget
alone would allow thousands."""

DEFAULT_TTL_S = 1800
"""Session time-to-live in seconds: the seeds' 30 minutes (spec, "Memory model")."""

DEFAULT_CONTEXT_WINDOW_TOKENS = 128_000
"""Context window the budget is a share of: 128k tokens (GPT-4o, GPT-4.1-mini class models)."""

DEFAULT_BUDGET_FRACTION = 0.3
"""Share of the context window working memory may fill: the spec's "about 30 %"."""

SESSION_ID = Identifier("session id", "support-chat-42")
"""A session id is an identifier: promoted memories carry it in their metadata, where redaction would
make two sessions' memories claim one source, so one that redaction would change is refused."""
SessionId = Annotated[
    str,
    SESSION_ID,
    StringConstraints(min_length=1, max_length=MAX_SESSION_ID_CHARS, pattern=AGENT_ID_PATTERN),
    Field(
        description="The conversation or task this scratchpad belongs to: any stable id you choose for the "
        f"current session (letters, digits and _.:@-, ≤ {MAX_SESSION_ID_CHARS} characters). Use the same id "
        "for every call in one session."
    ),
]
WorkingMemoryKey = Annotated[
    ItemKey,
    Field(
        description="Name of the item within the session, e.g. 'current_goal', 'order:A-1042', "
        f"'user.constraints' (≤ {MAX_KEY_CHARS} characters). Setting an existing key replaces the item."
    ),
]
WorkingMemoryContent = Annotated[
    Content,
    Field(
        description=f"What to keep at hand for this session, in plain words (1–{MAX_CONTENT_CHARS} chars)."
    ),
]

# --- retention score -----------------------------------------------------------------------------------
# retention = W_IMPORTANCE·importance + W_RECENCY·recency + W_FREQUENCY·frequency, each term in [0, 1].
# The spec asks for "LRU weighted by importance" with recency of access, access frequency and the
# explicit signals (a stated preference or emotion, named entities) as inputs. The explicit signals are
# what a caller expresses in ``importance`` (the same write-path triggers the spec lists), so importance
# carries the largest weight; recency is the LRU part; frequency rewards items the agent keeps reading.
# The weights and the two shape constants below are our choice (the spec gives none); they are
# documented here and tested as properties, not tuned.
W_IMPORTANCE = 0.5
W_RECENCY = 0.3
W_FREQUENCY = 0.2
RECENCY_HALF_LIFE_S = 600.0
"""Idle time after which the recency term halves: a third of the default 30-minute TTL, so an item
untouched for a whole TTL keeps 1/8 of its recency."""
FREQUENCY_HALF_SATURATION = 2.0
"""Accesses at which the frequency term reaches 0.5: frequency = n / (n + 2) (0 → 0, 2 → 0.5, 8 → 0.8)."""


class SessionScope(BaseModel):
    """Whose scratchpad: one tenant, one agent within it, one session of that agent."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str = Field(min_length=1)
    agent_id: str = Field(min_length=1)
    session_id: SessionId


class WorkingMemoryItem(BaseModel):
    """One item of a session's working memory.

    ``tokens`` is what the item takes in a prompt (its key plus its content, counted by the
    ``TokenCounter`` port); times are UTC; ``access_count`` counts reads and overwrites since creation.
    """

    model_config = ConfigDict(frozen=True)

    key: WorkingMemoryKey
    content: WorkingMemoryContent
    importance: Importance
    core: bool = False
    tokens: int = Field(ge=0)
    created_at: Timestamp
    last_accessed_at: Timestamp
    access_count: int = Field(default=0, ge=0)
    version: int = Field(default=1, ge=1)
    """1 when the key is first set, +1 on every set of it (reads do not change it); items stored before
    versions existed read as 1. ``working_memory_set`` with ``expected_version`` compares it."""

    def retention(self, now: datetime) -> float:
        """Retention score in [0, 1]; the lowest is evicted first (formula and weights above)."""
        return retention_score(self.importance, self.last_accessed_at, self.access_count, now)

    def accessed(self, now: datetime) -> WorkingMemoryItem:
        """This item after one more access at ``now``."""
        return self.model_copy(update={"last_accessed_at": now, "access_count": self.access_count + 1})


class SessionChange(BaseModel):
    """What one atomic update does to a session: items to write, items to remove, whether the session's
    TTL restarts. ``delete`` holds whole items so callers can report what was evicted."""

    model_config = ConfigDict(frozen=True)

    upsert: tuple[WorkingMemoryItem, ...] = ()
    delete: tuple[WorkingMemoryItem, ...] = ()
    refresh_ttl: bool = False

    @property
    def is_empty(self) -> bool:
        return not self.upsert and not self.delete and not self.refresh_ttl


class SessionState(BaseModel):
    """A session as stored: its items by key, and seconds until it expires (None when it is empty)."""

    model_config = ConfigDict(frozen=True)

    items: dict[str, WorkingMemoryItem] = Field(default_factory=dict)
    expires_in_s: float | None = None


class SessionUpdate(BaseModel):
    """The outcome of one atomic update: the change that was applied and the session after it."""

    model_config = ConfigDict(frozen=True)

    change: SessionChange
    after: SessionState


def retention_score(importance: float, last_accessed_at: datetime, access_count: int, now: datetime) -> float:
    """``W_IMPORTANCE·importance + W_RECENCY·0.5^(idle_s / RECENCY_HALF_LIFE_S) + W_FREQUENCY·n/(n + 2)``.

    ``idle_s`` is seconds since the last access (clamped at 0 against clock skew); ``n`` the access
    count. Result in [0, 1].
    """
    idle_s = max(0.0, (now - last_accessed_at).total_seconds())
    recency = math.pow(0.5, idle_s / RECENCY_HALF_LIFE_S)
    frequency = access_count / (access_count + FREQUENCY_HALF_SATURATION)
    return W_IMPORTANCE * importance + W_RECENCY * recency + W_FREQUENCY * frequency


def budget_from_context_window(context_window_tokens: int, fraction: float) -> int:
    """The working-memory token budget: ``floor(context_window_tokens · fraction)`` (spec: ~30 %)."""
    return math.floor(context_window_tokens * fraction)


def eviction_order(items: Iterable[WorkingMemoryItem], now: datetime) -> list[WorkingMemoryItem]:
    """Non-core items, least retained first (ties: least recently accessed, then key)."""
    candidates = [i for i in items if not i.core]
    return sorted(candidates, key=lambda i: (i.retention(now), i.last_accessed_at, i.key))


def plan_eviction(
    items: Mapping[str, WorkingMemoryItem],
    *,
    budget_tokens: int,
    now: datetime,
    protected: frozenset[str] = frozenset(),
    max_items: int = MAX_ITEMS_PER_SESSION,
) -> list[WorkingMemoryItem]:
    """Which items to evict so the session fits ``budget_tokens`` and ``max_items``.

    ``items`` is the session as it would be after a write (the new item included); ``protected`` keys
    (the item being written) are never evicted, nor are core items. Evicts the least retained non-core
    items first (``eviction_order``) and no more than needed: the result is the shortest prefix of that
    order after which the session fits.

    Returns:
        The evicted items, in eviction order (empty when everything fits).

    Raises:
        InvalidInput: core and protected items alone exceed the budget (field ``content``, limit
            ``{"budget_tokens": budget_tokens}``) or the item count (field ``key``, limit
            ``{"max_items": max_items}``): the write must be refused.
    """
    total = sum(i.tokens for i in items.values())
    count = len(items)
    if total <= budget_tokens and count <= max_items:
        return []
    kept = [i for i in items.values() if i.core or i.key in protected]
    kept_tokens = sum(i.tokens for i in kept)
    if kept_tokens > budget_tokens:
        raise InvalidInput(
            "content", _over_budget(kept, protected, budget_tokens), limit={"budget_tokens": budget_tokens}
        )
    if len(kept) > max_items:
        raise InvalidInput(
            "key",
            f"the session already holds {sum(1 for i in kept if i.key not in protected)} core items; "
            f"the limit is {max_items} items per session",
            limit={"max_items": max_items},
        )
    evicted: list[WorkingMemoryItem] = []
    for item in eviction_order((i for i in items.values() if i.key not in protected), now):
        if total <= budget_tokens and count <= max_items:
            break
        evicted.append(item)
        total -= item.tokens
        count -= 1
    return evicted


def _over_budget(kept: Sequence[WorkingMemoryItem], protected: frozenset[str], budget_tokens: int) -> str:
    """Why ``kept`` (the items no eviction may remove: the one being written and the core ones) cannot
    fit: the item's own tokens and the core items' told apart, since only a core item is never evicted
    and the item being written is kept whether core or not (trial24: a non-core item was told it "would
    need 40491 tokens of core working memory")."""
    own = [i for i in kept if i.key in protected]
    own_tokens = sum(i.tokens for i in own)
    core_tokens = sum(i.tokens for i in kept if i.key not in protected)
    kind = "core item" if own and all(i.core for i in own) else "item"
    if core_tokens == 0:
        return (
            f"this {kind} alone takes {own_tokens} tokens, over the session's working-memory budget of "
            f"{budget_tokens} tokens; shorten it or store it in long-term memory (memory_write)"
        )
    return (
        f"this {kind} ({own_tokens} tokens) and the session's core items, which are never evicted "
        f"({core_tokens} tokens), need {own_tokens + core_tokens} tokens together, over the session's "
        f"working-memory budget of {budget_tokens} tokens; shorten the item, or clear core items or "
        "promote them to long-term memory (working_memory_clear, working_memory_promote)"
    )


def most_important_first(items: Iterable[WorkingMemoryItem], now: datetime) -> list[WorkingMemoryItem]:
    """Core items first, then by importance, then by retention score, then key (stable, for display)."""
    return sorted(items, key=lambda i: (not i.core, -i.importance, -i.retention(now), i.key))


def session_tokens(items: Sequence[WorkingMemoryItem]) -> int:
    """Tokens all ``items`` take together."""
    return sum(i.tokens for i in items)

"""Ports of working memory: the per-session store and the token counter its budget is measured with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from hindsight.domain.working_memory import (
    SessionChange,
    SessionScope,
    SessionState,
    SessionUpdate,
    WorkingMemoryItem,
)


class TokenCounter(Protocol):
    """Counts tokens the way an LLM's tokenizer does (not characters). Works offline."""

    @property
    def encoding_name(self) -> str:
        """The tokenizer's name, e.g. ``cl100k_base``."""
        ...

    async def count(self, text: str) -> int:
        """Tokens in ``text`` (special-token strings count as ordinary text)."""
        ...


SessionDecision = Callable[[Mapping[str, WorkingMemoryItem]], SessionChange]
"""Given a session's items by key, the change to apply. Must be pure: it may run more than once when a
concurrent update wins the race, and may raise a domain error to abort without changing anything."""


class WorkingMemoryStore(Protocol):
    """Per-session working memory (Redis). Every method is scoped to one tenant, agent and session.

    Every method raises Unavailable when the store cannot be reached; callers may retry.
    """

    async def read(self, scope: SessionScope) -> SessionState:
        """The session's items and remaining TTL, with no side effect (no access is recorded)."""
        ...

    async def apply(self, scope: SessionScope, decide: SessionDecision, ttl_s: int) -> SessionUpdate:
        """Atomically read the session, ``decide`` the change and apply it; return the change applied
        and the session after it.

        No concurrent update can interleave (two writes cannot together overshoot a budget). The
        session's TTL restarts at ``ttl_s`` seconds when the change asks for it, else it keeps running.
        Domain errors raised by ``decide`` propagate and nothing is changed.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...

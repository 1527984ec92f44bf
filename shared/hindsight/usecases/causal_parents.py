"""A write's ``causal_parent`` must name something the writing agent wrote: checked when the write is
accepted, because that is the last moment the caller can be told.

The worker links a child to its parent when both are stored; a parent still queued is linked when it
arrives (``pending_causal_links``). So an id that names nothing was acknowledged, stored with no parent,
and waited for ever: a typo or a stale id the agent never heard about. Now the id must be, for the
writing agent of the tenant: a stored memory of its own, a write of its own that was stored or merged
into a memory (``memory_write`` answers with the write's id), or a write of its own still queued (the
operation log). Anything else — unknown, another tenant's, another agent's (the worker never links
across agents), a write that was skipped or failed, a memory deleted since — is refused naming
``causal_parent``, with the same words for "does not exist" and "not yours", so ids reveal nothing.

When the database or the operation log cannot be read, the id is accepted unchecked, as before: writes
are acknowledged during an outage (the queue holds them), and the worker still links a parent that
arrives.
"""

from __future__ import annotations

import logging
from uuid import UUID

from hindsight.domain.errors import InvalidInput, Unavailable
from hindsight.domain.memory import Scope
from hindsight.ports import MemoryReader, MemoryWriter, OperationLog

log = logging.getLogger(__name__)


class CheckCausalParent:
    """Refuses a ``causal_parent`` that names nothing the writing agent wrote (module doc)."""

    def __init__(self, reader: MemoryReader, writer: MemoryWriter, operations: OperationLog | None) -> None:
        self._reader = reader
        self._writer = writer
        self._operations = operations

    async def __call__(self, scope: Scope, parent: UUID) -> None:
        """Returns when ``parent`` is the scope's agent's memory, or its write stored, merged or queued,
        or when that cannot be told now (the database or the operation log down: the write is accepted,
        as writes are during an outage). Raises InvalidInput (field ``causal_parent``) otherwise."""
        try:
            why = await self._refusal(scope, parent)
        except Unavailable as exc:
            log.warning("%s; causal_parent %s accepted unchecked", exc, parent)
            return
        if why is not None:
            raise InvalidInput("causal_parent", why)

    async def _refusal(self, scope: Scope, parent: UUID) -> str | None:
        """Why ``parent`` cannot be followed, or None when it can. Raises Unavailable."""
        if any(m.agent_id == scope.agent_id for m in await self._reader.get_many(scope, [parent])):
            return None
        result = (await self._writer.write_results(scope.tenant_id, [parent], scope.agent_id)).get(parent)
        if result is not None:
            if result.outcome in ("stored", "merged") and not result.memory_deleted:
                return None
            status = "deleted since" if result.memory_deleted else result.outcome
            return (
                f"the write {parent} was {status}: there is no memory to follow (give another event's id, "
                "or none)"
            )
        if self._operations is None:
            return None  # no log of queued writes: a queued parent cannot be told from none
        if parent in await self._operations.queued(scope.tenant_id, [parent], scope.agent_id):
            return None
        return (
            f"no memory or write of this agent has the id {parent}: give the id memory_write answered "
            "for an earlier event of yours (memory_search shows stored ones), or no causal_parent"
        )

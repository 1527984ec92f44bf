"""Deferred access bookkeeping: search answers first, the access counters are bumped right after."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from hindsight.domain.memory import Scope
from hindsight.ports import MemoryEditor

log = logging.getLogger(__name__)


class DeferredAccessLog:
    """The AccessLog port: one background write per search, off the response path.

    The write (``MemoryEditor.record_access``) upserts the hits' rows of ``memory_access``, a narrow
    table of their own (migration 018), and no row of ``memories``: a search adds no index entries to
    ``memories`` (its HNSW graph included) and leaves no dead copy of a memory's row. Reads join the
    counters back (``rows.ACCESS_FIELDS``), so they show as before once the write is done.

    In Lambda a task still pending when the response is sent finishes during the next invocation
    of the same instance; counts may lag by one invocation, and an instance that is never invoked
    again loses its last bump — acceptable for a ranking statistic.
    """

    def __init__(self, editor: MemoryEditor) -> None:
        self._editor = editor
        self._pending: set[asyncio.Task[None]] = set()

    def note(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None:
        if not ids:
            return
        task = asyncio.get_running_loop().create_task(self._record(scope, list(ids), at))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _record(self, scope: Scope, ids: list[UUID], at: datetime) -> None:
        try:
            await self._editor.record_access(scope, ids, at)
        except Exception as exc:  # a lost counter bump must never fail a search
            log.warning("access bookkeeping failed: %s", exc)

    async def flush(self) -> None:
        """Wait for pending updates (shutdown, tests)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

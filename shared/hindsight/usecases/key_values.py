"""The values on a key, asked when a keyed write states only a past state with no date
(``domain.inferred_order.past_value_words``): such a write would take its key as of now, so it is refused
when that would retire a value of now (``check_past_value_on_key``) — at acknowledgement, the last moment
the caller can be told. So does a keyed write about another person ("My son is allergic to eggs",
``domain.key_subject``): refused when every value on the key is the writer's own. Only those writes ask:
every other write is acknowledged without a read.

When the database cannot be read the write is accepted unchecked (writes are acknowledged during an
outage; the queue holds them), as a ``causal_parent`` is (``usecases.causal_parents``)."""

from __future__ import annotations

import logging

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import Scope, SearchRequest
from hindsight.ports import Clock, MemoryReader

log = logging.getLogger(__name__)
MAX_KEY_VALUES = 10
"""Active values of a key read (one, but an additive pair or an inference kept beside a statement)."""


class KeyValues:
    """The contents of the active facts of the scope's own agent on a key, latest first."""

    def __init__(self, reader: MemoryReader, clock: Clock) -> None:
        self._reader = reader
        self._clock = clock

    async def __call__(self, scope: Scope, key: str) -> list[str]:
        """The contents (at most ``MAX_KEY_VALUES``); empty when there are none or the store cannot be
        read now (logged). Never raises."""
        request = SearchRequest(
            text="", top_k=MAX_KEY_VALUES, now=self._clock.now(), layers=("semantic",), key=key
        )
        try:
            found = await self._reader.latest(scope, request, MAX_KEY_VALUES)
        except Unavailable as exc:
            log.warning("%s; a write on key %r accepted unchecked", exc, key)
            return []
        return [m.content for m in found if m.agent_id == scope.agent_id and m.key == key]

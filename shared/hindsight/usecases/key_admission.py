"""The checks the words of a keyed fact pass before they become the key's value: one place for every way
a value reaches a key — ``memory_write`` (``Remember.admit``), and ``memory_update``'s in-place update of
a memory's content or key and its supersede (``ManageMemory``). memory_update ran none of them in place,
and its supersede was exempt from the other-person check, so it stored on a key what memory_write refuses
(trial23 H1: "My son Tom lives in Faro" retired "I live in Lisbon" on ``user.city``).

Which values a change replaces is the caller's to say (``ReplacedValues``): a write replaces the key's
active values; an update of a keyed memory's words replaces that memory's words (the value it held); a
supersede replaces the memory it names (and the key's values too when it moves to another key)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from hindsight.domain.inferred_order import check_past_value_on_key, check_undated_past, past_value_words
from hindsight.domain.key_statements import check_value_on_key
from hindsight.domain.key_subject import check_other_person_on_key, other_persons_subject
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.one_off_event import check_event_on_key

ReplacedValues = Callable[[], Awaitable[Sequence[str]]]
"""The contents of the values a keyed change would replace; asked only when a check needs them (a past
state with no date, another person's words), so other changes are admitted without a read."""


def values_given(values: Sequence[str]) -> ReplacedValues:
    """A ``ReplacedValues`` for values the caller already holds (the memory an update replaces)."""

    async def given() -> Sequence[str]:
        return values

    return given


async def check_on_key(draft: MemoryDraft, now: datetime, replaced: ReplacedValues | None) -> None:
    """Refuse ``draft`` (a change's words as the memory would hold them: content, layer, key, the dates
    the caller gave) when its words are no value its key may hold: an undated past state
    (``inferred_order.check_undated_past``), a question, possibility or plan (``key_statements.
    check_value_on_key``), a dated one-off event of the writer's (``one_off_event.check_event_on_key``); a
    past state with no date over a value of now among the ``replaced`` values
    (``inferred_order.check_past_value_on_key``; a supersede's own rule is ``check_past_supersede``);
    another person's words that would retire a value of the writer's among them (``key_subject``).
    ``now``: the time relative words count from (UTC). ``replaced`` None: those two are not checked (no
    store to read). Each check returns at once for an episode or a memory without a key. Raises
    InvalidInput, field ``content``."""
    check_undated_past(draft, now)  # "used to live in Lyon" on a key: never today's value
    check_value_on_key(draft)  # "I might move to Portland" on a key: no value (trial9 H2)
    check_event_on_key(draft, now)  # "Yesterday I flew to Porto" on a key: no value (trial23 M2)
    if replaced is None or draft.key is None:
        return
    read: list[Sequence[str]] = []

    async def values() -> Sequence[str]:
        if not read:
            read.append(await replaced())
        return read[0]

    if words := past_value_words(draft, now):
        # "lived in Rome" on a key that "lives in Paris" holds: it would retire Paris with no date
        check_past_value_on_key(draft, words, list(await values()))
    if other := other_persons_subject(draft):
        # "My son is allergic to eggs" on a key of "I'm allergic to peanuts": it would retire the user's
        check_other_person_on_key(draft, other, await values())

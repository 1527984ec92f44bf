"""h-review (20:47) of 1227fed: a count in words the relative rules do not read was still read from its last
word when "twenty" or a hyphen came before it, or "hundred and": "One hundred twenty one days ago I quit" was
stored a day ago, "A hundred and one days ago" too. Such a count is named, never read from a part."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.unread_time import unread_time_note

SAID = datetime(2026, 12, 7, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("One hundred twenty one days ago I quit", "'One hundred twenty one days ago'"),
        ("A hundred and one days ago I quit", "'A hundred and one days ago'"),
        ("forty-one days ago I quit", "'forty-one days ago'"),
    ],
)
def test_a_count_the_rules_do_not_read_is_named_not_read_from_its_last_word(text: str, named: str) -> None:
    draft = MemoryDraft(content=text, layer="episodic")
    assert with_inferred_time(draft, SAID).occurred_at is None
    assert named in (unread_time_note(draft, SAID) or "")


@pytest.mark.parametrize(
    ("text", "day"),
    [("Twenty one days ago I quit", 16), ("Twenty-one days ago I quit", 16), ("One day ago I quit", 6)],
)
def test_a_count_the_rules_read_is_still_read(text: str, day: int) -> None:
    read = with_inferred_time(MemoryDraft(content=text, layer="episodic"), SAID).occurred_at
    assert read is not None
    assert (read.month, read.day) == (11 if day > 6 else 12, day)


@pytest.mark.parametrize(
    "text", ["My office is on the 3rd Floor now", "We live on the 5th Avenue side of the park"]
)
def test_an_ordinal_before_a_capitalised_noun_names_a_thing_not_a_day(text: str) -> None:
    """h-review of 2094736: a capital after an ordinal was read as the start of a clause."""
    assert unread_time_note(MemoryDraft(content=text, layer="episodic"), SAID) is None
    assert "'On the 2nd'" in (unread_time_note(MemoryDraft(content="On the 2nd I flew home"), SAID) or "")

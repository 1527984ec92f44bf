"""Keyword query building, passage text and time-ordered ids."""

from __future__ import annotations

import time

from hindsight.domain.ids import uuid7
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.text import MAX_KEYWORD_TERMS, keyword_terms, or_tsquery, passage_text


def test_or_tsquery_keeps_only_letters_and_digits() -> None:
    assert or_tsquery("When did Caroline go to the LGBTQ support group?") == (
        "when | did | caroline | go | to | the | lgbtq | support | group"
    )
    assert or_tsquery("order A-1042 'shipped' & | ! (now)") == "order | a | 1042 | shipped | now"
    assert or_tsquery("?!& |") is None


def test_keyword_terms_are_distinct_and_capped() -> None:
    assert keyword_terms("a a b A") == ["a", "b"]
    assert len(keyword_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_KEYWORD_TERMS


def test_passage_text_includes_the_recall_hint() -> None:
    assert passage_text(MemoryDraft(content="Alex is vegan")) == "Alex is vegan"
    assert passage_text(MemoryDraft(content="Alex is vegan", query="what can Alex eat?")) == (
        "Alex is vegan\nwhat can Alex eat?"
    )


def test_uuid7_is_version_7_and_time_ordered() -> None:
    first = uuid7()
    time.sleep(0.002)
    second = uuid7()
    assert first.version == 7
    assert second.version == 7
    assert first.int < second.int
    assert uuid7(now_ms=1_000).int >> 80 == 1_000

"""Keyword terms, passage text and time-ordered ids (the full-text query itself is built in SQL:
tests/integration/test_keyword_stats.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hindsight.domain.ids import uuid7
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.text import (
    ARTICLES,
    MAX_KEYWORD_TERMS,
    carried_entities,
    information_sequence,
    keyword_terms,
    passage_text,
    plain_apostrophes,
    plain_quotes,
    same_information,
)


def test_keyword_terms_are_distinct_and_capped() -> None:
    assert keyword_terms("a a b A") == ["a", "b"]
    assert len(keyword_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_KEYWORD_TERMS


def test_passage_text_includes_the_recall_hint() -> None:
    assert passage_text(MemoryDraft(content="Alex is vegan")) == "Alex is vegan"
    assert passage_text(MemoryDraft(content="Alex is vegan", query="what can Alex eat?")) == (
        "Alex is vegan\nwhat can Alex eat?"
    )
    # embedded in NFC, so a repeat pasted with combining marks embeds as the composed text (trial, 10)
    decomposed = MemoryDraft(content="Zoe\u0308 lives in Malmo\u0308", query="where does Zoe\u0308 live?")
    assert passage_text(decomposed) == "Zo\u00eb lives in Malm\u00f6\nwhere does Zo\u00eb live?"
    assert decomposed.content == "Zoe\u0308 lives in Malmo\u0308"  # the content keeps its form


def test_plain_apostrophes_makes_only_the_typographic_apostrophe_ascii() -> None:
    assert plain_apostrophes("I\u2019m sure it doesn\u2019t") == "I'm sure it doesn't"
    assert plain_apostrophes("\u2018quoted\u2019 \u201cwords\u201d") == "\u2018quoted' \u201cwords\u201d"


def test_plain_quotes_makes_typographic_quotes_ascii() -> None:
    assert plain_quotes("\u2018quoted\u2019 \u201cwords\u201d don\u2019t") == "'quoted' \"words\" don't"


@given(st.text())
def test_plain_apostrophes_and_quotes_keep_positions(text: str) -> None:
    assert len(plain_apostrophes(text)) == len(plain_quotes(text)) == len(text)
    assert plain_apostrophes(plain_quotes(text)) == plain_quotes(text)


def test_uuid7_is_version_7_and_time_ordered() -> None:
    # ids of a later millisecond sort after those of an earlier one, whatever their random bits
    now_ms = uuid7().int >> 80
    earlier = [uuid7(now_ms=now_ms) for _ in range(50)]
    later = [uuid7(now_ms=now_ms + 1) for _ in range(50)]
    assert {u.version for u in earlier + later} == {7}
    assert max(u.int for u in earlier) < min(u.int for u in later)
    assert uuid7(now_ms=1_000).int >> 80 == 1_000


def test_same_information_ignores_case_punctuation_and_articles() -> None:
    assert same_information("The user prefers dark mode.", "user prefers DARK mode")
    assert same_information("Alex: allergic to peanuts!", "alex, allergic to the peanuts")


def test_combining_accents_are_the_letters_they_compose() -> None:
    # new-user trial, finding 10: "São Paulo" with U+0303 was read as "Sa" + a sign + "o", so a repeat
    # pasted from a macOS file name or a PDF (NFD) was no repeat of the composed one
    composed = "The user moved to S\u00e3o Paulo for the caf\u00e9"
    decomposed = "The user moved to Sa\u0303o Paulo for the cafe\u0301"
    assert same_information(composed, decomposed)
    words = ("user", "moved", "to", "s\u00e3o", "paulo", "for", "caf\u00e9")
    assert information_sequence(decomposed) == words
    assert not same_information(composed, "The user moved to Sao Paulo for the cafe")


def test_the_same_words_in_another_order_are_new_information() -> None:
    # roles, directions and amounts are carried by word order (new-user trial: "Bob reports to Alice"
    # merged into "Alice reports to Bob" and was stored nowhere)
    assert not same_information("Alice reports to Bob", "Bob reports to Alice")
    assert not same_information("The flight leaves Berlin for Paris", "The flight leaves Paris for Berlin")
    assert not same_information(
        "Charged the customer 50 EUR and refunded 20 EUR", "Charged the customer 20 EUR and refunded 50 EUR"
    )
    assert not same_information("The build passed, not failed", "The build failed, not passed")
    # the cost: a moved word is kept twice rather than risk dropping a fact
    assert not same_information("Alex: allergic to peanuts!", "allergic to peanuts, Alex")


def test_any_changed_word_or_number_is_new_information() -> None:
    assert not same_information(
        "The meeting with Acme is on Tuesday at 10:00", "The meeting with Acme is on Thursday at 15:00"
    )
    assert not same_information("Alex is allergic to peanuts", "Alex is allergic to peanuts and shellfish")
    assert not same_information("Alex is at Acme", "Alex was at Acme")
    assert not same_information("I like it", "I do not like it")


@given(st.text(max_size=80), st.text(max_size=80))
def test_same_information_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert same_information(a, a)
    assert same_information(a, b) == same_information(b, a)


_CONTENT_WORD = st.from_regex(r"[A-Za-z0-9]{1,12}", fullmatch=True).filter(
    lambda w: w.casefold() not in ARTICLES
)


def _same_word(x: str, y: str) -> bool:
    # words with a digit are identifiers: their case is information ("aB3xK9" / "AB3XK9")
    return x == y if any(c.isdigit() for c in x + y) else x.casefold() == y.casefold()


@given(
    st.lists(_CONTENT_WORD, max_size=8),
    _CONTENT_WORD,
    _CONTENT_WORD,
    st.lists(_CONTENT_WORD, max_size=8),
    st.lists(_CONTENT_WORD, max_size=8),
)
def test_swapping_two_distinct_content_words_is_never_a_repeat(
    head: list[str], x: str, y: str, middle: list[str], tail: list[str]
) -> None:
    original = " ".join([*head, x, *middle, y, *tail])
    swapped = " ".join([*head, y, *middle, x, *tail])
    assert same_information(original, swapped) == _same_word(x, y)


@given(st.lists(_CONTENT_WORD, min_size=1, max_size=12), st.data())
def test_case_punctuation_and_articles_alone_never_make_new_information(
    words: list[str], data: st.DataObject
) -> None:
    noisy = []
    for word in words:
        noisy.append(data.draw(st.sampled_from(["", "the", "a", "an", "The"])))
        has_digit = any(c.isdigit() for c in word)
        noisy.append(word.upper() if not has_digit and data.draw(st.booleans()) else word)
        noisy.append(data.draw(st.sampled_from(["", ",", ".", "!", ":"])))
    assert same_information(" ".join(words), " ".join(noisy))


@given(st.text(max_size=80), st.from_regex(r"[A-Za-z]*[0-9]+[A-Za-z]*", fullmatch=True))
def test_adding_a_number_is_never_a_repeat(text: str, number: str) -> None:
    assert not same_information(text, f"{text} {number}") or number.casefold() in text.casefold()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Dana's blood type is A+", "Dana's blood type is A-"),
        ("B+", "B-"),
        ("The meeting is at 9:00 UTC+2", "The meeting is at 9:00 UTC-2"),
        ("Balance: -200 EUR", "Balance: 200 EUR"),
        ("Alert when p99 latency > 500 ms", "Alert when p99 latency < 500 ms"),
        ("Retry when count >= 10", "Retry when count <= 10"),
        ("Alex writes C++", "Alex writes C#"),
        ("The rent is $1200", "The rent is €1200"),
        ("Coverage is 95%", "Coverage is 95"),
        ("The key is in the mailbox", "The key is on the mailbox"),
        ("Remind me to call Bob at 10", "Remind me to call Bob in 10"),
        ("The contract was signed by Alice to Bob", "The contract was signed by Alice and Bob"),
        ("Cold room reading was -5 C", "Cold room reading was 5 C"),
        ("Cold room reading was −5 C", "Cold room reading was ±5 C"),
        ("Cold room reading was ~5 C", "Cold room reading was +5 C"),
        ("Build tag aB3xK9", "Build tag AB3XK9"),
    ],
)
def test_a_changed_sign_symbol_preposition_or_identifier_case_is_new_information(
    first: str, second: str
) -> None:
    # new-user re-trial: each second text was "merged" into the first and stored nowhere
    assert not same_information(first, second)


def test_real_repeats_still_merge() -> None:
    assert same_information("Dana's blood type is A+", "dana's blood type is A+.")
    assert same_information("The rent is $1200!", "  rent is   $1200 ")
    assert same_information("Cold room reading was 5 C", "Cold room reading was 5. C")
    assert same_information("Request from Lisbon - VPN drops", "Request from Lisbon, VPN drops")
    assert information_sequence("Build tag aB3xK9.") == ("build", "tag", "aB3xK9")


def test_a_supersede_keeps_the_entities_but_the_value_it_replaces() -> None:
    old = {"person": "Alex", "city": "Lisbon", "user": "maya", "tags": ["Lisbon", "Porto", "home"]}
    assert carried_entities(old, "Alex lives in Lisbon", "Alex moved to Porto") == {
        "person": "Alex",
        "user": "maya",
        "tags": ["Porto", "home"],
    }
    # whole words, case-insensitive; wide characters anywhere in the run
    assert carried_entities({"city": "Porto"}, "Alex lives in Porto", "Alex loves porto") == {"city": "Porto"}
    # a value the new words name only as what is left is the value replaced (trial 2 MED 6)
    for new in (
        "Alex moved from Paris to Rome",
        "Alex left Paris for Rome",
        "Alex no longer lives in Paris; Alex lives in Rome",
        "Alex is not in Paris anymore",
        "Alex lives in Rome instead of Paris",
    ):
        assert carried_entities({"city": "Paris", "person": "Alex"}, "Alex lives in Paris", new) == {
            "person": "Alex"
        }, new
    # a bare "from" / "not" is no leaving: the new words still hold the value (trial 3 MED 10)
    for entities, old_words, new in (
        ({"city": "Paris"}, "Alex from Paris works at Acme", "Alex from Paris now works at Globex"),
        ({"person": "Tom"}, "Alex gets weekly reports from Tom", "Alex gets daily reports from Tom at Acme"),
        ({"city": "Paris"}, "Alex works at Acme in Paris", "Alex works at Globex, not far from Paris"),
    ):
        assert carried_entities(entities, old_words, new) == entities, new
    for new in (
        "Alex moved away from Paris",
        "Alex lives in Rome, formerly Paris",
        "Alex relocated from Paris",
    ):
        assert carried_entities({"city": "Paris"}, "Alex lives in Paris", new) == {}, new
    # named as held elsewhere in the words: kept
    assert carried_entities(
        {"city": "Paris"}, "Alex lives in Paris", "Alex moved from Lyon back to Paris"
    ) == {"city": "Paris"}
    assert carried_entities({"city": "Lis"}, "Alex lives in Lisbon", "Alex moved") == {"city": "Lis"}
    assert carried_entities({"城市": "里斯本"}, "亚历克斯住在里斯本", "亚历克斯搬到了波尔图") == {}
    assert carried_entities({"n": 42}, "Alex is 42", "Alex is 43") == {}

"""One fact per key: a take-back in other words, and a one-off event on a fact's key (trial23 H3, M2),
through the domain (``take_back``, ``one_off_event``).

- H3: "I no longer have a peanut allergy" on ``user.allergies`` holding "I'm allergic to peanuts" left it
  active, unflagged ("it takes back no value the key holds"), where the same pair without a key was a
  possible conflict. A take-back naming the value's words by their roots (allergy / allergic) retires it;
  one the keyless rules read as a possible take-back of a value it leaves flags that value.
- M2: "Yesterday I flew to Porto for a conference" on ``user.city`` retired "I live in Lisbon". A dated
  one-off event of the writer's is refused on a key, naming why and an episodic write without the key;
  a change said with it ("Yesterday I moved to Porto") is the key's value as before.
- M1: "Tom is no longer allergic to shellfish, he outgrew it" after "My son Tom is allergic to shellfish"
  (no keys) was unrelated: one person named two ways ("My son Tom" / "Tom"), the pair is now read with one
  subject and flagged, never superseded (another Tom is possible).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hindsight.domain.contradiction import compare_facts
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.one_off_event import check_event_on_key
from hindsight.domain.take_back import TakeBack, taken_back

PEANUTS = "I'm allergic to peanuts"
SHELLFISH = "I'm also allergic to shellfish"
NOW = datetime(2026, 12, 7, 23, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "take_back",
    [
        "I no longer have a peanut allergy",
        "I don't have a peanut allergy anymore",
        "I no longer have peanut allergies",
        "Turns out I don't have a peanut allergy after all",
    ],
)
def test_a_take_back_naming_the_only_value_in_other_words_retires_it(take_back: str) -> None:
    assert taken_back(take_back, [PEANUTS]) is None  # None: the key's rule, it replaces the value


def test_a_take_back_in_other_words_retires_only_the_value_it_names_of_an_additive_pair() -> None:
    settled = taken_back("I no longer have a peanut allergy", [SHELLFISH, PEANUTS])
    assert settled == TakeBack(retired=(1,), left=(0,))
    settled = taken_back("I no longer have a shellfish allergy", [SHELLFISH, PEANUTS])
    assert settled == TakeBack(retired=(0,), left=(1,))


@pytest.mark.parametrize(
    ("take_back", "value"),
    [
        ("I no longer have a severe peanut allergy", PEANUTS),
        ("I no longer suffer from a peanut allergy", PEANUTS),
        ("I no longer have a peanut allergy", "I am allergic to peanuts since childhood"),
    ],
)
def test_a_possible_take_back_of_a_value_it_leaves_flags_it(take_back: str, value: str) -> None:
    settled = taken_back(take_back, [value])
    assert settled is not None
    assert settled.retired == ()
    assert [i for i, _ in settled.unsure] == [0], settled
    assert "possible_conflict" in settled.unsure[0][1]


@pytest.mark.parametrize(
    ("take_back", "values", "retired"),
    [
        ("I no longer have a kiwi allergy", [PEANUTS], ()),
        ("I'm no longer allergic to kiwi", [PEANUTS], ()),
        ("I no longer have a peanut allergy", [SHELLFISH, PEANUTS], (1,)),  # shellfish: never taken back
    ],
)
def test_a_take_back_of_a_value_the_key_does_not_hold_still_retires_and_flags_nothing_else(
    take_back: str, values: list[str], retired: tuple[int, ...]
) -> None:
    settled = taken_back(take_back, values)
    assert settled is not None
    assert settled.unsure == (), settled
    assert settled.retired == retired, settled


def _refusal(content: str, key: str = "user.city", **fields: object) -> str | None:
    try:
        check_event_on_key(MemoryDraft(content=content, key=key, **fields), NOW)  # type: ignore[arg-type]
    except InvalidInput as refused:
        return f"field {refused.field}: {refused}"
    return None


@pytest.mark.parametrize(
    "content",
    [
        "Yesterday I flew to Porto for a conference",
        "Last week I visited my aunt in Boston",
        "Two days ago we went to Paris",
        "I flew to Porto yesterday",
        "Last weekend I spent two days in Madrid",
        "The user visited Rome last month",
    ],
)
def test_a_dated_one_off_event_on_a_facts_key_is_refused_naming_why_and_what_to_write(content: str) -> None:
    refusal = _refusal(content)
    assert refusal is not None, content
    assert refusal.startswith("field content:"), refusal
    assert "one-off event" in refusal, refusal
    assert "'user.city'" in refusal, refusal
    assert "layer 'episodic'" in refusal, refusal
    assert "without the key" in refusal, refusal


def test_the_refusal_quotes_the_events_clause() -> None:
    refusal = _refusal("Yesterday I flew to Porto for a conference, it was great")
    assert refusal is not None
    assert "'Yesterday I flew to Porto for a conference'" in refusal, refusal


def test_an_event_dated_by_occurred_at_is_refused() -> None:
    assert _refusal("I flew to Porto for a conference", occurred_at=NOW - timedelta(days=1)) is not None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Yesterday I moved to Porto", "user.city"),
        ("I flew to Porto yesterday and moved into my new flat", "user.city"),
        ("Yesterday I flew to Porto, where I live now", "user.city"),
        ("Last week I went vegan", "user.diet"),
        ("Yesterday I flew to Porto", "user.last_trip"),
        ("Last month I visited Japan", "user.travel"),
        ("I flew to Porto for a conference", "user.city"),  # no day said: not this rule's
        ("I live in Lisbon", "user.city"),
    ],
)
def test_a_change_an_undated_event_or_a_key_of_events_is_not_refused(content: str, key: str) -> None:
    assert _refusal(content, key) is None


def test_an_episode_with_a_key_is_not_refused() -> None:
    assert _refusal("Yesterday I flew to Porto for a conference", layer="episodic") is None


TOM = "My son Tom is allergic to shellfish"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Tom is no longer allergic to shellfish, he outgrew it", TOM),
        ("Tom is no longer allergic to shellfish", TOM),
        ("My son Tom is no longer allergic to shellfish", "Tom is allergic to shellfish"),
        ("Tom is 8 years old", "My son Tom is 7 years old"),
    ],
)
def test_one_person_named_by_relation_and_name_then_by_name_is_flagged(new: str, old: str) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict", verdict
    assert "named_subject" in verdict.signals, verdict


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Sam is no longer allergic to shellfish", TOM),  # another name
        ("Tom is allergic to peanuts", TOM),  # another value, no take-back: unrelated as with one subject
        ("Tom loves soccer", TOM),
    ],
)
def test_another_name_or_a_statement_unrelated_with_one_subject_stays_unrelated(new: str, old: str) -> None:
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Last month I went to work for Acme", "user.employer"),
        ("Last year I went to work at the hospital as a nurse", "user.job"),
        ("Last year I went over to Microsoft", "user.employer"),
        ("Last week I went on keto", "user.diet"),
        ("Last week I went on a vegan diet", "user.diet"),
        ("Last month I went on blood pressure medication", "user.medication"),
        ("Last month I went on maternity leave", "user.job"),
        ("I went into remission last month", "user.health"),
        ("Last week I went to the allergist and found out I'm allergic to shellfish", "user.allergies"),
        ("Yesterday I met with my doctor and got diagnosed with type 2 diabetes", "user.conditions"),
        ("Last week I visited my doctor and she put me on metformin", "user.medication"),
        ("Yesterday I went to the DMV and changed my name to Sam Lee", "user.name"),
        ("Last year I travelled to Japan and fell in love with it, so I stayed", "user.city"),
    ],
)
def test_a_change_said_with_a_verb_of_an_outing_is_not_refused_on_a_key_it_changes(
    content: str, key: str
) -> None:
    """h-review3 H1: only a trip, only on a key of where the writer lives, is refused as a one-off event."""
    assert _refusal(content, key) is None


def test_an_undated_change_with_occurred_at_is_not_refused_on_a_key_it_changes() -> None:
    assert _refusal("I went on a keto diet", "user.diet", occurred_at=NOW - timedelta(days=1)) is None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Yesterday I flew to Porto for a conference", "user.city"),
        ("Yesterday I flew to Porto for a conference", "user.home_town"),
        ("Last week I visited my aunt in Boston", "user.location"),
        ("Last weekend we drove to Austin", "user.residence"),
        ("Last week I went skiing in Aspen", "user.hometown"),
    ],
)
def test_guard_a_dated_trip_is_still_refused_on_a_key_of_where_the_writer_lives(
    content: str, key: str
) -> None:
    """Guard (passes before h-review3 H1's fix too): the trial's case and its kin stay refused."""
    assert _refusal(content, key) is not None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Last week I also visited Rome", "user.countries_visited"),
        ("Last month I attended NeurIPS", "user.conferences"),
    ],
)
def test_a_trip_on_a_key_of_trips_or_events_is_not_refused(content: str, key: str) -> None:
    assert _refusal(content, key) is None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Mia is starting kindergarten", "My daughter Mia is allergic to eggs"),
        ("Sam is a nurse", "My sister Sam is married"),
        ("Tom is my manager", "My friend Tom is a teacher"),
        ("Tom is happy today", "My son Tom is vegan"),
    ],
)
def test_a_fact_of_a_person_named_by_name_only_is_not_flagged_by_the_broad_changed_value_rule(
    new: str, old: str
) -> None:
    """h-review3 M1: with one subject merely assumed, only a contradiction or a take-back is flagged."""
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("take_back", "values"),
    [
        ("I don't speak French anymore", ["I speak French", "I speak Spanish"]),
        ("I don't play tennis anymore", ["I play tennis", "I play guitar"]),
        ("I don't have a cat anymore", ["I have a cat", "I have a dog"]),
        ("I don't work at Acme anymore", ["I work at Acme", "I work at a bakery"]),
        ("I'm no longer allergic to peanuts, just tree nuts", ["I'm allergic to tree nuts"]),
        ("I'm no longer worried about my peanut allergy", [PEANUTS]),
        ("I no longer carry an EpiPen for my peanut allergy", [PEANUTS]),
        ("I don't live alone anymore", ["I live in Denver"]),
        ("I can't live without coffee", ["I live in Denver"]),
        ("I don't eat out anymore", ["I eat vegan"]),
    ],
)
def test_a_take_back_flags_no_value_it_surely_leaves(take_back: str, values: list[str]) -> None:
    """h-review3 M2: not when it retired the value it names, not a value named after only/just, not one it
    shares only a light verb with, not one whose worry or EpiPen it negates."""
    settled = taken_back(take_back, values)
    assert settled is not None
    assert settled.unsure == (), settled

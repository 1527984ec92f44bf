"""New-user trial 16: key-less false flags of a switch or a "now" that changes another use, another
assignment or another person's thing (``domain.contradiction.compare_facts``) — and the changes that
must stay flagged. Two facts that both hold are not even flagged; a change is at most flagged."""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import compare_facts

BOTH_HOLD = [
    # the same kind of thing used in another place or for another job: two machines
    ("I use a MacBook at work", "I switched to Linux on my home PC"),
    ("I use a Mac at work", "I switched to Windows for gaming at home"),
    # put on a team, a shift, a clinic, a plan: no switch of the thing used
    ("I use Slack for team chat", "My manager switched me to the platform team"),
    ("I switched the team chat notifications off on weekends", "My manager switched me to the platform team"),
    ("I take lisinopril", "My doctor switched me to a different clinic"),
    ("I take the bus to work", "I switched to the night shift"),
    ("I use an iPhone", "My carrier switched me to a new plan"),
    # "now" with another thing for another job
    ("I use Zoom for video calls", "I use Linear for tickets now"),
    ("I use Slack for team chat", "I use Linear for tickets now"),
    ("I use Notion for notes", "I use Linear for tickets now"),
    ("I use VS Code for coding", "I use Linear for tickets now"),
    # another thing of another person's, or another person's dog
    ("My sister lives in Miami", "My sister switched to a vegan diet"),
    ("My dog Rex is 5 years old", "My neighbor's dog Rex died"),
]


@pytest.mark.parametrize(("old", "new"), BOTH_HOLD)
def test_another_use_assignment_or_owner_is_not_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I use a MacBook at work", "I switched to Linux on my home PC"),
        ("I use Slack for team chat", "My manager switched me to the platform team"),
        ("I take the bus to work", "I switched to the night shift"),
        ("I use an iPhone", "My carrier switched me to a new plan"),
        ("My sister lives in Miami", "My sister switched to a vegan diet"),
        ("My dog Rex is 5 years old", "My neighbor's dog Rex died"),
    ],
)
def test_written_in_the_other_order_either_is_not_flagged(old: str, new: str) -> None:
    assert compare_facts(old, new).relation == "unrelated"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # efeefd7's changes (guards)
        ("I use VS Code for everything", "I switched to Neovim"),
        ("We use MySQL 5.7", "We migrated to Postgres 16"),
        ("I take lisinopril for blood pressure", "My doctor switched me to losartan"),
        ("I drive a 2015 Honda Civic", "I traded in my car for a Tesla Model 3"),
        ("My dog Rex is 5 years old", "Rex passed away last week"),
        ("My dog Rex is 5 years old", "My dog Rex died"),
        ("The team meeting is on Mondays", "Our meeting is now on Thursdays"),
        # the same place or job, the same kind of assignment, the user's own dog, a move
        ("I use a Mac at work", "I switched to Windows at work"),
        ("I use a MacBook at work", "I switched to a ThinkPad at work"),
        ("I use a Mac", "I switched to Windows"),
        ("I'm on the Platform team", "My manager switched me to the Payments team"),
        ("I work the night shift", "My manager switched me to the day shift"),
        ("I use Slack for team chat", "We switched team chat to Teams"),
        ("I use Jira for tickets", "I use Linear for tickets now"),
        ("I use Zoom for video calls", "I use Meet for video calls now"),
        ("My sister drives a Honda", "My sister switched to a Tesla"),
        ("My sister lives in Miami", "My sister moved to Denver"),
    ],
)
def test_a_change_of_the_same_use_stays_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


def test_another_job_said_to_replace_the_old_one_is_still_a_change() -> None:
    # "instead" says the old statement is wrong: not read as one more job (a guard)
    assert compare_facts("I use Linear for video calls instead", "I use Zoom for video calls").relation == (
        "contradiction"
    )

"""Everyday state changes and facts that both hold (new-user trial 4, HIGH-1, MED-2, MED-2b): the
contradiction rules (``domain.contradiction.compare_facts``) with ``domain.state_change``'s ending verbs,
rewrites and take-backs, and the additive-object and other-scope rules."""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import compare_facts
from hindsight.domain.state_change import rewrite_change, takes_back


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # an ending verb with the same object ends the state it names (the old verb is one it ends)
        ("The user is married to Tom", "The user divorced Tom"),
        ("The user is married", "The user is divorced"),
        ("The user is dating Marco", "The user broke up with Marco"),
        ("The user owns a Honda Civic", "The user sold the Honda Civic"),
        ("Kai has a sailboat", "Kai sold the sailboat last year"),
        # a gerund after "quit" is the old verb
        ("The user smokes", "The user quit smoking"),
        # a thing owned that died is no longer had
        ("The user has a dog named Rex", "The user's dog Rex died last month"),
        # an amount that went up or down is the slot's new value
        ("The user's rent is 900 euros", "The user's rent went up to 950 euros"),
        ("The user's salary is 50000 euros", "The user's salary was raised to 56000 euros"),
        # the old value named as replaced, and it is all the old statement says after its verb
        ("The user's password manager is LastPass", "The user now uses Bitwarden instead of LastPass"),
        ("The user's team uses Jira", "The user's team switched from Jira to Linear"),
        # a take-back of the same thing, whatever detail the old statement adds (a name, a day)
        ("Sam has a dog named Rex", "Sam no longer has a dog"),
        ("Ana works at a bakery on weekends", "Ana no longer works at the bakery"),
    ],
)
def test_a_state_that_ended_or_changed_is_superseded(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user is single", "The user got married to Ana"),
        # the old value only mentioned among others: flagged, not retired
        ("The user uses LastPass at work", "The user now uses Bitwarden instead of LastPass"),
    ],
)
def test_a_change_the_rules_are_unsure_of_is_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # an ending verb whose state is not the old one's verb retires nothing
        ("The user works with Tom", "The user divorced Tom"),
        ("The user's sister is married to Tom", "The user divorced Tom"),
        # two sales are two events
        ("The user sold the old piano", "The user sold the old sofa"),
        # the old statement about a relation's own value: not the user's
        (
            "The user's sister's password manager is LastPass",
            "The user now uses Bitwarden instead of LastPass",
        ),
    ],
)
def test_an_ending_or_replacement_of_another_thing_retires_nothing(old: str, new: str) -> None:
    assert compare_facts(new, old).relation != "contradiction"


@pytest.mark.parametrize(
    ("old", "new", "signal"),
    [
        # a take-back names the object it takes back: another object of the same verb is left alone
        ("Sam has a cat named Milo", "Sam no longer has a dog", "other_object"),
        ("Ana works at Globex on weekdays", "Ana no longer works at the bakery", "other_object"),
        ("Alex is allergic to shellfish", "Alex is no longer allergic to peanuts", "other_object"),
        # two relations in the subject are two people
        ("The user's daughter is 5 years old", "The user's son is now 9 years old", "other_subject"),
        # another object of a verb that holds several, with no word saying anything changed
        ("The user is allergic to peanuts", "The user is allergic to shellfish", "other_object"),
        ("The user drinks coffee in the morning", "The user drinks tea in the evening", "other_object"),
        ("Alice has 2 cats", "Alice has 3 dogs", "other_object"),
        ("The user likes pizza", "The user likes sushi", "other_object"),
        ("Tom plays tennis on Mondays", "Tom plays football on Fridays", "other_object"),
        # another thing at another time that does not overlap
        ("Maria works at Globex on weekdays", "Maria works at a bakery on weekends", "other_qualifier"),
        ("The user works at Google on Mondays", "The user works at Meta on Fridays", "other_qualifier"),
        ("I work at Google on Mondays", "I work at Meta on Fridays", "other_qualifier"),
        (
            "The user works at Globex in the mornings",
            "The user works at Initech in the evenings",
            "other_qualifier",
        ),
        ("The user lives in Paris on weekdays", "The user lives in Rome on weekends", "other_qualifier"),
        (
            "The user has a meeting with Bob on Monday",
            "The user has a meeting with Carol on Tuesday",
            "other_qualifier",
        ),
    ],
)
def test_facts_that_both_hold_are_not_flagged(old: str, new: str, signal: str) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "unrelated"
    assert signal in verdict.signals


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a value the rules cannot tell from another object, or one that may be the same thing moved
        ("The user likes Muse", "The user likes Radiohead"),
        ("The user has 2 cats", "The user has 3 cats"),
        ("The user has two kids", "The user has three kids"),
        ("The user likes window seats", "The user likes aisle seats"),
        ("The user goes to the gym on Mondays", "The user goes to the gym on Fridays"),
        ("The user works at Google on Mondays", "The user works at Google on Fridays"),
        ("The user works at Google on Weekdays", "The user works at Meta on Mondays"),
        ("The office opens at 9:00 on weekdays", "The office opens at 10:00 on Saturdays"),
        # "uses" is a tool that is often replaced
        ("The user uses Jira", "The user uses Linear"),
    ],
)
def test_pairs_the_rules_cannot_tell_stay_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


def test_the_rewrites_put_a_change_in_the_words_of_a_state() -> None:
    assert rewrite_change("The user's dog Rex died last month") == "The user no longer has dog Rex"
    assert rewrite_change("The user got married to Ana") == "The user is married to Ana"
    assert rewrite_change("The rent went up to 950 euros") == "The rent is 950 euros"
    assert rewrite_change("The user's dog Rex died in a sad way") == "The user's dog Rex died in a sad way"


def test_a_take_back_is_the_same_state_only_through_detail_or_the_ended_verb() -> None:
    old = ("sam", "have", "dog", "nam", "rex")
    assert takes_back(old, ("sam", "have", "dog"), 1, frozenset(), {"rex"}.__contains__) == "same"
    assert takes_back(old, ("sam", "have", "dog"), 1, frozenset(), set().__contains__) is None
    assert takes_back(old, ("sam", "have", "cat"), 1, frozenset(), {"rex"}.__contains__) == "other"
    assert takes_back(("user", "marri", "tom"), ("user", "tom"), 1, frozenset(["marri"]), bool) == "same"
    assert takes_back(("user", "work", "tom"), ("user", "tom"), 1, frozenset(["marri"]), bool) is None

"""trial18: another person's words on the writer's key (H1, H2, M2, M4), through the domain
(``key_subject``: whose words a keyed write states, and whether it would retire the writer's value).

- H1: "My in-laws live in Reno", "My ex lives in Berkeley", "My sister moved to Denver last spring", "My
  brother-in-law works at Initech", "My best friend works at Initech", "My coworker Dana left for
  Initech", "My kids went vegan in October" each superseded the user's value: a past verb, "in-laws",
  "-in-law", "ex", a word before the relation were not read.
- H2: with one value of another person's beside the writer's on the key (or a writer's value that opens
  "My wife and I …"), the check was off: the next such write retired the writer's value.
- M2: "My husband got a job in Seattle so we moved there in August" was refused; the writer moved.
- M4: "My daughter is vegan, I'm not" superseded "I'm vegetarian": a negated writer's clause states no
  value of the key.
"""

from __future__ import annotations

import pytest

from hindsight.domain.key_subject import other_persons_subject, writers_value
from hindsight.domain.memory import MemoryDraft

from .key_refusals import other_person_refusal as _refusal

HOME = "I live in Fremont, California"
JOB = "I work at Globex as a product manager"


@pytest.mark.parametrize(
    ("content", "key", "value", "subject"),
    [
        ("My in-laws live in Reno", "user.home", HOME, "my in-laws"),
        ("My ex lives in Berkeley", "user.home", HOME, "my ex"),
        ("My sister moved to Denver last spring", "user.home", HOME, "my sister"),
        ("My parents just bought a condo in Tucson", "user.home", HOME, "my parents"),
        ("My brother-in-law works at Initech", "user.employer", JOB, "my brother-in-law"),
        ("My best friend works at Initech", "user.employer", JOB, "my best friend"),
        ("My coworker Dana left for Initech", "user.employer", JOB, "my coworker dana"),
        ("My kids went vegan in October", "user.diet", "I'm vegetarian", "my kids"),
        ("My ex-wife moved to Berkeley", "user.home", HOME, "my ex-wife"),
    ],
)
def test_another_persons_past_verb_or_relation_word_on_the_writers_key_is_refused(
    content: str, key: str, value: str, subject: str
) -> None:
    """H1: each superseded the writer's value."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject
    message = _refusal(content, key, [value])
    assert (message or "").startswith("field content: content: the words"), message
    assert f"another person ({subject!r})" in (message or ""), message


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        # the husband's take-back was kept beside the user's value; the boss's words retired both
        (
            "My boss at Globex is Hank Scorpio",
            "user.employer",
            ["I started at Globex on Monday", "My husband just quit his job at Initech"],
        ),
        ("Our daughter lives in the dorms at UC Davis", "user.home", ["My in-laws live in Reno", HOME]),
        (
            "Our daughter lives in the dorms at UC Davis",
            "user.home",
            [HOME, "My sister also lives in Boise now"],
        ),
        # a value of the writer's that opens with another person: "My wife and I", "…, and I work at …"
        ("My in-laws live in Reno", "user.home", ["My wife and I moved to Sacramento over the summer"]),
        ("My sister lives in Portland", "user.home", ["Me and my husband live in Nampa now"]),
        (
            "My best friend works at Initech",
            "user.employer",
            ["My partner works at Hooli and I work at Pied Piper"],
        ),
        ("My son is allergic to eggs", "user.allergy", ["I'm allergic to peanuts", "Allergic to dust"]),
    ],
)
def test_another_persons_words_are_refused_whatever_else_the_key_holds_beside_the_writers(
    content: str, key: str, values: list[str]
) -> None:
    """H2: the check read only keys whose every value opened with "I"/"We"."""
    message = _refusal(content, key, values)
    assert "holds the writer's own value" in (message or ""), message


def test_the_refusal_quotes_the_writers_value_it_would_retire() -> None:
    message = _refusal(
        "My boss at Globex is Hank Scorpio",
        "user.employer",
        ["My husband just quit his job at Initech", "I started at Globex on Monday"],
    )
    assert "'I started at Globex on Monday'" in (message or ""), message


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My husband quit his job at Globex", "user.employer", [JOB]),
        ("My son is no longer allergic to eggs", "user.allergy", ["I'm allergic to eggs"]),
        ("My sister left Globex", "user.employer", [JOB]),
    ],
)
def test_another_persons_take_back_that_would_retire_the_writers_value_is_refused(
    content: str, key: str, values: list[str]
) -> None:
    """Read as take-backs of the writer's value, these retired it (found beside trial18 H1)."""
    message = _refusal(content, key, values)
    assert "another person" in (message or ""), message


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My husband just quit his job at Initech", "user.employer", ["I started at Globex on Monday"]),
        (
            "My son is no longer allergic to eggs",
            "user.allergy",
            ["I'm allergic to eggs", "My son is also allergic to eggs"],
        ),
        ("My son is allergic to peanuts again", "user.allergy", ["I'm allergic to peanuts"]),
    ],
)
def test_another_persons_take_back_or_re_add_that_leaves_the_writers_value_is_kept(
    content: str, key: str, values: list[str]
) -> None:
    """A take-back of theirs only, or of nothing the key holds, and a re-add stay admitted (as before)."""
    assert _refusal(content, key, values) is None


def test_the_writer_moving_after_another_persons_news_is_the_writers_value() -> None:
    """M2: "we moved there" is the writer's change of home."""
    content = "My husband got a job in Seattle so we moved there in August"
    assert _refusal(content, "user.home", ["I live in Boise"]) is None
    assert (
        _refusal("My boyfriend got a place in Reno, so I moved in with him", "user.home", ["I live in Boise"])
        is None
    )


def test_a_negated_writers_clause_states_no_value_and_is_refused_readably() -> None:
    """M4: "I'm not" names no diet; refused, saying so."""
    message = _refusal("My daughter is vegan, I'm not", "user.diet", ["I'm vegetarian"])
    assert message is not None, message
    for words in ("another person ('my daughter')", '("I\'m not")', "state no value of the key"):
        assert words in message, message
    assert _refusal("My wife eats meat but I don't", "user.diet", ["I'm vegetarian"]) is not None


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My sister lives in Portland", "user.home", HOME),
        ("My grandma lives in Reno", "user.home", HOME),
        ("My stepson lives in Reno", "user.home", HOME),
        ("My roommate Jake lives in Reno", "user.home", HOME),
        ("My mother-in-law lives in Reno", "user.home", HOME),
        ("My wife got a job at Initech", "user.employer", JOB),
        ("My son was diagnosed with asthma", "user.health", "I have asthma"),
        ("My toddler has an ear infection", "user.health", "I have asthma"),
        ("Our twins are sick", "user.health", "I have asthma"),
        ("My husband is vegan", "user.diet", "I'm vegetarian"),
        ("My son is allergic to eggs, so I cook without them", "user.allergy", "I'm allergic to peanuts"),
    ],
)
def test_the_refused_before_stay_refused(content: str, key: str, value: str) -> None:
    assert _refusal(content, key, [value]) is not None


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My wife and I moved to Sacramento", "user.home", HOME),
        ("My partner works at Hooli and I work at Pied Piper", "user.employer", JOB),
        ("Me and my husband live in Nampa now", "user.home", "I live in Boise"),
        (
            "My manager left Pied Piper and so did I; I'm at Hooli now",
            "user.employer",
            "I work at Pied Piper",
        ),
        ("My boss left Pied Piper and so did I; I'm at Hooli now", "user.employer", "I work at Pied Piper"),
        ("My wife eats meat; I'm vegetarian", "user.diet", "I eat fish"),
        ("My furry friends always make me happy", "user.joy", "I love hiking"),  # "always" is no verb
        (
            "My fam's small, but I love spending time with the friends I have",
            "user.family",
            "I have a brother",
        ),
    ],
)
def test_the_writers_own_words_stay_the_writers_value(content: str, key: str, value: str) -> None:
    assert _refusal(content, key, [value]) is None


@pytest.mark.parametrize(
    ("value", "theirs"),
    [
        ("I live in Fremont", True),
        ("We moved to Austin", True),
        ("My wife and I moved to Sacramento over the summer", True),
        ("Me and my husband live in Nampa now", True),
        ("My partner works at Hooli and I work at Pied Piper", True),
        ("My husband just quit his job at Initech", False),
        ("My sister also lives in Boise now", False),
        ("Allergic to penicillin", False),
        ("My daughter is vegan, I'm not", False),
    ],
)
def test_whose_value_a_keys_value_is(value: str, theirs: bool) -> None:
    assert writers_value(value) is theirs

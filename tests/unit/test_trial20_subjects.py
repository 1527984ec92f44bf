"""trial20 (new-user trial of 63a129e): a bare kin word that qualifies a noun is no person, and an agent's
note of "the user's <relation>" is another person's words.

- M1 (regression of 63a129e): "Dad jokes are my favorite kind of humor", "Mom jeans are my style now",
  "Mom-and-pop shops are where I shop now" were refused on the writer's key as 'my dad' / 'my mom'.
- H1: "The user's mother lives in Tampa" on user.home holding "The user lives in Denver" superseded it
  (as "User's wife works at Globex" did the user's employer).
"""

from __future__ import annotations

import pytest

from .key_refusals import refused_as_other_person as _refused


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("Dad jokes are my favorite kind of humor", "user.humor", "I like puns"),
        ("Mom jeans are my style now", "user.style", "I wear chinos"),
        ("Mom-and-pop shops are where I shop now", "user.shopping", "I shop at Costco"),
        ("Dad bod is my current state, honestly", "user.fitness", "I run every day"),
        ("Grandpa sweaters are my thing now", "user.style", "I wear chinos"),
    ],
)
def test_a_kin_word_that_qualifies_a_noun_is_the_writers_value(content: str, key: str, value: str) -> None:
    """M1: stored as the writer's value, as before 63a129e."""
    assert not _refused(content, key, [value])


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("The user's mother lives in Tampa", "user.home", "The user lives in Denver"),
        ("User's wife works at Globex", "user.employer", "The user works at Acme"),
        ("The user's son is allergic to eggs", "user.allergy", "The user is allergic to peanuts"),
        ("The user's best friend moved to Austin", "user.home", "I live in Denver"),
        ("Mom lives in Tampa now", "user.home", "I live in Denver"),
        ("Mom is no longer vegetarian", "user.diet", "I'm vegetarian"),
    ],
)
def test_an_agents_note_of_the_users_relation_is_another_persons_words(
    content: str, key: str, value: str
) -> None:
    """H1 (and 63a129e's bare kin words, kept): refused, the user's value kept."""
    assert _refused(content, key, [value])


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("The user lives in Boston now", "user.home", "The user lives in Denver"),
        ("The user's favorite dish is lasagna", "user.food", "The user likes pizza"),
        ("Mom and I live in Reno now", "user.home", "I live in Denver"),
    ],
)
def test_the_users_own_value_stays_the_users(content: str, key: str, value: str) -> None:
    """Guards: the user's own value, in the agent's words or the writer's."""
    assert not _refused(content, key, [value])

"""Review of the 2026-12-07 keyed-write fixes: three readings that let a write retire the writer's value.

- f0b2ffd read any writer's clause after "so" as the writer's own value, so "My son is allergic to
  peanuts, so I'm careful with snacks" on ``user.allergy`` was the writer's value and retired "I'm allergic
  to penicillin" (a consequence says nothing of the key's value; "…, so we moved there" still is one).
- 63a129e read "… and so was I" as the writer's present value: a past "so was I" says nothing of now.
- 1f82008 read any "I love / like / want …" as a present state, so "I lived in Paris in 2019, I love that
  city" was no past value any more and replaced the current home.
"""

from __future__ import annotations

import pytest

from hindsight.domain.inferred_order import states_past

from .key_refusals import refused_as_other_person as _refused


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        (
            "My son is allergic to peanuts, so I'm careful with snacks",
            "user.allergy",
            "I'm allergic to penicillin",
        ),
        ("My wife is vegetarian, so we're eating less meat", "user.diet", "I eat everything"),
        ("My sister was vegan for years and so was I", "user.diet", "I'm vegetarian"),
    ],
)
def test_a_consequence_or_a_past_so_was_i_is_not_the_writers_value(
    content: str, key: str, value: str
) -> None:
    """The write is another person's words: refused, the writer's value kept."""
    assert _refused(content, key, [value])


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My husband got transferred, so we live in Omaha now", "user.home", "I live in Denver"),
        ("My husband got a job in Seattle so we moved there in August", "user.home", "I live in Boise"),
        ("My sister is vegan and now so am I", "user.diet", "I'm vegetarian"),
        ("My wife eats meat; I'm vegetarian", "user.diet", "I eat everything"),
        ("My partner works at Globex and I work at Acme", "user.employer", "I work at Initech"),
    ],
)
def test_the_writers_own_value_after_another_persons_news_is_still_the_writers(
    content: str, key: str, value: str
) -> None:
    """Guards: the writer's present value, or the writer's change, stays the writer's."""
    assert not _refused(content, key, [value])


def test_a_liking_does_not_make_a_past_value_present() -> None:
    """ "I love that city" comments on a past home; "I work" / "I'm" still state the present."""
    assert states_past("I lived in Paris in 2019, I love that city")
    assert states_past("I worked at Acme in 2018 and I really liked the team")
    assert not states_past("I work at Initech; Globex was too far")
    assert not states_past("I'm not allergic to shellfish, the test was negative")

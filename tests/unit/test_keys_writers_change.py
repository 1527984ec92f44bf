"""False refusals on the writer's key (h-keys, after the review of the 2026-12-07 keyed-write fixes): each
write below names another person first, yet states the writer's own value, and was refused as another
person's words.

- another person changes the writer's amount the key names: "My landlord raised the rent to $2000" on
  ``user.rent`` (the rent is the writer's; "raised her rent" stays hers);
- a pseudo-cleft of the writer's after another person's thing: "Mom's house is where I live now";
- the writer's own present "so I <verb> … now" after another person's clause: "My ex kept the house, so I
  rent in Reno now", "Dad retired, so I run the family bakery now" — the writer's change; "so I'm careful"
  (no verb), "so I avoid nuts now" (no verb of a value) and "so I visit her now", "so I fly there a lot
  now" (the other person or their place again) stay consequences.
"""

from __future__ import annotations

import pytest

from .key_refusals import refused_as_other_person as _refused


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My landlord raised the rent to $2000", "user.rent", "I pay $1800 rent"),
        ("Our landlord increased our rent to 2100 dollars", "user.rent", "We pay $1800 rent"),
        ("My boss raised my salary to $90k", "user.salary", "I make $80k a year"),
        ("Mom's house is where I live now", "user.home", "I live in Denver"),
        ("Mom's house is where I live now", "user.home", "I rent an apartment downtown"),
        ("My ex kept the house, so I rent in Reno now", "user.home", "I live in Denver"),
        ("Dad retired, so I run the family bakery now", "user.job", "I work at Acme"),
        ("Dad retired, so I run the family bakery now", "user.job", "I'm an accountant at Acme"),
    ],
)
def test_the_writers_value_after_another_persons_words_is_accepted(
    content: str, key: str, value: str
) -> None:
    """Stored as the writer's value (it supersedes the one the key holds)."""
    assert not _refused(content, key, [value])


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My landlord raised the rent to $2000", "user.home", "I live in Denver"),
        ("My sister raised her rent to $2000", "user.rent", "I pay $1800 rent"),
        ("My son is allergic to peanuts, so I'm careful now", "user.allergy", "I'm allergic to penicillin"),
        ("My sister moved to Austin, so I visit her there now", "user.home", "I live in Denver"),
        ("My ex kept the house, so I rented in Reno for a year", "user.home", "I live in Denver"),
        ("Mom's house is where I grew up", "user.home", "I live in Denver"),
        ("Dad retired, so I can finally relax", "user.job", "I work at Acme"),
        ("My wife got a job in Austin, so I should move there now", "user.home", "I live in Denver"),
        ("My son is allergic to peanuts, so I avoid nuts now", "user.allergy", "I'm allergic to penicillin"),
        ("My sister moved to Austin, so I fly there a lot now", "user.home", "I live in Denver"),
        ("Dad retired, so I run the family bakery", "user.job", "I work at Acme"),
    ],
)
def test_another_persons_words_with_a_consequence_of_the_writers_stay_refused(
    content: str, key: str, value: str
) -> None:
    """Guards: no present value of the writer's — the other person's amount, a consequence, a past."""
    assert _refused(content, key, [value])

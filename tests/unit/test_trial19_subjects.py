"""trial19: another person's words on the writer's key when the write does not open with "my/our
<relation on the list>", through the domain (``key_subject``, ``relation_opening``).

- A bare kin word ("Mom lives in Tampa now"), "the kids/twins", "both my kids", a relation word missing
  from the list ("landlord", "bf", "gf", "hubby", "nanny", "little girl") were read as the writer's
  value and retired it ("Both my kids are allergic to peanuts" was stored beside the writer's allergy as
  an addition).
- A relation after fronted words ("Last week my sister-in-law started at Globex", "Honestly the big news
  is that my husband …") or in a possessive chain ("My wife's brother moved to Boise", "My boss's wife
  drives a Porsche") was not read either.
- Item 3 (false refusals): the writer as the object ("My sister got me a job at her company, Globex", "My
  wife got me to go vegan"), "… and now so am I", "My husband got transferred, so we live in Omaha now"
  over "I live in Denver" were refused as another person's words: they are the writer's values.
Guards: "Mom and I …", "My wife and I …", "Me and the kids …", "The kids and I …", a name or a pronoun
("Jake works at Globex", "He works at Globex now": an agent may write of the user so; a pronoun against
a value the writer wrote as "I …" is another person since trial22 M4: test_keys3), "Last week I …".
"""

from __future__ import annotations

import pytest

from hindsight.domain.key_subject import writers_value
from hindsight.domain.relation_opening import as_relation_opening

from .key_refusals import other_person_refusal as _refusal

HOME = "I live in Denver"
JOB = "I work at Acme"
CAR = "I drive a Toyota Corolla"
PHONE = "I have an iPhone 12"
DIET = "I'm vegetarian"
ALLERGY = "I'm allergic to penicillin"


@pytest.mark.parametrize(
    ("content", "key", "value", "subject"),
    [
        ("Mom lives in Tampa now", "user.home", HOME, "my mom"),
        ("Dad drives a Ford F-150 now", "user.car", CAR, "my dad"),
        ("Grandpa went keto", "user.diet", DIET, "my grandpa"),
        ("The kids live in Reno with their dad", "user.home", HOME, "my kids"),
        ("The twins got Pixel 8 phones", "user.phone", PHONE, "my twins"),
        ("Mom is no longer vegetarian", "user.diet", DIET, "my mom"),
        ("The kids are no longer allergic to penicillin", "user.allergy", ALLERGY, "my kids"),
        ("Our landlord lives in Miami", "user.home", HOME, "our landlord"),
        ("My bf moved to Austin", "user.home", HOME, "my bf"),
        ("My gf lives in Austin", "user.home", HOME, "my gf"),
        ("My hubby moved to Austin for work", "user.home", HOME, "my hubby"),
        ("My nanny has a Pixel 8", "user.phone", PHONE, "my nanny"),
        ("Both my kids are allergic to peanuts", "user.allergy", ALLERGY, "my kids"),
    ],
)
def test_a_bare_kin_word_household_or_missing_relation_word_on_the_writers_key_is_refused(
    content: str, key: str, value: str, subject: str
) -> None:
    """Item 1: each was the writer's value and retired theirs (or was kept beside it as an addition)."""
    refusal = _refusal(content, key, [value])
    assert refusal is not None, content
    assert f"field content: content: the words are about another person ({subject!r})" in refusal


@pytest.mark.parametrize(
    ("content", "key", "value", "subject"),
    [
        ("Last week my sister-in-law started at Globex", "user.employer", JOB, "my sister-in-law"),
        ("Yesterday my dad retired from Globex", "user.employer", JOB, "my dad"),
        ("Since last month my partner eats only keto", "user.diet", DIET, "my partner"),
        ("Turns out my little girl is allergic to amoxicillin", "user.allergy", ALLERGY, "my little girl"),
        ("So my brother finally works at Globex", "user.employer", JOB, "my brother"),
        (
            "Honestly the big news is that my husband finally got hired at Globex",
            "user.employer",
            JOB,
            "my husband",
        ),
        ("My wife's brother moved to Boise", "user.home", HOME, "my wife's brother"),
        ("My boss's wife drives a Porsche", "user.car", CAR, "my boss's wife"),
    ],
)
def test_a_relation_after_fronted_words_or_in_a_possessive_chain_is_refused(
    content: str, key: str, value: str, subject: str
) -> None:
    """Item 2: each was the writer's value and retired theirs."""
    refusal = _refusal(content, key, [value])
    assert refusal is not None, content
    assert f"field content: content: the words are about another person ({subject!r})" in refusal


def test_the_key_of_theirs_names_the_last_relation_of_a_chain_in_one_word() -> None:
    """The refusal's key of theirs: the brother's for "my wife's brother", "little_girl" in one part."""
    brother = _refusal("My wife's brother moved to Boise", "user.home", [HOME])
    girl = _refusal("Turns out my little girl is allergic to amoxicillin", "user.allergy", [ALLERGY])
    assert brother is not None
    assert "'brother.home'" in brother
    assert girl is not None
    assert "'little_girl.allergy'" in girl


@pytest.mark.parametrize(
    "content",
    [
        "Mom and I live in Reno now",
        "My wife and I live in Reno now",
        "Me and the kids live in Reno now",
        "The kids and I live in Reno now",
        "Jake lives in Reno now",
        "Last week I moved to Reno",
        "Mother's Day is my favourite holiday",
    ],
)
def test_the_writers_words_a_name_or_a_pronoun_stay_the_writers_value(content: str) -> None:
    """Guards: the writer named beside the relation, a name or pronoun (not read), the writer after
    fronted words, a holiday named for a relation: no refusal."""
    assert _refusal(content, "user.home", [HOME]) is None


def test_a_writers_value_that_opens_with_a_bare_kin_word_and_the_writer_is_the_writers() -> None:
    """ "Mom and I live in Denver" is the writer's value: another person's next words on the key are
    refused (it was not read as the writer's, so "My sister lives in Reno now" retired it)."""
    assert writers_value("Mom and I live in Denver")
    assert writers_value("The kids and I live in Denver")
    refusal = _refusal("My sister lives in Reno now", "user.home", ["Mom and I live in Denver"])
    assert refusal is not None
    assert "'Mom and I live in Denver'" in refusal


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Mom lives in Tampa now", "my Mom lives in Tampa now"),
        ("The kids live in Reno", "my kids live in Reno"),
        ("Both my kids are allergic to peanuts", "my kids are allergic to peanuts"),
        ("All three of my kids are vegan", "my kids are vegan"),
        ("Last week, my grandma moved", "my grandma moved"),
        ("Honestly the big news is that my husband got hired", "my husband got hired"),
        ("In March my sister moved", "my sister moved"),
        ("I told my sister to move", "I told my sister to move"),
        ("Thanks to my sister, I live in Reno", "Thanks to my sister, I live in Reno"),
        ("The baby shower was fun", "The baby shower was fun"),
        ("Mother's Day is my favourite", "Mother's Day is my favourite"),
    ],
)
def test_the_opening_is_read_as_my_relation_only_for_the_listed_openings(text: str, read: str) -> None:
    """``as_relation_opening``: a bare kin word, "the kids", "both/all (of) my", fronted time or
    discourse words; a word of the writer's before the relation, "the baby", "Mother's Day" unchanged."""
    assert as_relation_opening(text) == read


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My sister got me a job at her company, Globex", "user.employer", JOB),
        ("My wife got me to go vegan", "user.diet", "I eat everything"),
        ("My sister is vegan and now so am I", "user.diet", "I eat everything"),
        ("My husband got transferred, so we live in Omaha now", "user.home", HOME),
        ("My mom got us a house in Reno", "user.home", HOME),
    ],
)
def test_the_writer_as_object_so_am_i_or_the_writers_verb_after_theirs_is_the_writers_value(
    content: str, key: str, value: str
) -> None:
    """Item 3: each was refused as another person's words; the writer's value is in them."""
    assert _refusal(content, key, [value]) is None


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("My son is allergic to eggs, so I cook without them", "user.allergy", ALLERGY),
        ("My daughter is vegan, I'm not", "user.diet", DIET),
        ("My sister lives in Reno, so we visit often", "user.home", HOME),
        ("My husband got a Pixel 8", "user.phone", PHONE),
    ],
)
def test_another_persons_words_with_a_writers_clause_of_another_verb_stay_refused(
    content: str, key: str, value: str
) -> None:
    """Guards of item 3: a writer's clause of another verb, a negated one, "got" with no writer
    after it: still another person's words on the writer's key."""
    assert _refusal(content, key, [value]) is not None

"""One fact per key: four outcomes new users found wrong (trial22 M2, M4 and two of the same session),
through the domain (``key_subject``, ``contradiction``).

- M2: "My wife is vegetarian, so I cook vegetarian now" on an empty ``user.diet`` was refused, though "so I
  eat vegetarian now" was stored: "cook" (and "drink") is a verb of a value of the writer's now, as "eat".
- "My son is allergic to eggs, so I carry an EpiPen with me" on an empty ``user.allergies`` was stored as
  the user's allergy: "with me" in the writer's own clause was read as the writer named beside the son
  (98bca88 meant "My mother lives with me"); only the other person's words are read for it now.
- M4: "My dog's name is Rex" on ``user.name`` holding "Sam", "Her name is Ana" over "My name is Sam" were
  stored and retired the user's name. An animal of the writer's is another subject; on a key named for
  the writer a value of no one else's ("Sam", "Allergic to penicillin") is the writer's, as an empty one
  is (5fc3be8); a value "My name is …" is the writer's; a third person's pronoun is another person against
  a value the writer wrote as "I …" / "My …" (beside "The user …" it may be the user: kept as before).
- Keyless "I now use Wells Fargo instead" over "I use Chase for banking" superseded it, where "My bank is
  Chase" was only flagged (5fc3be8): a use switched "instead" of a value the words do not name is a
  possible conflict; "… instead of Chase" over "I use Chase" still supersedes.
"""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import compare_facts
from hindsight.domain.key_subject import writers_value

from .key_refusals import other_person_refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My wife is vegetarian, so I cook vegetarian now", "user.diet", []),
        ("My wife is vegetarian, so I cook vegetarian now", "user.diet", ["I eat everything"]),
        ("My husband quit sugar, so I drink my coffee black now", "user.coffee", []),
    ],
)
def test_the_writers_present_value_after_so_i_cook_or_drink_is_the_writers(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    "content",
    [
        "My son is allergic to eggs, so I carry an EpiPen",
        "My son is allergic to eggs, so I carry an EpiPen with me",
        "My son is allergic to eggs, so I keep an EpiPen near me",
        "My wife is vegetarian, so I cook for her now",
    ],
)
def test_a_consequence_in_the_writers_words_leaves_another_persons_value_refused(content: str) -> None:
    """The son's allergy on an empty key of the writer's: refused, naming him and a key of his."""
    refusal = other_person_refusal(content, "user.allergies", [])
    assert refusal is not None
    assert "holds no value yet" in refusal, refusal


def test_the_writer_beside_them_in_their_own_words_still_opens_an_empty_key() -> None:
    assert other_person_refusal("My mother lives with me in Tucson", "user.home", []) is None


@pytest.mark.parametrize(
    ("content", "key", "values", "theirs"),
    [
        ("My dog's name is Rex", "user.name", ["Sam"], "'dog.name'"),
        ("My dog's name is Rex", "user.name", ["My name is Sam"], "'dog.name'"),
        ("My dog's name is Rex", "user.name", [], "'dog.name'"),
        ("Our cat is allergic to chicken", "user.allergies", ["I'm allergic to peanuts"], "'cat.allergies'"),
        ("My son is allergic to eggs", "user.allergy", ["Allergic to penicillin"], "'son.allergy'"),
        ("My wife's name is Ana", "user.name", ["My name is Sam"], "'wife.name'"),
        ("Her name is Ana", "user.name", ["My name is Sam"], "'their.name'"),
        ("She is vegan", "user.diet", ["I'm vegetarian"], "'their.diet'"),
        ("He lives in Reno now", "user.home", ["I live in Denver"], "'their.home'"),
    ],
)
def test_a_pet_or_another_person_on_a_key_of_the_writers_is_refused(
    content: str, key: str, values: list[str], theirs: str
) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert theirs in refusal, refusal
    assert f"key {key!r}" in refusal, refusal


def test_the_refusal_names_a_pet_as_a_pet_and_a_pronoun_may_mean_the_writer() -> None:
    pet = other_person_refusal("My dog's name is Rex", "user.name", ["Sam"])
    assert pet is not None
    assert 'about a pet ("my dog\'s name")' in pet, pet
    pronoun = other_person_refusal("She is vegan", "user.diet", ["I'm vegetarian"])
    assert pronoun is not None
    assert "if 'she' means the writer, write it in the writer's words" in pronoun


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("She is vegan", "user.diet", ["The user is vegetarian"]),  # an agent may write of the user so
        ("He lives in Reno now", "user.home", []),
        ("Her name is Ana", "user.name", ["Sam"]),
        ("My dog's name is Rex", "user.dog_name", ["Max"]),  # a key of the dog's
        ("My dog's name is Rex", "pet.name", ["Max"]),
        ("My son is allergic to eggs", "allergy", ["Allergic to penicillin"]),  # not named for the writer
        ("She and I live in Reno now", "user.home", ["I live in Denver"]),
        ("My name is Sam", "user.name", ["My name is Samuel"]),
    ],
)
def test_the_writers_words_or_a_key_not_the_writers_alone_keep_their_rule(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    ("value", "mine"),
    [("My name is Sam", True), ("Our bank is Chase", True), ("My dog is Rex", False), ("My son is 5", False)],
)
def test_a_value_opening_with_a_thing_of_the_writers_is_the_writers(value: str, mine: bool) -> None:
    assert writers_value(value) is mine


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I use Chase for banking", "I now use Wells Fargo instead"),
        ("I use Spotify for music", "I now use Apple Music instead"),
        ("I drink tea", "I now drink coffee instead"),
        ("I use Chase for banking", "I now use Wells Fargo instead of Chase"),
    ],
)
def test_a_keyless_use_switched_instead_of_a_value_unnamed_is_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I use LastPass", "I now use Bitwarden instead of LastPass"),
        ("I drink tea", "I now drink coffee instead of tea"),
        ("I live in Denver", "I now live in Boulder instead"),
    ],
)
def test_a_switch_naming_the_value_it_replaces_or_of_one_value_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"

"""One fact per key: three regressions of 99fd948 (h-keys3) a review found (h-keys5), through the domain
(``key_subject``).

- H1: "cook" / "drink" after "so I … now" read as the writer's value on any key, so a relative's medical
  fact retired the writer's allergy, health or medical value ("My son is allergic to nuts, so I cook
  nut-free now" over "I'm allergic to shellfish"; "so I eat nut-free now" did so on d196fac too). A verb
  of eating, cooking or drinking states a value of the writer's only on a key of what the writer eats or
  drinks ("user.diet", "user.coffee"), and not as a manner alone ("so I cook separately now").
- H2: a pet word anywhere in a compound noun ("My cat allergy", "My pet project", "My hot dog stand") read
  the writer's own words as a pet's. Only the animal itself, or its possessive, is a subject ("My dog is
  …", "My dog's name …", "Our cat sleeps …"); "Rex is my dog's name" and "The dog's name is Rex" are the
  pet's too.
- H3: a pronoun that fills the role the key names ("He is my manager now" on "user.manager") was refused,
  where "My sister is my emergency contact now" is admitted; "so now I rent …" was not read as "so I rent
  … now"; "She lives with me in Austin now" over "I live in Denver" (admitted before 99fd948, as pronouns
  were not read) and "My mom lives with me in Austin now" (refused on d196fac too) state where the writer
  lives.
"""

from __future__ import annotations

import pytest

from .key_refusals import other_person_refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        (
            "My son is allergic to nuts, so I cook nut-free now",
            "user.allergies",
            ["I'm allergic to shellfish"],
        ),
        (
            "My daughter has celiac disease, so I cook gluten-free now",
            "user.health",
            ["I have type 2 diabetes"],
        ),
        ("My husband is diabetic, so I cook low-carb now", "user.conditions", ["I have high blood pressure"]),
        ("My wife is pregnant, so I drink decaf now", "user.medical", ["I take metformin"]),
        ("My son is allergic to milk, so I drink oat milk now", "user.allergy", ["Allergic to penicillin"]),
        ("My kids are picky eaters, so I cook separately now", "user.diet", ["I eat everything"]),
        (
            "My son is allergic to nuts, so I eat nut-free now",
            "user.allergies",
            ["I'm allergic to shellfish"],
        ),
    ],
)
def test_cooking_or_drinking_for_another_persons_condition_is_not_the_writers_value(
    content: str, key: str, values: list[str]
) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "the words are about another person" in refusal, refusal
    assert f"key {key!r}" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My cat allergy is getting worse", "user.allergies", ["I'm allergic to pollen"]),
        ("My cat allergy is getting worse", "user.allergies", []),
        ("My pet project is a chess engine", "user.project", ["I'm building a todo app"]),
        ("My pet project is a chess engine", "user.project", []),
        ("My pet peeve is loud chewing", "user.peeve", ["I hate lateness"]),
        ("My horse riding lessons are on Tuesdays now", "user.schedule", ["I have yoga on Mondays"]),
        ("My dog walking business earns $2000 a month", "user.income", ["I earn $5000 a month"]),
        ("My hot dog stand is my main job now", "user.job", ["I work at Acme"]),
        ("My bird-watching group meets on Sundays", "user.weekend", ["I hike on weekends"]),
        ("My snake plant died", "user.plants", ["I have a fern"]),
        ("My pet insurance is with Lemonade", "user.insurance", ["My insurance is with Geico"]),
    ],
)
def test_a_pet_word_in_a_compound_noun_is_the_writers_own_thing(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    "content",
    [
        "Rex is my dog's name",
        "The dog's name is Rex",
        "Rex is my dog",
        "Our cat sleeps on my bed now",
        "My old dog died",
    ],
)
def test_the_pet_itself_or_its_possessive_is_a_pets_subject(content: str) -> None:
    refusal = other_person_refusal(content, "user.name", ["Sam"])
    assert refusal is not None
    assert "about a pet" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("He is my manager now", "user.manager", ["My manager is Dana"]),
        ("She is my boss now", "user.manager", ["I report to Dana"]),
        ("She's my emergency contact now", "user.emergency_contact", ["My emergency contact is my mom"]),
        ("He left, so now I rent a studio in Reno", "user.home", ["I live in Denver"]),
        ("She lives with me in Austin now", "user.home", ["I live in Denver"]),
        ("My mom lives with me in Austin now", "user.home", ["I live in Denver"]),
    ],
)
def test_a_pronoun_filling_the_keys_role_or_the_writers_value_after_so_now_is_admitted(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("She is my manager now", "user.job", ["I work at Acme"]),  # the role is not the key's
        ("He left, so now I visit her in Reno", "user.home", ["I live in Denver"]),  # not a value verb
        ("My mom lives with me now", "user.home", ["I live in Denver"]),  # names no place of the writer's
    ],
)
def test_a_pronoun_not_filling_the_keys_role_stays_refused(content: str, key: str, values: list[str]) -> None:
    assert other_person_refusal(content, key, values) is not None

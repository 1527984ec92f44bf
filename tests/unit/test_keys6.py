"""One fact per key: regressions of 7692e27 (h-keys5) a second review found (h-keys6), through the domain
(``key_subject``).

- H1: a pet word had to be followed by a verb from a closed list, so a pet's words with a name in commas, two
  pets, a negation or an irregular past ("My dog, Rex, is 5", "My dog and cat are …", "My dog isn't vegan",
  "My dog went vegan") retired the writer's value. The pet word is now the subject unless a lower-case word
  that is no verb form follows it and makes a compound ("My cat allergy", "My dog walks take an hour").
- H3: "so (now) I take him to the doctor" over "I take metformin" read as the writer's value: the verb of a
  writer's value with the other person as its object is a thing done for them.
- M1: a food word in a medical key ("user.food_allergies") let "so I cook nut-free now" retire the writer's
  allergy: a word of allergy, health or restriction wins.
- M2: a measure ("She is my age now") was read as filling a role: only a person fills one.
"""

from __future__ import annotations

import pytest

from .key_refusals import other_person_refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My dog, Rex, is 5", "user.age", ["I'm 34"]),
        ("My cat, Luna, is allergic to chicken", "user.allergies", ["I'm allergic to pollen"]),
        ("My dog and cat are allergic to chicken", "user.allergies", ["I'm allergic to pollen"]),
        ("My dog isn't vegan", "user.diet", ["I'm vegan"]),
        ("My dog won't eat anything but salmon", "user.diet", ["I'm vegan"]),
        ("My dog went vegan", "user.diet", ["I eat everything"]),
        ("My dog took his pills", "user.medication", ["I take metformin"]),
        ("My cat became diabetic", "user.conditions", ["I have asthma"]),
        ("My dog lost weight", "user.weight", ["I weigh 80 kg"]),
        ("My puppy Max Power is 2 years old", "user.age", ["I'm 34"]),
        ("My kitten, Mochi, weighs 2 kg", "user.weight", ["I weigh 80 kg"]),
        ("My dogs, Rex and Fido, love the beach", "user.hobbies", ["I love hiking"]),
    ],
)
def test_a_pets_words_with_a_name_two_pets_a_negation_or_an_irregular_past_are_a_pets(
    content: str, key: str, values: list[str]
) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "about a pet" in refusal, refusal
    assert f"key {key!r}" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My dog walks take an hour", "user.exercise", ["I walk 5k daily"]),
    ],
)
def test_a_pet_word_in_a_plural_compound_noun_is_the_writers_own_thing(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My dad has diabetes, so now I take him to the doctor", "user.medication", ["I take metformin"]),
        ("My dad has diabetes, so I take him to the doctor", "user.medication", ["I take metformin"]),
        ("My mom moved to Ohio, so now I visit her monthly", "user.travel", ["I visit Paris yearly"]),
        ("My kids started school, so now I walk them there", "user.exercise", ["I walk 5k daily"]),
        ("My son plays hockey, so now I drive him to practice", "user.car", ["I drive a Honda"]),
    ],
)
def test_the_writers_verb_done_for_the_other_person_is_not_the_writers_value(
    content: str, key: str, values: list[str]
) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "about another person" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        (
            "My son is allergic to nuts, so I cook nut-free now",
            "user.food_allergies",
            ["I'm allergic to shellfish"],
        ),
        (
            "My son has celiac disease, so I cook gluten-free now",
            "user.dietary_restrictions",
            ["I'm lactose intolerant"],
        ),
        (
            "My son is allergic to milk, so I drink oat milk now",
            "user.milk_allergy",
            ["I'm allergic to milk"],
        ),
    ],
)
def test_a_medical_word_in_the_key_wins_over_a_food_word(content: str, key: str, values: list[str]) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "about another person" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("She is my age now", "user.age", ["I'm 34"]),
        ("He is my weight now", "user.weight", ["I weigh 80 kg"]),
        ("He's my height", "user.height", ["I'm 180 cm"]),
        ("My sister is my age now", "user.age", ["I'm 34"]),
    ],
)
def test_a_measure_of_the_writers_is_not_a_role_filled(content: str, key: str, values: list[str]) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "about another person" in refusal, refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My wife got a job in Boston, so now I live with her parents", "user.home", ["I live in Denver"]),
        ("My husband got transferred to Omaha, so we live there now", "user.home", ["I live in Denver"]),
        ("She is my dentist now", "user.dentist", ["My dentist is Dr. Lee"]),
        ("My wife is vegetarian, so I cook vegetarian now", "user.diet", ["I eat everything"]),
    ],
)
def test_the_writers_value_beside_another_person_stays_admitted(
    content: str, key: str, values: list[str]
) -> None:
    assert other_person_refusal(content, key, values) is None

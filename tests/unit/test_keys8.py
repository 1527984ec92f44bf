"""One fact per key: a regression of 97e7c7b (h-keys6 M2) a review found (h-keys8), through the domain
(``key_subject``).

97e7c7b let only a listed role word (a relation, "doctor", a word ending -er/-or/-ist/…) fill a role of the
writer's, so any role it did not list read as another person's words and retired nothing but was refused:
"My mom is my next of kin now", "She is my nurse now", "My wife is my power of attorney now". Now the
measures are listed (age, weight, height, size, birthday, …: a thing a person is not) and every other role
word is filled by the person; a measure is named in the refusal.
"""

from __future__ import annotations

import pytest

from .key_refusals import other_person_refusal


@pytest.mark.parametrize(
    ("content", "key", "values"),
    [
        ("My mom is my next of kin now", "user.next_of_kin", ["My next of kin is my dad"]),
        ("My sister is my beneficiary now", "user.beneficiary", ["My beneficiary is my dad"]),
        ("He is my attorney now", "user.attorney", ["My attorney is Dana Lee"]),
        ("My brother is my attorney now", "user.attorney", ["My attorney is Dana Lee"]),
        ("She is my nurse now", "user.nurse", ["My nurse is Dana"]),
        ("She is my midwife now", "user.midwife", ["My midwife is Dana"]),
        ("He is my physio now", "user.physio", ["My physio is Dana"]),
        ("My wife is my power of attorney now", "user.power_of_attorney", ["My power of attorney is my dad"]),
    ],
)
def test_a_person_fills_a_role_the_old_list_did_not_name(content: str, key: str, values: list[str]) -> None:
    assert other_person_refusal(content, key, values) is None


@pytest.mark.parametrize(
    ("content", "key", "values", "measure"),
    [
        ("She is my age now", "user.age", ["I'm 34"], "my age"),
        ("He is my weight now", "user.weight", ["I weigh 80 kg"], "my weight"),
        ("He's my height", "user.height", ["I'm 180 cm"], "my height"),
        ("My sister is my age now", "user.age", ["I'm 34"], "my age"),
        ("He is my shoe size now", "user.shoe_size", ["My shoe size is 42"], "my shoe size"),
        ("She is my number now", "user.number", ["My number is 555 0100"], "my number"),
    ],
)
def test_a_measure_is_named_as_no_role_a_person_fills(
    content: str, key: str, values: list[str], measure: str
) -> None:
    refusal = other_person_refusal(content, key, values)
    assert refusal is not None
    assert "about another person" in refusal, refusal
    assert f"{measure!r} is a measure of the writer's, not a role a person fills" in refusal, refusal
    assert f"key {key!r}" in refusal, refusal

"""trial22: regressions of 5fc3be8 (trial21 H3, H4) found by the next new-user trial.

- H1: a clause taking up a value after "and" was read as the key's new value whatever the take-back named,
  and a new value retires every value of the key: "I'm no longer allergic to latex and got a new
  prescription" over penicillin and latex retired the penicillin allergy; "I quit smoking and joined a gym"
  retired the user's job. Now only a take-back that names every value the key holds is a replacement.
- M1, M3: another person's words on an empty key named for the writer were refused even when the writer is
  named beside them ("My best friend Sam is my emergency contact", "My mother lives with me in Tucson").
  M2 ("My wife is vegetarian, so I cook vegetarian now" on an empty key) was still refused, as "so I cook
  without them" is; it is the writer's value since h-keys3 ("cook" a verb of a value: test_keys3).
"""

from __future__ import annotations

import pytest

from hindsight.domain.take_back import states_new_value, taken_back

from .key_refusals import other_person_refusal

ALLERGIES = ["I'm allergic to penicillin", "I'm also allergic to latex"]


@pytest.mark.parametrize(
    ("content", "values"),
    [
        ("I'm no longer allergic to latex and got a new prescription", ALLERGIES),
        ("I'm no longer allergic to latex and now take a daily antihistamine", ALLERGIES),
        ("I stopped reacting to latex and started allergy shots", ALLERGIES),
        ("I quit smoking and joined a gym", ["I work at Acme as an engineer"]),
    ],
)
def test_a_clause_after_a_take_back_that_leaves_a_value_unnamed_is_no_new_value(
    content: str, values: list[str]
) -> None:
    assert not states_new_value(content, values)
    taken = taken_back(content, values)
    assert taken is not None
    assert 0 in taken.left, taken  # the first value is never retired


@pytest.mark.parametrize(
    ("content", "values"),
    [
        ("I quit Kaiser and joined Stripe", ["I work at Kaiser as a nurse"]),
        ("She quit Stripe and joined Figma", ["My wife Maria got a job at Stripe"]),
        ("Maria quit Stripe and then started at Figma", ["My wife Maria got a job at Stripe"]),
    ],
)
def test_a_take_back_of_the_keys_one_value_and_a_clause_taking_up_another_is_its_new_value(
    content: str, values: list[str]
) -> None:
    assert states_new_value(content, values)
    assert taken_back(content, values) is None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My best friend Sam is my emergency contact", "user.emergency_contact"),
        ("My brother-in-law is my accountant", "user.accountant"),
        ("My wife's cousin is my dentist", "user.dentist"),
        ("My mom's cooking is my favorite food", "user.favorite_food"),
        ("My mother lives with me in Tucson", "user.home"),
    ],
)
def test_the_writer_named_beside_another_person_may_open_an_empty_key(content: str, key: str) -> None:
    assert other_person_refusal(content, key, []) is None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My son is allergic to peanuts", "user.allergy"),
        ("My best friend is allergic to peanuts", "user.allergy"),
        ("My son and my daughter are allergic to peanuts", "user.allergy"),
        ("Our son is allergic to peanuts", "user.allergy"),
        ("My sister works at Google", "user.job"),
        ("My son is allergic to eggs, so I cook without them", "user.allergy"),
        ("My sister moved to Reno, so I visit her now", "user.home"),
    ],
)
def test_another_persons_words_alone_on_an_empty_writers_key_stay_refused(content: str, key: str) -> None:
    refusal = other_person_refusal(content, key, [])
    assert refusal is not None
    assert "holds no value yet" in refusal, refusal


# h-review (20:47) of 2aaa559 and d1c52b5
@pytest.mark.parametrize(
    "content",
    [
        "My sister raised the rent to $900 for her tenants",
        "My brother's landlord raised the rent to $2000",
    ],
)
def test_another_persons_change_of_their_own_amount_stays_refused_on_the_writers_key(content: str) -> None:
    rent = ["I pay $1800 rent"]
    assert other_person_refusal(content, "user.rent", rent) is not None
    assert other_person_refusal("My landlord raised the rent to $2000", "user.rent", rent) is None


def test_sharing_a_room_after_another_persons_move_is_no_new_home() -> None:
    assert other_person_refusal("Mom moved in, so I share my room now", "user.home", ["I live in Denver"])


def test_a_dose_the_user_shares_with_another_person_is_the_users() -> None:
    from hindsight.domain.loose_changes import amount_changed

    assert amount_changed("I upped my metformin to 1000mg", "My husband and I both take 500mg of metformin")
    assert not amount_changed("I upped my metformin to 1000mg", "My husband takes 500mg of metformin")

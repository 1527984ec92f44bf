"""``domain.take_back``: a take-back of one value of a key holding several retires that value only
(trial4 HIGH-3), of a value the key does not hold none (trial6 H1); a write naming a new value beside the
one it takes back, and any other write, is the key's new value (trial7 H1)."""

from __future__ import annotations

import pytest

from hindsight.domain.take_back import TakeBack, is_take_back, may_leave_values, states_new_value, taken_back

PAIR = ["Alex is also allergic to shellfish", "Alex is allergic to peanuts"]


def test_the_negated_value_is_retired_the_other_left() -> None:
    assert taken_back("Alex is no longer allergic to peanuts", PAIR) == TakeBack(retired=(1,), left=(0,))
    assert taken_back("Alex is no longer allergic to shellfish", PAIR) == TakeBack(retired=(0,), left=(1,))


def test_a_write_that_surely_negates_none_or_every_value_replaces_them_all() -> None:
    assert taken_back("Alex is allergic to cats", PAIR) is None
    assert (
        taken_back("Rowan now runs finance, nothing else", ["Rowan also runs payroll", "Rowan runs HR"])
        is None
    )
    assert taken_back("Alex is no longer allergic to peanuts", ["Alex is allergic to peanuts"]) is None


def test_a_take_back_of_a_value_the_key_does_not_hold_retires_nothing() -> None:
    """trial6 H1: a negation names no new value; only a take-back of everything replaces them all."""
    assert taken_back("Alex is no longer allergic to kiwi", PAIR) == TakeBack(retired=(), left=(0, 1))
    one = ["Alex is allergic to peanuts"]
    assert taken_back("Alex is no longer allergic to shellfish", one) == TakeBack(retired=(), left=(0,))
    assert taken_back("Alex is not allergic to anything any more", PAIR) is None


def test_a_re_add_retires_only_the_take_back_it_reverses() -> None:
    """trial6 H2: "again" is a possible conflict with the take-back, "after all" a sure one: either way
    the other value, never taken back, stays."""
    values = ["Alex is no longer allergic to peanuts", "Alex is also allergic to shellfish"]
    for new in ("Alex is allergic to peanuts again", "Alex is allergic to peanuts after all"):
        assert taken_back(new, values) == TakeBack(retired=(0,), left=(1,)), new


def test_a_value_the_write_says_still_holds_stays() -> None:
    """trial6 MED: the value named after "still" is not taken back; the one before it is."""
    for new in (
        "Alex is no longer allergic to peanuts but still to shellfish",
        "Alex is no longer allergic to peanuts, but is still allergic to shellfish",
    ):
        assert taken_back(new, PAIR) == TakeBack(retired=(1,), left=(0,)), new


def test_a_positive_write_with_still_is_a_new_value() -> None:
    assert taken_back("Alex still lives in Berlin", ["Alex lives in Paris"]) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Denver", "Actually I live in Boulder, not Denver"),
        ("I live in Denver", "It's Boulder, not Denver"),
        ("I moved to Denver", "Actually it's Boulder, not Denver"),
        ("I live in Denver", "I live in Boulder now, not Denver"),
        ("I live in Denver", "I live in Boulder now (no longer Denver)"),
        ("My dentist is Dr. Kim", "My dentist is Dr. Patel, not Dr. Kim"),
        ("I'm vegetarian", "I'm not vegetarian anymore, I eat fish now"),
        ("I work at Acme", "I don't work at Acme anymore, I'm freelancing"),
    ],
)
def test_a_write_naming_a_new_value_beside_the_one_it_takes_back_replaces_it(old: str, new: str) -> None:
    """trial7 H1: ", not X" / "(no longer X)" beside a value of its own is the key's new value."""
    assert states_new_value(new, [old])
    assert taken_back(new, [old]) is None


def test_a_part_naming_only_what_the_key_holds_is_no_new_value() -> None:
    """ "Alex, no longer allergic to peanuts": "Alex" names the values' subject, no new value; "…
    allergic to shellfish, not peanuts" takes back peanuts and leaves shellfish."""
    assert taken_back("Alex, no longer allergic to peanuts", PAIR) == TakeBack(retired=(1,), left=(0,))
    assert taken_back("Sadly, Alex is no longer allergic to peanuts", PAIR) == TakeBack(
        retired=(1,), left=(0,)
    )
    assert taken_back("Alex is allergic to shellfish, not peanuts", PAIR) == TakeBack(retired=(1,), left=(0,))
    assert taken_back("It's Italy, not France", ["I live in France"]) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I work at Acme", "I quit my job at Acme"),
        ("I work at Acme", "I quit my job at Acme, which I loved"),
        ("I work at Acme", "I quit my job at Acme, sadly"),
        ("I work at Acme as a designer", "I don't work at Acme anymore"),
        ("I work at Acme as a designer", "I'm not with Acme any more"),
        ("I work at Acme as a designer", "I no longer work at Acme"),
        ("I work at Acme as a designer", "I'm no longer at Acme"),
    ],
)
def test_a_take_back_ending_on_a_word_of_the_keys_value_retires_it(old: str, new: str) -> None:
    """trial7 H1: a take-back naming the key's only value loosely retires it (the key's new value)."""
    assert not states_new_value(new, [old])
    assert taken_back(new, [old]) is None


def test_a_day_names_a_value_but_not_after_another_name() -> None:
    assert taken_back("My gym day is Monday, not Friday", ["My gym day is Friday"]) is None
    assert taken_back("Not Friday any more", ["My gym day is Friday"]) is None
    assert taken_back("I quit my job at Acme last March", ["I work at Acme"]) is None
    assert taken_back("Sam is no longer allergic to shellfish since May", ["Sam is allergic to peanuts"]) == (
        TakeBack(retired=(), left=(0,))
    )


def test_a_take_back_names_one_value_of_several_by_its_last_word() -> None:
    pair = ["I also teach at the college", "I work at Acme as a designer"]
    assert taken_back("I don't work at Acme anymore", pair) == TakeBack(retired=(1,), left=(0,))
    assert taken_back("I no longer teach at the college", pair) == TakeBack(retired=(0,), left=(1,))


@pytest.mark.parametrize(
    "new",
    [
        "Sam is no longer allergic to shellfish",
        "Sam is no longer allergic to shellfish, sadly",  # a part of no value of its own
        "Sam is no longer allergic to shellfish, since 2020",
        "Sam is no longer allergic to shellfish, for now",
    ],
)
def test_a_take_back_ending_on_a_word_the_value_lacks_retires_nothing(new: str) -> None:
    assert not states_new_value(new, ["Sam is allergic to peanuts"])
    assert taken_back(new, ["Sam is allergic to peanuts"]) == TakeBack(retired=(), left=(0,))


@pytest.mark.parametrize(
    "new",
    ["Alex doesn't have a peanut allergy", "Alex isn't allergic to peanuts", "I'm not with Acme any more"],
)
def test_a_typographic_apostrophe_is_the_same_take_back(new: str) -> None:
    """A phone keyboard's "doesn’t" (U+2019) is the take-back "doesn't": it must not become the key's new
    value and retire every value ("doesn’t have a peanut allergy" retired both of a pair)."""
    curly = new.replace("'", "\u2019")
    assert is_take_back(curly)
    assert taken_back(curly, PAIR) == taken_back(new, PAIR)
    assert states_new_value(curly, PAIR) == states_new_value(new, PAIR)


def test_a_re_add_after_a_take_back_with_still_retires_only_the_take_back() -> None:
    """trial11 H2: the take-back is compared by what it took back, not by its "still" clause, so the
    value it said still holds stays."""
    values = ["I'm no longer allergic to peanuts but still to shellfish", "I'm also allergic to shellfish"]
    for new in ("I'm allergic to peanuts again", "Turns out I'm allergic to peanuts after all"):
        assert taken_back(new, values) == TakeBack(retired=(0,), left=(1,)), new


RESTATEMENTS = [  # (a write on a key holding PAIR_I, the index of the statement it restates)
    ("Turns out I am allergic to peanuts after all", 1),
    ("I'm still allergic to peanuts", 1),
    ("I am allergic to peanuts", 1),
    ("It turns out that I'm allergic to shellfish", 0),
]
PAIR_I = ["I'm also allergic to shellfish", "I'm allergic to peanuts"]


@pytest.mark.parametrize(("new", "retired"), RESTATEMENTS)
def test_a_restatement_beside_an_addition_retires_only_the_statement_it_repeats(
    new: str, retired: int
) -> None:
    """trial11 K7: a write naming the value words of one of an additive pair restates that value; a
    value said to be the whole or of now replaces the pair, and without an addition (a statement and an
    inference kept beside it) the key's rule holds."""
    assert taken_back(new, PAIR_I) == TakeBack(retired=(retired,), left=(1 - retired,))
    for whole in (
        "I'm only allergic to peanuts",
        "I'm allergic to peanuts now",
        "I'm allergic to peanuts, nothing else",
    ):
        assert taken_back(whole, PAIR_I) is None, whole
    assert taken_back("I live in Denver after all", ["I live in Denver", "The user lives in Boulder"]) is None


@pytest.mark.parametrize(
    "values",
    [["I'm allergic to peanuts"], ["I'm allergic to peanuts", "I'm also allergic to shellfish"]],
    ids=["one-value", "additive-pair"],
)
def test_again_about_another_person_retires_none_of_the_writers_values(values: list[str]) -> None:
    """trial12 L1: "My son is allergic to peanuts again" re-adds none of the user's values."""
    left = tuple(range(len(values)))
    assert taken_back("My son is allergic to peanuts again", values) == TakeBack(retired=(), left=left)
    assert taken_back("My sister and I are allergic to peanuts again", values) != TakeBack((), left)


def test_confirming_words_name_nothing_in_a_take_back() -> None:
    """trial12 H1: "… after all", "Turns out …" no longer hide the take-back of peanuts."""
    values = ["I'm allergic to peanuts", "I'm also allergic to shellfish"]
    for new in ("I'm not allergic to peanuts after all", "Turns out I'm not allergic to peanuts after all"):
        assert taken_back(new, values) == TakeBack(retired=(0,), left=(1,))


@pytest.mark.parametrize(
    ("new", "values"),
    [
        ("My son is allergic to peanuts again", ["Allergic to penicillin", "Also allergic to shellfish"]),
        ("Our kids are allergic to peanuts again", ["I'm allergic to peanuts"]),
        ("Alex's son is allergic to peanuts again", ["Alex is allergic to penicillin"]),
    ],
)
def test_again_about_another_person_retires_no_value_of_another_subject(new: str, values: list[str]) -> None:
    """trial14 H1: a re-add about another person retired subjectless values and the named person's."""
    assert taken_back(new, values) == TakeBack(retired=(), left=tuple(range(len(values))))
    assert may_leave_values(new)

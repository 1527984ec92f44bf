"""``domain.take_back``: a take-back of one value of a key holding several retires that value only
(trial4 HIGH-3); any other write is the key's new value."""

from __future__ import annotations

from hindsight.domain.take_back import TakeBack, taken_back

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

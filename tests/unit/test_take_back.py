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

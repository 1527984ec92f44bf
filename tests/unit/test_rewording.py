"""domain.rewording: a clock time or a name's initials written another way is the same statement; any
other difference is not."""

from __future__ import annotations

import pytest

from hindsight.domain.rewording import clock_times, same_statement


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("at 3pm", "at 15:00"),
        ("at 3 pm", "at 15:00"),
        ("at 3:30 P.M.", "at 15:30"),
        ("at 11 AM", "at 11:00"),
        ("at 12 am", "at 0:00"),
        ("at 12pm", "at 12:00"),
        ("at 09:30", "at 9:30"),
        ("at 3:00", "at 3:00"),  # no am/pm: the 24-hour clock
        ("at 15pm", "at 15pm"),  # no time we can read: as written
        ("at 10:00:05", "at 10:00:05"),
        ("5 amps", "5 amps"),
        ("I am here", "I am here"),
    ],
)
def test_clock_times_are_written_one_way(text: str, written: str) -> None:
    assert clock_times(text) == written


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The meeting is at 3pm", "the meeting is at 15:00."),
        ("The meeting is at 3 p.m.", "The meeting is at 15:00"),
        ("Calls at 9am and 5pm", "Calls at 09:00 and 17:00"),
        ("The user lives in NYC", "The user lives in New York City"),
        ("The user lives in the UK.", "The user lives in the United Kingdom"),
        ("The user lives in the USA", "The user lives in the United States of America"),
    ],
)
def test_the_same_statement(a: str, b: str) -> None:
    assert same_statement(a, b)
    assert same_statement(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The meeting is at 3pm", "The meeting is at 3:00"),  # 3:00 may be the morning
        ("The meeting is at 3pm", "The meeting is at 4pm"),
        ("The user lives in NYC", "The user lives in New York"),  # the initials do not match
        ("The user lives in the US", "The user lives in the USA"),
        ("The user lives in nyc", "The user lives in new york city"),  # no capitals: no initials read
        ("The user lives in NYC", "The user lives in New York City and Boston"),
        ("Alice reports to Bob at 3pm", "Bob reports to Alice at 15:00"),
    ],
)
def test_not_the_same_statement(a: str, b: str) -> None:
    assert not same_statement(a, b)
    assert not same_statement(b, a)

"""``also_now.of_another_person``: a subject that names the writer beside another person ("My wife and I")
is the writer's, whether or not a verb of its list follows (h-keys12: "My wife and I moved to Austin"
was read as another person's)."""

from __future__ import annotations

import pytest

from hindsight.domain.also_now import of_another_person


@pytest.mark.parametrize(
    "text",
    [
        "My wife and I moved to Austin",
        "My wife, Anna, and I moved to Austin",
        "My best friend and I started a company",
        "Our kids and I moved to Austin",
    ],
)
def test_the_writer_beside_another_person_is_the_writers_subject(text: str) -> None:
    assert not of_another_person(text)


@pytest.mark.parametrize(
    "text",
    [
        "My wife and I live in Austin",  # a verb of the list: as before
        "I moved to Austin",
        "We moved to Austin",
    ],
)
def test_the_writers_subjects_read_as_before(text: str) -> None:
    """Guards: read as the writer's before h-keys12 too."""
    assert not of_another_person(text)


@pytest.mark.parametrize(
    "text",
    [
        "My son moved to Austin and I stayed",  # "and I" after the son's verb: not in his subject
        "My son left and I stayed",
        "My son and his wife moved to Austin",
        "My son's allergic to eggs",
        "My sister lives in Portland",
    ],
)
def test_another_person_alone_is_another_persons_subject(text: str) -> None:
    """Guards: another person's, before h-keys12 too."""
    assert of_another_person(text)

"""The entities filter as a SQL/JSON path (adapters/postgres/entity_filter.py, trial18 M5): one equality
per value, every value and type required, values written as JSON literals (escaped), refusals naming
``entities``. What the path finds is checked on Postgres by
tests/integration/test_trial18_entities_keys.py."""

from __future__ import annotations

from typing import Any

import pytest

from hindsight.adapters.postgres.entity_filter import entity_path
from hindsight.domain.errors import InvalidInput


def test_each_value_of_each_type_is_one_required_equality() -> None:
    path = entity_path({"person": ["Alice Nguyen", "Bob Ferris"], "order_id": "A-1042"})
    assert path == (
        '$ ? (@."person" == "Alice Nguyen" && @."person" == "Bob Ferris" && @."order_id" == "A-1042")'
    )


def test_a_single_value_and_a_list_of_it_are_the_same_filter() -> None:
    assert entity_path({"person": "Ana"}) == entity_path({"person": ["Ana"]}) == '$ ? (@."person" == "Ana")'


def test_a_repeated_value_is_tested_once() -> None:
    assert entity_path({"person": ["Ana", "Ana"]}) == '$ ? (@."person" == "Ana")'


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (42, "42"),
        (-3, "-3"),
        (0.1, "0.1"),
        (1e20, "1e+20"),
        (True, "true"),
        (False, "false"),
        ("42", '"42"'),
        ("true", '"true"'),
        ('say "hi" \\ then', '"say \\"hi\\" \\\\ then"'),
        ("a && @.x == 1)", '"a && @.x == 1)"'),
        ("Zoë 🦆", '"Zo\\u00eb \\ud83e\\udd86"'),
    ],
)
def test_values_are_json_literals_of_their_type(value: Any, literal: str) -> None:
    assert entity_path({"k": value}) == f'$ ? (@."k" == {literal})'


@pytest.mark.parametrize("entities", [{}, {"person": []}, {"person": None}, {"person": {"name": "Ana"}}])
def test_an_uninterpretable_filter_is_refused_naming_entities(entities: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput) as caught:
        entity_path(entities)
    assert caught.value.field == "entities"

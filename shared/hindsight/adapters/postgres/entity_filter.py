"""A search's ``entities`` filter as a SQL/JSON path over the ``entities`` column (``jsonb @? jsonpath``).

A memory's entity type holds one value or a list of values (``{"person": ["Alice Nguyen", "Bob Ferris"]}``,
``domain.limits.Entities``): a memory about two people names both. The filter keeps the memories whose
entities *include* the filter's: for each type, every value the filter gives is the memory's value or one
item of its list. ``{"person": "Alice Nguyen"}`` finds the memory above (and one whose person is "Alice
Nguyen" alone); ``{"person": ["Alice Nguyen", "Bob Ferris"]}`` finds it, not one naming only Alice. The
merge of a repeat reads a type's values the same way (``domain.repeat.absorb``), and so does the entity
signal (``domain.text.entity_terms``: each item is a term).

Before (trial18 M5) the filter was jsonb containment (``entities @> filter``), which never finds a scalar
inside a list: only the exact list found the memory. The path's lax mode unwraps a list on comparison, so
one expression reads both shapes, and the ``jsonb_path_ops`` GIN index (``memories_entities``, schema 002)
serves it as it served ``@>``. Values compare as JSON values, as before: ``42`` is not ``"42"``, ``true``
is not ``"true"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import ENTITY_SCALARS


def _literal(value: Any) -> str:
    """A JSON scalar as a jsonpath literal: a string in double quotes with JSON's escapes (which jsonpath
    reads alike), a number as Python writes it (``1e+20``, ``-3``), a boolean as ``true``/``false``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def entity_path(entities: Mapping[str, Any]) -> str:
    """The jsonpath that holds for a memory's ``entities`` including every value of ``entities`` (the
    filter: type → a value or a list of values), e.g. ``{"person": ["Ana", "Lee"], "order_id": "A-1"}`` →
    ``$ ? (@."person" == "Ana" && @."person" == "Lee" && @."order_id" == "A-1")``.

    Raises InvalidInput (field ``entities``) for an empty filter, an empty list, or a value that is not a
    string, number or boolean (the tools refuse those first: ``domain.limits.EntityFilter``)."""
    if not entities:
        raise InvalidInput("entities", "an empty entity filter filters nothing")
    tests: list[str] = []
    for name, value in entities.items():
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, ENTITY_SCALARS) for v in values):
            raise InvalidInput(
                "entities",
                f"entity '{name}' must be a string, number or boolean, or a non-empty list of them",
            )
        for item in dict.fromkeys(_literal(v) for v in values):
            tests.append(f"@.{json.dumps(name)} == {item}")
    return f"$ ? ({' && '.join(tests)})"

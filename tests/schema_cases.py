"""Test data derived from the tools' JSON schemas (``tools/list``): a valid value per field, the bad values
each field must refuse, and Hypothesis strategies for valid-ish and random arguments.

Derived, not listed by hand, so a new tool or field is covered by the bad-input table and the fuzz suite
the day it is added. Only the keywords the SDK's pydantic-generated schemas use are understood (type,
anyOf, enum, format uuid/date-time, min/maxLength, pattern, minimum/maximum, min/maxItems, items,
patternProperties, propertyNames, additionalProperties, $ref to $defs); anything else gets a generic
value. (hypothesis-jsonschema would do the strategies, but its last release does not run on the
Hypothesis this project pins.)
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import strategies as st

from hindsight.api.mcp_context import ContainerHolder
from hindsight.api.mcp_server import create_mcp_server
from hindsight.config import Settings
from hindsight.domain.isotime import TIME_PATTERN
from hindsight.domain.limits import MAX_ENTITIES, MAX_METADATA_BYTES, MAX_METADATA_DEPTH

Schema = dict[str, Any]
SAMPLE_UUID = "00000000-0000-4000-8000-000000000000"
SAMPLE_TIME = "2026-01-01T00:00:00Z"
_CANDIDATE_STRINGS = ("x", "default", "a-1", "abc", "Ab1")
RANDOM_FROM_OTHER_THREADS = pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies:hypothesis.errors.HypothesisDeprecationWarning"
)
"""For a fuzz test that draws these strategies beside the in-process stack. Hypothesis warns when the
global ``random`` state changes while a value is drawn, whichever thread changed it, and names the
strategy being drawn; the stack's threads change it on their own (psycopg_pool draws a jitter from it for
each connection it opens, in the server's thread), so the warning would name a strategy that uses no
``random``. That these strategies use none is checked with no other thread about, the warning an error
(tests/unit/test_schema_strategies.py)."""


@cache
def tool_schemas() -> dict[str, Schema]:
    """The input schemas ``tools/list`` serves, from an in-process server (no I/O: the container is only
    built by the lifespan, which never runs here). test_bad_input checks they are the live ones."""
    settings = Settings.load(database_url="postgresql://unused@/unused", write_queue_url="http://unused")
    mcp = create_mcp_server(ContainerHolder(), settings, factory=None)  # type: ignore[arg-type]
    return {tool.name: tool.input_schema for tool in asyncio.run(mcp.list_tools())}


@dataclass(frozen=True)
class BadCase:
    """One value a field must refuse. ``limit``: the case breaks a stated bound or type (the error must name
    the limit: what the field takes, "a number from 0 to 1", not only "a valid number")."""

    label: str
    value: Any
    limit: bool = False


def non_null(schema: Schema) -> Schema:
    """The schema without its ``null`` alternative (optional fields are ``anyOf [T, null]``)."""
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if len(options) == 1:
        merged = {k: v for k, v in schema.items() if k not in ("anyOf", "default")}
        return {**options[0], **{k: v for k, v in merged.items() if k not in options[0]}}
    return schema


def _fits(value: str, schema: Schema) -> bool:
    pattern = schema.get("pattern")
    return (
        len(value) >= schema.get("minLength", 0)
        and len(value) <= schema.get("maxLength", 10**9)
        and (pattern is None or re.search(pattern, value) is not None)
    )


def valid_value(schema: Schema, defs: Schema | None = None) -> Any:
    """A small value the schema accepts (and the server's validation too)."""
    schema = resolve(non_null(schema), defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "anyOf" in schema:
        return valid_value(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "string":
        if schema.get("format") == "uuid":
            return SAMPLE_UUID
        if schema.get("format") == "date-time" or schema.get("pattern") == TIME_PATTERN:
            return SAMPLE_TIME
        for candidate in _CANDIDATE_STRINGS:
            padded = candidate * max(1, schema.get("minLength", 1))
            if _fits(padded, schema):
                return padded
        raise ValueError(f"no sample string fits {schema}")
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 0.5))
    if kind == "boolean":
        return True
    if kind == "array":
        return [valid_value(schema.get("items", {}), defs)] * schema.get("minItems", 0)
    if kind == "object":
        return {}
    return "x"


def resolve(schema: Schema, defs: Schema | None) -> Schema:
    ref = schema.get("$ref")
    if ref and defs is not None:
        return resolve(defs[ref.rsplit("/", 1)[-1]], defs)
    return schema


def valid_arguments(tool_schema: Schema) -> dict[str, Any]:
    """The required arguments, each with a valid value."""
    defs = tool_schema.get("$defs")
    props = tool_schema.get("properties", {})
    return {name: valid_value(props[name], defs) for name in tool_schema.get("required", [])}


def bad_values(schema: Schema, defs: Schema | None = None) -> list[BadCase]:
    """Values the field must refuse: the wrong type, and one past each bound the schema states."""
    title = schema.get("title", "")
    schema = resolve(non_null(schema), defs)
    cases: list[BadCase] = []
    kind = schema.get("type")
    if "enum" in schema:
        cases.append(BadCase("not_in_enum", "__not_an_option__", limit=True))  # limit.one_of: the choices
    elif kind == "string":
        cases.append(BadCase("wrong_type", {"not": "a string"}, limit=True))
        fmt = schema.get("format")
        if fmt == "uuid":
            cases.append(BadCase("not_a_uuid", "not-a-uuid", limit=True))
        elif fmt == "date-time" or schema.get("pattern") == TIME_PATTERN:
            # one ISO 8601 parser for every time field: numbers are never Unix seconds
            cases.append(BadCase("unix_seconds", 1700000000, limit=True))
            cases.append(BadCase("unix_seconds_string", "1700000000", limit=True))
            cases.append(BadCase("compact_date", "20261124", limit=True))
            cases.append(BadCase("impossible_date", "2026-02-30", limit=True))
            cases.append(BadCase("not_a_time", "yesterday-ish", limit=True))
            cases.append(BadCase("time_out_of_range", "0001-01-01T00:00:00+14:00", limit=True))
            cases.append(BadCase("time_far_future", "9999-12-31T23:59:59Z", limit=True))
        if "maxLength" in schema:
            cases.append(BadCase("too_long", "x" * (schema["maxLength"] + 1), limit=True))
        if schema.get("minLength", 0) >= 1:
            cases.append(BadCase("empty", "", limit=True))
        pattern = schema.get("pattern")
        if pattern is not None:
            bad = "has spaces and !?"
            if re.search(pattern, bad) is None:
                cases.append(BadCase("pattern", bad, limit=True))
        elif fmt is None:
            cases.append(BadCase("nul_character", "a\x00b"))
            cases.append(BadCase("control_character", "a\x1bb"))
    elif kind in ("integer", "number"):
        cases.append(BadCase("wrong_type", "not-a-number", limit=True))
        # values lax coercion would have guessed into a number (api.strict_args): refused, never read
        number = valid_value(schema, defs)
        cases.append(BadCase("boolean", True, limit=True))
        cases.append(BadCase("numeric_string", str(number), limit=True))
        if kind == "integer":
            cases.append(BadCase("fractional", 1.5, limit=True))
            cases.append(BadCase("integral_float", float(number), limit=True))
        if "minimum" in schema:
            cases.append(BadCase("below_minimum", schema["minimum"] - 1, limit=True))
        if "maximum" in schema:
            cases.append(BadCase("above_maximum", schema["maximum"] + 1, limit=True))
    elif kind == "boolean":
        cases.append(BadCase("wrong_type", "maybe", limit=True))
        cases.append(BadCase("boolean_string", "true", limit=True))
        cases.append(BadCase("number", 1, limit=True))
    elif kind == "array":
        cases.append(BadCase("wrong_type", {"not": "a list"}, limit=True))
        items = schema.get("items", {})
        if "maxItems" in schema:
            cases.append(
                BadCase("too_many_items", [valid_value(items, defs)] * (schema["maxItems"] + 1), True)
            )
        if schema.get("minItems", 0) >= 1:
            cases.append(BadCase("too_few_items", [], limit=True))
        for item_case in bad_values(items, defs)[:2]:
            cases.append(BadCase(f"item_{item_case.label}", [item_case.value], item_case.limit))
    elif kind == "object":
        cases.append(BadCase("wrong_type", "not an object", limit=True))
        names = schema.get("propertyNames", {})
        if "maxLength" in names:
            cases.append(BadCase("name_too_long", {"a" * (names["maxLength"] + 1): "v"}, limit=True))
        for pattern in schema.get("patternProperties", {}):
            if re.search(pattern, "9 bad name") is None:
                cases.append(BadCase("name_pattern", {"9 bad name": "v"}, limit=True))
    cases += _semantic_cases(title)
    return cases


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


def _semantic_cases(title: str) -> list[BadCase]:
    """Bounds the JSON schema cannot state, keyed by the annotated type's title (so every tool using the
    type gets them): metadata's size, depth and values; entities' count and values."""
    if title == "Metadata":
        return [
            BadCase("too_deep", _nested(MAX_METADATA_DEPTH + 1), limit=True),
            BadCase("too_large", {"k": "x" * (MAX_METADATA_BYTES + 1)}, limit=True),
            BadCase("nan", {"k": float("nan")}),
            BadCase("nul_in_key", {"k\x00": 1}),
            BadCase("nul_in_value", {"k": ["a\x00"]}),
        ]
    if title == "Entities":
        return [
            BadCase("too_many", {f"e{i}": "v" for i in range(MAX_ENTITIES + 1)}, limit=True),
            BadCase("nested_value", {"order": {"id": 1}}),
            BadCase("infinite", {"score": float("inf")}),
        ]
    return []


# --- Hypothesis strategies --------------------------------------------------------------------------

FUZZ_TEXT_MAX = 60
"""Longest valid text the strategies make: every valid write is embedded when the queue drains, and the
embedding model's cost grows with length (the maximum lengths themselves are the bad-input table's)."""
_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | _TEXT
ANY_JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


_CLEAN_CHARS = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"))
_CLEAN_TEXT = st.text(_CLEAN_CHARS, max_size=FUZZ_TEXT_MAX)
_FINITE = st.floats(allow_nan=False, allow_infinity=False)
_VALID_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _FINITE | _CLEAN_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_CLEAN_TEXT, inner, max_size=3),
    max_leaves=8,
)  # fmt: skip


def strategy(schema: Schema, defs: Schema | None = None, *, valid: bool = False) -> st.SearchStrategy[Any]:
    """Values shaped like ``schema``. ``valid``: only what the schema (and the server's own rules on text:
    no control characters, not blank) accept; else valid values mixed with off-by-one and anything at all."""
    schema = resolve(schema, defs)

    def mixed(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return good if valid else good | bad

    if "anyOf" in schema:
        return st.one_of([strategy(option, defs, valid=valid) for option in schema["anyOf"]])
    if "enum" in schema:
        return mixed(st.sampled_from(schema["enum"]), _TEXT)
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", 300)
        fmt = schema.get("format")
        if fmt == "uuid":
            return mixed(st.uuids().map(str), _TEXT)
        if fmt == "date-time" or schema.get("pattern") == TIME_PATTERN:
            lowest, highest = (1900, 2100) if valid else (1890, 2110)
            times = st.datetimes(datetime(lowest, 1, 1), datetime(highest, 12, 31), timezones=st.just(UTC))
            if fmt == "date-time":
                return mixed(times.map(lambda d: d.isoformat()), _TEXT)
            # partial dates too: '2026', '2026-11', '2026-11-24', '2026-11-24T10:30'
            cut = st.sampled_from([4, 7, 10, 16, 19])
            partial = st.tuples(times, cut).map(lambda p: p[0].isoformat()[: p[1]])
            return mixed(times.map(lambda d: d.isoformat()) | partial, _TEXT | st.integers())
        if "pattern" in schema:
            matching = st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda v: low <= len(v) <= high
            )
            return mixed(matching, _TEXT)
        sized = st.text(_CLEAN_CHARS if valid else st.characters(codec="utf-8"), min_size=low,
                        max_size=max(low, min(high, FUZZ_TEXT_MAX)))  # fmt: skip
        if valid and low >= 1:
            sized = sized.filter(str.strip)
        return mixed(sized, st.just("x" * (high + 1)))
    if kind == "integer":
        low, high = schema.get("minimum", -(10**6)), schema.get("maximum", 10**6)
        return mixed(st.integers(low, high), st.integers(low - 2, high + 2))
    if kind == "number":
        low, high = schema.get("minimum"), schema.get("maximum")
        good = st.floats(low, high, allow_nan=False, allow_infinity=False)
        return mixed(good, st.floats(allow_nan=True, allow_infinity=True))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        high = schema.get("maxItems", 5)
        items = strategy(schema.get("items", {}), defs, valid=valid)
        return st.lists(items, max_size=min(high, 4) if valid else min(high + 1, 5))
    if kind == "object":
        if "patternProperties" in schema:
            (value_schema,) = schema["patternProperties"].values()
            names = st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,10}", fullmatch=True)
            values = strategy(value_schema, defs, valid=valid)
            return st.dictionaries(mixed(names, _TEXT), values, max_size=4)
        return (
            st.dictionaries(_CLEAN_TEXT, _VALID_JSON, max_size=4)
            if valid
            else st.dictionaries(_TEXT, ANY_JSON, max_size=4)
        )
    return _VALID_JSON if valid else ANY_JSON


def arguments_strategy(tool_schema: Schema, *, valid: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects for a tool. ``valid``: every required field and some optional ones, each valid
    by the schema. Else also: any field possibly invalid or missing, an unknown one now and then, or a
    random JSON object."""
    defs = tool_schema.get("$defs")
    props = tool_schema.get("properties", {})
    required = set(tool_schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn, valid: bool) -> dict[str, Any]:
        args: dict[str, Any] = {}
        for name, schema in props.items():
            if name in required:
                present = True if valid else draw(st.booleans() | st.just(True))
            else:
                present = draw(st.booleans())
            if present:
                args[name] = draw(strategy(schema, defs, valid=valid))
        if not valid and draw(st.integers(0, 9)) == 0:
            args[draw(_TEXT)] = draw(ANY_JSON)
        return args

    if valid:
        return build(True)
    return build(True) | build(False) | st.dictionaries(_TEXT, ANY_JSON, max_size=3)

"""What a tool argument must be, in words and as a ``limit``, read from the argument's JSON schema.

pydantic's type errors ("Input should be a valid number") name no bound: a model that sent
``importance: "high"`` learns the type but not that it is a number from 0 to 1, and retries blind. The
tools' JSON schemas state every bound (``minimum``, ``maxLength``, ``enum``, ``maxItems``, …), so the
error mapping (``api.errors.validation_error``) words a type error from the schema of the field it is
about: "must be a number from 0 to 1 (got a string)", ``limit = {"type": "number", "ge": 0, "le": 1}``.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

_NOUNS = {
    "string": ("a string", "strings"),
    "integer": ("an integer", "integers"),
    "number": ("a number", "numbers"),
    "boolean": ("true or false", "booleans"),
    "array": ("a list", "lists"),
    "object": ("an object", "objects"),
}


def _resolve(schema: Schema, defs: Schema | None) -> Schema:
    ref = schema.get("$ref")
    if isinstance(ref, str) and defs is not None:
        return _resolve(defs.get(ref.rsplit("/", 1)[-1], {}), defs)
    return schema


def _options(schema: Schema, defs: Schema | None) -> list[Schema]:
    """The non-null alternatives of ``schema`` (an optional field is ``anyOf [T, null]``), resolved."""
    schema = _resolve(schema, defs)
    if "anyOf" not in schema:
        return [] if schema.get("type") == "null" else [schema]
    return [o for option in schema["anyOf"] for o in _options(option, defs)]


def schema_at(schema: Schema, loc: tuple[int | str, ...], defs: Schema | None = None) -> Schema | None:
    """The schema of the value at ``loc`` (an error's path: names and list indexes) inside the object
    ``schema`` describes, or None when the path leaves what the schema describes."""
    defs = schema.get("$defs", defs)
    current: Schema | None = schema
    for part in loc:
        if current is None:
            return None
        found: Schema | None = None
        for option in _options(current, defs):
            if isinstance(part, int) and isinstance(option.get("items"), dict):
                found = option["items"]
            elif isinstance(part, str) and part in option.get("properties", {}):
                found = option["properties"][part]
            elif isinstance(part, str) and len(option.get("patternProperties", {})) == 1:
                (found,) = option["patternProperties"].values()  # a value in a mapping (entities)
            if found is not None:
                break
        current = found
    return current


def _range(schema: Schema) -> tuple[str, dict[str, Any]]:
    """A number's bounds in words (" from 0 to 1", " of at least 1") and as a limit (ge, gt, le, lt)."""
    low = {k: schema[s] for s, k in (("minimum", "ge"), ("exclusiveMinimum", "gt")) if s in schema}
    high = {k: schema[s] for s, k in (("maximum", "le"), ("exclusiveMaximum", "lt")) if s in schema}
    top = high.get("le")
    if top is None and "lt" in high and schema.get("type") == "integer":
        top = high["lt"] - 1  # an integer below 10000000 is one up to 9999999
    if "ge" in low and top is not None:
        text = f"from {_number(low['ge'])} to {_number(top)}"
    elif "ge" in low:
        text = f"of at least {_number(low['ge'])}"
    elif "gt" in low:
        text = f"above {_number(low['gt'])}"
    elif top is not None:
        text = f"of at most {_number(top)}"
    else:
        text = ""
    if "lt" in high and top is None:
        text = f"{text} and below {_number(high['lt'])}" if text else f"below {_number(high['lt'])}"
    elif "gt" in low and top is not None:
        text = f"{text} and at most {_number(top)}"
    return (f" {text}" if text else ""), {**low, **high}


def _number(value: Any) -> str:
    """1.0 as "1", 0.5 as "0.5"."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _count(schema: Schema, low_key: str, high_key: str) -> tuple[str, dict[str, Any]]:
    """A size's bounds in words ("1 to 200", "at most 20", "") and as a limit (min_length, max_items, …)."""
    low, high = schema.get(low_key), schema.get(high_key)
    unit = "length" if low_key.endswith("Length") else "items"
    limit = {k: v for k, v in ((f"min_{unit}", low), (f"max_{unit}", high)) if v}
    if low and high:
        return f"{low} to {high}", limit
    if high:
        return f"at most {high}", limit
    return (f"at least {low}" if low else ""), limit


def expected(
    schema: Schema, defs: Schema | None = None, *, formats: dict[str, str] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """What a value of ``schema`` must be, as (words after "must be", limit), or None for a schema that
    says nothing a caller can act on. ``formats``: a ``pattern`` in words (``limits.PATTERN_FORMATS``)."""
    options = _options(schema, defs)
    if not options:
        return None
    if len(options) > 1:  # a union of plain types: "a string, an integer, a number or true or false"
        nouns = [_NOUNS[o["type"]][0] for o in options if o.get("type") in _NOUNS]
        if len(nouns) != len(options):
            return None
        words = ", ".join(nouns[:-1]) + f" or {nouns[-1]}"
        return words, {"type": [o["type"] for o in options]}
    (option,) = options
    if "enum" in option:
        choices = [str(v) for v in option["enum"]]
        return "one of " + ", ".join(f"'{c}'" for c in choices), {"one_of": choices}
    kind = option.get("type")
    if kind not in _NOUNS:
        return None
    noun = _NOUNS[kind][0]
    limit: dict[str, Any] = {"type": kind}
    if kind in ("integer", "number"):
        words, bounds = _range(option)
        return f"{noun}{words}", {**limit, **bounds}
    if kind == "string":
        if option.get("format") == "uuid":
            return "a UUID string, like '0193a5c2-7d1e-7f3a-9b2c-4d5e6f708192'", {**limit, "format": "uuid"}
        count, bounds = _count(option, "minLength", "maxLength")
        words = f" of {count} characters" if count else ""
        pattern = option.get("pattern")
        shape = (formats or {}).get(pattern) if isinstance(pattern, str) else None
        if shape is not None:
            words, bounds = f"{words}: {shape}", {**bounds, "format": shape}
        return f"{noun}{words}", {**limit, **bounds}
    if kind == "array":
        count, bounds = _count(option, "minItems", "maxItems")
        items = _options(option.get("items", {}), defs)
        plural = (
            _NOUNS[items[0]["type"]][1] if len(items) == 1 and items[0].get("type") in _NOUNS else "values"
        )
        words = f"{noun} of {count} {plural}" if count else f"{noun} of {plural}"
        if len(items) == 1 and "enum" in items[0]:
            choices = [str(v) for v in items[0]["enum"]]
            words += ", each one of " + ", ".join(f"'{c}'" for c in choices)
            bounds = {**bounds, "one_of": choices}
        return words, {**limit, **bounds}
    return noun, limit

"""Errors an agent's model can read: domain and argument errors → a ``CallToolResult`` with ``isError``.

MCP 2025-11-25 (SEP-1303) makes input validation errors *tool execution errors*: the result of the call,
with ``isError: true``, which clients hand to the model (a JSON-RPC error is raised as an exception by
every client, so the model never sees it and cannot retry). So argument errors, not-found, forbidden,
rate-limited and dependency-down errors are results here; JSON-RPC errors stay for what is wrong with the
request itself (a malformed envelope, an unknown method or tool: the SDK and ``mcp_server`` raise those).

One mapping, generic over the domain error hierarchy (``hindsight.domain.errors``): ``ERROR_KINDS`` maps
a domain error class to a stable ``kind`` and the ``code`` it had as a JSON-RPC error (kept so clients
and logs that knew the codes keep working). A subclass without an entry of its own is reported like its
nearest listed base class (found along the MRO), with the extra fields its ``details()`` gives. To add a
domain error: subclass the closest ``HindsightError`` in ``domain/errors.py`` (``details()`` for fields
the agent needs, e.g. a current version) and, only if it needs its own ``kind``, add one ``ERROR_KINDS``
entry here.

Every error result carries the same object twice: ``structuredContent = {"error": {...}}`` and, for the
model, a text block with the message then the object as JSON. The object holds ``kind``, ``code``,
``message``, ``retryable`` and the details: ``errors`` (one per bad field: ``field``, ``message``,
``type``, ``limit``) for argument errors, ``retry_after_s``/``limit``/``window_s``/``budget`` when rate
limited, ``current_version``/``expected_version``/``current`` on a version conflict. Messages never echo
a rejected value: it is the caller's data and may be large or sensitive. A refused name in a mapping (an
entity type's) is the exception: it is the only way to say which of several names is wrong, and it is
quoted escaped and cut short (``shown``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from hindsight.api.expected import Schema, expected, schema_at
from hindsight.domain.errors import (
    Forbidden,
    HindsightError,
    InvalidInput,
    NotFound,
    RateLimited,
    Unauthorized,
    Unavailable,
    VersionConflict,
)
from hindsight.domain.limits import PATTERN_FORMATS

UNAVAILABLE = -32001  # a dependency is down; retry later (retryable = true)
NOT_FOUND = -32002  # the code MCP uses for an unknown resource
FORBIDDEN = -32003
UNAUTHORIZED = -32004
INVALID_ARGUMENTS = -32602  # JSON-RPC "invalid params"
RATE_LIMITED = -32029  # the twin of HTTP 429; details: retry_after_s, limit, window_s, budget
VERSION_CONFLICT = -32009  # the twin of HTTP 409; details: current_version, expected_version, current


@dataclass(frozen=True)
class ErrorKind:
    """How one family of domain errors is reported: a stable ``kind`` name, its historical JSON-RPC
    ``code``, whether retrying the same call later may succeed, and the message's prefix."""

    kind: str
    code: int
    retryable: bool = False
    prefix: str = ""
    suffix: str = ""


ERROR_KINDS: dict[type[Exception], ErrorKind] = {
    InvalidInput: ErrorKind("invalid_arguments", INVALID_ARGUMENTS, prefix="Invalid arguments: "),
    NotFound: ErrorKind("not_found", NOT_FOUND),
    Forbidden: ErrorKind("forbidden", FORBIDDEN),
    Unauthorized: ErrorKind("unauthorized", UNAUTHORIZED),
    RateLimited: ErrorKind("rate_limited", RATE_LIMITED, retryable=True),
    Unavailable: ErrorKind("unavailable", UNAVAILABLE, retryable=True, suffix="; retry later"),
    # the same call fails again: the agent merges with the current content and retries with its version
    VersionConflict: ErrorKind("version_conflict", VERSION_CONFLICT),
}
"""Domain error class → how it is reported. Looked up along the MRO, so subclasses inherit."""

_LIMIT_KEYS = (
    "max_length",
    "min_length",
    "ge",
    "gt",
    "le",
    "lt",
    "pattern",
    "format",
    "max_items",
    "min_items",
    "max_bytes",
    "max_depth",
)


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "arguments"


def _jsonable(value: object) -> object:
    return value if isinstance(value, int | float | str | bool) or value is None else str(value)


def invalid_arguments(errors: list[dict[str, Any]], message: str) -> dict[str, Any]:
    """The error object for argument errors: ``errors`` lists each bad field (``field``, ``message``,
    ``type``, optional ``limit``); ``message`` is the whole sentence ("Invalid arguments: top_k: …")."""
    return {
        "kind": "invalid_arguments",
        "code": INVALID_ARGUMENTS,
        "message": message,
        "retryable": False,
        "errors": errors,
    }


_PYDANTIC_PREFIXES = {"value_error": "Value error, ", "assertion_error": "Assertion failed, "}


def _without_pydantic_prefix(message: str, error_type: str) -> str:
    """A validator's own message without the "Value error, " pydantic puts before it."""
    prefix = _PYDANTIC_PREFIXES.get(error_type)
    return message.removeprefix(prefix) if prefix else message


_JSON_WORDED = {
    # pydantic's "UUID input should be a string, bytes or UUID object": bytes and UUID objects are Python's
    "uuid_type": "Input should be a UUID string, like '0193a5c2-7d1e-7f3a-9b2c-4d5e6f708192'",
    # pydantic's "invalid character: found `n` at 0" / "invalid length: expected … found 7" quote the
    # rejected value, which a message never echoes (docs/tools.md)
    "uuid_parsing": "Input should be a UUID string, like '0193a5c2-7d1e-7f3a-9b2c-4d5e6f708192'",
}
"""pydantic messages worded for a caller who sends JSON, by error type."""


def _worded(message: str, error_type: str) -> str:
    """``message`` as a JSON caller reads it: ``_JSON_WORDED``, and without pydantic's "after validation"
    (a list's length is what the caller sent)."""
    return _JSON_WORDED.get(error_type, message.replace(" after validation", ""))


_CHOICE_ERRORS = frozenset({"literal_error", "enum"})
"""pydantic's errors for a value outside a fixed set (``Literal``, ``Enum``): their ``ctx["expected"]``
lists the set ("'semantic' or 'episodic'")."""
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _choices(expected: str) -> dict[str, Any]:
    """The ``limit`` of a value outside a fixed set: ``{"one_of": [...]}``, the allowed values as pydantic
    quotes them in ``expected`` ("'semantic' or 'episodic'"); ``{"expected": expected}`` when they are not
    quoted strings (numbers)."""
    values = _QUOTED.findall(expected)
    return {"one_of": values} if values else {"expected": expected}


_TYPE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_from_float",
        "int_parsing",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
        "list_type",
        "dict_type",
        "model_type",
        "model_attributes_type",
        "uuid_type",
        "uuid_parsing",
        "missing",
    }
)
"""pydantic's errors for a value of the wrong type (or none): they name the type, never the bounds, so
with the tool's schema at hand they are worded from it (``api.expected``)."""


def _got(value: Any) -> str:
    """What a JSON value is, in words, without echoing it: "a string", "null", "a boolean", …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):  # 5.0 where an integer is expected: a client computed it as a float
        return "a number with a fractional part" if not value.is_integer() else "a decimal number like 5.0"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "a value"


def _expected_type(
    err: Any, loc: tuple[int | str, ...], schema: Schema | None
) -> tuple[str, dict[str, Any]] | None:
    """(message, limit) for a type error on ``loc`` worded from ``schema`` (the arguments' JSON schema),
    or None when it is not a type error or the schema says nothing about the field."""
    if schema is None or err["type"] not in _TYPE_ERRORS:
        return None
    field_schema = schema_at(schema, loc)
    found = (
        None if field_schema is None else expected(field_schema, schema.get("$defs"), formats=PATTERN_FORMATS)
    )
    if found is None:
        return None
    words, limit = found
    if err["type"] == "missing":
        return f"required: give {words}", limit
    got = _got(err.get("input"))
    if err["type"] == "uuid_parsing" or words.startswith(got):  # the right type, not the right form
        return f"must be {words}", limit
    return f"must be {words} (got {got})", limit


_NAME_NOUNS = {"entities": "entity type name"}
"""What a name in a mapping argument is called in a message, by the argument (else "name")."""
MAX_SHOWN_NAME_CHARS = 32
_NAME_LENGTHS = {
    "string_too_long": "must be at most {max_length} characters",
    "string_too_short": "must be at least {min_length} character",
}
"""A name's length refusal in our words (pydantic's "String should have at most 64 characters" names
neither the name nor what it is)."""


def shown(value: object, limit: int) -> str:
    """A value a message must quote (a refused name, a header the server did not take), so a caller can
    tell which: quoted as Python quotes a string (controls and invisible characters, such as U+200B or
    U+202E, escaped: the text cannot hide or reorder what the message says), at most ``limit``
    characters of it, then "…" and its length. The one place such a quote is made (names here, headers
    in ``api.http_guard`` and ``api.protocol_version``)."""
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


def validation_error(exc: ValidationError, prefix: str = "", schema: Schema | None = None) -> dict[str, Any]:
    """The error object for a pydantic ``ValidationError``: every bad field with the limit it broke.
    ``schema``: the JSON schema of what was validated (a tool's input schema): a type error is then
    worded with the field's bounds, "must be a number from 0 to 1 (got a string)"."""
    details: list[dict[str, Any]] = []
    parts: list[str] = []
    inputs = [e.get("input") for e in exc.errors(include_url=False)] if schema is not None else []
    for number, err in enumerate(exc.errors(include_url=False, include_input=False)):
        loc = tuple(p for p in err["loc"] if p not in ("draft",))
        message = _worded(_without_pydantic_prefix(err["msg"], err["type"]), err["type"])
        typed = _expected_type({**err, "input": inputs[number]}, loc, schema) if inputs else None
        named = "[key]" in loc  # a name in a mapping: the path ends at the mapping, the message names it
        name = ""
        if named:
            name = str(loc[loc.index("[key]") - 1])
            loc = loc[: loc.index("[key]") - 1]
        field = f"{prefix}.{_field(loc)}" if prefix and loc else prefix or _field(loc)
        ctx = err.get("ctx") or {}
        limit = {k: _jsonable(ctx[k]) for k in _LIMIT_KEYS if k in ctx}
        if err["type"] == "string_pattern_mismatch" and (
            words := PATTERN_FORMATS.get(str(ctx.get("pattern")))
        ):
            message, limit = f"must be {words}", {"format": words}  # the regex stays in the schema
        if err["type"] in _CHOICE_ERRORS and "expected" in ctx:
            limit = _choices(str(ctx["expected"]))
        if typed is not None:
            message, limit = typed
        if named and err["type"] in _NAME_LENGTHS:
            message = _NAME_LENGTHS[err["type"]].format(**ctx)
        if named:  # whatever worded it: the message is about the name, not the value; which name, quoted
            noun = _NAME_NOUNS.get(str(loc[-1]) if loc else "", "name")
            message = f"{noun} {shown(name, MAX_SHOWN_NAME_CHARS)}: {message}"
        detail: dict[str, Any] = {"field": field, "message": message, "type": err["type"]}
        if limit:
            detail["limit"] = limit
        details.append(detail)
        parts.append(f"{field}: {message}")
    return invalid_arguments(details, "Invalid arguments: " + "; ".join(parts))


def _kind_of(exc: Exception) -> ErrorKind | None:
    for cls in type(exc).__mro__:
        kind = ERROR_KINDS.get(cls)
        if kind is not None:
            return kind
    return None


def error_object(exc: BaseException | None) -> dict[str, Any] | None:
    """The error object for a domain error or a ``ValidationError``; None for anything unexpected (a
    crash: its text stays in the server's log)."""
    if isinstance(exc, ValidationError):
        return validation_error(exc)
    if not isinstance(exc, HindsightError):
        return None
    kind = _kind_of(exc)
    if kind is None:
        return None
    message = f"{kind.prefix}{str(exc) or kind.kind.replace('_', ' ')}{kind.suffix}"
    error: dict[str, Any] = {
        "kind": kind.kind,
        "code": kind.code,
        "message": message,
        "retryable": kind.retryable,
    }
    if isinstance(exc, InvalidInput):
        detail: dict[str, Any] = {"field": exc.field, "message": str(exc), "type": "invalid"}
        if exc.limit is not None:
            detail["limit"] = exc.limit
        error["errors"] = [detail]
    error.update(exc.details())
    return error


class ArgumentErrors(InvalidInput):
    """Argument errors found before validation (``errors``: the entries of an ``invalid_arguments``
    object, ``field`` relative to the arguments, "" for the whole), e.g. one batch item's unreadable
    values."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors
        super().__init__(errors[0]["field"], errors[0]["message"])

    def details(self) -> dict[str, object]:
        """The errors."""
        return {"errors": self.errors}


def item_error(exc: BaseException, prefix: str, schema: Schema | None = None) -> dict[str, Any]:
    """The error object of one item of a batch (``prefix``: "items.3"): what the single call would have
    answered, its fields named under ``prefix`` (``schema``: the item's JSON schema, which words a type
    error with the field's bounds). Raises RuntimeError for an unexpected exception."""
    if isinstance(exc, ValidationError):
        return validation_error(exc, prefix, schema)
    if isinstance(exc, ArgumentErrors):
        errors = [{**e, "field": f"{prefix}.{e['field']}" if e["field"] else prefix} for e in exc.errors]
        return invalid_arguments(
            errors, "Invalid arguments: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        )
    error = error_object(exc)
    if error is None:
        raise RuntimeError(f"no error object for {type(exc).__name__}") from exc
    if isinstance(exc, InvalidInput):
        error["errors"] = [{**e, "field": f"{prefix}.{e['field']}"} for e in error["errors"]]
        error["message"] = f"Invalid arguments: {prefix}.{exc}"
    return error


def error_result(error: dict[str, Any]) -> CallToolResult:
    """A tool result with ``isError``: the message and the whole error object as text (what a model
    reads), and the object as structured content (what a program reads)."""
    text = f"{error['message']}\n{json.dumps({'error': error}, ensure_ascii=False, sort_keys=True)}"
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content={"error": error}, is_error=True
    )


def tool_error_result(exc: BaseException | None) -> CallToolResult | None:
    """The ``isError`` result for a domain error or a ``ValidationError``, or None for anything else."""
    error = error_object(exc)
    return None if error is None else error_result(error)


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Set instead of the result when the call failed (isError): why, and whether to retry.",
    "properties": {
        "kind": {"type": "string", "enum": sorted({k.kind for k in ERROR_KINDS.values()})},
        "code": {"type": "integer"},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
    },
    "required": ["kind", "code", "message", "retryable"],
}


def admit_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's output schema that also admits an error result's ``{"error": {...}}``.

    Some clients (the TypeScript SDK 1.x, hence the MCP Inspector) validate ``structuredContent``
    against the output schema even when ``isError`` is set, and raise instead of returning the result
    when it does not match — the model would again see nothing. So the schema says what the tool
    returns: its result, or an error. The result's properties keep their types; its required fields
    move into ``anyOf`` beside ``error``."""
    widened = dict(schema)
    required = widened.pop("required", [])
    widened["properties"] = {**schema.get("properties", {}), "error": ERROR_SCHEMA}
    widened["anyOf"] = [{"required": list(required)}, {"required": ["error"]}]
    return widened

"""Defensive reading of JSON from LLM replies.

Models asked for JSON still wrap it: in ```json fences, after "Here is the record:", before "Let me
know if…". The spec lists "JSON from the LLM wrapped in prose" as a pitfall that must be handled.
This module finds JSON objects in such text with the standard library's own decoder
(``json.JSONDecoder.raw_decode``, which stops at the end of the first complete value, so braces inside
strings are handled) and validates them against a pydantic model. It never "repairs" JSON: a trailing
comma, single quotes or a cut-off reply are errors, reported as such.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

MAX_REPLY_CHARS = 200_000
"""Only this much of a reply is scanned (a reflection reply is a few hundred tokens)."""
MAX_DECODE_ATTEMPTS = 256
"""At most this many '{' positions are tried, bounding the scan on adversarial text."""
MAX_CANDIDATES = 16
"""At most this many decoded objects are validated before giving up."""

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[^\n`]*\n(.*?)```", re.DOTALL)

M = TypeVar("M", bound=BaseModel)


class ReplyNotJson(ValueError):
    """The reply holds no JSON object that validates; the message says what was found and why not."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


@dataclass(frozen=True)
class _Found:
    value: dict[str, Any]
    inside_broken: bool
    """A broken object started before this one and the decoder read past its start: this object is
    (probably) a part of the one the model meant, not an answer of its own."""


def _scan(text: str, errors: list[tuple[int, str]]) -> Iterator[_Found]:
    """Objects decoded at successive '{' positions; a decoded object's inner braces are skipped.

    Each failed attempt appends (how far the decoder got, its message) to ``errors``.
    """
    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    attempts = 0
    broken_reach = -1  # furthest position a failed attempt read to
    start = text.find("{")
    while start != -1 and attempts < MAX_DECODE_ATTEMPTS:
        attempts += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            errors.append((exc.pos - start, f"{exc.msg} at character {exc.pos - start} of the object"))
            broken_reach = max(broken_reach, exc.pos)
            start = text.find("{", start + 1)
            continue
        except (ValueError, RecursionError) as exc:
            errors.append((0, str(exc) or type(exc).__name__))
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            yield _Found(value, inside_broken=start < broken_reach)
        start = text.find("{", end)


def iter_json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every distinct JSON object in ``text``, most likely first: the whole text, then the contents
    of code fences, then balanced objects found anywhere (outermost only). Pure; never raises."""
    for found in _iter_json_objects(text, []):
        yield found.value


def _iter_json_objects(text: str, errors: list[tuple[int, str]]) -> Iterator[_Found]:
    text = text[:MAX_REPLY_CHARS].lstrip("\ufeff")
    seen: list[dict[str, Any]] = []
    stripped = text.strip()
    # The whole reply is one object (the well-behaved case), then fenced blocks, then anywhere.
    sources = [stripped] if stripped.startswith("{") and stripped.endswith("}") else []
    sources += [match.group(1) for match in _FENCE.finditer(text)]
    sources.append(text)
    for source in sources:
        for found in _scan(source, errors):
            if found.value not in seen:
                seen.append(found.value)
                yield found


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (see ``iter_json_objects`` for the order).

    Raises:
        ReplyNotJson: no complete JSON object, with the decoder's complaint.
    """
    errors: list[tuple[int, str]] = []
    for found in _iter_json_objects(text, errors):
        return found.value
    raise ReplyNotJson(_no_object_message(text, errors))


def parse_reply(text: str, model: type[M]) -> M:
    """The first JSON object in ``text`` that validates as ``model``.

    Raises:
        ReplyNotJson: no JSON object at all (the decoder's complaint is quoted); or none that
            validates: the first object's validation errors are listed, one per field — unless that
            object sits inside a broken one (a trailing comma, a cut-off reply), when the decoder's
            complaint about the broken object is the message.
    """
    errors: list[tuple[int, str]] = []
    first: tuple[_Found, ValidationError] | None = None
    for count, found in enumerate(_iter_json_objects(text, errors), start=1):
        try:
            return model.model_validate(found.value)
        except ValidationError as exc:
            first = first or (found, exc)
        if count >= MAX_CANDIDATES:
            break
    if first is None or first[0].inside_broken:
        raise ReplyNotJson(_no_object_message(text, errors))
    raise ReplyNotJson(f"the reply's JSON is not a valid {model.__name__}: {describe_errors(first[1])}")


def describe_errors(exc: ValidationError) -> str:
    """Pydantic errors as one line: ``field.path: message; …`` (input values left out: they may be long)."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(object)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def _no_object_message(text: str, errors: list[tuple[int, str]]) -> str:
    """Names the decoder's complaint about the attempt that got furthest (most likely the real JSON).
    The reply itself is left out: it retells the task, and this message is logged (docs/security.md)."""
    if not text.strip():
        return "the reply is empty"
    reason = f" ({max(errors)[1]})" if errors else ""
    return f"no complete JSON object in the reply{reason}; {len(text)} characters"

"""The JSON-RPC body of a POST to the MCP endpoint, read before the SDK reads it: what the SDK would
answer unclearly becomes a clear answer (``http_guard`` applies it, in both protocol eras).

=========================================================  ===========================================
body                                                       answer
=========================================================  ===========================================
valid JSON, not an object (``"hello"``, ``5``, ``null``)   400 -32600 "the body must be a JSON-RPC
                                                           request object"
an object whose ``jsonrpc``, ``method``, ``id`` or         400 -32600 naming the member and what it
``params`` is malformed                                    must be ("method must be a string")
``tools/call`` whose ``params.name`` is not a string or    400 -32602 naming ``params.name`` /
``params.arguments`` not an object                         ``params.arguments``
a value JSON can carry but we cannot read, in a            the call goes on with the value replaced
``tools/call``'s ``params.arguments``: a number of more    (0, "" or null), and ``call_tool`` answers
than ``sys.get_int_max_str_digits()`` digits (4300), a     it with an ``isError`` result naming the
string with an unpaired UTF-16 surrogate (``"\\ud800"``),  argument and what is wrong
a value nested past ``json_depth.READ_DEPTH`` (64), a      (``unreadable_arguments``)
member name given twice in one object (``"hard"``)
such a value anywhere else                                 400 -32600 naming where it is
=========================================================  ===========================================

The SDK would answer the first three with pydantic's union dump (-32602, echoing the caller's values)
and the last two with -32700 ("number out of range": Python's and pydantic_core's limit on the digits
of an integer, a DoS guard that stays on; "unexpected end of hex escape" for a surrogate, which the
2026-07-28 path instead reports as a bad ``arguments``). A lone surrogate is valid JSON (RFC 8259 §8.2
leaves it to the reader) but not Unicode: no text can be stored or embedded from it. Such values are
read as markers (``json.loads`` hooks and a walk of its result), only for a body the SDK's parser
refuses or one nested past ``READ_DEPTH`` (read cut to that depth: ``api.json_depth``; past ~200 levels
the SDK answered -32700 "recursion limit exceeded" or, 2026-07-28, an ``isError`` naming
``arguments``). Messages name members, never their values (docs/tools.md). Invalid JSON (or UTF-8) is
400 -32700 "Parse error: <where the parser stopped>" in both eras (the SDK's 2026-07-28 path said only
"Parse error"). A response (no ``method``; ``result`` or ``error``) and anything else pass untouched to
the SDK.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from dataclasses import field as dataclass_field
from functools import cache
from typing import Any

import pydantic_core
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR

from hindsight.api.json_depth import READ_DEPTH, Cut, cut, deeper_than, schema_field

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate in a decoded string: ``json.loads`` joins a valid pair into one character, so any
left is unpaired."""
_TOO_DEEP = "too_deep"


def max_digits() -> int:
    """Python's limit on the digits of an int read from text (``sys.get_int_max_str_digits()``, 4300
    by default; 0 means none); the SDK's parser, pydantic_core, refuses past 4300 digits too."""
    return sys.get_int_max_str_digits()


@dataclass(frozen=True)
class Unreadable:
    """What is wrong with one value of a body that JSON carries but we cannot read: ``field`` (its path
    under ``params.arguments``, e.g. ``top_k``, ``items.0.content``), ``message`` (without the field),
    ``type`` (stable: ``number_too_long``, ``unpaired_surrogate``, ``too_deep``) and ``limit`` (or
    None). A ``too_deep`` value is named by ``named``: it knows its ``path`` and the argument's ``depth``,
    not yet which argument the tool's schema makes of it."""

    field: str
    message: str
    type: str
    limit: dict[str, int] | None = None
    path: tuple[str, ...] = ()
    depth: int = 0

    def named(self, schema: dict[str, Any]) -> Unreadable:
        """A ``too_deep`` value named after the argument it belongs to in the tool's input ``schema``,
        with that argument's depth and limit (itself for any other type)."""
        if self.type != _TOO_DEEP:
            return self
        named, allowed = schema_field(schema, self.path)
        field, depth = ".".join(named), self.depth - (len(named) - 1)
        message = (
            f"nests {depth} levels deep; the limit is {allowed}"
            if allowed
            else f"nests {depth} levels deep; it takes no object or array (limit 0)"
        )
        return Unreadable(field, message, _TOO_DEEP, {"max_depth": allowed}, named, depth)

    def detail(self) -> dict[str, Any]:
        """The entry of an ``invalid_arguments`` error's ``errors`` list."""
        detail: dict[str, Any] = {"field": self.field, "message": self.message, "type": self.type}
        if self.limit is not None:
            detail["limit"] = self.limit
        return detail


@dataclass(frozen=True)
class _Marker:
    """Stands in the decoded body for a value we cannot read (``Unreadable`` without its place)."""

    message: str
    type: str
    limit: dict[str, int] | None
    stand_in: Any  # what the rewritten body carries instead (the tool never sees it: ``call_tool``)
    depth: int = 0  # ``too_deep``: how many levels the replaced container nested


def _too_long() -> _Marker:
    limit = max_digits()
    return _Marker(
        f"number out of range: more than {limit} digits", "number_too_long", {"max_digits": limit}, 0
    )


def _int(text: str) -> int | _Marker:
    return _too_long() if len(text.lstrip("-")) > max_digits() else int(text)


def _float(text: str) -> float | _Marker:
    whole = re.split(r"[.eE]", text.lstrip("-"), maxsplit=1)[0]
    return _too_long() if len(whole) > max_digits() else float(text)


def _unpaired_surrogate(text: str) -> _Marker | None:
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code = f"\\u{ord(found.group()):04x}"
    return _Marker(
        f"invalid Unicode: unpaired surrogate {code} at position {found.start()} (characters, from 0)",
        "unpaired_surrogate",
        None,
        "",
    )


@dataclass(frozen=True)
class Refusal:
    """A JSON-RPC error to answer with (HTTP 400): ``code``, ``message``, ``data.field`` names the
    member (``details``: more members of ``data``), ``request_id`` echoes the request's id when it is a
    valid one (else null)."""

    code: int
    message: str
    field: str
    request_id: str | int | None = None
    details: dict[str, Any] = dataclass_field(default_factory=dict)  # more of ``data``


@dataclass(frozen=True)
class Rewrite:
    """A ``tools/call`` to forward as ``body``: its unreadable values replaced by stand-ins, and
    ``errors`` (argument paths, e.g. ``top_k``, ``items.0.x``, and what is wrong) carried among its
    arguments under ``unreadable_key()``, for ``call_tool`` to answer with an ``isError``."""

    body: bytes
    errors: tuple[Unreadable, ...]


@cache
def unreadable_key() -> str:
    """The member a rewritten ``tools/call`` carries its ``Unreadable`` values in, among its arguments:
    they travel with the request they belong to (a context variable set around the call leaked into
    later requests: the SDK runs some calls in a context copied from an earlier one). Not an argument
    name any tool takes, and secret to the process, so a caller cannot forge it (sent, it is an argument
    the tool does not take)."""
    return f"hindsight/unreadable/{secrets.token_hex(16)}"


def unreadable_values(arguments: dict[str, Any], schema: dict[str, Any]) -> list[Unreadable]:
    """The unreadable values ``check_body`` found in a ``tools/call``'s ``arguments`` (each too-deep one
    named after its argument in the tool's input ``schema``, once), in the order found; empty when it
    found none. Removes what ``check_body`` added to ``arguments``."""
    carried = arguments.pop(unreadable_key(), None)
    if not isinstance(carried, list):
        return []
    found: dict[tuple[str, str], Unreadable] = {}
    for item in carried:
        unreadable = Unreadable(**{**item, "path": tuple(item["path"])})
        named = unreadable.named(schema)
        seen = found.get((named.field, named.type))
        if seen is None or named.depth > seen.depth:  # one entry per argument: its deepest part
            found[(named.field, named.type)] = named
    return list(found.values())


def set_aside_in_items(arguments: dict[str, Any], name: str, found: list[Unreadable]) -> list[Unreadable]:
    """Of ``found``, those not inside one item of the list argument ``name`` (``items.3.content`` and
    ``items.3`` are item 3's): each such item is replaced by an object carrying its errors (fields
    relative to it, "" for the item itself) under ``unreadable_key()``, for the tool to answer that item
    alone (``item_unreadable``)."""
    items = arguments.get(name)
    per_item: dict[int, list[dict[str, Any]]] = {}
    rest = []
    for unreadable in found:
        path = unreadable.path
        index = int(path[1]) if len(path) > 1 and path[0] == name and path[1].isdigit() else -1
        if not isinstance(items, list) or not 0 <= index < len(items):
            rest.append(unreadable)
            continue
        per_item.setdefault(index, []).append({**unreadable.detail(), "field": ".".join(path[2:])})
    for index, errors in per_item.items():
        items[index] = {unreadable_key(): errors}  # type: ignore[index]
    return rest


def item_unreadable(item: Any) -> list[dict[str, Any]] | None:
    """The errors ``set_aside_in_items`` put in place of one item (fields relative to it), or None."""
    if isinstance(item, dict) and unreadable_key() in item:
        errors: list[dict[str, Any]] = item[unreadable_key()]
        return errors
    return None


class _Members(dict[str, Any]):
    """A decoded JSON object that remembers which member names it was given more than once (the last
    value stands, as every parser here would keep it)."""

    repeated: tuple[str, ...] = ()


def _members(pairs: list[tuple[str, Any]]) -> _Members:
    """``json.loads``'s ``object_pairs_hook``: the object, with its repeated member names noted."""
    members = _Members(pairs)
    if len(members) != len(pairs):
        members.repeated = tuple(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
    return members


_REPEATED = _Marker(
    "given more than once: each member of a JSON object must be unique (the last one would silently win)",
    "duplicate_member",
    None,
    None,
)


class _RepeatedMember(Exception):
    """Raised by ``_unique_members`` at the first object that repeats a member name."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _RepeatedMember
    return members


def _repeats_a_member(body: bytes) -> bool:
    """Whether some object of ``body`` (valid JSON, nested within ``READ_DEPTH``) gives a member name
    twice. ~16 µs for a 400-byte call, ~0.1 ms for a 12 KB batch (``json.loads`` with a hook): the
    SDK's parser keeps the last of a repeated member without a word."""
    try:
        json.loads(body, object_pairs_hook=_unique_members)
    except _RepeatedMember:
        return True
    return False


def _key(key: str, path: tuple[str, ...], found: list[tuple[tuple[str, ...], _Marker]]) -> str:
    """A member name, escaped to ASCII when it holds an unpaired surrogate (then also reported)."""
    marker = _unpaired_surrogate(key)
    if marker is None:
        return key
    escaped = json.dumps(key)[1:-1]
    found.append(((*path, escaped), _Marker(f"member name: {marker.message}", marker.type, None, None)))
    return escaped


def _standing_in(
    value: Any, path: tuple[str, ...], found: list[tuple[tuple[str, ...], _Marker]], cut_at: Cut
) -> Any:
    """``value`` with every marker, every stand-in of ``cut_at`` and every string holding an unpaired
    surrogate replaced by its stand-in; each replaced value's place and marker appended to ``found``."""
    if isinstance(value, _Marker):
        found.append((path, value))
        return value.stand_in
    if isinstance(value, str):
        depth = cut_at.depth_of(value)
        if depth is not None:
            found.append(
                (path, _Marker(f"nests more than {READ_DEPTH} levels", _TOO_DEEP, None, None, depth))
            )
            return None
        marker = _unpaired_surrogate(value)
        if marker is None:
            return value
        found.append((path, marker))
        return marker.stand_in
    if isinstance(value, dict):
        out = {}
        repeated = getattr(value, "repeated", ())
        for k, v in value.items():
            key = _key(k, path, found)
            out[key] = _standing_in(v, (*path, key), found, cut_at)
            if k in repeated:
                found.append(((*path, key), _REPEATED))
        return out
    if isinstance(value, list):
        return [_standing_in(v, (*path, str(i)), found, cut_at) for i, v in enumerate(value)]
    return value


def _decode(body: bytes) -> tuple[bool, Any, list[tuple[tuple[str, ...], _Marker]]]:
    """(decoded?, the body as JSON with stand-ins — or, not decoded, the parser's message saying where —,
    where the unreadable values were). Read as the SDK
    reads it (``pydantic_core.from_json``, ~30x faster than ``json.loads``); only a body it refuses, or
    one nested deeper than ``READ_DEPTH``, is read again: cut to that depth (``json_depth.cut``), by
    ``json.loads`` with the hooks that mark over-long numbers and repeated member names, then walked for
    unpaired surrogates and the cut's stand-ins. A body in which some member name occurs twice is read
    again too (``_repeats_a_member``): pydantic_core keeps the last of a repeated member silently."""
    refused = ""
    try:
        message = pydantic_core.from_json(body)
        if not deeper_than(body, READ_DEPTH) and not _repeats_a_member(body):
            return True, message, []
    except ValueError as exc:
        refused = str(exc)  # "EOF while parsing a value at line 1 column 46"
    found: list[tuple[tuple[str, ...], _Marker]] = []
    cut_at = cut(body)
    try:
        message = json.loads(cut_at.body, parse_int=_int, parse_float=_float, object_pairs_hook=_members)
        return True, _standing_in(message, (), found, cut_at), found
    except (ValueError, RecursionError):  # invalid JSON or UTF-8
        return False, refused, []


def _valid_id(message: dict[str, Any]) -> str | int | None:
    rpc_id = message.get("id")
    return (
        rpc_id
        if isinstance(rpc_id, str) or (isinstance(rpc_id, int) and not isinstance(rpc_id, bool))
        else None
    )


def _envelope_defect(message: dict[str, Any]) -> Refusal | None:
    """What is wrong with a request's or notification's members, if anything."""
    rpc_id = _valid_id(message)

    def refuse(field: str, what: str, code: int = INVALID_REQUEST) -> Refusal:
        prefix = "Invalid Request" if code == INVALID_REQUEST else "Invalid params"
        return Refusal(code, f"{prefix}: {field} {what}", field, rpc_id)

    if message.get("jsonrpc") != "2.0":
        return refuse("jsonrpc", 'must be "2.0"')
    if "method" not in message:
        return refuse("method", "is required (a string)")
    if not isinstance(message["method"], str):
        return refuse("method", "must be a string")
    if "id" in message and rpc_id is None:
        return refuse("id", "must be a string or an integer")
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return refuse("params", "must be an object")
    if message["method"] == "tools/call" and "id" in message:
        params = params or {}
        if "name" not in params:
            return refuse("params.name", "is required (the tool's name, a string)", INVALID_PARAMS)
        if not isinstance(params["name"], str):
            return refuse("params.name", "must be a string", INVALID_PARAMS)
        if params.get("arguments") is not None and not isinstance(params["arguments"], dict):
            return refuse("params.arguments", "must be an object", INVALID_PARAMS)
    return None


def check_body(body: bytes) -> Refusal | Rewrite | None:
    """How to answer a POSTed body: refuse it, forward a rewrite, or (None) forward it untouched."""
    decoded, message, found = _decode(body)
    if not decoded:  # the 2026-07-28 path of the SDK said only "Parse error"; the 2025 one said where
        return Refusal(PARSE_ERROR, f"Parse error: {message or 'the body is not JSON'}"[:300], "body")
    if isinstance(message, list):  # a batch is ``http_guard``'s own answer
        return None
    if not isinstance(message, dict):
        return Refusal(INVALID_REQUEST, "Invalid Request: the body must be a JSON-RPC request object", "body")
    if "method" not in message and ("result" in message or "error" in message):
        return None
    at_id = [m for p, m in found if p == ("id",)]
    if at_id:
        return Refusal(INVALID_REQUEST, f"Invalid Request: id: {at_id[0].message}", "id")
    defect = _envelope_defect(message)
    if defect is not None or not found:
        return defect
    outside = [(p, m) for p, m in found if p[:2] != ("params", "arguments") or len(p) <= 2]
    if message["method"] != "tools/call" or "id" not in message or outside:
        path, marker = (outside or found)[0]
        where = ".".join(path[:6]) + (".…" if len(path) > 6 else "")
        what = (
            f"the body nests {len(path) + marker.depth} levels deep at {where}; the limit is {READ_DEPTH}"
            if marker.type == _TOO_DEEP
            else f"{where}: {marker.message}"
        )
        return Refusal(INVALID_REQUEST, f"Invalid Request: {what}", where, _valid_id(message))
    errors = tuple(
        Unreadable(".".join(p[2:]), m.message, m.type, m.limit, p[2:], len(p) - 3 + m.depth)
        for p, m in found[:20]
    )
    message["params"]["arguments"][unreadable_key()] = [asdict(u) for u in errors]
    return Rewrite(json.dumps(message).encode(), errors)

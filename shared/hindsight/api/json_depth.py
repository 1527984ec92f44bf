"""How deeply a JSON body nests, and the body cut down to a depth every parser on the way can read.

Why: the SDK's parsers refuse a body nested past their recursion limits (pydantic_core's is ~250 levels;
the SDK's model validation fails earlier, ~200, and the 2026-07-28 path re-reads the arguments with a
lower one still), and the answer — -32700 "recursion limit exceeded", or an ``isError`` naming
``arguments`` — names neither the argument nor our limit. So ``api.request_body`` reads no body deeper
than ``READ_DEPTH``: each container that opens below it is replaced, in the bytes, by a stand-in string
that records how deep that container went, and the caller names the argument and its limit.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from hindsight.domain.limits import MAX_METADATA_DEPTH

READ_DEPTH = 64
"""The deepest body (containers, the envelope's included) read as it is. A tools/call's arguments sit
at depth 3 (body, params, arguments); the deepest argument any tool takes, metadata, nests at most
``limits.MAX_METADATA_DEPTH`` (5) levels, and the 2026-07-28 ``_meta`` envelope 3 more."""


def deeper_than(body: bytes, limit: int) -> bool:
    """Whether JSON text ``body`` nests more than ``limit`` containers deep. Counting the opening
    brackets first (C speed) answers most bodies: one with no more than ``limit`` cannot."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    return bool(_depths(body)[0].max() > limit)


@dataclass(frozen=True)
class Cut:
    """A body whose containers below ``READ_DEPTH`` became stand-in strings ``"<prefix><depth>"``,
    ``depth`` being how many levels the replaced container nested (1 for ``[]``)."""

    body: bytes
    prefix: str

    def depth_of(self, value: Any) -> int | None:
        """The depth a stand-in records, or None if ``value`` is not one."""
        if isinstance(value, str) and value.startswith(self.prefix):
            return int(value[len(self.prefix) :])
        return None


def _depths(body: bytes) -> tuple[Any, Any, Any]:
    """(depth after each byte, is an opening bracket, is a closing bracket), brackets inside strings
    not counted; vectorised (numpy), as a 4 MiB body of brackets would take seconds byte by byte."""
    import numpy as np  # only for a body the parsers refuse or that nests past READ_DEPTH

    raw = np.frombuffer(body, dtype=np.uint8)
    quote = raw == ord('"')
    if b"\\" in body:  # a quote after an odd run of backslashes is escaped: text, not a string's end
        index = np.arange(raw.size, dtype=np.int32)
        last_other = np.maximum.accumulate(np.where(raw == ord("\\"), -1, index))
        run_before = np.zeros(raw.size, dtype=np.int32)
        run_before[1:] = index[:-1] - last_other[:-1]
        quote &= run_before % 2 == 0
    outside = (np.cumsum(quote, dtype=np.int32) & 1) == 0  # after an even number of quotes
    outside &= ~quote
    opening = outside & ((raw == ord("[")) | (raw == ord("{")))
    closing = outside & ((raw == ord("]")) | (raw == ord("}")))
    depth = np.cumsum(opening.view(np.int8) - closing.view(np.int8), dtype=np.int32)
    return depth, opening, closing


def cut(body: bytes, read_depth: int = READ_DEPTH) -> Cut:
    """``body`` with each container opening deeper than ``read_depth`` replaced by a stand-in string.
    A lexical scan (strings skipped, brackets counted), so invalid JSON stays invalid for the parser
    after it to refuse. Linear in the body's size (~0.1 s for 4 MiB of brackets)."""
    import numpy as np

    prefix = f"hindsight-too-deep-{uuid.uuid4().hex}:"
    if not body:
        return Cut(body, prefix)
    depth, opening, closing = _depths(body)
    starts = np.flatnonzero(opening & (depth == read_depth + 1))
    ends = np.flatnonzero(closing & (depth == read_depth))
    paired = min(starts.size, ends.size)
    if int(depth.min()) < 0 or bool(np.any(ends[:paired] < starts[:paired])):
        return Cut(body, prefix)  # unbalanced: not JSON, left for the parser to refuse
    parts: list[bytes] = []
    kept_from = 0
    for start, end in zip(starts.tolist(), ends.tolist(), strict=False):  # an unclosed one stays as it is
        deepest = int(depth[start : end + 1].max())
        parts += [body[kept_from:start], f'"{prefix}{deepest - read_depth}"'.encode()]
        kept_from = end + 1
    parts.append(body[kept_from:])
    return Cut(b"".join(parts), prefix)


FREE_FORM_DEPTH = MAX_METADATA_DEPTH - 1
"""How deep a free-form JSON value (schema ``{}``) may nest below its parent: the only free-form JSON a
tool takes is metadata's values (``limits.Metadata``), an object of at most ``MAX_METADATA_DEPTH``."""


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``node`` with ``$ref`` followed and an optional (``anyOf`` [X, null]) unwrapped."""
    while True:
        if "$ref" in node:
            node = defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {})
            continue
        options = [o for o in node.get("anyOf", []) if o.get("type") != "null"]
        if len(options) == 1:
            node = options[0]
            continue
        return node


def allowed_depth(node: dict[str, Any], defs: dict[str, Any]) -> int:
    """How many containers deep a value of JSON schema ``node`` may nest (a string: 0, a list of
    strings: 1; free-form JSON: ``FREE_FORM_DEPTH``)."""
    node = _resolve(node, defs)
    if not node:
        return FREE_FORM_DEPTH
    if "anyOf" in node:
        return max(allowed_depth(o, defs) for o in node["anyOf"])
    children: list[dict[str, Any]] = []
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        children = [node["items"]]
    elif node.get("type") == "object":
        children = list(node.get("properties", {}).values())
        if isinstance(node.get("additionalProperties"), dict):
            children.append(node["additionalProperties"])
    else:
        return 0
    return 1 + max((allowed_depth(c, defs) for c in children), default=0)


def schema_field(schema: dict[str, Any], path: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """The argument a too-deep value belongs to: ``path`` (under the arguments, e.g. ``("metadata",
    "a", "0", …)``) down to where the tool's input ``schema`` stops naming members (free-form JSON, or
    a value that is no container), and how deep that argument may nest."""
    defs = schema.get("$defs", {})
    node, named = schema, 0
    for part in path:
        node = _resolve(node, defs)
        properties = node.get("properties", {})
        if node.get("type") == "object" and part in properties:
            node = properties[part]
        elif node.get("type") == "array" and part.isdigit() and isinstance(node.get("items"), dict):
            node = node["items"]
        else:
            break
        named += 1
    if named == 0:  # not an argument of the tool: ``call_tool`` refuses it by name before this counts
        return path[:1], 0
    return path[:named], allowed_depth(node, defs)

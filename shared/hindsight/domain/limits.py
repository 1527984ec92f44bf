"""Input limits and the annotated field types that carry them.

One place for every bound: the MCP tool schemas, the domain request models and the worker message
schema all use these types, so a limit changed here changes everywhere and error messages name it.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, Field, JsonValue, StringConstraints

MAX_CONTENT_CHARS = 32_000
MAX_KEY_CHARS = 200
MAX_RECALL_HINT_CHARS = 1_000
MAX_SEARCH_QUERY_CHARS = 2_000
MAX_TOP_K = 100
MAX_STATUS_IDS = 100
MAX_AGENT_ID_CHARS = 128
MAX_METADATA_BYTES = 8_192
MAX_METADATA_DEPTH = 5
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_ENTITIES = 32
MAX_ENTITY_VALUE_CHARS = 256
MAX_KEY_DECISIONS = 3  # the seeds' task record keeps at most three key decisions
MAX_SHORT_TEXT_CHARS = 2_000
MAX_CHAIN_DEPTH = 10  # the seeds' causal-chain recall limit
MAX_REASON_CHARS = 500
DEFAULT_TOP_K = 10
DEFAULT_AGENT_ID = "default"
DEFAULT_IMPORTANCE = 0.5

# C0/C1 controls other than tab, newline and carriage return are refused: Postgres cannot store NUL,
# and invisible control characters are a known vector for hiding instructions in stored text.
_ALLOWED_CONTROLS = {"\t", "\n", "\r"}


def _clean_text(value: str) -> str:
    for ch in value:
        if ch in _ALLOWED_CONTROLS:
            continue
        if unicodedata.category(ch) in ("Cc", "Cs"):
            raise ValueError(f"control or surrogate character U+{ord(ch):04X} is not allowed")
    return value


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _metadata_depth(value: Any) -> int:
    """Nesting depth: 0 for a scalar, 1 for a flat object or list."""
    if isinstance(value, dict):
        return 1 + max((_metadata_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_metadata_depth(v) for v in value), default=0)
    return 0


def _check_entities(value: dict[str, Any]) -> dict[str, Any]:
    if len(value) > MAX_ENTITIES:
        raise ValueError(f"{len(value)} entities; the limit is {MAX_ENTITIES}")
    for name, item in value.items():
        values = item if isinstance(item, list) else [item]
        if len(values) > MAX_ENTITIES:
            raise ValueError(f"entity '{name}' has {len(values)} values; the limit is {MAX_ENTITIES}")
        for v in values:
            if len(str(v)) > MAX_ENTITY_VALUE_CHARS:
                raise ValueError(f"entity '{name}' value longer than {MAX_ENTITY_VALUE_CHARS} characters")
            _clean_text(str(v))
    return value


def _check_metadata(value: dict[str, JsonValue]) -> dict[str, JsonValue]:
    size = len(json.dumps(value, ensure_ascii=False).encode())
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is {size} bytes as JSON; the limit is {MAX_METADATA_BYTES}")
    depth = _metadata_depth(value)
    if depth > MAX_METADATA_DEPTH:
        raise ValueError(f"metadata nests {depth} levels deep; the limit is {MAX_METADATA_DEPTH}")
    _clean_text(json.dumps(value, ensure_ascii=False))
    return value


Content = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT_CHARS),
    AfterValidator(_clean_text),
    Field(description=f"The memory itself, in plain language (1–{MAX_CONTENT_CHARS} characters)."),
]
MemoryKey = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_KEY_CHARS),
    AfterValidator(_clean_text),
    Field(
        description="What the memory is about: a stable topic such as 'user.display_preference' or "
        f"'order:A-1042' (≤ {MAX_KEY_CHARS} characters). Memories with the same key are deduplicated."
    ),
]
RecallHint = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_RECALL_HINT_CHARS),
    AfterValidator(_clean_text),
    Field(description="When this memory should be recalled: a question it answers."),
]
SearchText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SEARCH_QUERY_CHARS),
    AfterValidator(_clean_text),
    Field(
        description=f"What you want to remember, as a question or phrase (≤ {MAX_SEARCH_QUERY_CHARS} chars)."
    ),
]
AgentId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_AGENT_ID_CHARS, pattern=r"^[A-Za-z0-9_.:@-]+$"),
    Field(description="Which agent's memory to use (letters, digits and _.:@-). Defaults to 'default'."),
]
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description=f"How many memories to return (1–{MAX_TOP_K}).")]
Importance = Annotated[
    float, Field(ge=0.0, le=1.0, description="How much this matters, 0–1 (0.5 ordinary, 0.9 critical).")
]
Metadata = Annotated[
    dict[str, JsonValue],
    AfterValidator(_check_metadata),
    Field(description=f"Free-form JSON (≤ {MAX_METADATA_BYTES} bytes, ≤ {MAX_METADATA_DEPTH} levels deep)."),
]
Timestamp = Annotated[datetime, AfterValidator(_utc)]
Tag = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, to_lower=True, min_length=1, max_length=MAX_TAG_CHARS, pattern=r"^[\w.:/-]+$"
    ),
]
Tags = Annotated[
    list[Tag],
    Field(max_length=MAX_TAGS, description=f"Labels to filter by (≤ {MAX_TAGS}, letters/digits/_.:/-)."),
]
EntityName = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z][\w.-]*$")]
EntityValue = str | int | float | bool
Entities = Annotated[
    dict[EntityName, EntityValue | list[EntityValue]],
    AfterValidator(_check_entities),
    Field(
        description='Named things this memory is about, e.g. {"order_id": "A-1042", "user": "maya"} '
        f"(≤ {MAX_ENTITIES}); they power exact entity recall."
    ),
]
ShortText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SHORT_TEXT_CHARS),
    AfterValidator(_clean_text),
]
Reason = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_REASON_CHARS),
    AfterValidator(_clean_text),
    Field(description=f"Why (kept in the memory's history; ≤ {MAX_REASON_CHARS} characters)."),
]
IdempotencyKey = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128, pattern=r"^[\x21-\x7e]+$"),
    Field(
        description="Your own id for this write: retrying with the same key returns the same memory id "
        "and never stores twice (printable ASCII, ≤ 128)."
    ),
]

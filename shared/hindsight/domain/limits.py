"""Input limits and the annotated field types that carry them.

One place for every bound: the MCP tool schemas, the domain request models and the worker message
schema all use these types, so a limit changed here changes everywhere and error messages name it.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, Strict, StringConstraints
from pydantic_core import PydanticCustomError, SchemaValidator, core_schema

from hindsight.domain.errors import InvalidInput

MAX_CONTENT_CHARS = 32_000
MAX_KEY_CHARS = 200
MAX_RECALL_HINT_CHARS = 1_000
MAX_SEARCH_QUERY_CHARS = 2_000
MAX_TOP_K = 100
MAX_STATUS_IDS = 100
MAX_BATCH_ITEMS = 100
"""Writes per ``memory_write_batch`` call (ten SQS ``SendMessageBatch`` requests)."""
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
MAX_ENTITIES_BYTES = 8_192
"""All of a memory's entities as UTF-8 JSON (like metadata): 32 names × 32 values × 256 characters would
otherwise make a single write larger than an SQS message may be."""
MAX_JOB_BYTES = 262_144
"""A queued job as UTF-8 JSON: SQS's classic message limit (256 KiB), which every queue accepts. The field
limits keep a write below it (≈ 210 KiB at four bytes per character); the check is the last guard."""
MIN_TIMESTAMP = datetime(1900, 1, 1, tzinfo=UTC)
MAX_TIMESTAMP = datetime(2101, 1, 1, tzinfo=UTC)
"""Every instant a caller gives (occurred_at, valid_from/valid_to, as_of, time filters) is in
[1900-01-01, 2101-01-01) UTC: room for a person's history and plans, and far enough from the calendar's
ends (years 1 and 9999) that time zones and relative phrases cannot overflow. The time types that
enforce it (one ISO 8601 parser for every field) are in ``domain.isotime``."""
TIMESTAMP_LIMIT = {"ge": "1900-01-01T00:00:00Z", "lt": "2101-01-01T00:00:00Z"}
MAX_TURN_INDEX = 10_000_000
"""Turn and session positions within a conversation: non-negative, below ten million (a conversation of a
turn a second for four months)."""
MAX_CONTEXT_WINDOW = 5
"""``memory_search`` returns at most this many turns before and after each hit (``context_window``)."""
DEFAULT_TOP_K = 10
DEFAULT_AGENT_ID = "default"
DEFAULT_IMPORTANCE = 0.5

# C0/C1 controls other than tab, newline and carriage return are refused: Postgres cannot store NUL,
# and invisible control characters are a known vector for hiding instructions in stored text.
_ALLOWED_CONTROLS = {"\t", "\n", "\r"}
# U+FFFE and U+FFFF are noncharacters outside what an SQS message may carry (#x9 | #xA | #xD | #x20-#xD7FF
# | #xE000-#xFFFD | #x10000-#x10FFFF, SendMessage docs): accepted, they would fail at the queue as
# "unavailable, retry" for ever.
_REFUSED_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
"""The characters ``_clean_text`` refuses, as one character class: Unicode's ``Cc`` (U+0000–U+001F and
U+007F–U+009F, a set Unicode's stability policy fixes) less tab, newline and carriage return, ``Cs`` (the
surrogates U+D800–U+DFFF) and the two noncharacters. One regex scan in C instead of a Python loop calling
``unicodedata.category`` per character (~40x faster on a write's text: every text field of every call is
checked at least twice, by the tool's argument check and by the draft model; bench/ab_write_ack.py)."""


def _clean_text(value: str) -> str:
    """``value`` unchanged; raises ValueError naming the first control, surrogate or noncharacter in it."""
    found = _REFUSED_CHARACTERS.search(value)
    if found is None:
        return value
    code = ord(found.group())
    if code in (0xFFFE, 0xFFFF):
        raise ValueError(f"noncharacter U+{code:04X} is not allowed")
    raise ValueError(f"control or surrogate character U+{code:04X} is not allowed")


_INVISIBLE = ("Z", "Cf", "Cc", "Mn", "Me", "Mc")
"""Unicode general categories (or their first letter) that show nothing by themselves: separators,
format characters (zero-width space U+200B, byte order mark U+FEFF), controls, combining marks."""


_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters Unicode files as letters or symbols that render as nothing: the Hangul fillers (choseong,
jungseong, compatibility, halfwidth) and the Braille blank — the usual "invisible name" characters."""


def _refuse_blank(value: Any) -> Any:
    """A non-empty string of whitespace only, refused as blank before stripping makes it "" (pydantic
    would say "String should have at least 1 character" of a 3-character string); so is one with no
    visible character at all ("\u200b\u200b", "\ufeff", a lone combining accent): nothing to read,
    embed or search. A control, surrogate or noncharacter is refused as such (``_clean_text``) first."""
    if not isinstance(value, str) or not value:
        return value
    # a refused character is named first, as the MCP argument check names it (trial F9: "\u0000" was
    # "control … U+0000" there and "must not be blank" from `hindsight ingest`)
    _clean_text(value)
    if not value.strip():
        raise PydanticCustomError("blank", "must not be blank (it is whitespace only)")
    if all(
        ch in _ALLOWED_CONTROLS or ch in _BLANK_LETTERS or unicodedata.category(ch).startswith(_INVISIBLE)
        for ch in value
    ):
        raise PydanticCustomError(
            "blank", "must not be blank (it holds only invisible characters: format, space or combining)"
        )
    return value


NOT_BLANK = BeforeValidator(_refuse_blank)
"""In the ``Annotated`` of a stripped text field with ``min_length=1``: a whitespace-only value is
refused as blank, not as too short."""


def _check_json_values(value: Any, what: str) -> None:
    """Every key and string free of control characters, every number finite (Postgres' jsonb refuses
    NUL and NaN/Infinity, so a write carrying them would be acknowledged and then never stored)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _clean_text(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise PydanticCustomError(
                    "json_number_not_finite", "{what} may not contain NaN or Infinity", {"what": what}
                )
        elif isinstance(item, dict):
            for key, child in item.items():
                _clean_text(str(key))
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def ensure_job_fits(body: str, fields: Mapping[str, Any], limit: int = MAX_JOB_BYTES) -> None:
    """Refuse a job whose JSON ``body`` is over ``limit`` bytes before it is queued (SQS would refuse it,
    and that must not read as "retry later"). ``fields`` are the caller's arguments as JSON-able values;
    the error names the largest.

    Raises:
        InvalidInput: field = the largest argument, limit = {"max_bytes": limit}.
    """
    size = len(body.encode())
    if size <= limit:
        return
    sizes = {name: len(json.dumps(value, ensure_ascii=False).encode()) for name, value in fields.items()}
    largest = max(sizes, key=lambda name: sizes[name], default="arguments")
    raise InvalidInput(
        largest,
        f"the write is {size} bytes as a queued job (the largest part, {largest}, is "
        f"{sizes.get(largest, 0)}); the limit is {limit}",
        {"max_bytes": limit},
    )


def _metadata_depth(value: Any) -> int:
    """Nesting depth: 0 for a scalar, 1 for a flat object or list."""
    if isinstance(value, dict):
        return 1 + max((_metadata_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_metadata_depth(v) for v in value), default=0)
    return 0


def _check_entities(value: dict[str, Any]) -> dict[str, Any]:
    if len(value) > MAX_ENTITIES:
        raise PydanticCustomError(
            "too_many_entities",
            "{count} entities; the limit is {max_items}",
            {"count": len(value), "max_items": MAX_ENTITIES},
        )
    for name, item in value.items():
        values = item if isinstance(item, list) else [item]
        if len(values) > MAX_ENTITIES:
            raise PydanticCustomError(
                "too_many_entity_values",
                "entity '{name}' has {count} values; the limit is {max_items}",
                {"name": name, "count": len(values), "max_items": MAX_ENTITIES},
            )
        for v in values:
            if len(str(v)) > MAX_ENTITY_VALUE_CHARS:
                raise PydanticCustomError(
                    "entity_value_too_long",
                    "entity '{name}' value longer than {max_length} characters",
                    {"name": name, "max_length": MAX_ENTITY_VALUE_CHARS},
                )
    _check_json_values(value, "entities")
    size = len(json.dumps(value, ensure_ascii=False).encode())
    if size > MAX_ENTITIES_BYTES:
        raise PydanticCustomError(
            "entities_too_large",
            "{size} bytes as JSON; the limit is {max_bytes}",
            {"size": size, "max_bytes": MAX_ENTITIES_BYTES},
        )
    return value


def _check_metadata(value: dict[str, JsonValue]) -> dict[str, JsonValue]:
    depth = _metadata_depth(value)
    if depth > MAX_METADATA_DEPTH:
        raise PydanticCustomError(
            "too_deep",  # the type api.request_body gives a value nested past what the body reader reads
            "nests {depth} levels deep; the limit is {max_depth}",
            {"depth": depth, "max_depth": MAX_METADATA_DEPTH},
        )
    _check_json_values(value, "metadata")
    size = len(json.dumps(value, ensure_ascii=False).encode())
    if size > MAX_METADATA_BYTES:
        raise PydanticCustomError(
            "metadata_too_large",
            "{size} bytes as JSON; the limit is {max_bytes}",
            {"size": size, "max_bytes": MAX_METADATA_BYTES},
        )
    return value


Content = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    Field(description=f"The memory itself, in plain language (1–{MAX_CONTENT_CHARS} characters)."),
]


@dataclass(frozen=True)
class Identifier:
    """Marks an annotated string type as an identifier that redaction must leave as written (a key, a
    working-memory session id): a tool argument of such a type that redaction would change is refused by
    the MCP argument check (``api.mcp_server``), before the tool runs, with the schema's other errors;
    ``what`` names it in the message and ``example`` is what to choose instead
    (``domain.redaction.identifier_refusal``)."""

    what: str
    example: str


def nfc(value: str) -> str:
    """``value`` in Unicode normalisation form C (composed). Keys are compared as stored strings, and the
    same visible key arrives in different forms — "café" with U+00E9 or with "e" + U+0301 (a macOS file
    name, a copy from a PDF): without one form they are two keys, two current facts. NFC, not NFKC: it
    only joins canonically equivalent sequences, so "ﬁ" and "fi", "①" and "1" stay distinct keys."""
    return unicodedata.normalize("NFC", value)


def _simple_lower(char: str) -> str:
    lower = char.lower()
    return lower[0]  # one character; only U+0130 "İ" lowers to two ("i" + U+0307), its simple mapping is "i"


def key_form(value: str) -> str:
    """The form a long-term memory's key is stored and compared in: NFC (``nfc``), then each character's
    lower-case letter (Unicode's simple one-to-one mapping). Keys name facts the way identifiers do, and
    a caller writes "User.Home" one day and "user.home" the next: compared as written they were two keys,
    two current values of one fact (keys15 HIGH). Lower case, not ``casefold``: the key is stored and
    shown in this form ("straße" stays "straße", not "strasse"). One character for one (no context,
    no special casing): migration 029 lowered the keys stored before it with the same mapping,
    character by character (``translate``, whatever the database's locale), and a test holds the two
    equal. Raises nothing."""
    return "".join(map(_simple_lower, nfc(value)))


KEY_FORM = AfterValidator(key_form)
"""In the ``Annotated`` of every long-term key a caller gives (written, moved onto, filtered by): its
stored form (``key_form``), so two spellings that differ only in case are one key everywhere."""
NFC_FIRST = BeforeValidator(lambda v: nfc(v) if isinstance(v, str) else v)
"""Last in an ``Annotated`` (so it runs first, and the string constraints keep their own messages): a tag
or entity name in NFC, so "café" written with a combining accent (which the
pattern's word class does not match) is the same tag as the composed one, in a write and in a filter."""
KeyFilter = Annotated[str, KEY_FORM]
"""A key a read filters by (``SearchRequest.key``, a summary's key), in the form keys are stored in."""
ItemKey = Annotated[
    str,
    Identifier("key", "contact.alice"),
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_KEY_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    AfterValidator(nfc),
]
"""The name of a working-memory item (``domain.working_memory.WorkingMemoryKey``): a ``MemoryKey``'s
limits, in NFC, case kept as written (a session's scratchpad names its items as the caller does; only a
long-term key names a fact, ``key_form``)."""


_AnyKey = Annotated[
    str,
    Identifier("key", "contact.alice"),
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_KEY_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    KEY_FORM,
]
MemoryKey = Annotated[
    _AnyKey,
    Field(
        description="What the memory is about: a stable topic such as 'user.display_preference' or "
        f"'order:A-1042' (≤ {MAX_KEY_CHARS} characters; case-insensitive: stored in lower case, so "
        "'User.Home' is 'user.home'). A key holds ONE current value: a new value "
        "written on it supersedes the old one, and repeats are merged. For list-like facts use one key per "
        "item ('alex.allergy.peanuts', 'alex.allergy.shellfish'), or write 'also …' to add a value."
    ),
]
_KEY_FILTER_DESCRIPTION = (
    "Only memories holding exactly this key (case-insensitive: 'User.Home' is 'user.home'; words of "
    "letters, digits and _:@- joined by dots). Keys below it are not matched: 'alex.allergy' does not "
    "find 'alex.allergy.peanuts' (the answer's note names such keys when nothing matched)."
)
MemoryKeyFilter = Annotated[_AnyKey, Field(description=_KEY_FILTER_DESCRIPTION)]
"""The ``key`` filter of memory_search and memory_summarize: ``MemoryKey``'s limits and form, described
as a filter (``MemoryKey``'s description is a key a write sets: "a key holds ONE current value…")."""
_KEY_CHARACTER = r"[^\s\x00-\x2c\x2e\x2f\x3b-\x3f\x5b-\x5e\x60\x7b-\x9f\ufeff]"
"""One character of a key segment, as every regex dialect reads it alike: no whitespace, control, dot
or ASCII punctuation but ``_:@-`` (only hexadecimal escapes and ``\\s`` in a negated class)."""
KEY_PATTERN = rf"^{_KEY_CHARACTER}+(?:\.{_KEY_CHARACTER}+)*$"
"""The grammar of a key a write gives (new-user trial: ``key: "user city!!"`` was stored): segments of
letters (any script, either case: the docs' own 'order:A-1042'; stored in lower case, ``key_form``),
digits and ``_:@-``, joined by single dots — the keys the docs and agents use ('user.home',
'project.db_version', 'order:A-1042'). Spaces and other punctuation are refused, never rewritten (a
rewritten key would be another key). Only new writes obey it: a key an older version stored keeps
working — read, filtered by (``KeyFilter``, ``MemoryKey``), updated and forgotten — and keeps its value
when ``memory_update`` leaves ``key`` out. ``@`` stays allowed so a key holding an e-mail address is
refused by redaction with its reason (``domain.redaction.identifier_refusal``), not by the grammar.

The pattern is the one the tool schemas publish and pydantic checks, written so that JSON Schema's
ECMA-262 dialect (where ``\\w`` is ASCII only, keys15: the schema refused "café.menu", which the server
took), Python's ``re`` and pydantic's Rust engine (where ``\\w`` is Unicode) read it alike: it names
the ASCII it refuses and takes the rest. A non-ASCII character that is no letter, mark or digit ("—",
"…", an emoji) it cannot tell apart in every dialect; ``_key_letters`` refuses it with the same error."""


def _is_key_letter(char: str) -> bool:
    """Whether ``char`` may stand in a key matching ``KEY_PATTERN``: a letter, mark or digit (Unicode
    categories L, M, N) or one of ``._:@-``."""
    return char in "._:@-" or unicodedata.category(char)[0] in "LMN"


def _key_letters(value: str) -> str:
    """``value`` (a key matching ``KEY_PATTERN``) unchanged; raises the pattern's own error when a
    character is no letter, mark or digit (Unicode categories L, M, N) nor one of ``_:@-``."""
    if not all(map(_is_key_letter, value)):
        raise PydanticCustomError(
            "string_pattern_mismatch", "String should match pattern '{pattern}'", {"pattern": KEY_PATTERN}
        )
    return value


_KEY = re.compile(KEY_PATTERN)


def in_key_grammar(key: str) -> bool:
    """Whether ``key`` is one a write may set today (``KEY_PATTERN``, ``_key_letters``): a key filter
    outside it can only name a key an older version stored (``usecases.key_filter``). Raises nothing."""
    return _KEY.fullmatch(key) is not None and all(map(_is_key_letter, key))


KEY_FORMAT = (
    "words of letters, digits and _:@- joined by dots, such as 'user.home' or 'project.db_version' "
    "(no spaces or other punctuation)"
)
NewMemoryKey = Annotated[
    str,
    Identifier("key", "contact.alice"),
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_KEY_CHARS, pattern=KEY_PATTERN),
    NOT_BLANK,
    AfterValidator(_clean_text),
    AfterValidator(_key_letters),
    KEY_FORM,
    Field(
        description="What the memory is about: a stable topic such as 'user.display_preference' or "
        f"'order:A-1042' ({KEY_FORMAT}; ≤ {MAX_KEY_CHARS} characters; case-insensitive: stored in lower "
        "case, so 'User.Home' is 'user.home'). A key holds ONE current value: a "
        "new value written on it supersedes the old one, and repeats are merged. For list-like facts use "
        "one key per item ('alex.allergy.peanuts', 'alex.allergy.shellfish'), or write 'also …' to add a "
        "value."
    ),
]
"""A key a write sets (``memory_write``, a batch item, ``memory_update``'s new key,
``working_memory_promote``'s ``memory_key``): a ``MemoryKey`` in the key grammar (``KEY_PATTERN``; in the
schema, so clients see it)."""
RecallHint = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_RECALL_HINT_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    Field(description="When this memory should be recalled: a question it answers."),
]
SearchText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SEARCH_QUERY_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    Field(
        description=f"What you want to remember, as a question or phrase (≤ {MAX_SEARCH_QUERY_CHARS} chars)."
    ),
]
PRINTABLE_ASCII = r"^[\x21-\x7e]+$"
"""The pattern of a caller's own id stored verbatim (conversation, idempotency key, task): printable ASCII
without spaces."""
AGENT_ID_PATTERN = r"^[A-Za-z0-9_.:@-]+$"
"""The pattern of an agent id and of a session id."""
_NAME_CHARACTER = r"[^\s\x00-\x2c\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x9f\ufeff]"
"""A character of an entity type's name after the first, as every regex dialect reads it alike: no
whitespace, control or ASCII punctuation but ``_.-`` (only hexadecimal escapes and ``\\s`` in a negated
class, as ``_KEY_CHARACTER``)."""
ENTITY_NAME_PATTERN = rf"^[A-Za-z]{_NAME_CHARACTER}*$"
"""An entity type's name (``EntityName``): an ASCII letter first, then letters (any script), digits,
'_', '.' or '-'. The pattern the tool schemas publish (as ``patternProperties``) and pydantic checks.

It was ``^[A-Za-z][\\w.-]*$``, and ``\\w`` is ASCII only in JSON Schema's ECMA-262 dialect but Unicode in
pydantic's (Rust) and Python's: a client reading the schema took "città" for no name of the pattern,
which the server stores. Written as ``KEY_PATTERN`` is, it reads alike in each; the non-ASCII characters
it cannot single out in every dialect ``_name_letters`` refuses with the same error."""


@cache
def _old_name_characters() -> SchemaValidator:
    """The characters the entity name pattern took before it was written for every dialect: Unicode's
    ``\\w`` as pydantic's regex engine (Rust's ``regex`` crate, with its own Unicode tables) reads it —
    letters, marks, decimal digits, connector punctuation, the joiners U+200C/U+200D, and what Unicode
    calls alphabetic beside them (circled letters). Unicode categories read by Python (``unicodedata``, an
    older Unicode in Python 3.11) would refuse some of these: a name stored or queued before must stay
    valid. Built on first use, once: nothing is built at import time (house rule; a process that never
    meets a non-ASCII name never builds it)."""
    return SchemaValidator(core_schema.str_schema(pattern=r"^[\w.-]*$"))


def _name_letters(value: str) -> str:
    """``value`` (a name matching ``ENTITY_NAME_PATTERN``) unchanged; raises the pattern's own error
    when a non-ASCII character of it is no word character (``_old_name_characters``): "a€", "a—b"."""
    if value.isascii() or _old_name_characters().isinstance_python(value):
        return value
    raise PydanticCustomError(
        "string_pattern_mismatch", "String should match pattern '{pattern}'", {"pattern": ENTITY_NAME_PATTERN}
    )


_TAG_CHARACTER = r"[^\s\x00-\x2c\x3b-\x40\x5b-\x5e\x60\x7b-\x9f\ufeff]"
TAG_PATTERN = rf"^{_TAG_CHARACTER}+$"
"""A tag (``Tag``): letters (any script), digits, '_', '.', ':', '/' or '-'. Written as
``ENTITY_NAME_PATTERN`` is (a negated class of the ASCII it refuses, hexadecimal escapes and ``\\s``
only), so JSON Schema's ECMA-262 dialect reads it as pydantic's does: it was ``^[\\w.:/-]+$``, whose
``\\w`` is ASCII in ECMA-262, and a client checking the schema refused "café", which the server stores.
The non-ASCII characters it cannot single out ``_tag_letters`` refuses with the same error."""


@cache
def _old_tag_characters() -> SchemaValidator:
    """The characters the tag pattern took before it was written for every dialect (as
    ``_old_name_characters``), read as it read them: stripped, not yet lower-cased (pydantic lowers with
    newer case tables than its regex's: U+A7D2, no word character to the regex, lowers to one). A tag
    stored or queued before must stay valid, none be added. Built on first use, once (as
    ``_old_name_characters``)."""
    return SchemaValidator(core_schema.str_schema(strip_whitespace=True, pattern=r"^[\w.:/-]*$"))


def _tag_letters(value: Any) -> Any:
    """``value`` unchanged; raises the tag pattern's own error when a non-ASCII character of it is no word
    character (``_old_tag_characters``): "a€", "a—b". Before the string constraints (after NFC), as the
    old pattern read it; a value that is no string is left to them."""
    if not isinstance(value, str) or value.isascii() or _old_tag_characters().isinstance_python(value):
        return value
    raise PydanticCustomError(
        "string_pattern_mismatch", "String should match pattern '{pattern}'", {"pattern": TAG_PATTERN}
    )


PATTERN_FORMATS: dict[str, str] = {
    PRINTABLE_ASCII: "printable ASCII without spaces (characters ! to ~)",
    ENTITY_NAME_PATTERN: "a letter, then letters, digits, _ . or - only (e.g. person, order_id)",
    AGENT_ID_PATTERN: "letters, digits and _.:@- only",
    KEY_PATTERN: KEY_FORMAT,
    TAG_PATTERN: "letters, digits and _.:/- only (e.g. project:alpha, v1.2)",
}
"""A pattern in words: the message and ``limit.format`` of a value that does not match it (a regex tells a
model little, trial L1); the JSON schemas keep the regex."""
AgentId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_AGENT_ID_CHARS, pattern=AGENT_ID_PATTERN),
    Field(description="Which agent's memory to use (letters, digits and _.:@-). Defaults to 'default'."),
]
MAX_SHARED_WITH = 32
SHARE_WITH_EVERY_AGENT = "*"
ChainSessionId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_AGENT_ID_CHARS, pattern=AGENT_ID_PATTERN),
    Field(
        description="The session (conversation or task run) this event belongs to: any stable id you choose "
        "(letters, digits and _.:@-, ≤ 128), the same for every write of the session. Each episodic write "
        "with it gets the session's previous event as its causal_parent (unless you give one, or "
        "chain=false), so memory_recall_chain returns the whole path."
    ),
]
ConversationId = Annotated[
    str,
    Identifier("conversation id", "chat-42"),  # stored verbatim: redaction would merge two conversations
    StringConstraints(min_length=1, max_length=128, pattern=PRINTABLE_ASCII),
    Field(
        description="The conversation (thread) this memory comes from, your own id for it (printable ASCII, "
        "≤ 128). Turns of one conversation are recalled with their neighbours."
    ),
]
TurnIndex = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        lt=MAX_TURN_INDEX,
        description="Position of the turn in its conversation (or in its session when session_index is "
        "given): 0, 1, 2, … in the order the turns were said. Needs conversation_id.",
    ),
]
SessionIndex = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        lt=MAX_TURN_INDEX,
        description="Which session (sitting) of the conversation the turn belongs to: 0, 1, 2, … "
        "Needs conversation_id.",
    ),
]
ContextWindow = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        le=MAX_CONTEXT_WINDOW,
        description="Also return up to this many turns before and after each hit from its conversation "
        f"(0–{MAX_CONTEXT_WINDOW}; 0: none), so you see the exchange, not a fragment.",
    ),
]


def _check_shared_with(value: list[str]) -> list[str]:
    """Each entry an agent id or '*' (every agent of the tenant); duplicates dropped, order kept; with
    '*', '*' alone (every agent includes those named). The error's limit is the rule the entry broke:
    its length (``max_length``) or its characters (``format``)."""
    for entry in value:
        if entry != SHARE_WITH_EVERY_AGENT and not _AGENT_ID.fullmatch(entry):
            sized = 0 < len(entry) <= MAX_AGENT_ID_CHARS  # then its characters are what is wrong
            raise PydanticCustomError(
                "shared_with_entry",
                f"each entry must be an agent id (letters, digits and _.:@-, 1–{MAX_AGENT_ID_CHARS} "
                "characters) or '*'",
                {"format": PATTERN_FORMATS[AGENT_ID_PATTERN]}
                if sized
                else {"max_length": MAX_AGENT_ID_CHARS},
            )
    if SHARE_WITH_EVERY_AGENT in value:
        return [SHARE_WITH_EVERY_AGENT]
    return list(dict.fromkeys(value))


def shared_with_others(shared_with: list[str], owner: str) -> list[str]:
    """``shared_with`` without ``owner``: an agent always reads its own memories, so naming itself shares
    nothing and is dropped (trial L2), as a duplicate is."""
    return [agent for agent in shared_with if agent != owner]


_AGENT_ID = re.compile(rf"[A-Za-z0-9_.:@-]{{1,{MAX_AGENT_ID_CHARS}}}")
SharedWith = Annotated[
    list[str],
    Field(
        max_length=MAX_SHARED_WITH,
        description="Other agents of your tenant that may read this memory (search, get, causal chains), "
        "or ['*'] for every agent; empty (the default) keeps it private. Only you (the writing agent) "
        f"can change, forget or link it. ≤ {MAX_SHARED_WITH} entries.",
    ),
    AfterValidator(_check_shared_with),
]
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description=f"How many memories to return (1–{MAX_TOP_K}).")]


def unit_fraction(value: float) -> float:
    """A 0–1 weight rounded to 6 decimals: stored as Postgres ``real``, where 1e-300 would underflow —
    an acknowledged write the worker could then never store."""
    return round(value, 6)


def _finite(value: Any) -> Any:
    """NaN and ±Infinity are refused as what they are not — a number between 0 and 1 — before the bounds
    are checked (NaN would otherwise read "should be less than or equal to 1")."""
    if isinstance(value, float) and not math.isfinite(value):
        raise PydanticCustomError(
            "unit_fraction",
            "must be a number between {ge} and {le} (not NaN or Infinity)",
            {"ge": 0, "le": 1},
        )
    return value


Fraction = Annotated[
    float,
    Strict(),  # a number: "0.9" or true would be a guess about a stored fact
    Field(ge=0.0, le=1.0),
    BeforeValidator(_finite),
]
"""A 0–1 number (importance, strength, thresholds): a JSON number, finite, in [0, 1]."""
Importance = Annotated[
    Fraction,
    Field(description="How much this matters, 0–1 (0.5 ordinary, 0.9 critical)."),
    AfterValidator(unit_fraction),
]
Strength = Annotated[
    Fraction,
    Field(description="How strong the link is (0–1)."),
    AfterValidator(unit_fraction),
]
Metadata = Annotated[
    dict[str, JsonValue],
    AfterValidator(_check_metadata),
    Field(description=f"Free-form JSON (≤ {MAX_METADATA_BYTES} bytes, ≤ {MAX_METADATA_DEPTH} levels deep)."),
]
Tag = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, to_lower=True, min_length=1, max_length=MAX_TAG_CHARS, pattern=TAG_PATTERN
    ),
    NOT_BLANK,
    BeforeValidator(_tag_letters),  # runs after NFC_FIRST (before-validators run last first)
    NFC_FIRST,
]
Tags = Annotated[
    list[Tag],
    Field(max_length=MAX_TAGS, description=f"Labels to filter by (≤ {MAX_TAGS}, letters/digits/_.:/-)."),
    AfterValidator(lambda tags: list(dict.fromkeys(tags))),
]
"""Tags in their stored form (stripped, lower case, NFC), each once, in the order first given: "Work",
"work" and "WORK" are one tag (new-user trial L1)."""


def _some_tags(tags: list[str]) -> list[str]:
    """A tag filter names at least one tag: ``[]`` would filter nothing, and an argument is never silently
    ignored (new-user trial L2)."""
    if not tags:
        raise PydanticCustomError(
            "no_tags", "an empty list filters nothing: give at least one tag, or leave tags out", {}
        )
    return tags


TagFilter = Annotated[Tags, AfterValidator(_some_tags)]
"""The tags a search filters by (memories with all of them): at least one."""
MAX_ENTITY_NAME_CHARS = 64
EntityName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_ENTITY_NAME_CHARS, pattern=ENTITY_NAME_PATTERN),
    AfterValidator(_name_letters),
    NFC_FIRST,
]
EntityValue = str | int | float | bool
ENTITY_SCALARS: tuple[type, ...] = get_args(EntityValue)
"""The types of an entity value (``EntityValue``, the one place they are named) for ``isinstance``: what
a type holds, alone or in a list (the write, the entities filter and its SQL/JSON path,
``adapters.postgres.entity_filter``)."""


def _shape(value: Any) -> str:
    """What a JSON value is, in words: "an object", "null", "a list", …"""
    if isinstance(value, dict):
        return "an object"
    if value is None:
        return "null"
    return "a list" if isinstance(value, list) else f"a {type(value).__name__}"


def _entity_value_shape(value: Any) -> Any:
    """One error for an entity value of the wrong shape (an object, null, a nested list), where the
    union below would give one per member ("entities.a.str: …; entities.a.int: …; …")."""
    if isinstance(value, ENTITY_SCALARS):
        return value
    if isinstance(value, list):
        wrong = next((v for v in value if not isinstance(v, ENTITY_SCALARS)), None)
        if wrong is None and None not in value:
            return value
        got = f"a list holding {_shape(wrong)}"
    else:
        got = _shape(value)
    raise PydanticCustomError(
        "entity_value", "must be a string, number or boolean, or a list of them (got {got})", {"got": got}
    )


Entities = Annotated[
    dict[EntityName, Annotated[EntityValue | list[EntityValue], BeforeValidator(_entity_value_shape)]],
    AfterValidator(_check_entities),
    Field(
        description='Named things this memory is about, e.g. {"order_id": "A-1042", "user": "maya"}; a type '
        'naming several takes a list, {"person": ["Alice Nguyen", "Bob Ferris"]}, and the entities filter '
        f"finds the memory by any one of them (≤ {MAX_ENTITIES} types, ≤ {MAX_ENTITIES} values a type); they "
        "power exact entity recall.",
        # pydantic publishes the name pattern only as patternProperties, which refuses no name (a name
        # outside it is merely unconstrained): propertyNames makes a schema-checking client refuse it too
        json_schema_extra={
            "propertyNames": {
                "minLength": 1,
                "maxLength": MAX_ENTITY_NAME_CHARS,
                "pattern": ENTITY_NAME_PATTERN,
            }
        },
    ),
]


def _no_blank_entity_values(value: dict[str, Any]) -> dict[str, Any]:
    """An entity filter's values are not blank: ``{"person": ""}`` matches no memory and names nothing to
    look for (new-user trial L3)."""
    for name, item in value.items():
        values = item if isinstance(item, list) else [item]
        if not values or any(isinstance(v, str) and not v.strip() for v in values):
            raise PydanticCustomError(
                "blank_entity_value",
                "entity '{name}' has a blank or empty value: give the value to look for, or leave the entity "
                "out",
                {"name": name},
            )
    return value


EntityFilter = Annotated[Entities, AfterValidator(_no_blank_entity_values)]
"""The entities a search filters by (memories whose entities include these): no blank value."""


def _no_blank_written_values(value: dict[str, Any]) -> dict[str, Any]:
    """A written entity's values are not blank: ``{"person": ""}`` names no one, the entities filter
    refuses to look for it, and a merge carried it on to another memory (trial21). A blank string in a
    list is refused the same way."""
    for name, item in value.items():
        values = item if isinstance(item, list) else [item]
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise PydanticCustomError(
                "blank_entity_value",
                "entity '{name}' has a blank or empty value: give its value, or leave the entity out",
                {"name": name},
            )
    return value


NewEntities = Annotated[Entities, AfterValidator(_no_blank_written_values)]
"""The entities a write or an update gives (``memory_write``, each batch item, ``memory_update``): no
blank value. Only the tools' arguments: what is queued or stored keeps ``Entities``, so nothing written
before is refused when read."""
ContextText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SHORT_TEXT_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    Field(
        description="Surrounding text that helps find this memory — e.g. the message it answered — without "
        f"being the memory itself; embedded and indexed, not returned as content (≤ {MAX_SHORT_TEXT_CHARS})."
    ),
]
ShortText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SHORT_TEXT_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
]
Reason = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_REASON_CHARS),
    NOT_BLANK,
    AfterValidator(_clean_text),
    Field(description=f"Why (kept in the memory's history; ≤ {MAX_REASON_CHARS} characters)."),
]
IdempotencyKey = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128, pattern=PRINTABLE_ASCII),
    Field(
        description="Your own id for this write: retrying with the same key returns the same memory id "
        "and never stores twice (printable ASCII, ≤ 128)."
    ),
]

"""Files people bring to ``hindsight ingest``: JSON Lines of memory writes, or a LoCoMo-format dataset
(Maharana et al., ACL 2024: a list of conversations with ``session_<n>`` turn lists and
``session_<n>_date_time`` dates). Pure parsing: the caller reads the file.

A file is read whole before anything is written: every bad line or record is reported (``InvalidFile``,
with where it is) and none of the file is ingested. Every item gets an idempotency key (its own, the
LoCoMo turn id, or a hash of the line), so ingesting a file twice stores nothing twice. One key names
one write: a file using a key (for one agent) twice with different arguments is refused as a whole
(the second write could never be stored, retried or not); twice with identical arguments is a replay
and stores one memory, as a retried ``memory_write`` does.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import AgentId
from hindsight.domain.memory import MemoryDraft, check_period_end

Format = Literal["jsonl", "locomo"]
_SESSION = re.compile(r"^session_(\d+)$")
_AGENT_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@-]+")


@cache
def _agent_id() -> TypeAdapter[str]:
    """The validator of a line's ``agent_id`` (``AgentId``), built on first use: nothing at import time."""
    return TypeAdapter(AgentId)


@dataclass(frozen=True)
class IngestItem:
    """One memory to write: the draft, the agent it belongs to (None: the caller's default), and where
    it came from (line number, or the LoCoMo turn id) for error messages."""

    draft: MemoryDraft
    agent_id: str | None
    origin: str


EXPECTED: dict[Format, str] = {
    "jsonl": (
        'JSON Lines: one JSON object per line with at least "content" and any other memory_write field '
        "(layer, key, occurred_at, tags, …, plus agent_id, idempotency_key, valid_from, valid_to); blank "
        "lines and lines starting with # are skipped"
    ),
    "locomo": (
        'LoCoMo: one JSON array of conversations, each {"sample_id": …, "conversation": '
        '{"session_<n>": [{"speaker": …, "dia_id": …, "text": …}, …], '
        '"session_<n>_date_time": "1:56 pm on 8 May, 2023"}}'
    ),
}
"""What each format looks like, for error messages and ``--help``."""
MAX_PROBLEMS = 1_000
"""Problems kept (with where they are) when a file is refused; the rest are only counted."""


@dataclass(frozen=True)
class Problem:
    """One bad record: where it is ("line 3", "conv-26 session_2 turn 4 (D2:4)") and what is wrong."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class InvalidFile(InvalidInput):
    """A file ``hindsight ingest`` refuses as a whole: ``problems`` (at most MAX_PROBLEMS, in file order)
    of ``count`` bad records, and the ``format`` it was read as (``EXPECTED[format]`` says what that
    is). ``field`` names the first problem's place."""

    def __init__(self, file_format: Format, problems: list[Problem], count: int | None = None) -> None:
        self.format = file_format
        self.problems = problems[:MAX_PROBLEMS]
        self.count = len(problems) if count is None else count
        first = problems[0]
        more = f" (and {self.count - 1} more)" if self.count > 1 else ""
        super().__init__(first.where, f"{first.message}{more}")


class _Problems:
    """Collects problems: every one counted, the first MAX_PROBLEMS kept."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.count = 0

    def add(self, where: str, message: str) -> None:
        self.count += 1
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(Problem(where, message))

    def raise_if_any(self, file_format: Format) -> None:
        if self.count:
            raise InvalidFile(file_format, self.kept, self.count)


def detect_format(head: str) -> Format:
    """``locomo`` when the file is one JSON array, else ``jsonl``."""
    return "locomo" if head.lstrip().startswith("[") else "jsonl"


def read_items(
    text: str,
    file_format: Format,
    agent_id: str | None = None,
    default_agent: str | None = None,
    *,
    now: datetime | None = None,
) -> list[IngestItem]:
    """Every item of a file's text, or nothing: the whole file is checked first. ``agent_id`` overrides
    LoCoMo's per-conversation agents; ``default_agent`` is the agent of items naming none (for the
    idempotency-key check); ``now``: the write time a line's period starts at when it gives valid_to
    alone (``items_from_jsonl``). Raises InvalidFile listing every bad line (JSON Lines) or record
    (LoCoMo) with where it is, and every item reusing another's idempotency key with different
    arguments."""
    if file_format == "jsonl":
        return items_from_jsonl(text.splitlines(), now=now, default_agent=default_agent)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if exc.msg == "Extra data" and exc.lineno > 1 and detect_format(text[:100]) == "jsonl":
            hint = " (this looks like JSON Lines: use --format jsonl or auto)"
        where = f"line {exc.lineno}, column {exc.colno} (character {exc.pos})"
        raise InvalidFile("locomo", [Problem(where, f"not JSON: {exc.msg}{hint}")]) from None
    return items_from_locomo(data, agent_id, default_agent=default_agent)


class _KeyCheck:
    """Refuses items that reuse an earlier item's idempotency key, for the same agent (``default_agent``
    for items naming none), with different arguments: each such item is a problem naming the key and the
    item that used it first; identical arguments are a replay and pass. One item at a time, as a reader
    reads it, so these problems come in file order among the others and none hides another (trial24: a
    bad line 3 was listed, a key reused on lines 1–2 was not)."""

    def __init__(self, default_agent: str | None) -> None:
        self._default_agent = default_agent
        self._first: dict[tuple[str | None, str], IngestItem] = {}

    def check(self, item: IngestItem, problems: _Problems) -> None:
        """Adds to ``problems`` when ``item`` reuses an earlier item's key with different arguments."""
        key = item.draft.idempotency_key
        if key is None:
            return
        seen = self._first.setdefault((item.agent_id or self._default_agent, key), item)
        if seen is not item and seen.draft != item.draft:
            problems.add(
                f"{item.origin}: idempotency_key",
                f"{key!r} is already used by {seen.origin} with different arguments (one key names one "
                "write: give each item its own key, or drop the duplicate)",
            )


def _line_key(agent_id: str | None, payload: dict[str, Any]) -> str:
    canonical = json.dumps([agent_id, payload], sort_keys=True, ensure_ascii=False, default=str)
    # surrogatepass: a line with an unpaired surrogate gets its key, then MemoryDraft names the field
    return "ingest:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _first_error(exc: ValidationError, prefix: str = "") -> tuple[str, str]:
    """(dotted field, message) of a validation error's first entry, worded as the MCP tools word it
    (without pydantic's "Value error, " prefix)."""
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err["loc"])
    return (f"{prefix}{field}" if field else prefix.rstrip(": ")), err["msg"].removeprefix("Value error, ")


def items_from_jsonl(
    lines: Iterable[str], *, now: datetime | None = None, default_agent: str | None = None
) -> list[IngestItem]:
    """One ``memory_write``-shaped object per line (``content`` required; ``agent_id`` optional; blank
    lines and ``#`` comments skipped). Every line is checked: raises InvalidFile naming each bad line,
    and the field (or the column of a JSON syntax error) — also a valid_to at or before the start its
    period would be stored with (``check_period_end``: occurred_at, the session's date, else ``now``,
    the write time; None: only the first two are checked), which the worker could never store — and
    each line reusing an earlier line's idempotency key with different arguments
    (``_KeyCheck``; ``default_agent``: the agent of lines naming none)."""
    items: list[IngestItem] = []
    problems = _Problems()
    keys = _KeyCheck(default_agent)
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"line {number}"
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            column = exc.colno + len(line) - len(line.lstrip())
            problems.add(where, f"not JSON at column {column}: {exc.msg}")
            continue
        if not isinstance(payload, dict):
            problems.add(
                where, f"expected a JSON object with at least 'content', not {type(payload).__name__}"
            )
            continue
        agent_id = payload.pop("agent_id", None)
        if agent_id is not None:
            try:
                agent_id = _agent_id().validate_python(agent_id)
            except ValidationError as exc:
                problems.add(f"{where}: agent_id", exc.errors()[0]["msg"])
                continue
        payload.setdefault("idempotency_key", _line_key(agent_id, payload))
        try:
            draft = MemoryDraft.model_validate(payload)
        except ValidationError as exc:
            problems.add(*_first_error(exc, f"{where}: "))
            continue
        try:
            check_period_end(draft, now or datetime.min.replace(tzinfo=UTC))
        except InvalidInput as exc:
            problems.add(f"{where}: {exc.field}", str(exc).removeprefix(f"{exc.field}: "))
            continue
        items.append(IngestItem(draft=draft, agent_id=agent_id, origin=where))
        keys.check(items[-1], problems)
    problems.raise_if_any("jsonl")
    return items


def _locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → 2023-05-08 13:56 UTC (the dataset has no time zones)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def items_from_locomo(
    data: Any, agent_id: str | None = None, *, default_agent: str | None = None
) -> list[IngestItem]:
    """Every dialogue turn as an episodic memory: "<speaker>: <text>" (plus the image caption), at the
    session's date, the speaker as an entity, sample/dialogue ids in metadata, and its place in the
    conversation (conversation_id = sample id, session_index, turn_index within the session, session_at).
    Each conversation goes to the agent named by its ``sample_id`` unless ``agent_id`` is given. Every
    record is checked: raises InvalidFile naming each conversation, session or turn that is not
    LoCoMo-shaped, and each turn reusing an earlier one's idempotency key (its sample and dialogue id)
    with different arguments (``_KeyCheck``)."""
    if not isinstance(data, list):
        raise InvalidFile(
            "locomo", [Problem("file", f"a JSON array of conversations, not {type(data).__name__}")]
        )
    items: list[IngestItem] = []
    problems = _Problems()
    keys = _KeyCheck(default_agent)
    for index, sample in enumerate(data):
        conv = sample.get("conversation") if isinstance(sample, dict) else None
        if not isinstance(conv, dict):
            problems.add(f"conversation {index}", "no 'conversation' object")
            continue
        sample_id = str(sample.get("sample_id") or f"conv-{index}")
        agent = agent_id or _AGENT_UNSAFE.sub("-", sample_id)[:64]
        sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)))
        for number, key in sessions:
            try:
                when = _locomo_date(conv[f"{key}_date_time"])
            except KeyError:
                problems.add(f"{sample_id} {key}", f"no '{key}_date_time'")
                continue
            except (TypeError, ValueError, AttributeError):
                problems.add(
                    f"{sample_id} {key}_date_time",
                    f"unreadable session date {conv[f'{key}_date_time']!r} "
                    "(expected like '1:56 pm on 8 May, 2023')",
                )
                continue
            turns = conv[key]
            if not isinstance(turns, list):
                problems.add(f"{sample_id} {key}", f"a list of turns, not {type(turns).__name__}")
                continue
            for position, turn in enumerate(turns):
                where = f"{sample_id} {key} turn {position + 1}"
                if not isinstance(turn, dict):
                    problems.add(where, f"a turn is an object, not {type(turn).__name__}")
                    continue
                missing = [f for f in ("speaker", "dia_id", "text") if not isinstance(turn.get(f), str)]
                if missing:
                    problems.add(where, f"{', '.join(missing)}: missing or not a string")
                    continue
                where = f"{where} ({turn['dia_id']})"
                caption = turn.get("blip_caption")
                content = f"{turn['speaker']}: {turn['text']}" + (f" [image: {caption}]" if caption else "")
                try:
                    draft = MemoryDraft(
                        content=content,
                        layer="episodic",
                        occurred_at=when,
                        entities={"speaker": turn["speaker"]},
                        metadata={"sample_id": sample_id, "dia_id": turn["dia_id"], "session": number},
                        idempotency_key=f"locomo:{sample_id}:{turn['dia_id']}"[:128],
                        conversation_id=sample_id[:128],
                        session_index=number,
                        turn_index=position,
                        session_at=when,
                    )
                except ValidationError as exc:
                    problems.add(*_first_error(exc, f"{where}: "))
                    continue
                items.append(IngestItem(draft=draft, agent_id=agent, origin=where))
                keys.check(items[-1], problems)
    problems.raise_if_any("locomo")
    return items

"""The values an export record may hold on import, checked before anything of it is stored. Pure.

An export file is JSON Lines an operator may edit. Each record's ``row`` goes into a table whose CHECK
constraints (infra/migrations) refuse some values; refused there, the operator read a database message
("new row for relation … violates check constraint memories_importance_check") naming neither the line
nor the limit. So the import checks each record's row against the same rules first and refuses a bad one
with ``RecordRefused``: the line, the record (kind and id as in the file), the field, and the limit in
words. ``tests/integration/test_operator_cli.py`` keeps the rules equal to the live schema's constraints:
every CHECK constraint of an imported table has a case there.

What happens to the rest of the file is the use case's business (``usecases.archive``): the records
before the bad line are imported, nothing from it on, as with a file cut off at that line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, get_args

from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import INSTANT_FORMAT, Precision
from hindsight.domain.memory import (
    HistoryAction,
    Layer,
    MemoryStatus,
    Outcome,
    RelationKind,
    Source,
    TaskType,
    WriteOutcome,
)

IMPORT_ADVICE = (
    "nothing from this line on was imported, the records before it were: the tenant is INCOMPLETE until "
    "the whole file is imported (a memory may lack its relations, history or successor, e.g. superseded "
    "with none): fix the line and import the whole file again, with the same options — that adds exactly "
    "what is missing (what is already there, by its own identity, is skipped)"
)
"""What a refused line means for the rest of the file (docs/operations.md, export / import)."""


class RecordRefused(InvalidInput):
    """A line of an import file that cannot be imported: ``line`` (1-based, in the file), ``field`` "line
    N: <kind> <id>: <column>" (or "line N" for a line that is no record), the message saying the limit in
    words, ``limit`` as in every argument error (``{"ge": 0, "le": 1}``, ``{"one_of": [...]}``)."""

    def __init__(self, line: int, where: str, message: str, limit: object | None = None) -> None:
        self.line = line
        self.partial: Any = None
        """What the import had done before this line (``usecases.archive.ImportReport``), when known."""
        super().__init__(f"line {line}{': ' + where if where else ''}", f"{message}; {IMPORT_ADVICE}", limit)


@dataclass(frozen=True)
class _Rule:
    column: str
    message: str
    limit: dict[str, Any] | None
    breaks: Callable[[Mapping[str, Any]], bool]
    """True when the row breaks the rule (a missing or null column breaks none: NOT NULL is the schema's)."""


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(column: str, options: tuple[str, ...]) -> _Rule:
    return _Rule(
        column,
        f"must be one of {', '.join(options)}",
        {"one_of": list(options)},
        lambda row: row.get(column) is not None and row[column] not in options,
    )


def _between(column: str, low: float, high: float) -> _Rule:
    return _Rule(
        column,
        f"must be a number from {low:g} to {high:g}",
        {"ge": low, "le": high},
        lambda row: row.get(column) is not None and not (_number(row[column]) and low <= row[column] <= high),
    )


def _at_least(column: str, low: int) -> _Rule:
    return _Rule(
        column,
        f"must be a whole number of at least {low}",
        {"ge": low},
        lambda row: row.get(column) is not None and not (_integer(row[column]) and row[column] >= low),
    )


def _instant(value: object) -> datetime | None:
    """A stored time as ``to_jsonb`` writes it (ISO 8601 with an offset); None when it is none."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _time(column: str) -> _Rule:
    return _Rule(
        column,
        "must be an ISO 8601 date-time with its offset",
        {"format": INSTANT_FORMAT},
        lambda row: row.get(column) is not None and _instant(row[column]) is None,
    )


def _after(column: str, start: str, *, equal: bool) -> _Rule:
    """``column`` not before (``equal``) or after ``start``, when both are times (their formats are the
    ``_time`` rules' business, checked first)."""

    def breaks(row: Mapping[str, Any]) -> bool:
        end, begin = _instant(row.get(column)), _instant(row.get(start))
        return end is not None and begin is not None and (end < begin if equal else end <= begin)

    word = "on or after" if equal else "after"
    return _Rule(column, f"must be {word} {start}", {"ge" if equal else "gt": start}, breaks)


_MEMORY = (
    _one_of("layer", get_args(Layer)),
    _one_of("status", get_args(MemoryStatus)),
    _one_of("source", get_args(Source)),
    _one_of("task_type", get_args(TaskType)),
    _one_of("outcome", get_args(Outcome)),
    _one_of("occurred_precision", get_args(Precision)),
    _between("importance", 0, 1),
    _at_least("version", 1),
    _at_least("turn_index", 0),
    _at_least("session_index", 0),
    _at_least("access_count", 0),
    _Rule(
        "key_decisions",
        "must be a list of at most 3 decisions",
        {"max_items": 3},
        lambda row: (
            row.get("key_decisions") is not None
            and not (isinstance(row["key_decisions"], list) and len(row["key_decisions"]) <= 3)
        ),
    ),
    _time("occurred_at"),
    _time("occurred_end"),
    _time("valid_from"),
    _time("valid_to"),
    _after("occurred_end", "occurred_at", equal=False),
    _after("valid_to", "valid_from", equal=True),
)
"""migrations 001, 002, 006, 010, 012, 018 (the access counters travel on the memory's line) and 019."""
RULES: dict[str, tuple[_Rule, ...]] = {
    "memory": _MEMORY,
    "chunk": (_at_least("chunk_no", 1),),
    "relation": (
        _one_of("kind", get_args(RelationKind)),
        _between("strength", 0, 1),
        _Rule(
            "to_id",
            "must differ from from_id (a memory is not related to itself)",
            None,
            lambda row: row.get("to_id") is not None and row.get("to_id") == row.get("from_id"),
        ),
    ),
    "history": (_one_of("action", get_args(HistoryAction)),),
    "write_result": (_one_of("outcome", get_args(WriteOutcome)),),
    "pending_link": (),
}
"""Per record kind, the value rules of its table (the schema's CHECK constraints, in words)."""


def record_id(kind: str, row: Mapping[str, Any]) -> str:
    """How a record is named in an error: its memory's id as the file has it ("?" when it has none)."""
    for column in ("id", "memory_id", "from_id", "job_id", "child_id"):
        if row.get(column) is not None:
            return str(row[column])
    return "?"


def check_record(line: int, kind: str, record: Mapping[str, Any]) -> None:
    """Refuse a record (``{"kind": kind, "row": {...}, …}``) without a row object, or whose row breaks a
    rule of its table (``RULES``). ``line``: where it is in the file. Raises RecordRefused naming the
    line, the record, the first broken field and its limit."""
    row = record.get("row")
    if not isinstance(row, Mapping):
        raise RecordRefused(line, f"{kind}: row", "must be a JSON object (the table row)")
    for rule in RULES.get(kind, ()):
        if rule.breaks(row):
            where = f"{kind} {record_id(kind, row)}: {rule.column}"
            raise RecordRefused(line, where, rule.message, rule.limit)

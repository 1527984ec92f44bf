"""Input limits: every bound is enforced and named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import (
    MAX_CONTENT_CHARS,
    MAX_ENTITIES_BYTES,
    MAX_ENTITY_VALUE_CHARS,
    MAX_JOB_BYTES,
    MAX_METADATA_BYTES,
    MAX_TIMESTAMP,
    MIN_TIMESTAMP,
    TIMESTAMP_LIMIT,
    ensure_job_fits,
)
from hindsight.domain.memory import MemoryChanges, MemoryDraft, SearchRequest, content_hash


def _fields(exc: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return {".".join(str(p) for p in e["loc"]) for e in exc.value.errors()}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": " \t\n"}, "content"),
        ({"content": "x" * (MAX_CONTENT_CHARS + 1)}, "content"),
        ({"content": "bell \x07"}, "content"),
        ({"content": "lone surrogate \ud800"}, "content"),
        ({"content": "noncharacter \uffff"}, "content"),  # SQS refuses it: not "unavailable, retry"
        ({"content": "ok", "metadata": {"note": "\ufffe"}}, "metadata"),
        ({"content": "ok", "key": "k" * 201}, "key"),
        ({"content": "ok", "importance": -0.1}, "importance"),
        ({"content": "ok", "metadata": {"blob": "x" * MAX_METADATA_BYTES}}, "metadata"),
        ({"content": "ok", "metadata": {"a": [[[[[[1]]]]]]}}, "metadata"),
        ({"content": "ok", "unknown": 1}, "unknown"),
    ],
)
def test_draft_rejects_out_of_bounds_fields(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(**kwargs)  # type: ignore[arg-type]
    assert field in _fields(caught)


def test_draft_keeps_text_tabs_newlines_and_unicode() -> None:
    draft = MemoryDraft(content="  Zoë prefers\ttea ☕\nnot coffee  ", metadata={"a": {"b": [1, 2]}})
    assert draft.content == "Zoë prefers\ttea ☕\nnot coffee"
    assert draft.layer == "semantic"
    assert draft.importance == 0.5


@pytest.mark.parametrize(
    "text",
    ["\u200b\u200b", "\ufeff", "\u0301", "\u2060 \u200d", "\u00a0\u3000", "\u3164", "\u115f\u1160", "\u2800"],
)
def test_text_without_a_visible_character_is_refused_as_blank(text: str) -> None:
    for field in ("content", "key"):
        with pytest.raises(ValidationError) as caught:
            MemoryDraft(**{"content": "fine", field: text})
        (error,) = caught.value.errors()
        assert (error["loc"], error["type"]) == ((field,), "blank")
    assert MemoryDraft(content="\ufeffcaf\u00e9\u200b").content  # invisible beside visible: kept


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ({"b": 1}, "an object"),
        (None, "null"),
        ([1, {"x": 1}], "a list holding an object"),
        ([[1]], "a list holding a list"),
        (["a", None], "a list holding null"),
    ],
)
def test_an_entity_value_of_the_wrong_shape_is_one_error_saying_what_it_takes(
    value: object, got: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(content="fine", entities={"a": value})
    (error,) = caught.value.errors()  # not one per member of the union (str, int, float, bool, list)
    assert error["loc"] == ("entities", "a")
    assert error["msg"] == f"must be a string, number or boolean, or a list of them (got {got})"
    assert MemoryDraft(content="fine", entities={"a": [1, "x", True], "b": 2.5}).entities["a"] == [
        1,
        "x",
        True,
    ]


def test_a_tag_or_entity_name_with_a_combining_accent_is_its_composed_form() -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    draft = MemoryDraft(content="fine", tags=[decomposed], entities={decomposed: "x"})
    assert draft.tags == [composed]
    assert list(draft.entities) == [composed]


def test_occurred_at_is_normalised_to_utc() -> None:
    naive = MemoryDraft(content="x", occurred_at=datetime(2026, 1, 2, 3, 4))
    assert naive.occurred_at == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    plus2 = MemoryDraft(
        content="x", occurred_at=datetime(2026, 1, 2, 5, 4, tzinfo=timezone(timedelta(hours=2)))
    )
    assert plus2.occurred_at == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def test_content_hash_ignores_case_and_spacing_only() -> None:
    assert content_hash("Dark  mode\nplease") == content_hash("dark mode please")
    assert content_hash("dark mode") != content_hash("light mode")


# --- Trust: bounds that protect the write path (an acknowledged write must be storable) ------------


@pytest.mark.parametrize(
    "when",
    [
        "0001-01-01T00:00:00+14:00",  # year 0 once in UTC: an overflow, not a crash
        "9999-12-31T23:59:59-14:00",
        "1899-12-31T23:59:59Z",
        "2101-01-01T00:00:00Z",
    ],
)
def test_times_outside_1900_to_2100_are_refused_naming_the_limit(when: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(content="x", occurred_at=when)  # type: ignore[arg-type]
    (error,) = caught.value.errors()
    assert error["loc"] == ("occurred_at",)
    assert error["type"] == "datetime_out_of_range"
    assert error["ctx"] == TIMESTAMP_LIMIT


def test_the_time_bounds_themselves_are_accepted() -> None:
    assert MemoryDraft(content="x", occurred_at=MIN_TIMESTAMP).occurred_at == MIN_TIMESTAMP
    last = MemoryDraft(content="x", occurred_at="2100-12-31T23:59:59Z")  # type: ignore[arg-type]
    assert last.occurred_at is not None
    assert last.occurred_at < MAX_TIMESTAMP


@pytest.mark.parametrize(
    ("metadata", "kind"),
    [
        ({"score": float("nan")}, "json_number_not_finite"),
        ({"score": [1.0, float("inf")]}, "json_number_not_finite"),
        ({"key\x00": 1}, "value_error"),  # Postgres' jsonb refuses NUL in keys too
        ({"a": {"b": "text with \x1b escape"}}, "value_error"),
    ],
)
def test_metadata_postgres_could_not_store_is_refused(metadata: dict[str, object], kind: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(content="x", metadata=metadata)  # type: ignore[arg-type]
    assert [e["type"] for e in caught.value.errors()] == [kind]


def test_entities_are_bounded_in_total_size_and_values() -> None:
    many = {f"e{i}": ["v" * MAX_ENTITY_VALUE_CHARS] * 30 for i in range(2)}
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(content="x", entities=many)  # type: ignore[arg-type]
    assert caught.value.errors()[0]["ctx"]["max_bytes"] == MAX_ENTITIES_BYTES
    with pytest.raises(ValidationError):
        MemoryDraft(content="x", entities={"score": float("nan")})


def test_importance_is_rounded_so_postgres_real_can_store_it() -> None:
    assert MemoryDraft(content="x", importance=1e-300).importance == 0.0
    assert MemoryDraft(content="x", importance=0.1234567891).importance == 0.123457


def test_a_job_over_the_queue_limit_is_refused_naming_its_largest_part() -> None:
    ensure_job_fits("x" * MAX_JOB_BYTES, {"content": "x" * MAX_JOB_BYTES})
    with pytest.raises(InvalidInput) as caught:
        ensure_job_fits("€" * MAX_JOB_BYTES, {"content": "short", "steps": ["€" * 90_000]})
    assert caught.value.field == "steps"
    assert caught.value.limit == {"max_bytes": MAX_JOB_BYTES}


def test_keys_are_stored_and_filtered_in_one_unicode_form_nfc() -> None:
    composed, decomposed = "menu.caf\u00e9", "menu.cafe\u0301"
    assert MemoryDraft(content="x", key=decomposed).key == composed
    assert MemoryChanges(key=decomposed).key == composed
    now = datetime(2026, 12, 6, tzinfo=UTC)
    assert SearchRequest(text="x", top_k=5, now=now, key=decomposed).key == composed
    # NFC, not NFKC: compatibility characters stay distinct keys
    assert MemoryDraft(content="x", key="\ufb01le").key == "\ufb01le"


def test_refused_characters_are_exactly_controls_surrogates_and_the_two_noncharacters() -> None:
    """``_clean_text`` scans with one character class; it refuses exactly what the rule says, per
    Python's Unicode database: category Cc or Cs other than tab, newline and carriage return, and
    U+FFFE / U+FFFF — every code point checked — with the message naming the first one found."""
    import unicodedata

    from hindsight.domain.limits import _REFUSED_CHARACTERS, _clean_text

    expected = {
        code
        for code in range(0x110000)
        if chr(code) not in "\t\n\r"
        and (unicodedata.category(chr(code)) in ("Cc", "Cs") or code in (0xFFFE, 0xFFFF))
    }
    every = "".join(map(chr, range(0x110000)))
    assert {ord(m.group()) for m in _REFUSED_CHARACTERS.finditer(every)} == expected
    for code in sorted(expected)[::7]:
        with pytest.raises(ValueError, match=f"U\\+{code:04X} is not allowed"):
            _clean_text(f"a{chr(code)}b")
    with pytest.raises(ValueError, match="noncharacter U\\+FFFF"):
        _clean_text("ok \uffff then \x07")
    with pytest.raises(ValueError, match="control or surrogate character U\\+0007"):
        _clean_text("ok \x07 then \uffff")
    assert _clean_text("tab\tnew\nline\r ok é 日本 \U0001f600") == "tab\tnew\nline\r ok é 日本 \U0001f600"

"""The one ISO 8601 parser every time field uses (domain.isotime): forms, spans, precision, refusals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.interchange import items_from_jsonl
from hindsight.domain.isotime import (
    PRECISIONS,
    AsOfTime,
    EndTime,
    Precision,
    StartTime,
    TimeInput,
    TimeRefused,
    TimeSpan,
    Timestamp,
    parse_time,
    span_of,
)
from hindsight.domain.limits import MAX_TIMESTAMP, MIN_TIMESTAMP, TIMESTAMP_LIMIT
from hindsight.domain.memory import MemoryChanges, MemoryDraft
from hindsight.domain.reflection import TaskReport


@pytest.mark.parametrize(
    ("text", "start", "precision", "end"),
    [
        ("2026", datetime(2026, 1, 1, tzinfo=UTC), "year", datetime(2027, 1, 1, tzinfo=UTC)),
        ("2026-11", datetime(2026, 11, 1, tzinfo=UTC), "month", datetime(2026, 12, 1, tzinfo=UTC)),
        ("2026-12", datetime(2026, 12, 1, tzinfo=UTC), "month", datetime(2027, 1, 1, tzinfo=UTC)),
        ("2026-W47", datetime(2026, 11, 16, tzinfo=UTC), "week", datetime(2026, 11, 23, tzinfo=UTC)),
        ("2026-W47-2", datetime(2026, 11, 17, tzinfo=UTC), "day", datetime(2026, 11, 18, tzinfo=UTC)),
        ("2026-11-24", datetime(2026, 11, 24, tzinfo=UTC), "day", datetime(2026, 11, 25, tzinfo=UTC)),
        ("2026-11-24T10", datetime(2026, 11, 24, 10, tzinfo=UTC), "hour",
         datetime(2026, 11, 24, 11, tzinfo=UTC)),
        ("2026-11-24 10:30", datetime(2026, 11, 24, 10, 30, tzinfo=UTC), "minute",
         datetime(2026, 11, 24, 10, 31, tzinfo=UTC)),
        ("2026-11-24t10:30z", datetime(2026, 11, 24, 10, 30, tzinfo=UTC), "minute",
         datetime(2026, 11, 24, 10, 31, tzinfo=UTC)),
        ("2026-11-24T10+05:30", datetime(2026, 11, 24, 4, 30, tzinfo=UTC), "hour",
         datetime(2026, 11, 24, 5, 30, tzinfo=UTC)),
        ("2026-11-24T10:30:15Z", datetime(2026, 11, 24, 10, 30, 15, tzinfo=UTC), "instant",
         datetime(2026, 11, 24, 10, 30, 15, tzinfo=UTC)),
        ("2026-11-24T10:30:15.123456789-0200", datetime(2026, 11, 24, 12, 30, 15, 123456, tzinfo=UTC),
         "instant", datetime(2026, 11, 24, 12, 30, 15, 123456, tzinfo=UTC)),
        (" 2026-11-24 ", datetime(2026, 11, 24, tzinfo=UTC), "day", datetime(2026, 11, 25, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_each_accepted_form_names_its_span(text: str, start: datetime, precision: str, end: datetime) -> None:
    span = span_of(text)
    assert (span.start, span.precision, span.end) == (start, precision, end)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("0", "never read as a Unix timestamp"),
        ("-5", "never read as a Unix timestamp"),
        ("1700000000", "never read as a Unix timestamp"),
        ("20261124", "never read as a Unix timestamp"),  # ISO basic format: refused, not guessed
        ("2026.5", "never read as a Unix timestamp"),
        (1700000000, "never read as a Unix timestamp"),
        (2026, "never read as a Unix timestamp"),
        (2026.5, "never read as a Unix timestamp"),
        (True, "never read as a Unix timestamp"),
        (None, "as a string"),
        ({"year": 2026}, "as a string"),
        ("yesterday", "not an ISO 8601"),
        ("2026-11-24T10:30:00Zjunk", "not an ISO 8601"),
        ("2026-1-5", "not an ISO 8601"),
        ("26-11-24", "not an ISO 8601"),
        ("2026-02-30", "not a valid date"),
        ("2026-13", "not a valid date"),
        ("2026-11-24T24:00", "not a valid date"),
        ("2026-W54", "not a valid date"),
        ("2026-11-24T10:30+24:00", "offset"),
        ("\uff12\uff10\uff12\uff16-12-01", "not an ISO 8601"),  # fullwidth digits are not ISO 8601's
        ("2026-12-\u0660\u0661", "not an ISO 8601"),  # nor Arabic-Indic ones
        ("\uff11\uff17\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10", "not an ISO 8601"),
    ],
)
def test_what_is_not_a_time_is_refused_saying_why(value: object, why: str) -> None:
    with pytest.raises(TimeRefused) as caught:
        span_of(value)
    assert why in caught.value.message


@pytest.mark.parametrize(
    "value", ["1899", "2101", "1899-12-31", "2101-01", "0001-01-01T00:00+14:00", "1900-01-01T00:00+01:00"]
)
def test_times_outside_the_supported_range_name_the_limit(value: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_time(value, "occurred_at")
    assert caught.value.field == "occurred_at"
    assert caught.value.limit == TIMESTAMP_LIMIT


def test_a_datetime_from_python_is_an_instant_and_naive_means_utc() -> None:
    assert span_of(datetime(2026, 1, 2, 3, 4)) == TimeSpan(datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    plus2 = datetime(2026, 1, 2, 5, 4, tzinfo=timezone(timedelta(hours=2)))
    assert span_of(plus2).start == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    assert span_of(date(2026, 1, 2)).precision == "day"


# --- properties ---------------------------------------------------------------------------------------

YEARS = st.integers(
    MIN_TIMESTAMP.year + 1, MAX_TIMESTAMP.year - 2
)  # a week or a +offset never leaves the range


@st.composite
def partial_times(draw: st.DrawFn) -> tuple[str, datetime, Precision]:
    """(ISO text, its start, its precision) for any precision, in any accepted spelling."""
    precision = draw(st.sampled_from(PRECISIONS))
    year = draw(YEARS)
    if precision == "year":
        return f"{year}", datetime(year, 1, 1, tzinfo=UTC), precision
    if precision == "week":
        week = draw(st.integers(1, 52))
        monday = date.fromisocalendar(year, week, 1)
        return f"{year}-W{week:02d}", datetime.combine(monday, datetime.min.time(), UTC), precision
    month = draw(st.integers(1, 12))
    if precision == "month":
        return f"{year}-{month:02d}", datetime(year, month, 1, tzinfo=UTC), precision
    day = draw(st.integers(1, 28))
    if precision == "day":
        return f"{year}-{month:02d}-{day:02d}", datetime(year, month, day, tzinfo=UTC), precision
    hour, minute, second = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    micro = draw(st.integers(0, 999_999))
    offset = draw(st.sampled_from([0, 60, -300, 330, 345, -570]))
    sign, minutes = ("-" if offset < 0 else "+"), abs(offset)
    suffix = draw(st.sampled_from(["", "Z", f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"]))
    if suffix == "" or suffix == "Z":
        offset = 0
    sep = draw(st.sampled_from(["T", " "]))
    local = datetime(year, month, day, hour, minute, second, micro)
    if precision == "hour":
        text, local = (
            f"{year}-{month:02d}-{day:02d}{sep}{hour:02d}{suffix}",
            local.replace(minute=0, second=0, microsecond=0),
        )
    elif precision == "minute":
        text, local = (
            f"{year}-{month:02d}-{day:02d}{sep}{hour:02d}:{minute:02d}{suffix}",
            local.replace(second=0, microsecond=0),
        )
    else:
        text = f"{local.isoformat(sep=sep)}{suffix}"
    return text, (local - timedelta(minutes=offset)).replace(tzinfo=UTC), precision  # fmt: skip


@given(partial_times())
def test_any_accepted_time_parses_to_its_start_and_precision(case: tuple[str, datetime, Precision]) -> None:
    text, start, precision = case
    span = span_of(text)
    assert (span.start, span.precision) == (start, precision)
    # a stored (start, precision) pair gives the same span back (jobs and exports carry it that way)
    assert TimeSpan.of(span.start, span.precision) == span
    if precision == "instant":
        assert span.end == span.start == span.last
    else:
        assert span.start < span.middle < span.end
        assert span.last == span.end - timedelta(microseconds=1)
        assert span_of(span.end.isoformat()).start == span.end  # spans tile the calendar: no gap


@given(st.integers().filter(lambda n: not (n >= 1000 and n <= 9999)))
def test_no_integer_other_than_a_four_digit_year_is_a_time(number: int) -> None:
    for value in (number, str(number), f"{number}.0", float(number)):
        with pytest.raises(TimeRefused):
            span_of(value)


@given(st.integers(1000, 9999))
def test_a_four_digit_string_is_a_year_and_a_four_digit_number_is_refused(year: int) -> None:
    with pytest.raises(TimeRefused):
        span_of(year)
    if MIN_TIMESTAMP.year <= year < MAX_TIMESTAMP.year:
        assert span_of(str(year)) == TimeSpan(datetime(year, 1, 1, tzinfo=UTC), "year")
    else:
        with pytest.raises(TimeRefused) as caught:
            span_of(str(year))
        assert caught.value.limit == TIMESTAMP_LIMIT


@given(st.floats(allow_nan=True, allow_infinity=True) | st.booleans())
def test_no_float_or_boolean_is_a_time(value: float | bool) -> None:
    with pytest.raises(TimeRefused):
        span_of(value)


def test_a_stored_span_must_start_where_its_precision_starts() -> None:
    with pytest.raises(TimeRefused):
        TimeSpan.of(datetime(2026, 5, 1, tzinfo=UTC), "year")
    with pytest.raises(TimeRefused):
        TimeSpan.of(datetime(2026, 11, 17, tzinfo=UTC), "week")  # a Tuesday
    with pytest.raises(TimeRefused):
        TimeSpan.of(datetime(2026, 11, 17, 10, 0, 30, tzinfo=UTC), "minute")
    with pytest.raises(TimeRefused):
        TimeSpan.of(datetime(2026, 1, 1, tzinfo=UTC), "fortnight")  # type: ignore[arg-type]


# --- the field types -----------------------------------------------------------------------------------


class Fields(BaseModel):
    start: StartTime | None = None
    end: EndTime | None = None
    as_of: AsOfTime | None = None
    span: TimeInput | None = None
    stamp: Timestamp | None = None


def test_each_field_type_keeps_the_end_of_the_span_it_means() -> None:
    f = Fields(
        start="2026-03", end="2026-03", as_of="2026-11-24", span="2026-W47", stamp="2026-11-24T10:00:00Z"
    )
    assert f.start == datetime(2026, 3, 1, tzinfo=UTC)
    assert f.end == datetime(2026, 4, 1, tzinfo=UTC)  # valid_to "2026-03": the whole of March
    assert f.as_of == datetime(2026, 11, 24, 23, 59, 59, 999999, tzinfo=UTC)  # as of that evening
    assert f.span == TimeSpan(datetime(2026, 11, 16, tzinfo=UTC), "week")
    assert f.stamp == datetime(2026, 11, 24, 10, tzinfo=UTC)
    assert Fields.model_validate_json(f.model_dump_json()).start == f.start
    with pytest.raises(ValidationError) as caught:
        Fields(stamp="2026-11-24")
    assert caught.value.errors()[0]["type"] == "time_not_instant"


@pytest.mark.parametrize("field", ["start", "end", "as_of", "span", "stamp"])
@pytest.mark.parametrize("value", [0, "0", "1700000000", "2026-11-31", True, 1.5, "9999"])
def test_every_field_type_refuses_what_is_not_a_time_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as caught:
        Fields.model_validate({field: value})
    (error,) = caught.value.errors()
    assert error["loc"] == (field,)
    assert error["type"] in ("time_format", "datetime_out_of_range")


@pytest.mark.parametrize("field", ["occurred_at", "valid_from", "valid_to"])
@pytest.mark.parametrize("value", ["2026", "20261124", "0", "-5", 1700000000])
def test_memory_drafts_never_read_numbers_as_unix_seconds(field: str, value: object) -> None:
    if value == "2026":
        draft = MemoryDraft.model_validate({"content": "x", field: value})
        expected = datetime(2027 if field == "valid_to" else 2026, 1, 1, tzinfo=UTC)
        assert getattr(draft, field) == expected
        return
    with pytest.raises(ValidationError) as caught:
        MemoryDraft.model_validate({"content": "x", field: value})
    assert caught.value.errors()[0]["loc"] == (field,)


def test_changes_and_task_reports_use_the_same_parser() -> None:
    assert MemoryChanges(valid_to="2026").valid_to == datetime(2027, 1, 1, tzinfo=UTC)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        MemoryChanges(valid_from="20261124")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        TaskReport.model_validate({"task_id": "t", "goal": "g", "outcome": "success", "occurred_at": "0"})


def test_an_import_file_line_with_a_numeric_time_is_refused_naming_line_and_field() -> None:
    lines = ['{"content": "ok", "occurred_at": "2026-11"}', '{"content": "bad", "occurred_at": "1700000000"}']
    assert items_from_jsonl(lines[:1])[0].draft.occurred_at == datetime(2026, 11, 1, tzinfo=UTC)
    with pytest.raises(InvalidInput) as caught:
        items_from_jsonl(lines)
    assert caught.value.field == "line 2: occurred_at"
    assert "Unix timestamp" in str(caught.value)


@pytest.mark.parametrize(("field", "value"), [("importance", "0.9"), ("importance", True)])
def test_importance_is_a_number_never_a_string_or_a_boolean(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft.model_validate({"content": "x", field: value})
    assert caught.value.errors()[0]["loc"] == (field,)
    assert MemoryDraft.model_validate({"content": "x", "importance": 1}).importance == 1.0

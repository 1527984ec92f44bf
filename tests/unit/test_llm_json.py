"""Defensive JSON extraction from LLM replies: many shapes, and a property over every valid record."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from hindsight.adapters.llm_json import ReplyNotJson, extract_json_object, iter_json_objects, parse_reply
from hindsight.domain.limits import NOT_BLANK
from hindsight.domain.reflection import EpisodeRecord

RECORD = {
    "task_type": "query",
    "outcome": "success",
    "summary": "Looked up order A-1042: shipped.",
    "key_decisions": ["Waited 30 s after HTTP 429", "Retried the request"],
    "lesson": "On HTTP 429, wait and retry.",
    "entities": {"order_id": "A-1042"},
}
RAW = json.dumps(RECORD)


@pytest.mark.parametrize(
    "reply",
    [
        RAW,
        f"  \n{RAW}\n",
        "\ufeff" + RAW,
        json.dumps(RECORD, indent=2),
        f"```json\n{RAW}\n```",
        f"```JSON\n{json.dumps(RECORD, indent=2)}\n```",
        f"```\n{RAW}\n```",
        f"Here is the record you asked for:\n```json\n{RAW}\n```\nLet me know if you need anything else!",
        f"Sure! {RAW} Hope this helps.",
        f"The result {{as requested}}: {RAW}",
        f"{RAW}\n\nNote: the entities object may be incomplete.",
        f'Example shape: {{"a": 1,}} — real answer:\n{RAW}',
    ],
)
def test_the_record_is_found_in_every_usual_shape(reply: str) -> None:
    assert extract_json_object(reply) == RECORD
    assert parse_reply(reply, EpisodeRecord) == EpisodeRecord.model_validate(RECORD)


def test_braces_inside_strings_do_not_confuse_the_scan() -> None:
    reply = 'Answer: {"summary": "a } and a { inside", "n": {"deep": [1, {"x": "}"}]}} trailing }'
    assert extract_json_object(reply) == {"summary": "a } and a { inside", "n": {"deep": [1, {"x": "}"}]}}


def test_the_outermost_object_is_returned_not_its_children() -> None:
    assert list(iter_json_objects('x {"a": {"b": 1}} y {"c": 2}')) == [{"a": {"b": 1}}, {"c": 2}]


def test_a_fenced_block_wins_over_an_object_in_the_prose_before_it() -> None:
    reply = 'I will fill {"task_type": "..."} like this:\n```json\n' + RAW + "\n```"
    assert extract_json_object(reply) == RECORD


def test_a_later_object_is_used_when_the_first_does_not_validate() -> None:
    reply = f'Schema: {{"type": "object"}}\nRecord: {RAW}'
    assert parse_reply(reply, EpisodeRecord).summary == RECORD["summary"]


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [
        ("", "empty"),
        ("I could not produce a record.", "no complete JSON object"),
        ('{"task_type": "query", "outcome": "success",}', "Expecting property name"),  # trailing comma
        ("{'task_type': 'query'}", "Expecting property name"),  # single quotes
        ('{"task_type": "query", "summary": "cut off', "no complete JSON object"),
        ('{"x": NaN}', "NaN is not valid JSON"),
        ("[1, 2, 3]", "no complete JSON object"),
    ],
)
def test_broken_json_is_reported_never_repaired(reply: str, complaint: str) -> None:
    with pytest.raises(ReplyNotJson, match=complaint):
        extract_json_object(reply)
    with pytest.raises(ReplyNotJson):
        parse_reply(reply, EpisodeRecord)


def test_a_broken_record_is_reported_as_broken_not_by_its_inner_objects() -> None:
    # The trailing comma breaks the record; {"order_id": …} inside it is whole but is not the answer.
    with pytest.raises(ReplyNotJson, match=r"no complete JSON object in the reply \(Expecting property name"):
        parse_reply(RAW[:-1] + ",}", EpisodeRecord)


def test_a_reply_that_does_not_validate_names_the_fields() -> None:
    bad = {**RECORD, "key_decisions": ["a", "b", "c", "d"], "outcome": "great"}
    with pytest.raises(ReplyNotJson, match=r"not a valid EpisodeRecord: .*outcome.*key_decisions") as info:
        parse_reply(f"```json\n{json.dumps(bad)}\n```", EpisodeRecord)
    assert "at most 3" in str(info.value)
    extra = {**RECORD, "confidence": 0.9}
    with pytest.raises(ReplyNotJson, match="confidence: Extra inputs are not permitted"):
        parse_reply(json.dumps(extra), EpisodeRecord)


def test_deeply_nested_or_huge_noise_ends_quickly() -> None:
    with pytest.raises(ReplyNotJson):
        extract_json_object("[" * 100_000)
    with pytest.raises(ReplyNotJson):
        extract_json_object('{"a": ' * 5_000)


# --- the property: any valid record, wrapped any usual way, parses back equal --------------------------

_TEXT = st.characters(blacklist_categories=["Cc", "Cs"])
_SCALAR = st.one_of(
    st.text(_TEXT, max_size=20),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)


_TEXT_CHECK = TypeAdapter(Annotated[str, NOT_BLANK])


def _readable(text: str) -> bool:
    """Whether the record's own text check accepts ``text``: not blank and with a visible character (a lone
    soft hyphen "\xad" is format-only, refused as blank), no noncharacter. "" is not readable: the
    record's min_length refuses it, while the blank check alone lets it through (whitespace strips to "")."""
    if not text:
        return False
    try:
        _TEXT_CHECK.validate_python(text)
    except ValueError:
        return False
    return True


def _bounded(max_size: int) -> st.SearchStrategy[str]:
    return st.text(_TEXT, min_size=1, max_size=max_size).map(str.strip).filter(_readable)


records = st.builds(
    EpisodeRecord,
    task_type=st.sampled_from(["query", "modify", "create", "analyze", "other"]),
    outcome=st.sampled_from(["success", "partial", "failure", "aborted"]),
    summary=_bounded(200),
    key_decisions=st.lists(_bounded(80), max_size=3),
    lesson=_bounded(120),
    entities=st.dictionaries(
        st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,15}", fullmatch=True),
        st.one_of(_SCALAR, st.lists(_SCALAR, max_size=4)),
        max_size=5,
    ),
)
# Prose never contains '{' or '`' of its own; decoys are braces that are not JSON objects.
_PROSE = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="{`"), max_size=80)
_DECOYS = st.sampled_from(["", "{", "{oops}", "{'a': 1}", '{"a": 1,}', "{\n", "{{", '{"unterminated": "'])


def _wrap(body: str, style: str, before: str, after: str, decoy: str) -> str:
    if style == "plain":
        return body
    if style == "fence":
        return f"{before}{decoy}\n```json\n{body}\n```\n{after}"
    if style == "bare_fence":
        return f"{before}\n```\n{body}\n```{after}"
    return f"{before}{decoy} {body} {after}"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    record=records,
    style=st.sampled_from(["plain", "fence", "bare_fence", "prose"]),
    indent=st.sampled_from([None, 1, 2]),
    ascii_only=st.booleans(),
    before=_PROSE,
    after=_PROSE,
    decoy=_DECOYS,
)
def test_any_valid_record_wrapped_in_prose_or_fences_parses_back_equal(
    record: EpisodeRecord,
    style: str,
    indent: int | None,
    ascii_only: bool,
    before: str,
    after: str,
    decoy: str,
) -> None:
    body = json.dumps(record.model_dump(mode="json"), indent=indent, ensure_ascii=ascii_only)
    reply = _wrap(body, style, before, after, decoy)
    assert parse_reply(reply, EpisodeRecord) == record

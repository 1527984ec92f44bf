"""Files for ``hindsight ingest`` are checked whole: every bad line or LoCoMo record is reported with where
it is (``InvalidFile``), and a file with any bad one yields no item at all."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hindsight.domain.errors import InvalidInput
from hindsight.domain.interchange import MAX_PROBLEMS, InvalidFile, read_items

GOOD_TURN = {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group."}


def _locomo(*turns: Any, date: Any = "1:56 pm on 8 May, 2023") -> str:
    return json.dumps(
        [{"sample_id": "conv-x", "conversation": {"session_1_date_time": date, "session_1": list(turns)}}]
    )


def test_every_bad_jsonl_line_is_reported_with_its_number_and_nothing_is_returned() -> None:
    text = "\n".join(
        [
            '{"content": "fine"}',
            '{"content": "x", "layer": "weird"}',
            "# a comment",
            '{"content": "no closing brace"',
            "[1, 2]",
            '{"content": "ok", "agent_id": "not an agent id!"}',
            '{"content": "also fine"}',
        ]
    )
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "jsonl")
    problems = [(p.where, p.message) for p in caught.value.problems]
    assert [where for where, _ in problems] == ["line 2: layer", "line 4", "line 5", "line 6: agent_id"]
    assert "not JSON at column" in problems[1][1]
    assert "JSON object" in problems[2][1]
    assert caught.value.count == 4
    assert isinstance(caught.value, InvalidInput)  # the CLI's generic handler still catches it
    assert len(read_items('{"content": "fine"}\n\n{"content": "also fine"}\n', "jsonl")) == 2


def test_a_json_lines_file_read_as_locomo_names_the_position_and_the_likely_format() -> None:
    with pytest.raises(InvalidFile) as caught:
        read_items('{"content": "a"}\n{"content": "b"}\n', "locomo")
    (problem,) = caught.value.problems
    assert problem.where == "line 2, column 1 (character 17)"
    assert "--format jsonl" in problem.message


def test_every_bad_locomo_turn_is_reported_with_its_place() -> None:
    text = _locomo(
        GOOD_TURN,
        "just a string",
        {"speaker": "Mel", "dia_id": "D1:3"},
        {**GOOD_TURN, "dia_id": "D1:4", "text": "x" * 40_000},  # over the content limit
    )
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "locomo")
    problems = [str(p) for p in caught.value.problems]
    assert problems[0].startswith("conv-x session_1 turn 2: a turn is an object")
    assert problems[1] == "conv-x session_1 turn 3: text: missing or not a string"
    assert problems[2].startswith("conv-x session_1 turn 4 (D1:4): content: ")
    assert len(read_items(_locomo(GOOD_TURN), "locomo")) == 1


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"not": "a list"}', "file"),
        ("[1]", "conversation 0"),
        (_locomo(GOOD_TURN, date="yesterday"), "conv-x session_1_date_time"),
    ],
)
def test_a_file_that_is_not_locomo_shaped_says_where(text: str, where: str) -> None:
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "locomo")
    assert caught.value.problems[0].where == where


def test_a_file_of_bad_lines_keeps_the_first_problems_and_counts_them_all() -> None:
    with pytest.raises(InvalidFile) as caught:
        read_items("x\n" * (MAX_PROBLEMS + 5), "jsonl")
    assert caught.value.count == MAX_PROBLEMS + 5
    assert len(caught.value.problems) == MAX_PROBLEMS


def test_a_key_reused_with_other_arguments_refuses_the_file_and_names_both_lines() -> None:
    text = (
        '{"content": "first", "idempotency_key": "k"}\n'
        '{"content": "same key, other agent", "idempotency_key": "k", "agent_id": "other"}\n'
        '{"content": "second", "idempotency_key": "k"}\n'
        '{"content": "first", "idempotency_key": "k"}\n'  # identical: a replay, accepted
        '{"content": "second", "idempotency_key": "k", "agent_id": "me"}\n'  # "me" is the default agent
    )
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "jsonl", default_agent="me")
    assert [str(p) for p in caught.value.problems] == [
        f"line {n}: idempotency_key: 'k' is already used by line 1 with different arguments (one key names "
        "one write: give each item its own key, or drop the duplicate)"
        for n in (3, 5)
    ]
    replayed = read_items('{"content": "a", "idempotency_key": "k"}\n' * 2, "jsonl")
    assert len(replayed) == 2


def test_every_bad_line_is_listed_a_reused_key_with_a_bad_field_in_file_order() -> None:
    # trial24 LOW: a bad importance on line 3 was listed, the key reused on lines 1–2 was not
    text = (
        '{"content": "one", "idempotency_key": "k8"}\n'
        '{"content": "two", "idempotency_key": "k8"}\n'
        '{"content": "three", "importance": 7}\n'
    )
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "jsonl")
    assert [p.where for p in caught.value.problems] == ["line 2: idempotency_key", "line 3: importance"]
    assert caught.value.count == 2

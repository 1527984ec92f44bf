"""The one mapping from domain and argument errors to tool results with isError (api/errors.py)."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from hindsight.api.errors import (
    ERROR_KINDS,
    ErrorKind,
    admit_errors,
    error_object,
    tool_error_result,
    validation_error,
)
from hindsight.domain.errors import ConfigurationError, Forbidden, InvalidInput, NotFound, Unavailable
from hindsight.domain.errors import VersionConflict as StaleVersion


class _Search(BaseModel):
    top_k: int = Field(ge=1, le=100)
    query: str = Field(min_length=1)


def _text(exc: BaseException) -> tuple[str, dict[str, object]]:
    result = tool_error_result(exc)
    assert result is not None
    assert result.is_error
    assert result.structured_content is not None
    text = result.content[0].text  # type: ignore[union-attr]
    return text, result.structured_content["error"]


def test_a_validation_error_names_every_field_and_limit_in_text_and_structure() -> None:
    with pytest.raises(ValidationError) as caught:
        _Search(top_k=1000, query="")
    text, error = _text(caught.value)
    assert error["kind"] == "invalid_arguments"
    assert error["code"] == -32602
    assert error["retryable"] is False
    fields = {e["field"]: e for e in error["errors"]}  # type: ignore[attr-defined]
    assert fields["top_k"]["limit"] == {"le": 100}
    assert fields["query"]["limit"] == {"min_length": 1}
    first, rest = text.split("\n", 1)
    assert first == error["message"]
    assert "top_k: Input should be less than or equal to 100" in first
    assert json.loads(rest) == {"error": error}


class _Choice(BaseModel):
    layer: Literal["semantic", "episodic"]
    depth: Literal[1, 2] = 1


def test_a_value_outside_a_fixed_set_names_the_choices_as_its_limit() -> None:
    """trial8 LOW: an enum's error carried no ``limit``; the choices were only in the message."""
    with pytest.raises(ValidationError) as caught:
        _Choice(layer="procedural", depth=3)  # type: ignore[arg-type]
    _, error = _text(caught.value)
    fields = {e["field"]: e for e in error["errors"]}  # type: ignore[attr-defined]
    assert fields["layer"]["limit"] == {"one_of": ["semantic", "episodic"]}
    assert fields["depth"]["limit"] == {"expected": "1 or 2"}


def test_an_invalid_input_keeps_its_field_and_limit() -> None:
    _, error = _text(InvalidInput("content", "does not fit the budget", {"budget_tokens": 100}))
    assert error["message"] == "Invalid arguments: content: does not fit the budget"
    assert error["errors"] == [
        {
            "field": "content",
            "message": "content: does not fit the budget",
            "type": "invalid",
            "limit": {"budget_tokens": 100},
        }
    ]


def test_unavailable_is_retryable_and_says_so() -> None:
    text, error = _text(Unavailable("the write queue is unavailable"))
    assert (error["kind"], error["code"], error["retryable"]) == ("unavailable", -32001, True)
    assert text.startswith("the write queue is unavailable; retry later")


def test_a_subclass_is_reported_like_its_nearest_listed_base_with_its_own_details() -> None:
    class GoneForGood(NotFound):
        def details(self) -> dict[str, object]:
            return {"forgotten_at": "2026-11-30T10:00:00Z"}

    _, error = _text(GoneForGood("memory 42 not found"))
    assert error["kind"] == "not_found"
    assert error["code"] == -32002
    assert error["forgotten_at"] == "2026-11-30T10:00:00Z"


def test_a_new_error_gets_its_own_kind_with_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    class VersionConflict(Forbidden):
        def details(self) -> dict[str, object]:
            return {"current_version": 7}

    assert error_object(VersionConflict("stale"))["kind"] == "forbidden"  # type: ignore[index]
    monkeypatch.setitem(ERROR_KINDS, VersionConflict, ErrorKind("version_conflict", -32009, retryable=True))
    _, error = _text(VersionConflict("memory 42 is at version 7, not 6"))
    assert (error["kind"], error["code"], error["retryable"]) == ("version_conflict", -32009, True)
    assert error["current_version"] == 7


def test_an_unexpected_exception_is_not_mapped() -> None:
    assert error_object(RuntimeError("database password is hunter2")) is None
    assert error_object(ConfigurationError("not a tool error")) is None
    assert error_object(None) is None


def test_output_schemas_admit_the_error_object_and_keep_the_result_typed() -> None:
    schema = {
        "type": "object",
        "properties": {"results": {"type": "array"}, "count": {"type": "integer"}},
        "required": ["results", "count"],
    }
    widened = admit_errors(schema)
    assert widened["type"] == "object"
    assert widened["properties"]["results"] == {"type": "array"}
    assert widened["anyOf"] == [{"required": ["results", "count"]}, {"required": ["error"]}]
    assert "required" not in widened
    assert schema["required"] == ["results", "count"]  # the tool's own schema is left alone
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate({"results": [], "count": 0}, widened)
    jsonschema.validate({"error": error_object(NotFound("memory 42 not found"))}, widened)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"count": 0}, widened)  # neither a whole result nor an error


def test_a_version_conflict_is_its_own_kind_and_shows_the_current_content() -> None:
    conflict = StaleVersion("memory 42", 6, 7, {"content": "the current text", "version": 7})
    text, error = _text(conflict)
    assert (error["kind"], error["code"], error["retryable"]) == ("version_conflict", -32009, False)
    assert (error["current_version"], error["expected_version"]) == (7, 6)
    assert error["current"]["content"] == "the current text"
    assert "expected_version=7" in error["message"]
    assert "the current text" in text  # the model reads what to merge with


class _Write(BaseModel):
    importance: float = Field(ge=0, le=1, strict=True)
    turn: int = Field(ge=0, lt=10, strict=True)
    tags: list[str] = Field(max_length=20)
    layer: Literal["semantic", "episodic"] = "semantic"
    content: str = Field(min_length=1, max_length=200)


def test_a_type_error_names_the_fields_bounds_from_its_schema() -> None:
    """trial: `importance: "high"` was answered "Input should be a valid number", no bound to retry with."""
    with pytest.raises(ValidationError) as caught:
        _Write.model_validate_json(
            '{"importance": "high", "turn": 2.5, "tags": "a", "layer": 3}', strict=True
        )
    error = validation_error(caught.value, schema=_Write.model_json_schema())
    fields = {e["field"]: e for e in error["errors"]}
    assert fields["importance"]["message"] == "must be a number from 0 to 1 (got a string)"
    assert fields["importance"]["limit"] == {"type": "number", "ge": 0, "le": 1}
    assert fields["turn"]["message"] == "must be an integer from 0 to 9 (got a number with a fractional part)"
    assert fields["turn"]["limit"] == {"type": "integer", "ge": 0, "lt": 10}
    assert fields["tags"]["message"] == "must be a list of at most 20 strings (got a string)"
    assert fields["tags"]["limit"] == {"type": "array", "max_items": 20}
    assert fields["layer"]["limit"] == {"one_of": ["semantic", "episodic"]}
    assert fields["content"]["message"] == "required: give a string of 1 to 200 characters"
    assert "importance: must be a number from 0 to 1 (got a string)" in error["message"]
    assert "high" not in json.dumps(error)  # the rejected value is never echoed

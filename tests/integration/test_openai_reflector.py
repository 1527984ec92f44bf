"""The OpenAI-compatible Reflector and WriteJudge against a real loopback HTTP server that speaks the
chat-completions wire format (stdlib ``http.server`` on 127.0.0.1, port 0, in a thread).

No Postgres, Redis or SQS needed. Retry waits are kept short with ``retry-after-ms``, which the openai
client honours before its own exponential backoff.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hindsight.adapters.reflection.openai_chat import (
    OpenAIChatModel,
    OpenAIChatReflector,
    OpenAIChatWriteJudge,
)
from hindsight.adapters.reflection.rules import RulesReflector
from hindsight.domain.errors import ConfigurationError, JudgeFailed, ReflectionFailed
from hindsight.domain.reflection import MAX_REFLECTION_TEMPERATURE, EpisodeRecord, TaskReport
from hindsight.prompts.reflection import episode_schema
from tests.support import ChatServer, Reply, chat_handler, loopback_http_server

pytestmark = pytest.mark.anyio

RECORD = {
    "task_type": "query",
    "outcome": "success",
    "summary": "Exported the October invoices after one rate-limited attempt.",
    "key_decisions": ["Waited 30 s after HTTP 429", "Retried the export"],
    "lesson": "On HTTP 429, wait for Retry-After and retry.",
    "entities": {"customer_id": "C-88"},
}
REPORT = TaskReport(
    task_id="task-7f3a",
    goal="Export the October invoices",
    steps=["Got HTTP 429", "Waited 30 s", "Retried the export"],
    outcome="success",
)


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    state = ChatServer()
    with loopback_http_server(chat_handler(state)) as state.port:
        yield state


def _model(server: ChatServer, **overrides: Any) -> OpenAIChatModel:
    options: dict[str, Any] = {
        "model": "test-model",
        "base_url": server.base_url,
        "api_key": "sk-test",
        "temperature": 0.0,
        "timeout_s": 5.0,
        "max_retries": 2,
        **overrides,
    }
    return OpenAIChatModel(**options)


async def test_a_plain_json_reply_becomes_the_record_and_the_request_is_fixed_format(
    chat_server: ChatServer,
) -> None:
    chat_server.script = [Reply(content=json.dumps(RECORD))]
    record = await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)
    assert record == EpisodeRecord.model_validate(RECORD)

    (request,) = chat_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["model"] == "test-model"
    assert request["temperature"] <= MAX_REFLECTION_TEMPERATURE
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["name"] == "episode_record"
    assert request["response_format"]["json_schema"]["schema"] == episode_schema()
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user"]
    assert "Export the October invoices" in request["messages"][1]["content"]
    assert chat_server.headers[0]["authorization"] == "Bearer sk-test"


async def test_a_429_with_retry_after_is_retried_by_the_client(chat_server: ChatServer) -> None:
    chat_server.script = [
        Reply(status=429, headers={"retry-after-ms": "20", "Retry-After": "1"}),
        Reply(content=json.dumps(RECORD)),
    ]
    started = time.monotonic()
    record = await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)
    assert record.lesson == RECORD["lesson"]
    assert len(chat_server.requests) == 2
    assert time.monotonic() - started < 2.0  # honoured the 20 ms, not the 1 s nor the 0.5 s backoff


async def test_json_in_fences_with_prose_around_it(chat_server: ChatServer) -> None:
    chat_server.script = [
        Reply(
            content="Here is the retrospective you asked for:\n\n```json\n"
            + json.dumps(RECORD, indent=2)
            + "\n```\n\nLet me know if you want more detail."
        )
    ]
    record = await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)
    assert record == EpisodeRecord.model_validate(RECORD)


async def test_persistent_500s_fail_clearly_after_the_configured_retries(chat_server: ChatServer) -> None:
    chat_server.script = [Reply(status=500, headers={"retry-after-ms": "5"})]
    reflector = OpenAIChatReflector(_model(chat_server, max_retries=2))
    with pytest.raises(
        ReflectionFailed, match=r"test-model@http://127\.0\.0\.1:\d+/v1 answered HTTP 500 after 2 retries"
    ):
        await reflector.reflect(REPORT)
    assert len(chat_server.requests) == 3  # the first attempt and two retries


async def test_the_rules_fallback_answers_when_the_model_fails(chat_server: ChatServer) -> None:
    chat_server.script = [Reply(status=503, headers={"retry-after-ms": "5"})]
    reflector = OpenAIChatReflector(_model(chat_server, max_retries=1), fallback=RulesReflector())
    record = await reflector.reflect(REPORT)
    assert record == await RulesReflector().reflect(REPORT)
    assert len(chat_server.requests) == 2


def test_a_temperature_above_the_limit_is_refused_at_construction() -> None:
    with pytest.raises(ConfigurationError, match=r"temperature 0\.5 is not allowed.*0 to 0\.1"):
        OpenAIChatModel(model="m", base_url="http://127.0.0.1:9/v1", temperature=0.5)
    with pytest.raises(ConfigurationError, match="temperature"):
        OpenAIChatModel(model="m", temperature=-0.1)
    OpenAIChatModel(model="m", temperature=MAX_REFLECTION_TEMPERATURE)  # the limit itself is fine


async def test_an_invalid_record_names_what_was_wrong(chat_server: ChatServer) -> None:
    bad = {**RECORD, "key_decisions": ["a", "b", "c", "d"]}
    chat_server.script = [Reply(content=json.dumps(bad))]
    with pytest.raises(ReflectionFailed, match=r"not a valid EpisodeRecord: key_decisions: .*at most 3"):
        await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)
    assert len(chat_server.requests) == 1  # a bad reply is not an HTTP error: no retry


async def test_a_cut_off_or_trailing_comma_reply_is_refused_not_repaired(chat_server: ChatServer) -> None:
    chat_server.script = [Reply(content=json.dumps(RECORD)[:-20], finish_reason="length")]
    with pytest.raises(ReflectionFailed, match="cut off: finish_reason=length"):
        await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)
    chat_server.script = [Reply(content=json.dumps(RECORD)[:-1] + ",}")]
    with pytest.raises(ReflectionFailed, match="no complete JSON object"):
        await OpenAIChatReflector(_model(chat_server)).reflect(REPORT)


async def test_the_reported_outcome_and_entities_win_over_the_models(chat_server: ChatServer) -> None:
    chat_server.script = [Reply(content=json.dumps({**RECORD, "outcome": "failure"}))]
    report = REPORT.model_copy(update={"entities": {"customer_id": "C-99", "region": "eu"}})
    record = await OpenAIChatReflector(_model(chat_server)).reflect(report)
    assert record.outcome == "success"
    assert record.entities == {"customer_id": "C-99", "region": "eu"}


async def test_the_write_judge_reads_a_yes_or_no(chat_server: ChatServer) -> None:
    chat_server.script = [
        Reply(content='{"remember": true}'),
        Reply(content='Sure.\n```json\n{"remember": false, "why": "small talk"}\n```'),
        Reply(content="I think you should remember it."),
    ]
    judge = OpenAIChatWriteJudge(_model(chat_server))
    assert await judge.judge("My daughter starts school in September") is True
    assert await judge.judge("nice weather today") is False
    with pytest.raises(JudgeFailed, match="no complete JSON object"):
        await judge.judge("something")
    first = chat_server.requests[0]
    assert first["temperature"] <= MAX_REFLECTION_TEMPERATURE
    assert first["response_format"]["json_schema"]["schema"]["required"] == ["remember"]
    assert json.loads(first["messages"][1]["content"].removeprefix("Message:\n")) == (
        "My daughter starts school in September"
    )

"""The Lambda entry points invoked in-process with real event shapes (tests/events), many warm
invocations in a row, against the embedded stack."""

from __future__ import annotations

import importlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hindsight.api.lambda_http import LambdaHttpAdapter
from hindsight.api.mcp_server import create_http_app
from hindsight.bootstrap import build_container
from hindsight.local.poller import LocalLambdaContext, SqsPoller
from hindsight.local.stack import LocalStack
from tests.support import count_memories, load_event

pytestmark = pytest.mark.integration


def _substitute(event: dict[str, Any], **values: str) -> dict[str, Any]:
    text = json.dumps(event)
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    result: dict[str, Any] = json.loads(text)
    return result


def _rpc(response: dict[str, Any]) -> dict[str, Any]:
    assert response["statusCode"] == 200, response
    body: dict[str, Any] = json.loads(response["body"])
    return body


@pytest.fixture
def lambda_env(stack: LocalStack, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The environment the SAM template gives the functions, pointed at the embedded stack."""
    settings = stack.require_settings()
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", settings.require_database_url())
    monkeypatch.setenv("HINDSIGHT_REDIS_URL", settings.redis_url)
    monkeypatch.setenv("HINDSIGHT_WRITE_QUEUE_URL", settings.require_write_queue_url())
    monkeypatch.setenv("HINDSIGHT_AWS_ENDPOINT_URL", settings.aws_endpoint_url or "")
    monkeypatch.setenv("HINDSIGHT_ALLOWED_HOSTS", '["*"]')
    return


def test_mcp_function_serves_many_warm_invocations(
    lambda_env: None, stack: LocalStack, poller: SqsPoller, token: str, tenant: str
) -> None:
    module = importlib.import_module("functions.mcp_http.app")
    module._handler = None  # a cold start for this test
    ctx = LocalLambdaContext("McpHttpFunction")
    try:
        init = _rpc(
            module.handler(
                _substitute(load_event("function_url_initialize.json"), HINDSIGHT_TOKEN=token), ctx
            )
        )
        assert init["result"]["serverInfo"]["name"] == "hindsight"
        for _ in range(3):
            listed = _rpc(
                module.handler(
                    _substitute(load_event("function_url_tools_list.json"), HINDSIGHT_TOKEN=token), ctx
                )
            )
            assert {t["name"] for t in listed["result"]["tools"]} >= {"memory_write", "memory_search"}
        for _ in range(3):
            written = _rpc(
                module.handler(
                    _substitute(load_event("function_url_memory_write.json"), HINDSIGHT_TOKEN=token), ctx
                )
            )
            assert written["result"]["structuredContent"]["status"] == "queued"
        assert poller.drain(60)
        assert count_memories(stack, tenant) == 1  # three identical writes, one memory
        for _ in range(3):
            found = _rpc(
                module.handler(
                    _substitute(load_event("function_url_memory_search.json"), HINDSIGHT_TOKEN=token), ctx
                )
            )
            hits = found["result"]["structuredContent"]["results"]
            assert hits[0]["memory"]["key"] == "order:A-1042"
    finally:
        module._handler.close()
        module._handler = None


def test_mcp_function_answers_401_without_a_token(lambda_env: None) -> None:
    module = importlib.import_module("functions.mcp_http.app")
    module._handler = None
    try:
        event = load_event("function_url_tools_list.json")
        del event["headers"]["authorization"]
        for _ in range(3):
            response = module.handler(event, LocalLambdaContext("McpHttpFunction"))
            assert response["statusCode"] == 401
    finally:
        module._handler.close()
        module._handler = None


def test_host_check_applies_unless_hosts_are_opened(stack: LocalStack, token: str) -> None:
    # Locally the DNS-rebinding check is on: a Function URL host is refused (421).
    settings = stack.require_settings()
    adapter = LambdaHttpAdapter(create_http_app(settings, lambda: build_container(settings)))
    try:
        event = _substitute(load_event("function_url_tools_list.json"), HINDSIGHT_TOKEN=token)
        assert adapter(event, LocalLambdaContext("McpHttpFunction"))["statusCode"] == 421
    finally:
        adapter.close()


def test_embed_worker_reports_only_the_bad_record(lambda_env: None, stack: LocalStack, tenant: str) -> None:
    module = importlib.import_module("functions.embed_worker.app")
    module._handler = None
    event = _substitute(load_event("sqs_write_batch.json"), HINDSIGHT_TENANT=tenant)
    for record in event["Records"]:  # fresh job ids so reruns of the suite do not collide
        body = json.loads(record["body"])
        body["id"] = str(uuid.uuid4())
        record["body"] = json.dumps(body)
    poison = dict(event["Records"][0], messageId="poison-1", body='{"kind": "memory.write", "id": "nope"}')
    event["Records"].append(poison)
    try:
        response = module.handler(event, LocalLambdaContext("EmbedWorkerFunction"))
        assert response == {"batchItemFailures": [{"itemIdentifier": "poison-1"}]}
        assert count_memories(stack, tenant) == 2
        # Redelivery of the same batch stores nothing new (idempotent per job id).
        module.handler(event, LocalLambdaContext("EmbedWorkerFunction"))
        assert count_memories(stack, tenant) == 2
    finally:
        module._handler.close()
        module._handler = None

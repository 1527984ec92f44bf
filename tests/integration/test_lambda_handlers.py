"""The Lambda entry points invoked in-process with real event shapes (tests/events), many warm
invocations in a row, against the embedded stack. Every file in tests/events goes through its function
here (tests/deploy checks that none is left out)."""

from __future__ import annotations

import importlib
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import psycopg
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
    monkeypatch.setenv("HINDSIGHT_REFLECT_QUEUE_URL", settings.reflect_queue_url or "")
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
            assert hits[0]["memory"]["key"] == "order:a-1042"  # stored in lower case (1ca4ae0)
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


def _fresh_ids(event: dict[str, Any]) -> dict[str, Any]:
    """New job ids in every record, so reruns of the suite against one stack do not collide."""
    for record in event["Records"]:
        body = json.loads(record["body"])
        body["id"] = str(uuid.uuid4())
        record["body"] = json.dumps(body)
    return event


def test_reflect_worker_turns_the_report_into_one_episode(
    lambda_env: None, stack: LocalStack, tenant: str
) -> None:
    module = importlib.import_module("functions.reflect_worker.app")
    module._handler = None
    event = _fresh_ids(_substitute(load_event("sqs_reflect_batch.json"), HINDSIGHT_TENANT=tenant))
    job_id = json.loads(event["Records"][0]["body"])["id"]
    try:
        response = module.handler(event, LocalLambdaContext("ReflectWorkerFunction"))
        assert response == {"batchItemFailures": []}
        assert count_memories(stack, tenant) == 1
        with psycopg.connect(stack.require_settings().require_database_url()) as conn:
            row = conn.execute(
                "SELECT layer, outcome, entities FROM memories WHERE tenant_id = %s AND id = %s",
                (tenant, job_id),
            ).fetchone()
        assert row is not None
        layer, outcome, entities = row
        assert (layer, outcome, entities["order_id"]) == ("episodic", "success", "A-1042")
        # A redelivered batch (warm instance) stores nothing new.
        assert module.handler(event, LocalLambdaContext("ReflectWorkerFunction")) == {"batchItemFailures": []}
        assert count_memories(stack, tenant) == 1
    finally:
        module._handler.close()
        module._handler = None


def test_maintenance_function_with_the_template_wiring_sweeps_stuck_work(lambda_env: None) -> None:
    # With the queue URLs the template gives it, the stuck-work sweep runs instead of "no sweeper".
    module = importlib.import_module("functions.maintenance.app")
    module._handler = None
    event = load_event("scheduled_maintenance.json")
    try:
        report = module.handler(event, LocalLambdaContext("MaintenanceFunction", timeout_s=120))
        steps = {s["name"]: s for s in report["steps"]}
        assert steps["stuck_work"]["status"] == "done", steps["stuck_work"]
        assert "requeued" in steps["stuck_work"]["counts"]
        assert report["event_id"] == event["id"]
    finally:
        module._handler.close()
        module._handler = None


class _CloudFormation:
    """A loopback stand-in for the pre-signed S3 ResponseURL: records each PUT body."""

    def __init__(self) -> None:
        answers: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                answers.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.answers = answers
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/cfn-response?X-Amz-Signature=abc"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def test_migrate_function_events(
    lambda_env: None, stack: LocalStack, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = importlib.import_module("functions.migrate.app")
    ctx = LocalLambdaContext("MigrateFunction", timeout_s=300)
    # A plain invoke: the stack applied every migration already.
    assert module.handler(load_event("migrate_invoke.json"), ctx) == {"applied": []}

    # The SchemaMigration custom resource on a deploy: the answer goes to CloudFormation by PUT.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    cloudformation = _CloudFormation()
    try:
        event = _substitute(
            load_event("cfn_schema_migration_create.json"), CFN_RESPONSE_URL=cloudformation.url
        )
        body = module.handler(event, ctx)
    finally:
        cloudformation.close()
    assert cloudformation.answers == [body]
    assert (body["Status"], body["Reason"]) == ("SUCCESS", "schema up to date")
    assert body["RequestId"] == event["RequestId"]

    # The first token of a deployment: minted in the database, it opens the MCP function.
    minted = module.handler(_substitute(load_event("migrate_mint_token.json"), HINDSIGHT_TENANT=tenant), ctx)
    assert minted["tenant_id"] == tenant
    assert minted["name"] == "first agent"
    assert minted["token"].startswith("hsk_")
    mcp = importlib.import_module("functions.mcp_http.app")
    mcp._handler = None
    try:
        listed = _rpc(
            mcp.handler(
                _substitute(load_event("function_url_tools_list.json"), HINDSIGHT_TOKEN=minted["token"]),
                LocalLambdaContext("McpHttpFunction"),
            )
        )
        assert any(t["name"] == "memory_write" for t in listed["result"]["tools"])
    finally:
        mcp._handler.close()
        mcp._handler = None

    # Listing shows the key but no secret; revoking closes the door (a new instance: no cached check).
    keys = module.handler({"list_tokens": {"tenant": tenant}}, ctx)["keys"]
    assert [k["key_id"] for k in keys] == [minted["key_id"]]
    assert not {"token", "secret_sha256"} & set(keys[0])
    assert module.handler({"revoke_token": {"key_id": minted["key_id"]}}, ctx)["revoked"] is True
    assert module.handler({"revoke_token": {"key_id": minted["key_id"]}}, ctx)["revoked"] is False
    try:
        refused = mcp.handler(
            _substitute(load_event("function_url_tools_list.json"), HINDSIGHT_TOKEN=minted["token"]),
            LocalLambdaContext("McpHttpFunction"),
        )
        assert refused["statusCode"] == 401
    finally:
        mcp._handler.close()
        mcp._handler = None

    with pytest.raises(ValueError, match=r"mint_token request: tenant: Field required"):
        module.handler({"mint_token": {"name": "no tenant"}}, ctx)

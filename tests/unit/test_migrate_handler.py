"""The migration function's answer to CloudFormation, sent over real HTTP to a loopback server.

The migration itself (``run_migrations``) is replaced here; it is exercised against a real database
elsewhere. What is real: the event handling, the JSON body and the HTTP PUT.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from hindsight.api import migrate_handler
from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class CloudFormationStub:
    """A loopback HTTP server standing in for the pre-signed S3 ResponseURL."""

    base_url: str
    requests: list[Recorded] = field(default_factory=list)
    fail_first: int = 0  # answer this many requests with HTTP 500 first

    def response_url(self) -> str:
        return f"{self.base_url}/cfn-response/stack/req-1?X-Amz-Signature=abc&X-Amz-Expires=7200"


@pytest.fixture
def cfn(monkeypatch: pytest.MonkeyPatch) -> Iterator[CloudFormationStub]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setattr(migrate_handler, "_RESPONSE_RETRY_DELAYS_S", (0.0, 0.0, 0.0))
    stub: CloudFormationStub

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            stub.requests.append(
                Recorded("PUT", self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw))
            )
            failing = stub.fail_first > 0
            stub.fail_first -= 1 if failing else 0
            self.send_response(500 if failing else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub = CloudFormationStub(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings come from the defaults, not from whatever HINDSIGHT_* the shell has."""
    import os

    for name in list(os.environ):
        if name.startswith("HINDSIGHT_"):
            monkeypatch.delenv(name)


def fake_migrations(
    monkeypatch: pytest.MonkeyPatch, result: list[int] | Exception, delay_s: float = 0.0
) -> list[Settings]:
    calls: list[Settings] = []

    async def run(settings: Settings) -> list[int]:
        calls.append(settings)
        if delay_s:
            await asyncio.sleep(delay_s)
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(migrate_handler, "run_migrations", run)
    return calls


def cfn_event(stub: CloudFormationStub, request_type: str, **extra: Any) -> dict[str, Any]:
    event = {
        "RequestType": request_type,
        "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:migrate",
        "ResponseURL": stub.response_url(),
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/hindsight-dev/guid",
        "RequestId": "req-1",
        "LogicalResourceId": "SchemaMigration",
        "ResourceType": "AWS::CloudFormation::CustomResource",
        "ResourceProperties": {"SchemaVersion": "1"},
    }
    event.update(extra)
    return event


class LambdaContext:
    log_stream_name = "2025/01/01/[$LATEST]abc"

    def __init__(self, remaining_ms: int = 300_000) -> None:
        self._remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self._remaining_ms


def only_request(stub: CloudFormationStub) -> Recorded:
    assert len(stub.requests) == 1, stub.requests
    return stub.requests[0]


def test_create_applies_migrations_and_answers_success(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_migrations(monkeypatch, [1, 2])

    returned = migrate_handler.handle(cfn_event(cfn, "Create"), LambdaContext())

    assert len(calls) == 1
    sent = only_request(cfn)
    assert sent.method == "PUT"
    assert sent.path == "/cfn-response/stack/req-1?X-Amz-Signature=abc&X-Amz-Expires=7200"
    # The pre-signed URL is signed without a content type: urllib's form default must not be sent.
    assert sent.headers.get("content-type", "") == ""
    assert sent.body == returned
    assert sent.body["Status"] == "SUCCESS"
    assert sent.body["StackId"].endswith("stack/hindsight-dev/guid")
    assert sent.body["RequestId"] == "req-1"
    assert sent.body["LogicalResourceId"] == "SchemaMigration"
    assert sent.body["PhysicalResourceId"] == "hindsight-migrations-SchemaMigration"
    assert sent.body["Data"] == {"Applied": "1,2"}


def test_update_keeps_the_physical_id_and_reports_up_to_date(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_migrations(monkeypatch, [])

    migrate_handler.handle(cfn_event(cfn, "Update", PhysicalResourceId="keep-me"), LambdaContext())

    body = only_request(cfn).body
    assert body["Status"] == "SUCCESS"
    assert body["PhysicalResourceId"] == "keep-me"  # a new id would make CloudFormation replace it
    assert body["Reason"] == "schema up to date"
    assert body["Data"] == {"Applied": ""}


def test_delete_is_a_no_op_success(cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_migrations(monkeypatch, RuntimeError("must not run on Delete"))
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_DIM", "not-a-number")  # Delete must not even read settings

    migrate_handler.handle(cfn_event(cfn, "Delete", PhysicalResourceId="pid-1"), LambdaContext())

    assert calls == []
    body = only_request(cfn).body
    assert body["Status"] == "SUCCESS"
    assert body["PhysicalResourceId"] == "pid-1"


def test_a_failing_migration_answers_failed_with_the_reason(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_migrations(monkeypatch, ConfigurationError("migration 001_initial_schema was changed"))

    returned = migrate_handler.handle(cfn_event(cfn, "Update", PhysicalResourceId="pid-1"), LambdaContext())

    body = only_request(cfn).body
    assert returned == body
    assert body["Status"] == "FAILED"
    assert "ConfigurationError: migration 001_initial_schema was changed" in body["Reason"]
    assert "log stream 2025/01/01/[$LATEST]abc" in body["Reason"]
    assert body["PhysicalResourceId"] == "pid-1"


def test_invalid_settings_still_answer_failed(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_migrations(monkeypatch, [1])
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_DIM", "not-a-number")

    migrate_handler.handle(cfn_event(cfn, "Create"), LambdaContext())

    assert calls == []
    body = only_request(cfn).body
    assert body["Status"] == "FAILED"
    assert "HINDSIGHT_EMBEDDING_DIM" in body["Reason"]
    # Create failed: CloudFormation still needs a physical id to roll back with.
    assert body["PhysicalResourceId"]


def test_running_out_of_time_answers_failed_before_the_deadline(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_migrations(monkeypatch, [1], delay_s=30)
    monkeypatch.setattr(migrate_handler, "_DEADLINE_MARGIN_S", 0.0)

    migrate_handler.handle(cfn_event(cfn, "Create"), LambdaContext(remaining_ms=1000))

    body = only_request(cfn).body
    assert body["Status"] == "FAILED"
    assert "MigrationTimeout" in body["Reason"]
    assert "did not finish within 1s" in body["Reason"]


def test_a_huge_error_is_cut_to_fit_the_response_limit(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_migrations(monkeypatch, ConfigurationError("x" * 20_000))

    migrate_handler.handle(cfn_event(cfn, "Create"), LambdaContext())

    sent = only_request(cfn)
    assert sent.body["Status"] == "FAILED"
    assert int(sent.headers["content-length"]) < 4096


def test_the_answer_is_retried_after_a_server_error(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_migrations(monkeypatch, [1])
    cfn.fail_first = 2

    migrate_handler.handle(cfn_event(cfn, "Create"), LambdaContext())

    assert [r.body["Status"] for r in cfn.requests] == ["SUCCESS"] * 3


def test_unknown_request_type_answers_failed(
    cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_migrations(monkeypatch, [1])

    migrate_handler.handle(cfn_event(cfn, "Rollback"), LambdaContext())

    assert calls == []
    assert only_request(cfn).body["Status"] == "FAILED"


def test_plain_invoke_returns_the_applied_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_migrations(monkeypatch, [1, 2])

    assert migrate_handler.handle({}, LambdaContext()) == {"applied": [1, 2]}


def test_plain_invoke_raises_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_migrations(monkeypatch, ConfigurationError("no database configured"))

    with pytest.raises(ConfigurationError, match="no database configured"):
        migrate_handler.handle({}, None)


def test_the_function_entry_point_delegates(cfn: CloudFormationStub, monkeypatch: pytest.MonkeyPatch) -> None:
    from functions.migrate import app

    fake_migrations(monkeypatch, [3])

    assert app.handler({}, LambdaContext()) == {"applied": [3]}
    app.handler(cfn_event(cfn, "Create"), LambdaContext())
    assert only_request(cfn).body["Data"] == {"Applied": "3"}

"""Observability pieces without the stack: EMF metrics, the JSON formatter with correlation ids, the
Lambda wrapper's logger/correlation/flush, and the request middleware's JSON-RPC fields."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from hindsight.adapters.observability import EmfMetrics, InMemoryMetrics, json_handler, make_metrics
from hindsight.api.observe import ObservedHandler, rpc_fields
from hindsight.correlation import bound, current, new_correlation_id


def test_emf_metrics_print_one_document_per_flush(capsys: pytest.CaptureFixture[str]) -> None:
    metrics = EmfMetrics(namespace="HindsightTest")
    metrics.count("Searches")
    metrics.count("SearchHits", 3)
    metrics.timing("SearchLatency", 12.5)
    metrics.flush()
    metrics.flush()  # nothing pending: prints nothing
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(lines) == 1
    doc = lines[0]
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "HindsightTest"
    assert {m["Name"]: m["Unit"] for m in directive["Metrics"]} == {
        "Searches": "Count",
        "SearchHits": "Count",
        "SearchLatency": "Milliseconds",
    }
    assert doc["SearchHits"] in (3.0, [3.0])
    assert metrics.snapshot()["counts"] == {"Searches": 1.0, "SearchHits": 3.0}


def test_metrics_kinds() -> None:
    assert isinstance(make_metrics("memory"), InMemoryMetrics)
    assert not isinstance(make_metrics("off"), InMemoryMetrics)
    assert isinstance(make_metrics("auto"), InMemoryMetrics)  # not in Lambda


def test_json_lines_carry_the_bound_correlation_id() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("hindsight.test.json")
    logger.addHandler(json_handler(stream))
    logger.setLevel(logging.INFO)
    logger.propagate = False
    with bound(correlation_id="req-1", rpc_id="7"), bound(tool="memory_search"):
        logger.info("hello", extra={"latency_ms": 1.5})
        assert current() == {"correlation_id": "req-1", "rpc_id": "7", "tool": "memory_search"}
    logger.info("after")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert (first["correlation_id"], first["rpc_id"], first["tool"], first["latency_ms"]) == (
        "req-1",
        "7",
        "memory_search",
        1.5,
    )
    assert first["service"] == "hindsight"
    assert first["level"] == "INFO"
    assert "correlation_id" not in second


def test_correlation_ids_from_callers_are_kept_only_when_plausible() -> None:
    assert new_correlation_id("abc-123") == "abc-123"
    assert new_correlation_id("bad id\nwith newline") != "bad id\nwith newline"
    assert len(new_correlation_id(None)) == 32


def test_rpc_fields_of_a_tool_call() -> None:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "memory_search"}}
    )
    assert rpc_fields(body.encode()) == {"rpc_id": "5", "rpc_method": "tools/call", "tool": "memory_search"}
    assert rpc_fields(b"[1, 2]") == {}
    assert rpc_fields(b"not json") == {}


_POWERTOOLS_MARKS = ("powertools_handler", "init", "logger_handler")
"""Attributes Powertools' Logger sets on the stdlib logger it configures
(``aws_lambda_powertools.logging.constants``); a later Logger trusts them and reads ``handlers[0]``."""


@pytest.fixture
def restore_hindsight_logger() -> Iterator[None]:
    """The 'hindsight' logger as it was — handlers, level, propagation *and* Powertools' marks on it, so a
    later Logger in the same process (a Lambda handler test) configures it afresh instead of finding a
    'configured' logger whose handler this fixture removed."""
    logger = logging.getLogger("hindsight")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    marks = {name: vars(logger)[name] for name in _POWERTOOLS_MARKS if name in vars(logger)}
    yield
    logger.handlers[:], logger.level, logger.propagate = saved[0], saved[1], saved[2]
    for name in _POWERTOOLS_MARKS:
        vars(logger).pop(name, None)
    vars(logger).update(marks)


class _Context:
    aws_request_id = "lambda-req-42"
    function_name = "EmbedWorker"


def test_the_lambda_wrapper_logs_json_with_the_request_id_and_flushes_metrics(
    restore_hindsight_logger: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    metrics = InMemoryMetrics()
    flushed: list[bool] = []
    metrics.flush = lambda: flushed.append(True)  # type: ignore[method-assign]

    def inner(event: dict[str, Any], context: Any) -> dict[str, Any]:
        logging.getLogger("hindsight.usecases.test").info("inside", extra={"records": len(event["Records"])})
        metrics.count("JobsFailed")
        return {"batchItemFailures": []}

    handler = ObservedHandler(inner, name="embed_worker", metrics=lambda: metrics)
    assert handler({"Records": []}, _Context()) == {"batchItemFailures": []}  # cold start: builds the logger
    stream = io.StringIO()
    powertools = [h for h in logging.getLogger("hindsight").handlers if isinstance(h, logging.StreamHandler)]
    assert powertools, "the Powertools Logger did not register its handler on the hindsight logger"
    for h in powertools:
        h.setStream(stream)
    handler({"Records": [{}, {}]}, _Context())
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
    inside = [line for line in lines if line.get("message") == "inside"]
    assert inside, lines
    assert inside[0]["correlation_id"] == "lambda-req-42"
    assert inside[0]["function_request_id"] == "lambda-req-42"
    assert inside[0]["cold_start"] is False
    assert inside[0]["records"] == 2
    assert flushed == [True, True]


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"LAMBDA_TASK_ROOT": "/var/task"},
        {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"},
        {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "1"},
        {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "false"},
        {"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"},
        {"LAMBDA_TASK_ROOT": "/var/task", "AWS_CHALICE_CLI_MODE": "true"},
        {"POWERTOOLS_TRACE_DISABLED": "false"},
    ],
)
def test_tracing_enabled_follows_powertools_own_rule(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an environment, when both decide whether the Tracer records, then they agree (ours decides
    # without importing the X-Ray SDK; Powertools' answer is the reference).
    from aws_lambda_powertools.tracing.tracer import Tracer

    from hindsight.adapters.observability import tracing_enabled

    for name in ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED", "AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert tracing_enabled(env) is not bool(Tracer._is_tracer_disabled())
    assert tracing_enabled() is tracing_enabled(env)


def test_without_tracing_the_handler_is_not_wrapped_and_xray_is_not_loaded() -> None:
    # Given no Lambda environment (as in this test process), when the tracer is built, then it wraps
    # nothing and the X-Ray SDK stays unimported (a subprocess: other tests may have imported it).
    code = (
        "import sys; from hindsight.adapters.observability import lambda_tracer; "
        "f = lambda e, c: 1; assert lambda_tracer().capture_lambda_handler(f) is f; "
        "assert 'aws_xray_sdk' not in sys.modules, 'X-Ray SDK imported'"
    )
    env = {k: v for k, v in os.environ.items() if k != "LAMBDA_TASK_ROOT"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)

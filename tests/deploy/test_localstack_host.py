"""LocalStack itself, run without Docker (host mode; marker ``localstack``, ``make test-localstack``).

The embedded stack starts with LocalStack as its AWS emulator instead of moto (``hindsight run --emulator
localstack``): the init hook (infra/localstack/init-aws.sh) and the deploy script
(infra/localstack/deploy.py) run against it, then a write goes through the MCP endpoint onto
LocalStack's SQS, the worker stores it, and search finds it; a poison message ends in LocalStack's
dead-letter queue by its redrive policy.

LocalStack cannot *run* a Lambda function here — its only executor is Docker — so the deploy script's
first function is created and ends in state ``Failed``, and the script, which waits for each function to
become Active, stops there (before any SQS event source mapping exists that could take our messages);
the local pollers play the mappings, as they do with moto. localstack-core needs Python ≥ 3.13: the
interpreter is ``$HINDSIGHT_LOCALSTACK_PYTHON`` (``make test-localstack`` creates .venv-localstack), else
the test skips.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import boto3
import pytest
from botocore.exceptions import WaiterError

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.deploy.support import INIT_HOOK, ROOT, deploy_script, functions, load_template, tool
from tests.support import drain, mcp_client

pytestmark = pytest.mark.localstack
REGION = "us-east-1"


def localstack_python() -> str:
    path = os.environ.get("HINDSIGHT_LOCALSTACK_PYTHON") or str(ROOT / ".venv-localstack" / "bin" / "python")
    if not Path(path).exists():
        pytest.skip(f"no LocalStack interpreter at {path}: run `make test-localstack` (Python ≥ 3.13 needed)")
    return path


@pytest.fixture(scope="module")
def ls_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    stack = LocalStack(
        tmp_path_factory.mktemp("localstack"),
        ephemeral=True,
        embedder="hash",
        localstack_python=localstack_python(),
        queue_max_receive_count=2,
    )
    with stack:
        yield stack


def _sqs(stack: LocalStack) -> Any:
    assert stack.sqs is not None
    return boto3.client("sqs", endpoint_url=stack.sqs.endpoint_url, region_name=REGION)


def test_localstack_listens_on_loopback_only(ls_stack: LocalStack) -> None:
    assert ls_stack.sqs is not None
    assert ls_stack.sqs.endpoint_url.startswith("http://127.0.0.1:")
    assert ls_stack.queues is not None
    assert ls_stack.queues.writes.startswith(ls_stack.sqs.endpoint_url + "/")  # path-style queue URLs
    pid = ls_stack.sqs.pid
    assert pid is not None
    listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True, check=False).stdout
    mine = [line for line in listening.splitlines() if f"pid={pid}," in line]
    assert mine, listening
    assert all(" 127.0.0.1:" in line for line in mine), mine


def test_init_hook_and_deploy_script_run_against_localstack(ls_stack: LocalStack, tmp_path: Path) -> None:
    assert ls_stack.sqs is not None
    endpoint = ls_stack.sqs.endpoint_url
    env = {
        **os.environ,
        "AWSLOCAL": f"{tool('aws')} --endpoint-url {endpoint} --region {REGION}",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
    }
    for _ in range(2):  # idempotent: a restart of LocalStack runs the hook again
        hook = subprocess.run(["bash", str(INIT_HOOK)], env=env, capture_output=True, text=True, timeout=300)
        assert hook.returncode == 0, hook.stdout + hook.stderr
    assert "hindsight: maintenance schedule" in hook.stdout
    sqs = _sqs(ls_stack)
    url = sqs.get_queue_url(QueueName="hindsight-writes")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert json.loads(attributes["RedrivePolicy"])["maxReceiveCount"] == 5
    secrets = boto3.client("secretsmanager", endpoint_url=endpoint, region_name=REGION)
    assert (
        json.loads(secrets.get_secret_value(SecretId="hindsight/database")["SecretString"])["engine"]
        == "postgres"
    )

    script = deploy_script()
    layer = tmp_path / "layer" / "python" / "hindsight"
    layer.mkdir(parents=True)
    (layer / "__init__.py").write_text("")  # a stand-in for the built layer (tested in test_build)
    code = script.build_code(tmp_path, tmp_path / "layer")
    clients = script._clients(endpoint, REGION)
    lam = clients["lambda"]
    # The Lambda API works (the function is created with the template's settings), but no function can
    # run here: LocalStack's only executor is Docker, so the first one ends in state Failed and the
    # script, which waits for each function to be Active, stops there.
    with pytest.raises(WaiterError, match="Failed"):
        script.deploy(clients, script.code_argument(code, "zip"), invoke=False)
    (created,) = lam.list_functions()["Functions"]
    config = lam.get_function_configuration(FunctionName=created["FunctionName"])
    assert created["FunctionName"] in {f"hindsight-{name}" for name in functions(load_template())}
    assert config["State"] == "Failed"
    print(f"LocalStack host mode: {created['FunctionName']} {config['State']}: {config.get('StateReason')}")
    assert lam.list_event_source_mappings()["EventSourceMappings"] == []  # none takes our messages


@pytest.mark.anyio
async def test_write_queue_worker_search_through_localstack_sqs(ls_stack: LocalStack) -> None:
    tenant = f"t-ls-{uuid.uuid4().hex[:8]}"
    token = await anyio.to_thread.run_sync(lambda: ls_stack.mint_token(tenant))
    poller: SqsPoller = ls_stack.start_write_poller(background=False)
    server = await anyio.to_thread.run_sync(lambda: BackgroundServer(ls_stack.require_settings()).start())
    try:
        async with mcp_client(server.url, token) as client:
            facts = ["The Lisbon office uses LocalStack queues", "Deploys happen on Tuesdays at noon"]
            acks = [
                await call(client, "memory_write", {"content": f, "idempotency_key": f"ls-{i}"})
                for i, f in enumerate(facts)
            ]
            again = await call(client, "memory_write", {"content": facts[0], "idempotency_key": "ls-0"})
            assert again["id"] == acks[0]["id"]
            await drain(poller, timeout_s=60)
            status = await call(client, "memory_status", {"ids": [a["id"] for a in acks]})
            assert [w["status"] for w in status["writes"]] == ["stored", "stored"]
            hits = await call(client, "memory_search", {"query": "which queues does the Lisbon office use"})
            assert acks[0]["id"] in [h["memory"]["id"] for h in hits["results"]]
    finally:
        await anyio.to_thread.run_sync(server.stop)

    # A poison message: refused on each receive, then moved to the DLQ by LocalStack's redrive.
    assert ls_stack.queues is not None
    sqs = _sqs(ls_stack)
    sqs.set_queue_attributes(QueueUrl=ls_stack.queues.writes, Attributes={"VisibilityTimeout": "1"})
    sqs.send_message(QueueUrl=ls_stack.queues.writes, MessageBody="not a job")
    deadline = time.monotonic() + 60
    dead: list[dict[str, Any]] = []
    while not dead and time.monotonic() < deadline:
        await anyio.to_thread.run_sync(poller.poll_once)
        dead = sqs.receive_message(QueueUrl=ls_stack.queues.writes_dlq, WaitTimeSeconds=1).get("Messages", [])
    assert [m["Body"] for m in dead] == ["not a job"]

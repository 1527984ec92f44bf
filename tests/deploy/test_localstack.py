"""The LocalStack path, checked without Docker: docker-compose.localstack.yml parses and holds together
(health checks, depends_on, named volumes, loopback ports, settings that exist), the init hook agrees with
the embedded stack and the template and runs against moto's AWS APIs, and infra/localstack/deploy.py
creates the template's functions and triggers against moto's Lambda, SQS, EventBridge and IAM."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml

from hindsight.local import sqs_emulator
from hindsight.local.sqs_emulator import SqsEmulator
from tests.deploy.support import (
    COMPOSE,
    INIT_HOOK,
    ROOT,
    deploy_script,
    functions,
    settings_env_names,
    tool,
)

pytestmark = pytest.mark.deploy
REGION = "us-east-1"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def test_compose_services_start_in_order_and_keep_their_data(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"localstack", "postgres", "redis"}
    assert services["postgres"]["image"] == "pgvector/pgvector:pg16"
    assert services["redis"]["image"] == "redis:7"
    assert services["redis"]["command"] == ["redis-server", "--appendonly", "yes"]
    for name, service in services.items():
        check = service["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert {"interval", "timeout", "retries"} <= set(check), name
        for dependency, rule in service.get("depends_on", {}).items():
            assert rule == {"condition": "service_healthy"}, (name, dependency)
            assert "healthcheck" in services[dependency], dependency
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (ROOT / source).exists(), source
            elif not source.startswith("/"):
                assert source in compose["volumes"], f"{source} is not a named volume"
    assert set(services["localstack"]["depends_on"]) == {"postgres", "redis"}
    assert (
        services["localstack"]["environment"]["LAMBDA_DOCKER_NETWORK"]
        == compose["networks"]["default"]["name"]
    )
    enabled = set(services["localstack"]["environment"]["SERVICES"].split(","))
    assert {"sqs", "events", "scheduler", "lambda", "secretsmanager"} <= enabled
    hook = "./infra/localstack/init-aws.sh:/etc/localstack/init/ready.d/init-aws.sh:ro"
    assert hook in services["localstack"]["volumes"]
    assert os.access(INIT_HOOK, os.X_OK)


def test_compose_names_only_settings_that_exist(compose: dict[str, Any]) -> None:
    known = settings_env_names()
    named = set(re.findall(r"\bHINDSIGHT_[A-Z0-9_]+\b", COMPOSE.read_text()))
    assert named - set(known) == set(), f"not Settings fields: {sorted(named - set(known))}"
    block = compose[deploy_script().ENV_BLOCK]
    assert {k for k in block if k.startswith("HINDSIGHT_")} <= set(known)


def test_compose_function_environment_covers_what_the_template_gives(
    compose: dict[str, Any], template: dict[str, Any]
) -> None:
    """Every variable the template gives all functions unconditionally, LocalStack gives too (the
    per-function ones come from the template itself, through the deploy script)."""
    block = compose[deploy_script().ENV_BLOCK]
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    always = set()
    for name, value in variables.items():
        branches = value.get("Fn::If", [None, None, None])[1:] if isinstance(value, dict) else []
        if {"Ref": "AWS::NoValue"} not in branches:
            always.add(name)
    assert always - set(block) == set(), f"missing in {COMPOSE.name}: {sorted(always - set(block))}"
    assert block["HINDSIGHT_DATABASE_SECRET_ARN"] == "hindsight/database"  # what init-aws.sh writes
    assert block["HINDSIGHT_REDIS_URL"].startswith("redis://redis:")
    assert block["HINDSIGHT_AWS_ENDPOINT_URL"] == "http://localstack:4566"


def _hook_constants() -> dict[str, str]:
    return dict(re.findall(r"^([A-Z_]+)=([^\s$]+)", INIT_HOOK.read_text(), flags=re.MULTILINE))


def test_init_hook_agrees_with_the_embedded_stack_and_the_template(template: dict[str, Any]) -> None:
    hook = _hook_constants()
    assert (hook["WRITE_QUEUE"], hook["WRITE_DLQ"]) == (sqs_emulator.WRITE_QUEUE, sqs_emulator.WRITE_DLQ)
    assert (hook["BULK_QUEUE"], hook["BULK_DLQ"]) == (sqs_emulator.BULK_QUEUE, sqs_emulator.BULK_DLQ)
    assert (hook["REFLECT_QUEUE"], hook["REFLECT_DLQ"]) == (
        sqs_emulator.REFLECT_QUEUE,
        sqs_emulator.REFLECT_DLQ,
    )
    assert int(hook["MAX_RECEIVE_COUNT"]) == sqs_emulator.MAX_RECEIVE_COUNT
    assert int(hook["MAX_RECEIVE_COUNT"]) == template["Parameters"]["MaxReceiveCount"]["Default"]
    for queue in ("WriteQueue", "BulkWriteQueue", "ReflectQueue"):
        assert (
            int(hook["VISIBILITY_TIMEOUT_S"])
            == template["Resources"][queue]["Properties"]["VisibilityTimeout"]
        )
    assert hook["MAINTENANCE_RULE"] == deploy_script().MAINTENANCE_RULE
    assert deploy_script().QUEUE_NAMES["WriteQueue"] == sqs_emulator.WRITE_QUEUE
    assert deploy_script().QUEUE_NAMES["ReflectQueue"] == sqs_emulator.REFLECT_QUEUE
    assert deploy_script().QUEUE_NAMES["BulkWriteQueue"] == sqs_emulator.BULK_QUEUE
    assert deploy_script().QUEUE_NAMES["BulkWriteDeadLetterQueue"] == sqs_emulator.BULK_DLQ
    syntax = subprocess.run(["bash", "-n", str(INIT_HOOK)], capture_output=True, text=True, check=False)
    assert syntax.returncode == 0, syntax.stderr


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    """moto in server mode (the embedded stack's emulator): SQS, EventBridge, Secrets Manager, Lambda,
    IAM over HTTP."""
    emulator = SqsEmulator().start()
    try:
        yield emulator.endpoint_url
    finally:
        emulator.stop()


@pytest.fixture(scope="module")
def initialised(moto: str) -> str:
    """init-aws.sh run twice against moto (a LocalStack restart must not fail on "already exists")."""
    env = dict(
        os.environ,
        AWSLOCAL=f"{tool('aws')} --endpoint-url {moto} --region {REGION}",
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        POSTGRES_PASSWORD='p"w@d/1',
    )
    for _ in range(2):
        result = subprocess.run(
            ["bash", str(INIT_HOOK)], env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
    assert "hindsight: maintenance schedule" in result.stdout
    return moto


def test_init_hook_creates_queues_schedule_and_secret(initialised: str) -> None:
    sqs: Any = boto3.client("sqs", endpoint_url=initialised, region_name=REGION)
    for name, dlq in (
        (sqs_emulator.WRITE_QUEUE, sqs_emulator.WRITE_DLQ),
        (sqs_emulator.BULK_QUEUE, sqs_emulator.BULK_DLQ),
        (sqs_emulator.REFLECT_QUEUE, sqs_emulator.REFLECT_DLQ),
    ):
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        redrive = json.loads(attributes["RedrivePolicy"])
        assert redrive["deadLetterTargetArn"].endswith(f":{dlq}")
        assert redrive["maxReceiveCount"] == sqs_emulator.MAX_RECEIVE_COUNT
        assert attributes["VisibilityTimeout"] == "720"
    events: Any = boto3.client("events", endpoint_url=initialised, region_name=REGION)
    rule = events.describe_rule(Name="hindsight-maintenance")
    assert (rule["ScheduleExpression"], rule["State"]) == ("rate(15 minutes)", "ENABLED")
    secrets: Any = boto3.client("secretsmanager", endpoint_url=initialised, region_name=REGION)
    secret = json.loads(secrets.get_secret_value(SecretId="hindsight/database")["SecretString"])
    assert secret == {
        "engine": "postgres",
        "host": "postgres",
        "port": 5432,
        "username": "hindsight",
        "password": 'p"w@d/1',  # any password survives: the JSON is built by Python
        "dbname": "hindsight",
    }
    # The secret's shape is what the functions read (hindsight.adapters.aws_secrets).
    from hindsight.adapters.aws_secrets import database_url_from_secret

    url = database_url_from_secret("hindsight/database", endpoint_url=initialised, region=REGION)
    assert url == "postgresql://hindsight:p%22w%40d%2F1@postgres:5432/hindsight?sslmode=prefer"


def test_deploy_script_creates_the_template_functions_and_triggers(
    initialised: str, template: dict[str, Any], tmp_path: Path
) -> None:
    script = deploy_script()
    layer = tmp_path / "layer" / "python" / "hindsight"
    layer.mkdir(parents=True)
    (layer / "__init__.py").write_text("")  # a stand-in for the built layer (tested in test_build)
    code = script.build_code(tmp_path, tmp_path / "layer")
    assert (code / "functions" / "mcp_http" / "app.py").is_file()
    clients = script._clients(initialised, REGION)
    compose_env = script.load_compose_environment()
    for _ in range(2):  # a second run updates in place
        deployed = script.deploy(clients, script.code_argument(code, "zip"), invoke=False)
    lam = clients["lambda"]
    assert set(deployed.functions) == set(functions(template))
    for logical_id, resource in functions(template).items():
        props = resource["Properties"]
        config = lam.get_function_configuration(FunctionName=f"hindsight-{logical_id}")
        folder = Path(props["CodeUri"]).name
        assert config["Handler"] == f"functions.{folder}.app.handler"
        assert (config["Timeout"], config["MemorySize"]) == (props["Timeout"], props["MemorySize"])
        env = config["Environment"]["Variables"]
        assert compose_env.items() <= env.items()
        variables = props.get("Environment", {}).get("Variables", {})
        # The AWS-only options (public URL, JWTs) are conditional and stay off on LocalStack.
        own = {k for k, v in variables.items() if not (isinstance(v, dict) and "Fn::If" in v)}
        assert own <= set(env), logical_id
    mcp_env = lam.get_function_configuration(FunctionName="hindsight-McpHttpFunction")["Environment"][
        "Variables"
    ]
    assert mcp_env["HINDSIGHT_WRITE_QUEUE_URL"].startswith("http://localstack:4566/")
    assert mcp_env["HINDSIGHT_WRITE_QUEUE_URL"].endswith("/hindsight-writes")
    assert mcp_env["HINDSIGHT_REFLECT_QUEUE_URL"].endswith("/hindsight-reflections")
    assert mcp_env["HINDSIGHT_BULK_QUEUE_URL"].endswith("/hindsight-bulk-writes")
    assert mcp_env["HINDSIGHT_ALLOWED_HOSTS"] == '["*"]'
    mappings = lam.list_event_source_mappings()["EventSourceMappings"]
    by_function: dict[str, set[str]] = {}
    for m in mappings:
        by_function.setdefault(m["FunctionArn"].rsplit(":", 1)[-1], set()).add(
            m["EventSourceArn"].rsplit(":", 1)[-1]
        )
    assert len(mappings) == 3  # not duplicated by the second run
    assert by_function == {
        "hindsight-EmbedWorkerFunction": {"hindsight-writes", "hindsight-bulk-writes"},  # both lanes
        "hindsight-ReflectWorkerFunction": {"hindsight-reflections"},
    }
    for mapping in mappings:
        assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert deployed.mcp_url is not None
    assert deployed.mcp_url.endswith("/mcp")
    statements = json.loads(lam.get_policy(FunctionName="hindsight-McpHttpFunction")["Policy"])["Statement"]
    assert {s["Action"] for s in statements} == {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction"}
    events: Any = clients["events"]
    (target,) = events.list_targets_by_rule(Rule="hindsight-maintenance")["Targets"]
    assert target["Arn"] == deployed.functions["MaintenanceFunction"]

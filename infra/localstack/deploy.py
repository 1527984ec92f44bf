"""Deploy Hindsight's functions onto LocalStack, as template.yaml defines them, and print an MCP URL + token.

    docker compose -f docker-compose.localstack.yml up -d --wait
    .venv/bin/python infra/localstack/deploy.py [--tenant local]

What it does, against the LocalStack gateway (``--endpoint-url``, default http://127.0.0.1:4566):

1. builds the layer with ``infra/sam/Makefile`` (Linux x86_64 / CPython 3.12 wheels, as for AWS) and
   puts the ``functions/`` package beside it in ``.aws-sam/localstack/code`` (LocalStack's free edition
   has no Lambda layers, so layer and functions are one code folder, mounted with LocalStack's
   "hot-reload" bucket instead of uploaded: no size limit, no copy);
2. creates or updates every ``AWS::Serverless::Function`` of template.yaml with its handler (as
   ``functions.<folder>.app.handler``), timeout, memory and per-function variables (queue references
   become the LocalStack queue URLs), on top of the ``x-hindsight-lambda-environment`` block of
   docker-compose.localstack.yml;
3. wires the events as the template does: an SQS event source mapping per worker (batch size, batching
   window, ReportBatchItemFailures), the Function URL of the MCP function (AuthType NONE, both
   resource-policy statements) and the maintenance function as target of the rule init-aws.sh created;
4. invokes the migrate function (``{}``), then mints a token (``{"mint_token": {"tenant": ...}}``) and
   prints ``MCP URL:`` and ``Token:``.

Docker cannot run where this project is developed; tests/deploy runs steps 2-3 against moto's Lambda,
SQS, EventBridge and IAM APIs (``--code-mode zip --no-invoke``), so the API calls and the template
reading are checked, while LocalStack's runtime itself is not.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
COMPOSE = ROOT / "docker-compose.localstack.yml"
ENV_BLOCK = "x-hindsight-lambda-environment"
FUNCTION_PREFIX = "hindsight-"
ROLE_NAME = "hindsight-local-lambda"
MAINTENANCE_RULE = "hindsight-maintenance"
# template.yaml queue resources -> the names init-aws.sh (and the embedded stack) create.
QUEUE_NAMES = {
    "WriteQueue": "hindsight-writes",
    "WriteDeadLetterQueue": "hindsight-writes-dlq",
    "BulkWriteQueue": "hindsight-bulk-writes",
    "BulkWriteDeadLetterQueue": "hindsight-bulk-writes-dlq",
    "ReflectQueue": "hindsight-reflections",
    "ReflectDeadLetterQueue": "hindsight-reflections-dlq",
}
HOT_RELOAD_BUCKET = "hot-reload"  # LocalStack's marker for code mounted from a host folder
ASSUME_ROLE = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}


# ---- reading the template ------------------------------------------------------------------------


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (!Ref, !GetAtt, !Sub, ...) as their long forms."""


def _construct_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    name = suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    """template.yaml as plain data (short tags become ``{"Ref": ...}`` / ``{"Fn::X": ...}``)."""
    data: dict[str, Any] = yaml.load(path.read_text(), Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass
    return data


def load_compose_environment(path: Path = COMPOSE) -> dict[str, str]:
    """The functions' environment block of docker-compose.localstack.yml."""
    data = yaml.safe_load(path.read_text())
    block = data.get(ENV_BLOCK)
    if not isinstance(block, dict):
        raise SystemExit(f"{path.name} has no {ENV_BLOCK} mapping")
    return {str(k): str(v) for k, v in block.items()}


@dataclass
class FunctionSpec:
    """One template function as LocalStack gets it."""

    logical_id: str
    name: str
    handler: str
    timeout: int
    memory: int
    environment: dict[str, str]
    sqs_queues: list[str] = field(default_factory=list)  # logical ids of the queues feeding it
    batch_size: int = 10
    batching_window_s: int = 0
    schedule: bool = False
    function_url: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _parameter_default(template: Mapping[str, Any], name: str) -> Any:
    parameter = template.get("Parameters", {}).get(name)
    if parameter is None or "Default" not in parameter:
        raise ValueError(f"template parameter {name} has no default")
    return parameter["Default"]


def _local_value(template: Mapping[str, Any], value: Any, queue_urls: Mapping[str, str]) -> str | None:
    """A template value for LocalStack: literals as they are, a queue's Ref as its local URL, a
    parameter's Ref as its default; conditional values (Fn::If) are left out (their AWS-only branches:
    public URL, OpenAI settings)."""
    if isinstance(value, str | int | float | bool):
        return str(value)
    if isinstance(value, dict) and set(value) == {"Ref"}:
        ref = value["Ref"]
        if ref in queue_urls:
            return queue_urls[ref]
        if ref in template.get("Parameters", {}):
            return str(_parameter_default(template, ref))
        raise ValueError(f"cannot resolve Ref {ref} for LocalStack")
    if isinstance(value, dict) and set(value) == {"Fn::If"}:
        return None
    raise ValueError(f"cannot resolve {value!r} for LocalStack")


def function_specs(
    template: Mapping[str, Any], base_environment: Mapping[str, str], queue_urls: Mapping[str, str]
) -> list[FunctionSpec]:
    """Every AWS::Serverless::Function of the template, resolved for LocalStack."""
    globals_ = template.get("Globals", {}).get("Function", {})
    specs = []
    for logical_id, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        folder = Path(props["CodeUri"]).name
        module, _, attr = props["Handler"].rpartition(".")
        environment = dict(base_environment)
        for key, value in props.get("Environment", {}).get("Variables", {}).items():
            resolved = _local_value(template, value, queue_urls)
            if resolved is not None:
                environment[key] = resolved
        spec = FunctionSpec(
            logical_id=logical_id,
            name=FUNCTION_PREFIX + logical_id,
            handler=f"functions.{folder}.{module}.{attr}",
            timeout=int(props.get("Timeout", globals_.get("Timeout", 3))),
            memory=int(props.get("MemorySize", globals_.get("MemorySize", 128))),
            environment=environment,
            function_url="FunctionUrlConfig" in props,
        )
        for event in props.get("Events", {}).values():
            event_props = event.get("Properties", {})
            if event["Type"] == "SQS":
                spec.sqs_queues.append(event_props["Queue"]["Fn::GetAtt"][0])
                spec.batch_size = int(_local_value(template, event_props["BatchSize"], {}) or 10)
                window = event_props.get("MaximumBatchingWindowInSeconds", 0)
                spec.batching_window_s = int(_local_value(template, window, {}) or 0)
            elif event["Type"] in ("Schedule", "ScheduleV2"):
                spec.schedule = True
        specs.append(spec)
    return specs


# ---- code ------------------------------------------------------------------------------------------


def build_code(out_dir: Path, layer_dir: Path | None = None) -> Path:
    """The layer's python/ folder plus the functions package, in ``out_dir/code``; returns that folder."""
    if layer_dir is None:
        layer_dir = out_dir / "layer"
        makefile = str(ROOT / "infra/sam/Makefile")
        command = ["make", "-f", makefile, "build-HindsightLayer", f"ARTIFACTS_DIR={layer_dir}"]
        subprocess.run(command, check=True)  # noqa: S603 - fixed arguments
    code = out_dir / "code"
    if code.exists():
        shutil.rmtree(code)
    shutil.copytree(layer_dir / "python", code, symlinks=True)
    shutil.copytree(
        ROOT / "functions",
        code / "functions",
        ignore=shutil.ignore_patterns("__pycache__"),
        dirs_exist_ok=True,
    )
    return code


def code_argument(code: Path, mode: str) -> dict[str, Any]:
    """Lambda's Code argument: the folder mounted by LocalStack (hot-reload), or a zip of it."""
    if mode == "hot-reload":
        return {"S3Bucket": HOT_RELOAD_BUCKET, "S3Key": str(code.resolve())}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(code.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(code).as_posix())
    return {"ZipFile": buffer.getvalue()}


# ---- deploying -----------------------------------------------------------------------------------


@dataclass
class Deployed:
    functions: dict[str, str]  # logical id -> function ARN
    mcp_url: str | None = None
    token: str | None = None
    migrations: list[int] = field(default_factory=list)


def queue_urls(sqs: Any, account_endpoint: str) -> dict[str, str]:
    """The queues' URLs as the functions reach them (through the in-network gateway)."""
    urls = {}
    for logical_id, name in QUEUE_NAMES.items():
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        account = url.rstrip("/").split("/")[-2]
        urls[logical_id] = f"{account_endpoint.rstrip('/')}/{account}/{name}"
    return urls


def _ensure_role(iam: Any) -> str:
    try:
        arn: str = iam.get_role(RoleName=ROLE_NAME)["Role"]["Arn"]
    except iam.exceptions.NoSuchEntityException:
        arn = iam.create_role(RoleName=ROLE_NAME, AssumeRolePolicyDocument=json.dumps(ASSUME_ROLE))["Role"][
            "Arn"
        ]
    return arn


def _put_function(lam: Any, spec: FunctionSpec, role_arn: str, code: dict[str, Any]) -> str:
    config = {
        "Role": role_arn,
        "Handler": spec.handler,
        "Runtime": "python3.12",
        "Timeout": spec.timeout,
        "MemorySize": spec.memory,
        "Environment": {"Variables": spec.environment},
        "Architectures": ["x86_64"],
    }
    try:
        lam.get_function(FunctionName=spec.name)
    except lam.exceptions.ResourceNotFoundException:
        arn: str = lam.create_function(FunctionName=spec.name, Code=code, **config)["FunctionArn"]
    else:
        lam.update_function_code(FunctionName=spec.name, **code)
        lam.get_waiter("function_updated_v2").wait(FunctionName=spec.name)
        config.pop("Architectures")
        arn = lam.update_function_configuration(FunctionName=spec.name, **config)["FunctionArn"]
        lam.get_waiter("function_updated_v2").wait(FunctionName=spec.name)
    lam.get_waiter("function_active_v2").wait(FunctionName=spec.name)
    return arn


def _add_permission(lam: Any, **kwargs: Any) -> None:
    with contextlib.suppress(lam.exceptions.ResourceConflictException):  # exists from an earlier run
        lam.add_permission(**kwargs)


def _event_source(lam: Any, sqs: Any, spec: FunctionSpec, queue: str) -> None:
    """The mapping of ``queue`` (a logical id) to the function. The template's MaximumConcurrency is not
    set here: LocalStack runs each mapping's batches one after another anyway."""
    url = sqs.get_queue_url(QueueName=QUEUE_NAMES[queue])["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    settings = {
        "BatchSize": spec.batch_size,
        "MaximumBatchingWindowInSeconds": spec.batching_window_s,
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
    }
    found = lam.list_event_source_mappings(FunctionName=spec.name, EventSourceArn=arn)
    existing = found["EventSourceMappings"]
    if existing:
        lam.update_event_source_mapping(UUID=existing[0]["UUID"], FunctionName=spec.name, **settings)
    else:
        lam.create_event_source_mapping(FunctionName=spec.name, EventSourceArn=arn, Enabled=True, **settings)


def _function_url(lam: Any, spec: FunctionSpec) -> str:
    try:
        url: str = lam.get_function_url_config(FunctionName=spec.name)["FunctionUrl"]
    except lam.exceptions.ResourceNotFoundException:
        url = lam.create_function_url_config(FunctionName=spec.name, AuthType="NONE", InvokeMode="BUFFERED")[
            "FunctionUrl"
        ]
    # Both statements AWS requires of a public Function URL (SAM adds the same two).
    _add_permission(
        lam,
        FunctionName=spec.name,
        StatementId="FunctionURLAllowPublicAccess",
        Action="lambda:InvokeFunctionUrl",
        Principal="*",
        FunctionUrlAuthType="NONE",
    )
    _add_permission(
        lam,
        FunctionName=spec.name,
        StatementId="FunctionURLInvokeAllowPublicAccess",
        Action="lambda:InvokeFunction",
        Principal="*",
        InvokedViaFunctionUrl=True,  # only through the URL, not a direct Invoke by anyone
    )
    return url


def _schedule(lam: Any, events: Any, spec: FunctionSpec, function_arn: str) -> None:
    try:
        rule_arn = events.describe_rule(Name=MAINTENANCE_RULE)["Arn"]
    except events.exceptions.ResourceNotFoundException:
        raise SystemExit(
            f"EventBridge rule {MAINTENANCE_RULE} not found: start LocalStack with "
            "docker-compose.localstack.yml (its init hook creates it)"
        ) from None
    events.put_targets(Rule=MAINTENANCE_RULE, Targets=[{"Id": "maintenance", "Arn": function_arn}])
    _add_permission(
        lam,
        FunctionName=spec.name,
        StatementId="MaintenanceSchedule",
        Action="lambda:InvokeFunction",
        Principal="events.amazonaws.com",
        SourceArn=rule_arn,
    )


def _invoke(lam: Any, name: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = lam.invoke(FunctionName=name, Payload=json.dumps(payload).encode())
    body = json.loads(response["Payload"].read() or b"null")
    if response.get("FunctionError"):
        raise SystemExit(f"{name} failed: {json.dumps(body)[:2000]}")
    result: dict[str, Any] = body
    return result


def deploy(
    clients: Mapping[str, Any],
    code: dict[str, Any],
    *,
    template: Mapping[str, Any] | None = None,
    environment: Mapping[str, str] | None = None,
    in_network_endpoint: str = "http://localstack:4566",
    invoke: bool = True,
    tenant: str = "local",
) -> Deployed:
    """Create or update the functions and their triggers; ``clients`` has lambda, sqs, events, iam."""
    lam, sqs, events, iam = clients["lambda"], clients["sqs"], clients["events"], clients["iam"]
    template = template if template is not None else load_template()
    environment = environment if environment is not None else load_compose_environment()
    specs = function_specs(template, environment, queue_urls(sqs, in_network_endpoint))
    role_arn = _ensure_role(iam)
    deployed = Deployed(functions={})
    for spec in specs:
        arn = _put_function(lam, spec, role_arn, code)
        deployed.functions[spec.logical_id] = arn
        for queue in spec.sqs_queues:
            _event_source(lam, sqs, spec, queue)
        if spec.function_url:
            deployed.mcp_url = _function_url(lam, spec).rstrip("/") + "/mcp"
        if spec.schedule:
            _schedule(lam, events, spec, arn)
    if invoke:
        migrate = FUNCTION_PREFIX + "MigrateFunction"
        deployed.migrations = _invoke(lam, migrate, {}).get("applied", [])
        minted = _invoke(lam, migrate, {"mint_token": {"tenant": tenant, "name": "localstack"}})
        deployed.token = minted["token"]
    return deployed


def _clients(endpoint_url: str, region: str) -> dict[str, Any]:
    import boto3
    from botocore.config import Config

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "test")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "test")
    # The first invocation of a function starts its container and loads the model: allow for it.
    config = Config(read_timeout=900, retries={"max_attempts": 0})
    return {
        name: boto3.client(name, endpoint_url=endpoint_url, region_name=region, config=config)
        for name in ("lambda", "sqs", "events", "iam")
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint-url", default="http://127.0.0.1:4566", help="LocalStack gateway (host).")
    parser.add_argument(
        "--in-network-endpoint",
        default="http://localstack:4566",
        help="The gateway as the function containers reach it (compose network).",
    )
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--build-dir", type=Path, default=ROOT / ".aws-sam" / "localstack")
    parser.add_argument(
        "--layer-dir",
        type=Path,
        help="A built layer (with python/) to reuse, e.g. .aws-sam/build/HindsightLayer.",
    )
    parser.add_argument("--code-mode", choices=["hot-reload", "zip"], default="hot-reload")
    parser.add_argument("--tenant", default="local", help="Tenant of the minted token.")
    parser.add_argument("--no-invoke", action="store_true", help="Skip migrations and the token.")
    args = parser.parse_args(argv)

    code_dir = build_code(args.build_dir, args.layer_dir)
    result = deploy(
        _clients(args.endpoint_url, args.region),
        code_argument(code_dir, args.code_mode),
        in_network_endpoint=args.in_network_endpoint,
        invoke=not args.no_invoke,
        tenant=args.tenant,
    )
    for logical_id, arn in result.functions.items():
        print(f"{logical_id}: {arn}")
    if result.migrations:
        print(f"migrations applied: {result.migrations}")
    print(f"MCP URL: {result.mcp_url}")
    if result.token:
        print(f"Token: {result.token}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

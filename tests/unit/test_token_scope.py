"""A key is minted only for a tenant and agents a call could use (trial24 MED: ``hindsight token create
--agent "bad agent!"`` minted a key whose every write without agent_id was refused with an error the model
cannot fix; ``--agent '*'`` and a blank tenant likewise). Stored keys stay valid."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest
from typer.testing import CliRunner

from hindsight.cli import app
from hindsight.domain.auth import ApiKeyRecord
from hindsight.domain.errors import InvalidInput
from hindsight.usecases.api_keys import Authenticate, ManageKeys
from tests.support import stack_refused
from tests.unit.fakes import FixedClock


class _Keys:
    """The ApiKeyStore port in a dict."""

    def __init__(self) -> None:
        self.records: dict[str, ApiKeyRecord] = {}

    async def find(self, key_id: str) -> ApiKeyRecord | None:
        return self.records.get(key_id)

    async def create(self, record: ApiKeyRecord) -> None:
        self.records[record.key_id] = record

    async def revoke(self, key_id: str, at: datetime) -> bool:
        return False

    async def list(self, tenant_id: str | None) -> list[ApiKeyRecord]:
        return list(self.records.values())


@pytest.fixture
def no_stack(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every attempt to open the stack (none is expected: the input is refused first)."""
    return stack_refused(monkeypatch, "hindsight.cli.tokens")


@pytest.mark.parametrize("agent", ["bad agent!", "*", "a" * 129, ""])
def test_token_create_refuses_an_agent_no_tool_accepts(no_stack: list[str], agent: str) -> None:
    shown = CliRunner().invoke(
        app, ["token", "create", "--tenant", "local", "--agent", agent, "--json"], terminal_width=200
    )
    assert shown.exit_code == 2, shown.output
    assert "Invalid value for '--agent'" in shown.output, shown.output
    assert "hsk_" not in shown.output
    assert no_stack == []


@pytest.mark.parametrize("tenant", ["", "   ", "t" * 129])
def test_token_create_refuses_a_tenant_the_service_refuses(no_stack: list[str], tenant: str) -> None:
    shown = CliRunner().invoke(app, ["token", "create", "--tenant", tenant], terminal_width=200)
    assert shown.exit_code == 2, shown.output
    assert "Invalid value for '--tenant'" in shown.output, shown.output
    assert no_stack == []


@pytest.mark.parametrize(
    ("tenant", "agents", "field"),
    [("local", ["bad agent!"], "agent_ids"), ("local", ["ok", "*"], "agent_ids"), ("  ", None, "tenant_id")],
)
def test_manage_keys_refuses_only_what_no_call_could_use(
    tenant: str, agents: list[str] | None, field: str
) -> None:
    keys = _Keys()
    manage = ManageKeys(keys, FixedClock())
    with pytest.raises(InvalidInput) as refused:
        asyncio.run(manage.create(tenant, "k", agents))
    assert refused.value.field == field
    assert keys.records == {}
    # what the service accepts is still minted: any agent id the tools take, any tenant characters (the
    # service has no character rule for tenant ids: a JWT's tenant claim is checked for length only)
    minted, record = asyncio.run(manage.create("acme corp!", "k", ["planner", "ops@x.io", "a:b-c_d.e"]))
    assert record.agent_ids == ["planner", "ops@x.io", "a:b-c_d.e"]
    # a key stored before the rule, with an agent it now refuses, still authenticates
    keys.records[record.key_id] = record.model_copy(update={"agent_ids": ["bad agent!"]})
    principal = asyncio.run(Authenticate(keys)(minted.token))
    assert principal is not None
    assert principal.agent_ids == frozenset({"bad agent!"})

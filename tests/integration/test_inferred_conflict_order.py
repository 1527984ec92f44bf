"""A date read from the words does not make the newest statement a past value of a fact it contradicts
on a guess, when neither has a key (the keyless side of new-user trial 3 HIGH; the keyed side:
test_inferred_key_order.py), end to end through the MCP client, the SQS emulator and the worker (both its
batch path and its one-job path): "lives in Berlin since last month" after "lives in Lisbon" from the
15th of that month supersedes Lisbon from when it was said; "lived in Paris since two years ago" after
"lived in Rome" (a past state wholly before it) stays a past value of Rome."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> dict[str, Any]:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return dict(ack)


async def _memory(client: Client, memory_id: str, agent: str) -> dict[str, Any]:
    return dict((await call(client, "memory_get", {"id": memory_id, "agent_id": agent}))["memory"])


async def _reason(client: Client, memory_id: str, agent: str) -> str:
    answer = await call(client, "memory_status", {"ids": [memory_id], "agent_id": agent})
    return str(answer["writes"][0]["reason"])


def _last_month_15th(now: datetime) -> str:
    index = now.year * 12 + now.month - 2
    return f"{index // 12:04d}-{index % 12 + 1:02d}-15"


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_an_inferred_date_does_not_make_the_newest_contradicting_fact_past(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    agent = f"keyless-{path}"
    async with mcp_client(server.url, token) as client:
        lisbon = await _stored(
            client,
            poller,
            content="The user lives in Lisbon",
            agent_id=agent,
            occurred_at=_last_month_15th(datetime.now(UTC)),
        )
        # a causal parent sends the write down the worker's one-job path (write_batch.needs_own_path)
        own = {"causal_parent": lisbon["id"]} if path == "own" else {}
        berlin = await _stored(
            client, poller, content="The user lives in Berlin since last month", agent_id=agent, **own
        )
        new, old = await _memory(client, berlin["id"], agent), await _memory(client, lisbon["id"], agent)
        said, reason = berlin["submitted_at"], await _reason(client, berlin["id"], agent)
        assert new["status"] == "active", (new, reason)
        assert datetime.fromisoformat(new["valid_from"]) == datetime.fromisoformat(said), (new, old, reason)
        assert new["occurred_precision"] == "month", new  # its event time stays as the words say
        assert old["status"] == "superseded", old
        assert datetime.fromisoformat(old["valid_to"]) == datetime.fromisoformat(said), old
        assert f"supersedes {lisbon['id']} (contradiction)" in reason, reason
        assert "does not make it a past value of the fact it contradicts" in reason, reason
        hits = await call(client, "memory_search", {"query": "where does the user live", "agent_id": agent})
        assert [h["memory"]["id"] for h in hits["results"]] == [berlin["id"]], hits


async def test_a_genuinely_past_contradicting_fact_stays_past(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    agent = "keyless-past"
    async with mcp_client(server.url, token) as client:
        rome = await _stored(client, poller, content="The user lived in Rome", agent_id=agent)
        paris = await _stored(
            client, poller, content="The user lived in Paris since two years ago", agent_id=agent
        )
        reason = await _reason(client, paris["id"], agent)
        assert (await _memory(client, paris["id"], agent))["status"] == "superseded", reason
        assert reason.startswith(f"past value: contradicted by {rome['id']}"), reason
        assert (await _memory(client, rome["id"], agent))["status"] == "active"

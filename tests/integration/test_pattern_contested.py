"""An inferred preference is never stated as current against what the user said since (new-user trial
F3), against real Postgres+pgvector, Redis, the SQS emulator and the MCP app (official client): a later
episode taking the preference back withholds the inference, and an inference contradicting a stated
fact is linked ``contradicts`` to it, so both are flagged ``possible_conflict``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _step
from tests.support import drain, mcp_client

pytestmark = pytest.mark.integration
DAY = timedelta(days=1)
AGENT = "cons"
AISLE = "I prefer aisle seats on flights"


async def _episodes(client: Any, start: datetime, texts: list[str]) -> None:
    for n, text in enumerate(texts):
        await call(
            client,
            "memory_write",
            {
                "agent_id": AGENT,
                "content": text,
                "layer": "episodic",
                "occurred_at": (start + n * DAY).isoformat(),
            },
        )


async def _patterns(stack: LocalStack, tenant: str) -> dict[str, Any]:
    async with _container(stack) as c:
        assert c.maintain is not None
        return _step(await c.maintain.run(tenant_id=tenant), "extract_patterns")


@pytest.mark.anyio
async def test_a_preference_taken_back_later_is_not_inferred(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """The trial's case without the fact: on main "Preference stated in 3 episodes: I prefer aisle seats
    on flights" became an active inference though the latest episode said "no longer"."""
    start = (datetime.now(UTC) - 10 * DAY).replace(hour=10, minute=0, second=0, microsecond=0)
    async with mcp_client(server.url, token) as client:
        await _episodes(
            client,
            start,
            [AISLE, AISLE, AISLE, "I no longer prefer aisle seats on flights, I prefer window seats"],
        )
        await drain(poller)
        counts = await _patterns(stack, tenant)
        assert counts.get("created", 0) == 0, counts
        summary = await call(
            client, "memory_summarize", {"agent_id": AGENT, "query": "seat preference on flights"}
        )
        assert "Preference stated in" not in str(summary), summary


@pytest.mark.anyio
async def test_an_inference_against_a_stated_fact_is_flagged_with_it(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """Three "aisle" episodes and the stated fact user.seat "I prefer window seats on flights": the
    inference is written, linked ``contradicts`` to the fact, and search flags both."""
    start = (datetime.now(UTC) - 10 * DAY).replace(hour=10, minute=0, second=0, microsecond=0)
    async with mcp_client(server.url, token) as client:
        await _episodes(client, start, [AISLE, AISLE, AISLE])
        await call(
            client,
            "memory_write",
            {"agent_id": AGENT, "content": "I prefer window seats on flights", "key": "user.seat"},
        )
        await drain(poller)
        counts = await _patterns(stack, tenant)
        assert counts.get("created") == 1, counts
        found = await call(
            client,
            "memory_search",
            {"agent_id": AGENT, "query": "seat preference on flights", "layer": "semantic"},
        )
        flags = {h["memory"]["source"]: h["flags"] for h in found["results"]}
        assert set(flags) == {"user_stated", "agent_inferred"}, found["results"]
        assert all("possible_conflict" in f for f in flags.values()), flags


@pytest.mark.anyio
async def test_an_inference_taken_back_after_it_was_made_is_flagged(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """The inference exists when the user takes the preference back: it is linked ``contradicts`` to
    that episode, and search flags it ``possible_conflict``."""
    start = (datetime.now(UTC) - 10 * DAY).replace(hour=10, minute=0, second=0, microsecond=0)
    async with mcp_client(server.url, token) as client:
        await _episodes(client, start, [AISLE, AISLE, AISLE])
        await drain(poller)
        assert (await _patterns(stack, tenant)).get("created") == 1
        await _episodes(
            client, start + 5 * DAY, ["I no longer prefer aisle seats on flights, I prefer window seats"]
        )
        await drain(poller)
        await _patterns(stack, tenant)
        found = await call(
            client,
            "memory_search",
            {"agent_id": AGENT, "query": "seat preference on flights", "layer": "semantic"},
        )
        (inferred,) = [h for h in found["results"] if h["memory"]["source"] == "agent_inferred"]
        assert "possible_conflict" in inferred["flags"], inferred

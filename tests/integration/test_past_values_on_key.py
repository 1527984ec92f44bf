"""A past state written on a key never becomes the key's value of now (new-user trial 2 HIGH 2), end to
end through the MCP client, the SQS emulator and the worker: after "The user lives in Rome", a sentence
that names when the past value held ("from 2015 to 2019", "between 2015 and 2019", "until March 2024",
"in the 1990s") is stored as a past value with that period, and one that says it held once with no date
("used to", "previously", "former", "before moving to …", "as a child", "for 5 years") is refused, naming
``content`` and asking for a date (``occurred_at``)."""

from __future__ import annotations

from typing import Any

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

DATED = [
    ("The user lived in Lyon from 2015 to 2019", "2015-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),
    ("The user lived in Lyon between 2015 and 2019", "2015-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),
    ("The user lived in Lyon until March 2024", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"),
    ("The user lived in Lyon in the 1990s", "1990-01-01T00:00:00Z", "2000-01-01T00:00:00Z"),
    ("The user lived in Lyon 2015-2019", "2015-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),  # trial 3 HIGH 7
]
UNDATED = [
    ("The user used to live in Lyon", "used to"),
    ("The user previously lived in Lyon", "previously"),
    ("The user's former home was Lyon", "former"),
    ("Before moving to Rome, the user lived in Lyon", "before moving to"),
    ("As a child the user lived in Lyon", "as a child"),
    ("The user lived in Lyon for 5 years", "for 5 years"),
    # trial 3 HIGH 7
    ("The user once lived in Lyon", "once"),
    ("The user had been living in Lyon", "had been living"),
    ("The user's previous city is Lyon", "previous"),
    ("The user lived in Lyon since 2015", "since"),
]


async def _current(client: Any, key: str) -> list[str]:
    hits = await call(client, "memory_search", {"query": "where does the user live", "key": key})
    return [h["memory"]["id"] for h in hits["results"]]


async def test_a_dated_past_state_is_a_past_value_with_its_period(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for n, (content, start, end) in enumerate(DATED):
            key = f"user.city.dated{n}"
            rome = await call(client, "memory_write", {"content": "The user lives in Rome", "key": key})
            await drain(poller)
            lyon = await call(client, "memory_write", {"content": content, "key": key})
            await drain(poller)
            past = (await call(client, "memory_get", {"id": lyon["id"]}))["memory"]
            assert (past["status"], past["valid_from"], past["valid_to"]) == ("superseded", start, end), past
            (status,) = (await call(client, "memory_status", {"ids": [lyon["id"]]}))["writes"]
            assert status["reason"].startswith(f"period {start[:10]} to {end[:10]} read from its words"), (
                status
            )
            assert f"past value: {rome['id']} holds the key" in status["reason"], status
            assert await _current(client, key) == [rome["id"]], content


async def test_an_undated_past_state_on_a_key_is_refused_asking_for_a_date(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        rome = await call(client, "memory_write", {"content": "The user lives in Rome", "key": "user.city"})
        await drain(poller)
        for n, (content, words) in enumerate(UNDATED):
            with pytest.raises(ToolCallError) as caught:
                await call(client, "memory_write", {"content": content, "key": "user.city"})
            message = caught.value.error["message"]
            assert caught.value.code == -32602, caught.value.error
            assert "content: the words say a past value" in message, message
            assert f"({words!r})" in message, message
            assert "Give occurred_at" in message, message
            # dated by the caller it is stored, a past value of Rome
            dated = await call(
                client,
                "memory_write",
                {"content": content, "key": "user.city", "occurred_at": f"{2000 + n}"},
            )
            await drain(poller)
            got = (await call(client, "memory_get", {"id": dated["id"]}))["memory"]
            assert got["status"] == "superseded", got
        await drain(poller)
        assert await _current(client, "user.city") == [rome["id"]]
        # without a key it is an ordinary fact; with a present state beside it, the key's value of now
        free = await call(client, "memory_write", {"content": "The user used to live in Lyon"})
        now = await call(
            client, "memory_write", {"content": "The user has lived in Milan for 5 years", "key": "user.city"}
        )
        await drain(poller)
        assert (await call(client, "memory_get", {"id": free["id"]}))["memory"]["status"] == "active"
        assert await _current(client, "user.city") == [now["id"]]

"""trial6 B, C, D (2026-12-07), through the official MCP client over HTTP with the real stack: dates a write
does not read are said in its answer's ``time_not_read`` — a note only, nothing is dated, and a day/month
in digits is never guessed; a keyed fact's year the worker does not read is said too; a keyed birth
("born in May 2020") is neither refused as a past value nor held its key for its year only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_dates_in_words_not_read_are_said_and_a_keyed_birth_holds_now(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def write(**args: str) -> dict[str, Any]:
            return dict(await call(client, "memory_write", args))

        dec = await write(content="The user's dentist appointment is on Dec 1")
        digits = await write(content="The user's dentist appointment is on 1/12")
        third = await write(content="The user's rent is due on the 3rd")
        summer = await write(content="The user went to Greece in summer 2023", layer="episodic")
        floor = await write(content="The user lives on the 3rd floor")
        since = await write(content="The user has lived in Lisbon since 2019", key="user.city")
        born = await write(content="The user's daughter was born in May 2020", key="user.daughter.birthday")
        year = await write(content="The user's son was born in 2020", key="user.son.birthday")
        await drain(poller)
        now = datetime.now(UTC).isoformat()
        held = await call(
            client, "memory_search", {"query": "son born", "key": "user.son.birthday", "valid_at": now}
        )
        son = (await call(client, "memory_get", {"id": year["id"]}))["memory"]
    assert "'Dec 1'" in dec["time_not_read"]
    assert "'on 1/12'" in digits["time_not_read"]
    assert "'1/12' may be day/month or month/day, not guessed" in digits["time_not_read"]
    assert "'on the 3rd'" in third["time_not_read"]
    assert "'in summer 2023'" in summer["time_not_read"]
    assert floor.get("time_not_read") is None
    assert "'since 2019'" in since["time_not_read"]
    assert "holds its key from then" in since["time_not_read"]
    assert "'in May 2020'" in born["time_not_read"]  # stored, not refused as "a past value"
    assert "'in 2020'" in year["time_not_read"]
    assert son["valid_to"] is None, son  # not held for 2020 only: a birth is no past state
    assert [h["memory"]["id"] for h in held["results"]] == [year["id"]]

"""trial4 MED-1 (2026-12-07), through the official MCP client over HTTP with the real stack: a write whose
words date it by a year ("In 2024 …", "back in 2019") or a holiday ("last Christmas") and that gives no
``occurred_at`` says so in its answer's ``time_not_read`` — it is placed at the write time, so a
``time_range: "today"`` search takes it for today's. A note only: nothing is guessed. (trial11: a past
event's year alone, "In 2024 I ran a marathon", is read: ``domain.word_dates``.)"""

from __future__ import annotations

import pytest

from hindsight.client import call
from hindsight.local.serve import BackgroundServer
from tests.support import mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_year_or_a_holiday_in_the_words_is_said_not_read(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def note(**args: str) -> str | None:
            ack = await call(client, "memory_write", args)
            return ack.get("time_not_read")

        marathon = await note(content="In 2024 I ran a marathon, my first since 2019", layer="episodic")
        leg = await note(content="I broke my leg around 2019", layer="episodic")
        christmas = await note(content="Last Christmas I visited my parents", layer="episodic")
        paris = await note(content="The user has lived in Paris since 2019")  # keyless fact: not read either
        read = await note(content="In 2024 I ran a marathon", layer="episodic")  # trial11: read, 2024
        dated = await note(content="In 2024 I ran a marathon", layer="episodic", occurred_at="2024")
        keyed = await note(content="The user lived in Paris in 2019", key="user.city")
        plain = await note(content="Room 2024 is booked for the review")
    assert "'In 2024'" in str(marathon)
    assert "give occurred_at" in str(marathon)
    assert "'around 2019'" in str(leg)
    assert "'Last Christmas'" in str(christmas)
    assert "'since 2019'" in str(paris)
    # read from the words; given a date; on a key the worker may read the year to order the key's values;
    # no year named
    assert [read, dated, keyed, plain] == [None, None, None, None]

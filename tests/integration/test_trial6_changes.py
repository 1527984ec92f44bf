"""trial6 A (2026-12-07): a real change of a standing fact — a move ("moved to Rome in March", "… last
week", "has been living in Rome since March" after "lives in Lisbon"; only flagged since trial8 H3) or a
job lost ("got fired" after "works at Acme") — left both facts active and unflagged. Through the
official MCP client, the SQS emulator, the worker and Postgres: the old fact is at least flagged
(linked ``contradicts``), and a change the rules are not sure of retires nothing."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_contradicts, assert_left_alone, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second", "status"),
    [
        ("The user lives in Lisbon", "The user moved to Rome in March", "active"),  # below the usual gate
        ("The user lives in Lisbon", "The user moved to Rome last week", "active"),
        # "lives in Rome" in other words, but how long it has held, no change word: maybe the broader place
        # ("has been living in Italy since March"), only flagged (trial8 H3)
        ("The user lives in Lisbon", "The user has been living in Rome since March", "active"),
        ("The user works at Acme", "The user got fired", "active"),  # maybe another job: only flagged
    ],
)
async def test_a_real_change_of_a_standing_fact_is_at_least_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str, status: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(client, poller, first, second)
    assert_contradicts(new, old, view, status)


async def test_someone_elses_lost_job_leaves_the_users_alone(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        *_, view = await written_in_turn(
            client, poller, "The user works at Acme", "The user's wife got fired"
        )
    assert_left_alone(view)

"""``metadata.resumes`` is the store's mark of a continuation (``key_resume``: the id of the memory it
continues); a memory marked so is taken for derived data — ordered by that memory's start, dropped when its
key's timeline is settled again. A caller could set it (leftover of the key-timeline trials): a write, an
update, and a supersede of a continuation, which copied the mark onto the new fact. End to end through the
official MCP client, ``hindsight ingest``, the worker and real Postgres."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.integration.test_key_rejoin import _split
from tests.integration.test_operator_cli import cli  # noqa: F401 (the fixture)
from tests.integration.test_valid_time_order import _memory
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_the_continuation_mark_is_set_by_the_store_alone(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)  # Faro, Braga [Mar, Apr), Faro again
        refused = {
            "write": await tool_error(
                client,
                "memory_write",
                {"content": "Sam lives in Porto", "key": "sam.city", "metadata": {"resumes": ids["faro"]}},
            ),
            "update": await tool_error(
                client,
                "memory_update",
                {"id": ids["braga"], "action": "update", "metadata": {"resumes": ids["faro"]}},
            ),
            "changed": await tool_error(
                client,
                "memory_update",
                {"id": ids["again"], "action": "update", "metadata": {"resumes": ids["braga"]}},
            ),
        }
        # its own mark given back unchanged (metadata read, then written with a key more) is no change of it
        kept = await call(
            client,
            "memory_update",
            {"id": ids["again"], "action": "update", "metadata": {"resumes": ids["faro"], "note": "checked"}},
        )
        replaced = await call(
            client,
            "memory_update",
            {"id": ids["again"], "action": "supersede", "content": "Sam lives in Porto now"},
        )
        await drain(poller)
        porto = await _memory(client, str(replaced["queued"]["id"]))
        braga = await _memory(client, ids["braga"])

    for what, error in refused.items():
        assert error["kind"] == "invalid_arguments", (what, error)
        assert [e["field"] for e in error["errors"]] == ["metadata.resumes"], (what, error)
        assert "set by the store alone" in error["message"], (what, error)
    assert "resumes" not in braga["metadata"]
    assert kept["memory"]["metadata"] == {"resumes": ids["faro"], "note": "checked"}
    assert "resumes" not in porto["metadata"], porto["metadata"]  # a value of its own, not a continuation
    assert porto["metadata"]["note"] == "checked"

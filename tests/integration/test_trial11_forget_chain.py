"""Forgetting the middle of a chain of corrections (new-user trial 11, finding 2): "Tom lives in Seattle",
then "Tom is now living in Tacoma" (retires Seattle), then "Tom now lives in Portland" (retires Tacoma);
forgetting Tacoma left Seattle superseded by nothing, and the answer said nothing. Seattle stays
superseded — Portland still replaces it — and now says by what, and the answer names it and the
restore call (``domain.forgetting`` rule 5)."""

from __future__ import annotations

from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _write(server: BackgroundServer, token: str, poller: SqsPoller, args: dict[str, Any]) -> str:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


@pytest.mark.parametrize(
    ("hard", "key"), [(False, None), (True, None), (False, "tom.home")], ids=["soft", "hard", "keyed"]
)
async def test_forgetting_the_middle_of_a_chain_keeps_the_first_superseded_by_the_last(
    server: BackgroundServer, poller: SqsPoller, token: str, hard: bool, key: str | None
) -> None:
    keyed = {"key": key} if key else {}
    seattle = await _write(server, token, poller, {"content": "Tom lives in Seattle", **keyed})
    tacoma = await _write(server, token, poller, {"content": "Tom is now living in Tacoma", **keyed})
    portland = await _write(server, token, poller, {"content": "Tom now lives in Portland", **keyed})
    async with mcp_client(server.url, token) as client:
        for middle in (seattle, tacoma):
            assert (await call(client, "memory_get", {"id": middle}))["memory"]["status"] == "superseded"
        forgot = await call(client, "memory_forget", {"id": tacoma, "reason": "wrong", "hard": hard})
        note = forgot["note"]
        assert note is not None
        assert f"{seattle} ('Tom lives in Seattle')" in note, note
        assert f"superseded, now by {portland}" in note, note
        assert f'{{"id": "{seattle}", "action": "restore"}}' in note, note
        first = (await call(client, "memory_get", {"id": seattle}))["memory"]
        assert first["status"] == "superseded"
        assert first["superseded_by"] == portland, first
        assert (await call(client, "memory_get", {"id": portland}))["memory"]["status"] == "active"

"""``superseded_by`` names a value's successor in valid time, not the write that arrived last (trial F6),
end to end through the MCP client, the SQS emulator and the worker: two values of one key true from
t1 < t2, written in either order, each alone or both in one write batch (the worker's batch path), after
an older value t0 or on a fresh key, leave t2 current and the t1 value superseded by t2 (``superseded_by``
t2, valid until t2), and t0 superseded by t1 — on ``memory_get``, ``memory_search`` and
``memory_update``'s answer alike."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
KEY = "team.location"
STARTS = {"t0": "2025-06-01", "t1": "2026-01-01", "t2": "2026-06-01"}
CITIES = {"t0": "Faro", "t1": "Porto", "t2": "Lisbon"}


def _item(name: str) -> dict[str, Any]:
    return {
        "content": f"The team works from the {CITIES[name]} office",
        "key": KEY,
        "occurred_at": STARTS[name],
    }


async def _written(client: Client, poller: SqsPoller, names: list[str], together: bool) -> dict[str, str]:
    """Write the values ``names`` in that order: each alone (stored before the next is sent) or all in one
    ``memory_write_batch`` (one batch for the worker, in that order)."""
    if together:
        answer = await call(client, "memory_write_batch", {"items": [_item(n) for n in names]})
        await drain(poller)
        return {n: str(r["id"]) for n, r in zip(names, answer["results"], strict=True)}
    ids = {}
    for name in names:
        ids[name] = str((await call(client, "memory_write", _item(name)))["id"])
        await drain(poller)
    return ids


async def _successions(client: Client, ids: dict[str, str]) -> dict[str, tuple[str, str | None, str | None]]:
    """Each value's (status, valid_to date, superseded_by as a value name) as ``memory_get`` answers it."""
    names = {v: k for k, v in ids.items()}
    out = {}
    for name, memory_id in ids.items():
        memory = (await call(client, "memory_get", {"id": memory_id}))["memory"]
        end = memory["valid_to"][:10] if memory["valid_to"] else None
        out[name] = (memory["status"], end, names.get(memory["superseded_by"], memory["superseded_by"]))
    return out


@pytest.mark.parametrize("together", [False, True], ids=["each-alone", "one-batch"])
@pytest.mark.parametrize("order", [["t2", "t1"], ["t1", "t2"]], ids=["later-first", "earlier-first"])
@pytest.mark.parametrize("before", [[], ["t0"]], ids=["fresh-key", "after-t0"])
async def test_superseded_by_follows_valid_time_whatever_the_arrival_order(
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    order: list[str],
    together: bool,
    before: list[str],
) -> None:
    async with mcp_client(server.url, token) as client:
        ids = await _written(client, poller, before, together=False) if before else {}
        ids |= await _written(client, poller, order, together)
        expected = {
            "t2": ("active", None, None),
            "t1": ("superseded", STARTS["t2"], "t2"),
            "t0": ("superseded", STARTS["t1"], "t1"),
        }
        assert await _successions(client, ids) == {n: expected[n] for n in ids}
        # search names the same successors
        found = await call(
            client,
            "memory_search",
            {"query": "which office does the team work from", "status": ["active", "superseded"]},
        )
        names = {v: k for k, v in ids.items()}
        successors = {
            names[h["memory"]["id"]]: names.get(h["memory"]["superseded_by"])
            for h in found["results"]
            if h["memory"]["id"] in names
        }
        assert successors == {n: expected[n][2] for n in ids}

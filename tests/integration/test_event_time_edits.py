"""When an edited memory happened (new-user trial F15, F7) through the official MCP client, the SQS emulator,
the worker and Postgres: a content edit re-dates an occurred_at inferred from the old words ("Yesterday"
→ "Two weeks ago") from the write's own anchor, or drops it when the new words name no time; a caller's
occurred_at is never touched by an edit; ``memory_update`` takes ``occurred_at`` as ``memory_write`` does;
and a fact that holds from a later date does not decay before it holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_forgetting import _consolidated
from tests.integration.test_maintenance import DAY, _container, _insert, _memory, _step
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
INFERRED = "occurred_at_inferred"


def _monday(day: datetime) -> str:
    start = day.date() - timedelta(days=day.weekday())
    return f"{start.isoformat()}T00:00:00Z"


async def _written(client: Client, poller: SqsPoller, **args: str) -> dict[str, Any]:
    """The acknowledgement of an episodic ``memory_write`` of ``args``, once the worker stored it."""
    ack = await call(client, "memory_write", {"layer": "episodic", **args})
    await drain(poller)
    return dict(ack)


async def test_editing_the_words_that_dated_an_event_dates_it_again_from_the_same_anchor(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await _written(client, poller, content="Yesterday I renewed my passport")
        acked = datetime.fromisoformat(ack["submitted_at"])
        before = datetime.now(UTC)
        mid = ack["id"]

        edited = await call(
            client,
            "memory_update",
            {
                "id": mid,
                "action": "update",
                "content": "Two weeks ago I renewed my passport",
                "reason": "when",
            },
        )
        m = edited["memory"]
        weeks_ago = acked - timedelta(weeks=2)
        assert datetime.fromisoformat(m["occurred_at"]) == datetime.fromisoformat(_monday(weeks_ago)), m
        assert m["occurred_precision"] == "week", m
        assert m["metadata"][INFERRED] == {"expression": "two weeks ago", "anchor": acked.isoformat()}

        got = await call(client, "memory_get", {"id": mid})
        (entry,) = [h for h in got["history"] if h["action"] == "updated"]
        moved = entry["changes"]["occurred_at"]
        assert datetime.fromisoformat(moved["to"]) == datetime.fromisoformat(m["occurred_at"]), entry
        assert entry["changes"]["occurred_precision"] == {"from": "day", "to": "week"}

        async def found(**window: str) -> list[str]:
            hits = await call(client, "memory_search", {"query": "renewed passport", **window})
            return [h["memory"]["id"] for h in hits["results"]]

        yesterday = (acked - timedelta(days=1)).date().isoformat()
        assert mid not in await found(since=yesterday, until=yesterday)
        assert mid in await found(time_range=weeks_ago.date().isoformat())

        # known_at before the edit: the date it had then
        then = (await call(client, "memory_get", {"id": mid, "known_at": before.isoformat()}))["memory"]
        assert then["content"] == "Yesterday I renewed my passport"
        assert datetime.fromisoformat(then["occurred_at"]).date().isoformat() == yesterday
        assert then["occurred_precision"] == "day"

        # words that name no time: the inferred time goes, with its record
        plain = await call(
            client, "memory_update", {"id": mid, "action": "update", "content": "I renewed my passport"}
        )
        assert plain["memory"]["occurred_at"] is None, plain
        assert plain["memory"]["occurred_precision"] is None
        assert INFERRED not in plain["memory"]["metadata"]

        # the same words with a caller's occurred_at: an edit never touches it
        given = await _written(
            client, poller, content="Yesterday I renewed my passport", occurred_at="2026-03-02"
        )
        edited = await call(
            client,
            "memory_update",
            {"id": given["id"], "action": "update", "content": "Two weeks ago I renewed my passport"},
        )
        assert edited["memory"]["occurred_at"].startswith("2026-03-02T00:00:00"), edited
        assert edited["memory"]["occurred_precision"] == "day"

        # a supersede dates its new memory the same way, and takes a given occurred_at
        old = await _written(client, poller, content="Yesterday I renewed my passport")
        moved = await call(
            client,
            "memory_update",
            {"id": old["id"], "action": "supersede", "content": "Last week I renewed my passport"},
        )
        dated = await call(
            client,
            "memory_update",
            {"id": given["id"], "action": "supersede", "content": "I renewed it", "occurred_at": "2026-05"},
        )
        await drain(poller)
        new = (await call(client, "memory_get", {"id": moved["queued"]["id"]}))["memory"]
        last_week = datetime.fromisoformat(old["submitted_at"]) - timedelta(weeks=1)
        assert datetime.fromisoformat(new["occurred_at"]) == datetime.fromisoformat(_monday(last_week)), new
        assert new["occurred_precision"] == "week"
        assert new["metadata"][INFERRED]["expression"] == "last week"
        new = (await call(client, "memory_get", {"id": dated["queued"]["id"]}))["memory"]
        assert new["occurred_at"].startswith("2026-05-01T00:00:00"), new
        assert new["occurred_precision"] == "month"


async def test_memory_update_takes_occurred_at_as_memory_write_does(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await _written(client, poller, content="Yesterday I renewed my passport")
        mid = ack["id"]
        inferred = (await call(client, "memory_get", {"id": mid}))["memory"]
        before = datetime.now(UTC)

        dated = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "occurred_at": "2026-W40", "reason": "the user said when"},
        )
        m = dated["memory"]
        assert m["occurred_at"].startswith("2026-09-28T00:00:00"), m
        assert m["occurred_precision"] == "week"
        assert m["occurred_end"].startswith("2026-10-05T00:00:00")
        assert INFERRED not in m["metadata"]  # the caller's date, not an inference
        got = await call(client, "memory_get", {"id": mid})
        entry = got["history"][-1]
        assert entry["action"] == "updated"
        assert entry["reason"] == "the user said when"
        assert set(entry["changes"]) == {"occurred_at", "occurred_precision", "occurred_end", "metadata"}
        then = (await call(client, "memory_get", {"id": mid, "known_at": before.isoformat()}))["memory"]
        assert then["occurred_at"] == inferred["occurred_at"]
        assert then["occurred_precision"] == "day"
        assert then["metadata"] == inferred["metadata"]

        # now given: a later content edit leaves it
        edited = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "content": "Last year I renewed my passport"},
        )
        assert edited["memory"]["occurred_at"] == m["occurred_at"]

        # refused as memory_write refuses it, naming the field; null is refused, never ignored
        for bad in ("1764950400", "yesterday", "2026-13-01"):
            write_error = await tool_error(client, "memory_write", {"content": "x", "occurred_at": bad})
            error = await tool_error(
                client, "memory_update", {"id": mid, "action": "update", "occurred_at": bad}
            )
            assert [e["field"] for e in error["errors"]] == ["occurred_at"], error
            assert [e["message"] for e in error["errors"]] == [e["message"] for e in write_error["errors"]]
        error = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "occurred_at": None}
        )
        assert [e["field"] for e in error["errors"]] == ["occurred_at"], error
        assert "cannot be cleared" in error["message"], error

        # an event without valid_from holds from occurred_at: not at or after its valid_to
        ended = await call(
            client, "memory_update", {"id": mid, "action": "update", "valid_to": "2026-12-31T00:00:00Z"}
        )
        error = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "occurred_at": "2027-01-05"}
        )
        [detail] = error["errors"]
        assert (detail["field"], detail["limit"]) == ("occurred_at", "2026-12-31T00:00:00+00:00"), error
        after = await call(client, "memory_get", {"id": mid})
        assert after["memory"]["version"] == ended["memory"]["version"]


async def test_a_fact_that_holds_from_a_later_date_does_not_decay_before_it_holds(
    stack: LocalStack, tenant: str
) -> None:
    """Trial F7: "Dave's parking spot will be P-12" from a date months ahead was archived by decay before
    that date. Idle time counts from valid_from when that is later than the write."""
    now = datetime.now(UTC)
    async with _container(stack) as c:
        ahead = await _insert(
            c, tenant, "Dave's parking spot will be P-12", created_at=now - 200 * DAY, layer="semantic",
            key="dave.parking", valid_from=now + 30 * DAY,
        )  # fmt: skip
        began = await _insert(
            c, tenant, "Dave's locker is L-7", created_at=now - 200 * DAY, layer="semantic",
            key="dave.locker", valid_from=now - 100 * DAY,
        )  # fmt: skip
        idle = await _insert(
            c, tenant, "Dave's desk is D-3", created_at=now - 200 * DAY, layer="semantic",
            key="dave.desk", valid_from=now - 200 * DAY,
        )  # fmt: skip
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
    assert _step(report, "decay") == {"decayed": 2, "archived": 1, "scopes": 1}
    assert _memory(stack, ahead)["importance"] == pytest.approx(0.5)
    assert _memory(stack, ahead)["status"] == "active"
    assert _memory(stack, began)["importance"] == pytest.approx(0.5 * 0.5 ** (100 / 180), abs=1e-3)
    assert _memory(stack, began)["status"] == "active"
    assert _memory(stack, idle)["status"] == "archived"


async def test_a_summary_spans_a_member_re_dated_by_memory_update(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """A consolidation summary covers its members' times: its latest member given an earlier occurred_at
    moves the summary's span (start and end), as an edit of its words already re-derives it (trial F12)."""
    summary, members = await _consolidated(stack, tenant)
    async with mcp_client(server.url, token) as client:
        before = (await call(client, "memory_get", {"id": summary}))["memory"]
        earlier = datetime.fromisoformat(before["occurred_at"]) - 3 * DAY
        await call(
            client,
            "memory_update",
            {"id": members[0], "action": "update", "occurred_at": earlier.isoformat(), "reason": "when"},
        )
        after = (await call(client, "memory_get", {"id": summary}))["memory"]
    assert datetime.fromisoformat(after["occurred_at"]) == earlier, after
    # it was the latest member: the summary now ends at the next latest, a day before
    assert (
        datetime.fromisoformat(after["occurred_end"]) == datetime.fromisoformat(before["occurred_end"]) - DAY
    )
    assert after["content"].startswith(f"3 similar events from {earlier.date().isoformat()}"), after

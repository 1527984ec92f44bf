"""A key names one fact (per tenant, agent, semantic layer): every path that stores or revives a fact keeps
at most one active memory on its key — a write after an additive pair, a supersede onto another key, a
supersede whose fact was replaced meanwhile — end to end through the MCP client, the SQS emulator and the
worker; and a property test over random sequences of writes, moves, restores, archives, supersedes and
supersedes links on a few keys, against real Postgres (the use cases and the worker's store, no queue)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from hindsight.client import call
from hindsight.domain.auth import Principal
from hindsight.domain.errors import HindsightError
from hindsight.domain.memory import MemoryChanges, MemoryDraft
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.remember import Remember
from tests.integration.test_maintenance import _container, _rows
from tests.support import drain, mcp_client
from tests.unit.fakes import ListQueue

pytestmark = [pytest.mark.integration]


async def _write(client: Client, content: str, key: str) -> str:
    return str((await call(client, "memory_write", {"content": content, "key": key}))["id"])


async def _active_on(client: Client, key: str, ids: list[str]) -> set[str]:
    memories = [(await call(client, "memory_get", {"id": mid}))["memory"] for mid in ids]
    return {m["id"] for m in memories if m["status"] == "active" and m["key"] == key}


@pytest.mark.anyio
async def test_a_new_value_after_an_additive_pair_supersedes_both(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        hr = await _write(client, "Rowan runs HR", "rowan.role")
        await drain(poller)
        payroll = await _write(client, "Rowan also runs payroll", "rowan.role")
        await drain(poller)
        assert await _active_on(client, "rowan.role", [hr, payroll]) == {hr, payroll}  # additive: both
        finance = await _write(client, "Rowan now runs finance, nothing else", "rowan.role")
        await drain(poller)
        # the worker superseded only the newest (payroll): "Rowan runs HR" stayed active beside finance
        assert await _active_on(client, "rowan.role", [hr, payroll, finance]) == {finance}
        status = (await call(client, "memory_status", {"ids": [finance]}))["writes"][0]
        assert status["reason"] == f"supersedes {payroll}; supersedes {hr}"
        for old in (hr, payroll):
            assert (await call(client, "memory_get", {"id": old}))["memory"]["superseded_by"] == finance


@pytest.mark.anyio
async def test_taking_back_one_value_of_an_additive_pair_retires_only_that_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial4 HIGH-3: "no longer allergic to peanuts" on a key holding peanuts and (also) shellfish retires
    the peanuts value only; shellfish, never taken back, stays active and unflagged in the default read.
    A new value (no value surely taken back) still replaces every value on the key."""
    key = "alex.allergies"
    async with mcp_client(server.url, token) as client:
        peanuts = await _write(client, "Alex is allergic to peanuts", key)
        await drain(poller)
        shellfish = await _write(client, "Alex is also allergic to shellfish", key)
        await drain(poller)
        back = await _write(client, "Alex is no longer allergic to peanuts", key)
        await drain(poller)
        assert await _active_on(client, key, [peanuts, shellfish, back]) == {shellfish, back}
        assert (await call(client, "memory_get", {"id": peanuts}))["memory"]["superseded_by"] == back
        status = (await call(client, "memory_status", {"ids": [back]}))["writes"][0]
        assert status["reason"] == (
            f"supersedes {peanuts}; leaves {shellfish} active (same key: not the value it takes back)"
        )
        hits = (await call(client, "memory_search", {"query": "what is Alex allergic to?"}))["results"]
        by_id = {h["memory"]["id"]: h for h in hits}
        assert peanuts not in by_id
        assert by_id[shellfish]["flags"] == []
        hint = await call(client, "memory_summarize", {"key": key})  # the values that hold the key now
        assert set(hint["ids"]) == {shellfish, back}, hint["hint"]

        other = await _write(client, "Alex is allergic to cats", key)  # a new value: replaces them all
        await drain(poller)
        assert await _active_on(client, key, [shellfish, back, other]) == {other}


@pytest.mark.anyio
async def test_a_take_back_of_a_value_the_key_does_not_hold_retires_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial6 H1: "no longer allergic to kiwi" on a key holding peanuts and (also) shellfish, or on a key
    holding peanuts only, names no value of the key: every value stays active, linked ``related``, and
    the write's answer says so."""
    async with mcp_client(server.url, token) as client:
        key = "alex.allergies"
        peanuts = await _write(client, "Alex is allergic to peanuts", key)
        await drain(poller)
        shellfish = await _write(client, "Alex is also allergic to shellfish", key)
        await drain(poller)
        kiwi = await _write(client, "Alex is no longer allergic to kiwi", key)
        await drain(poller)
        assert await _active_on(client, key, [peanuts, shellfish, kiwi]) == {peanuts, shellfish, kiwi}
        status = (await call(client, "memory_status", {"ids": [kiwi]}))["writes"][0]
        why = "active (same key: it takes back no value the key holds)"
        assert status["reason"] == f"leaves {shellfish} {why}; leaves {peanuts} {why}"

        key = "sam.allergies"
        one = await _write(client, "Sam is allergic to peanuts", key)
        await drain(poller)
        other = await _write(client, "Sam is no longer allergic to shellfish", key)
        await drain(poller)
        assert await _active_on(client, key, [one, other]) == {one, other}


@pytest.mark.anyio
async def test_a_re_add_after_a_take_back_retires_only_the_take_back(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial6 H2: "allergic to peanuts again" after "no longer allergic to peanuts" retires that take-back;
    shellfish, never taken back, stays active."""
    key = "alex.allergies"
    async with mcp_client(server.url, token) as client:
        peanuts = await _write(client, "Alex is allergic to peanuts", key)
        await drain(poller)
        shellfish = await _write(client, "Alex is also allergic to shellfish", key)
        await drain(poller)
        back = await _write(client, "Alex is no longer allergic to peanuts", key)
        await drain(poller)
        again = await _write(client, "Alex is allergic to peanuts again", key)
        await drain(poller)
        assert await _active_on(client, key, [peanuts, shellfish, back, again]) == {shellfish, again}
        assert (await call(client, "memory_get", {"id": back}))["memory"]["superseded_by"] == again


@pytest.mark.anyio
async def test_a_value_the_write_says_still_holds_stays_active(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial6 MED: "no longer allergic to peanuts but still to shellfish" retires peanuts only."""
    key = "alex.allergies"
    async with mcp_client(server.url, token) as client:
        peanuts = await _write(client, "Alex is allergic to peanuts", key)
        await drain(poller)
        shellfish = await _write(client, "Alex is also allergic to shellfish", key)
        await drain(poller)
        back = await _write(client, "Alex is no longer allergic to peanuts but still to shellfish", key)
        await drain(poller)
        assert await _active_on(client, key, [peanuts, shellfish, back]) == {shellfish, back}
        assert (await call(client, "memory_get", {"id": peanuts}))["memory"]["superseded_by"] == back


CORRECTIONS = [  # trial7 H1, M3: (the key's value, a write that takes it back or names its new value)
    ("I live in Denver", "Actually I live in Boulder, not Denver"),
    ("I live in Denver", "It's Boulder, not Denver"),
    ("I moved to Denver", "Actually it's Boulder, not Denver"),
    ("I live in Denver", "I live in Boulder now, not Denver"),
    ("I live in Denver", "I live in Boulder now (no longer Denver)"),
    ("My dentist is Dr. Kim", "My dentist is Dr. Patel, not Dr. Kim"),
    ("I'm vegetarian", "I'm not vegetarian anymore, I eat fish now"),
    ("I work at Acme", "I quit my job at Acme"),
    ("I work at Acme as a designer", "I don't work at Acme anymore"),
    ("I work at Acme as a designer", "I'm not with Acme any more"),
    ("I work at Acme as a designer", "I no longer work at Acme"),
    ("I work at Acme as a designer", "I'm no longer at Acme"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("old", "new"), CORRECTIONS)
async def test_a_correction_or_take_back_of_the_keys_value_supersedes_it(
    server: BackgroundServer, poller: SqsPoller, token: str, old: str, new: str
) -> None:
    """trial7 H1: a write naming a new value beside the old one ("Boulder, not Denver") is the key's new
    value, and a take-back that names the key's only value loosely ("I don't work at Acme anymore" over
    "I work at Acme as a designer") retires it: both were left active ("it takes back no value the key
    holds"). trial7 M3: "I no longer work at Acme" / "I'm no longer at Acme" were refused as a past value
    with no date; "no longer" states what holds now. Then the old value written again retires the
    correction in turn."""
    key = f"user.k{uuid.uuid4().hex[:8]}"
    async with mcp_client(server.url, token) as client:
        first = await _write(client, old, key)
        await drain(poller)
        second = await _write(client, new, key)
        await drain(poller)
        assert await _active_on(client, key, [first, second]) == {second}
        status = (await call(client, "memory_status", {"ids": [second]}))["writes"][0]
        assert status["reason"].startswith(f"supersedes {first}"), status["reason"]
        assert (await call(client, "memory_get", {"id": first}))["memory"]["superseded_by"] == second
        third = await _write(client, old, key)  # the other direction: the old value again
        await drain(poller)
        assert await _active_on(client, key, [first, second, third]) == {third}
        assert (await call(client, "memory_get", {"id": second}))["memory"]["superseded_by"] == third


@pytest.mark.anyio
async def test_a_supersede_onto_another_key_supersedes_the_fact_there(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        draft = await _write(client, "The launch date is not decided yet", "launch.draft")
        date = await _write(client, "The launch is on 3 March", "launch.date")
        await drain(poller)
        queued = await call(
            client,
            "memory_update",
            {
                "id": draft,
                "action": "supersede",
                "content": "The launch is on 10 March",
                "key": "launch.date",
            },
        )
        await drain(poller)
        new = queued["queued"]["id"]
        assert await _active_on(client, "launch.date", [draft, date, new]) == {new}
        assert (await call(client, "memory_get", {"id": date}))["memory"]["superseded_by"] == new
        assert (await call(client, "memory_get", {"id": draft}))["memory"]["superseded_by"] == new


@pytest.mark.anyio
async def test_a_supersede_of_a_fact_replaced_meanwhile_takes_its_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old = await _write(client, "The standup is at 9:00", "standup.time")
        await drain(poller)
        # a write on the key and a supersede of the old fact, both queued before the worker runs: the
        # write replaces the old fact first, so the supersede finds it no longer active
        newer = await _write(client, "The standup is at 9:30", "standup.time")
        queued = await call(
            client, "memory_update", {"id": old, "action": "supersede", "content": "The standup is at 10:00"}
        )
        await drain(poller)
        latest = queued["queued"]["id"]
        active = await _active_on(client, "standup.time", [old, newer, latest])
        assert len(active) == 1, active


# ---- the property: no sequence of changes leaves two active facts on one key ----------------------------

KEYS = ("office.plant", "office.kettle", "office.printer")
KINDS = ("write", "write", "move", "restore", "archive", "forget", "supersede", "supersede", "link")
OPS = st.tuples(
    st.sampled_from(KINDS),
    st.integers(min_value=0, max_value=30),  # the memory acted on: one stored so far, modulo their number
    st.integers(min_value=0, max_value=30),  # a link's target, likewise
    st.sampled_from((None, *KEYS)),  # the key written, moved onto or superseded onto (None: a write's
    # first key, a move's first key, a supersede's own key)
    st.booleans(),  # a write through the worker's own path (a causal parent not stored yet)
    st.booleans(),  # leave the queued job for later: stored together with the next ones, in order
)
"""One step: (kind, pick, target, key, own_path, defer)."""


def _keys_with_two_active(stack: LocalStack, tenant: str) -> list[tuple[str, int]]:
    return _rows(
        stack,
        """SELECT key, count(*) FROM memories
           WHERE tenant_id = %s AND layer = 'semantic' AND status = 'active' AND key IS NOT NULL
           GROUP BY key HAVING count(*) > 1""",
        tenant,
    )


@pytest.mark.anyio
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(  # a supersede onto another key (the worker replaced only the memory it named)
    ops=[
        ("write", 0, 0, "office.plant", False, False),
        ("write", 0, 0, "office.kettle", True, False),
        ("supersede", 0, 0, "office.kettle", False, False),
    ]
)
@example(  # a supersede stored after a write replaced the memory it names
    ops=[
        ("write", 0, 0, "office.plant", False, False),
        ("write", 0, 0, "office.plant", False, True),
        ("supersede", 0, 0, None, False, False),
    ]
)
@example(  # a restore of a fact whose key was taken since
    ops=[
        ("write", 0, 0, "office.plant", False, False),
        ("write", 0, 0, "office.plant", True, False),
        ("restore", 0, 0, None, False, False),
    ]
)
@given(ops=st.lists(OPS, min_size=4, max_size=14))
async def test_no_sequence_of_changes_leaves_two_active_facts_on_a_key(
    stack: LocalStack, ops: list[tuple[Any, ...]]
) -> None:
    """Writes (batched together or one by one, some through the worker's own path), moves onto a key,
    restores, archives, forgets, supersedes (onto the same or another key, stored at once or after later
    writes) and supersedes links, in any order on three keys: after each step at most one active semantic
    memory per key. (Additive "also" writes keep two on purpose and are tested on their own above.)"""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    principal = Principal(tenant_id=tenant, key_id="property")
    queue = ListQueue()
    async with _container(stack) as c:
        manage = ManageMemory(c.reader, c.editor, c.embedder, Remember(queue, c.clock), c.redactor, c.clock)
        ids: list[uuid.UUID] = []

        async def store() -> None:
            jobs, queue.jobs[:] = list(queue.jobs), []
            for result in await c.store_memories(jobs):
                assert result.outcome in ("stored", "merged"), result
                if result.memory_id is not None and result.memory_id not in ids:
                    ids.append(result.memory_id)

        for n, op in enumerate(ops):
            kind, pick_at, target_at, key, own_path, defer = op
            pick = ids[pick_at % len(ids)] if ids else None
            try:
                if kind == "write":
                    # a causal parent not stored yet sends the job down the worker's own path
                    parent = uuid.uuid4() if own_path else None
                    content = f"The {key or KEYS[0]} setting is {n}"
                    draft = MemoryDraft(content=content, key=key or KEYS[0], causal_parent=parent)
                    await Remember(queue, c.clock)(principal, None, draft)
                elif pick is None:
                    defer = True
                elif kind == "move":
                    await manage.update(
                        principal, None, pick, "update", MemoryChanges(key=key or KEYS[0]), None
                    )
                elif kind in ("restore", "archive"):
                    await manage.update(principal, None, pick, kind, MemoryChanges(), None)
                elif kind == "forget":
                    await manage.forget(principal, None, pick, hard=False, reason=None)
                elif kind == "supersede":
                    changes = MemoryChanges(content=f"The setting became {n}", key=key)
                    await manage.update(principal, None, pick, "supersede", changes, None)
                elif ids[target_at % len(ids)] != pick:
                    await manage.link(
                        principal, None, pick, ids[target_at % len(ids)], "supersedes", 1.0, None
                    )
            except HindsightError:
                pass  # refused (a supersede of what is not active, …): nothing changed
            if not defer:
                await store()
            assert _keys_with_two_active(stack, tenant) == [], (n, op)
        await store()
        assert _keys_with_two_active(stack, tenant) == []

"""Two values of one key never hold at one instant (re-trial of the valid-time fixes), end to end through
the MCP client, the SQS emulator and the worker (and ``hindsight ingest`` for a given ``valid_to``): a past
value written after an older past value ends that one where it begins and itself ends where the next
value begins; a value whose own ``valid_to`` lies past the start of the value after it ends there (and a
value given an end is ended by a new value inside its period); ``memory_update`` moving a value's start
into the previous value's period ends that one there, and a move that would put another value inside the
period is refused, naming it. A reader asking ``valid_at`` any instant gets one value of the key."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp import Client

from hindsight.client import call
from hindsight.domain.memory import MemoryDraft
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_operator_cli import _store, cli  # noqa: F401 (the fixture)
from tests.integration.test_valid_time_order import _hits, _iso, _memory, _reason, _state, _stored
from tests.support import draining_in_background, mcp_client, tool_error

pytestmark = pytest.mark.integration


async def _held_at(client: Client, at: str, ids: set[str]) -> set[str]:
    """Which of ``ids`` a valid-time search at ``at`` answers."""
    return set(await _hits(client, valid_at=at)) & ids


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_past_value_ends_the_past_value_it_begins_inside_and_ends_where_the_next_begins(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def office(city: str, start: str, **extra: Any) -> str:
            content = f"The team works from the {city} office"
            return await _stored(client, poller, content=content, occurred_at=start, **extra)

        lisbon = await office("Lisbon", "2026-06-01")
        porto = await office("Porto", "2026-01-01")  # a past value of Lisbon: [Jan, Jun)
        own = {"causal_parent": lisbon} if path == "own" else {}
        madrid = await office("Madrid", "2026-03-01", **own)  # began inside Porto's period
        faro = await office("Faro", "2025-10-01", **own)  # began before Porto

        assert await _state(client, lisbon) == ("active", None, None)
        assert await _state(client, madrid) == ("superseded", "2026-06-01T00:00:00Z", lisbon)
        assert await _state(client, porto) == ("superseded", "2026-03-01T00:00:00Z", madrid)
        assert await _state(client, faro) == ("superseded", "2026-01-01T00:00:00Z", porto)
        said = await _reason(client, madrid)
        assert f"ends {porto} (a past value on the key) at 2026-03-01T00:00:00+00:00" in said
        assert f"past value: {lisbon} holds the key from 2026-06-01" in said
        assert (await _reason(client, faro)).startswith(f"past value: {porto} holds the key from 2026-01-01")
        every = {lisbon, porto, madrid, faro}
        for at, held in (
            ("2025-11-01", faro),
            ("2026-02-01", porto),
            ("2026-04-01", madrid),
            ("2026-07-01", lisbon),
        ):
            assert await _held_at(client, at, every) == {held}, at

        # a restore undoes every end its supersedes gave it: Porto holds again, open-ended
        await call(client, "memory_update", {"id": porto, "action": "restore", "reason": "back in Porto"})
        memory = await _memory(client, porto)
        assert (memory["status"], memory["valid_to"]) == ("active", None)


def test_a_given_valid_to_never_runs_past_the_start_of_the_next_value(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
    poller: SqsPoller,
) -> None:
    [lisbon] = _store(
        stack,
        tenant,
        [("default", MemoryDraft(content="The team works from the Lisbon office", key="team.location",
                                 valid_from=datetime(2026, 6, 1, tzinfo=UTC)))],
    )  # fmt: skip
    lines = [
        # a past value of Lisbon whose own end lies after Lisbon began
        {"content": "The team works from the Porto office", "key": "team.location",
         "valid_from": "2026-01-01", "valid_to": "2026-08-01"},
        # a value given an end, then a value that begins inside its period
        {"content": "Sam lives in Lisbon", "key": "sam.city", "valid_from": "2026-01-01",
         "valid_to": "2026-12-01"},
    ]  # fmt: skip
    later = [{"content": "Sam lives in Porto", "key": "sam.city", "valid_from": "2026-03-01"}]
    with draining_in_background(poller):
        for n, batch in enumerate((lines, later)):
            path = tmp_path / f"ingest-{n}.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in batch))
            result = cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
            assert result.exit_code == 0, result.output
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute(
            """SELECT content, status, valid_to FROM memories WHERE tenant_id = %s AND key IS NOT NULL""",
            (tenant,),
        ).fetchall()
        successor = conn.execute(
            """SELECT r.from_id FROM memory_relations r JOIN memories m ON m.id = r.to_id
               WHERE m.tenant_id = %s AND m.content = 'The team works from the Porto office'
                 AND r.kind = 'supersedes'""",
            (tenant,),
        ).fetchall()
    state = {content: (status, valid_to) for content, status, valid_to in rows}
    assert state["The team works from the Porto office"] == ("superseded", datetime(2026, 6, 1, tzinfo=UTC))
    assert successor == [(lisbon,)]
    assert state["Sam lives in Lisbon"] == ("superseded", datetime(2026, 3, 1, tzinfo=UTC))
    assert state["Sam lives in Porto"] == ("active", None)


@pytest.mark.anyio
async def test_moving_a_start_into_the_previous_value_ends_it_there_and_an_overlap_is_refused(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        porto = await _stored(
            client, poller, content="The team works from the Porto office", occurred_at="2026-01-01"
        )
        lisbon = await _stored(
            client, poller, content="The team works from the Lisbon office", occurred_at="2026-06-01"
        )
        assert await _state(client, porto) == ("superseded", "2026-06-01T00:00:00Z", lisbon)

        # "Lisbon began in March, not June": Porto held until March
        moved = await call(
            client, "memory_update", {"id": lisbon, "action": "update", "valid_from": "2026-03-01"}
        )
        assert moved["superseded"] == [porto]
        assert await _state(client, porto) == ("superseded", "2026-03-01T00:00:00Z", lisbon)
        both = {porto, lisbon}
        assert await _held_at(client, "2026-04-01", both) == {lisbon}
        assert await _held_at(client, "2026-02-01", both) == {porto}

        # moves that would put one value inside the other's period are refused, naming it and both periods
        # with each end labelled (trial L3: the other's end was an unlabelled bracket); nothing changes
        porto_period = "from 2026-01-01T00:00:00Z until 2026-03-01T00:00:00Z"
        lisbon_period = "from 2026-03-01T00:00:00Z, with no end"
        porto_limit = {
            "memory": porto,
            "valid_from": "2026-01-01T00:00:00Z",
            "valid_to": "2026-03-01T00:00:00Z",
        }
        lisbon_limit = {"memory": lisbon, "valid_from": "2026-03-01T00:00:00Z", "valid_to": None}
        refused = [
            # before Porto began
            (
                lisbon,
                {"valid_from": "2025-12-01"},
                porto_period,
                porto_limit,
                "from 2025-12-01T00:00:00Z, with no end",
            ),
            # past Lisbon's start (a partial valid_to includes the whole of 1 August)
            (
                porto,
                {"valid_to": "2026-08-01"},
                lisbon_period,
                lisbon_limit,
                "from 2026-01-01T00:00:00Z until 2026-08-02T00:00:00Z",
            ),
            # open-ended
            (
                porto,
                {"valid_to": None},
                lisbon_period,
                lisbon_limit,
                "from 2026-01-01T00:00:00Z, with no end",
            ),
        ]
        for memory_id, change, other_period, limit, moved_period in refused:
            version = (await _memory(client, memory_id))["version"]
            error = await tool_error(client, "memory_update", {"id": memory_id, "action": "update", **change})
            assert error["kind"] == "invalid_arguments", error
            assert next(iter(change)) in error["message"], error
            expected = (
                f"memory {limit['memory']} holds key team.location {other_period}, and with this change "
                f"memory {memory_id} would hold it {moved_period}: both would hold at one instant"
            )
            assert expected in error["message"], error
            assert error["errors"][0]["limit"] == limit, error
            assert (await _memory(client, memory_id))["version"] == version
        assert await _state(client, porto) == ("superseded", "2026-03-01T00:00:00Z", lisbon)
        assert await _held_at(client, "2026-04-01", both) == {lisbon}


# ---- an inference on a key whose user statement was archived (re-trial) ---------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["batch", "own"])
async def test_an_inference_never_silently_takes_a_key_whose_user_statement_was_archived(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        vegan = await _stored(client, poller, key="cy.diet", content="Cy is vegan")
        await call(client, "memory_update", {"id": vegan, "action": "archive", "reason": "not used lately"})
        own = {"causal_parent": vegan} if path == "own" else {}
        meat = await _stored(
            client, poller, key="cy.diet", content="Cy eats meat", source="agent_inferred", **own
        )
        # stored, but linked to the user's statement, which stays archived and is not ended
        assert await _state(client, meat) == ("active", None, None)
        assert await _state(client, vegan) == ("archived", None, None)
        assert f"contradicts {vegan} (user_stated, archived" in await _reason(client, meat)
        # a reader sees the inference flagged, with what the user stated beside it
        hits = (await call(client, "memory_search", {"query": "what does Cy eat"}))["results"]
        hit = next(h for h in hits if h["memory"]["id"] == meat)
        assert "possible_conflict" in hit["flags"]
        assert ("contradicts", vegan) in [(r["relation"]["kind"], r["memory"]["id"]) for r in hit["related"]]
        summary = str(await call(client, "memory_summarize", {"key": "cy.diet"}))
        assert "Cy is vegan" in summary
        assert "Cy eats meat" in summary
        # the user's own new statement replaces theirs as usual: no link to the archived one
        fish = await _stored(client, poller, key="cy.diet", content="Cy is pescatarian now")
        assert "archived" not in (await _reason(client, fish))


# ---- a restored contradiction without a key (re-trial) ---------------------------------------------------


@pytest.mark.anyio
async def test_restoring_a_fact_a_contradiction_superseded_retires_the_contradiction(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        enjoy = await _stored(client, poller, key=None, content="I really enjoy Thai green curry")
        hate = await _stored(client, poller, key=None, content="I can't stand Thai green curry any more")
        assert await _state(client, enjoy) == ("superseded", (await _memory(client, enjoy))["valid_to"], hate)
        restored = await call(client, "memory_update", {"id": enjoy, "action": "restore", "reason": "I do"})
        # the restored fact is the fact again, as on a key: what superseded it is superseded by it
        assert restored["superseded"] == [hate]
        status, _, by = await _state(client, hate)
        assert (status, by) == ("superseded", enjoy)
        assert (await _memory(client, enjoy))["status"] == "active"
        hits = (await call(client, "memory_search", {"query": "Thai green curry"}))["results"]
        assert [h["memory"]["id"] for h in hits if h["memory"]["id"] in (enjoy, hate)] == [enjoy]


# ---- a restore puts the restored value back into its key's timeline (trial 08:25, H1 H2 H3) ------------


@pytest.mark.anyio
async def test_a_restored_past_value_holds_alone_and_restoring_the_next_one_ends_it_where_that_begins(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def office(city: str, start: str) -> str:
            content = f"The team works from the {city} office"
            return await _stored(client, poller, key="team.office", content=content, occurred_at=start)

        lisbon = await office("Lisbon", "2026-06-01")
        porto = await office("Porto", "2026-01-01")
        madrid = await office("Madrid", "2026-03-01")
        faro = await office("Faro", "2025-10-01")
        await call(client, "memory_update", {"id": lisbon, "action": "update", "valid_from": "2026-04-01"})
        every = {lisbon, porto, madrid, faro}
        assert await _held_at(client, "2026-04-15", every) == {lisbon}

        # restoring Madrid: Madrid is the value again from March; Lisbon (which began inside) never held
        restored = await call(client, "memory_update", {"id": madrid, "action": "restore"})
        assert restored["superseded"] == [lisbon]
        assert await _state(client, lisbon) == ("superseded", "2026-04-01T00:00:00Z", madrid)
        now = datetime.now(UTC).isoformat()
        for at in ("2026-04-15", "2026-05-15", "2026-07-15", now):
            assert await _held_at(client, at, every) == {madrid}, at
        assert await _held_at(client, "2026-02-01", every) == {porto}

        # restoring Lisbon: Madrid ends where Lisbon begins, as after the write
        back = await call(client, "memory_update", {"id": lisbon, "action": "restore"})
        assert back["superseded"] == [madrid]
        assert await _state(client, madrid) == ("superseded", "2026-04-01T00:00:00Z", lisbon)
        assert await _state(client, lisbon) == ("active", None, None)
        for at, held in (
            ("2026-03-15", madrid),
            ("2026-04-15", lisbon),
            ("2026-07-15", lisbon),
            (now, lisbon),
        ):
            assert await _held_at(client, at, every) == {held}, at


@pytest.mark.anyio
async def test_a_fact_restored_after_forget_never_holds_beside_the_value_written_meanwhile(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        acme = await _stored(client, poller, key="p.finn", content="Finn works at Acme")
        await call(client, "memory_forget", {"id": acme, "reason": "wrong"})
        initech = await _stored(client, poller, key="p.finn", content="Finn works at Initech")
        began = (await _memory(client, initech))["created_at"]
        await call(client, "memory_update", {"id": acme, "action": "restore"})
        both = {acme, initech}
        for at in (began, datetime.now(UTC).isoformat()):
            assert await _held_at(client, at, both) == {acme}, at


@pytest.mark.anyio
async def test_restoring_the_current_value_over_an_upcoming_one_keeps_it_until_that_one_begins(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        berlin = await _stored(client, poller, key="team.city", content="The team is based in Berlin")
        munich = await _stored(
            client, poller, key="team.city", content="The team is based in Munich", occurred_at="2027-03-01"
        )
        assert await _state(client, berlin) == ("superseded", "2027-03-01T00:00:00Z", munich)
        await call(client, "memory_update", {"id": berlin, "action": "restore"})
        assert await _state(client, munich) == ("superseded", "2027-03-01T00:00:00Z", berlin)
        again = await call(client, "memory_update", {"id": munich, "action": "restore"})
        assert again["superseded"] == [berlin]
        # as after the write: Berlin holds until Munich begins
        assert await _state(client, berlin) == ("superseded", "2027-03-01T00:00:00Z", munich)
        assert await _state(client, munich) == ("active", None, None)
        both = {berlin, munich}
        assert await _held_at(client, datetime.now(UTC).isoformat(), both) == {berlin}
        assert await _held_at(client, "2027-04-01", both) == {munich}


@pytest.mark.anyio
@pytest.mark.parametrize("restored_source", ["user_stated", "agent_inferred"])
async def test_restoring_the_first_fact_of_a_contradiction_chain_settles_it_with_the_fact_that_holds_it(
    server: BackgroundServer, poller: SqsPoller, token: str, restored_source: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def gym(euros: int, source: str = "user_stated") -> str:
            content = f"My gym membership costs {euros} euros per month"
            return await _stored(client, poller, key=None, content=content, source=source)

        first = await gym(40, restored_source)
        second = await gym(55)
        third = await gym(70)
        assert (await _state(client, first))[::2] == ("superseded", second)
        assert (await _state(client, second))[::2] == ("superseded", third)
        restored = await call(client, "memory_update", {"id": first, "action": "restore"})
        hits = {
            h["memory"]["id"]: h
            for h in (await call(client, "memory_search", {"query": "gym membership"}))["results"]
        }
        if restored_source == "user_stated":
            # the fact that now holds the chain is retired by it, as the direct successor would be; both
            # began after it, inside its period: as on a key, they never held (test_restore_rules)
            assert sorted(restored["superseded"]) == sorted([second, third])
            assert (await _state(client, third))[::2] == ("superseded", first)
            assert [i for i in hits if i in (first, second, third)] == [first]
        else:
            # an inference never retires what the user stated: both stay, linked and flagged
            assert not restored["superseded"]
            assert (await _memory(client, third))["status"] == "active"
            assert "possible_conflict" in hits[first]["flags"]
            assert third in [r["memory"]["id"] for r in hits[first]["related"]]


async def _values_at(client: Client, key: str, query: str, **args: Any) -> dict[str, str]:
    """The key's values a search answers, content → id (``valid_at`` given: those valid then; else today's
    facts)."""
    found = await call(client, "memory_search", {"query": query, "key": key, "top_k": 20, **args})
    return {h["memory"]["content"]: h["memory"]["id"] for h in found["results"]}


@pytest.mark.anyio
async def test_a_bounded_value_inside_another_values_period_leaves_no_gap_that_value_holds_again_after_it(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 08:25 M3: a value given an end (an ingest line's valid_to) inside a value's period ended that
    one where it began and left nothing after its own end: Porto, a past value [Jan, Jun), answered
    nothing in May; Faro, the key's fact, was replaced by Braga [Mar, Apr), so today's fact was a value
    that had ended and ``valid_at`` now answered nothing. The interrupted value holds again after it."""
    office, city = "where does the team work, which office", "where does Sam live, which city"
    async with mcp_client(server.url, token) as client:
        lisbon = await _stored(
            client, poller, content="The team works from the Lisbon office", occurred_at="2026-06-01"
        )
        porto = await _stored(
            client, poller, content="The team works from the Porto office", occurred_at="2026-01-01"
        )
        faro = await _stored(
            client, poller, key="sam.city", content="Sam lives in Faro", occurred_at="2026-01-01"
        )
        lines = [
            {"content": "The team works from the Madrid office", "key": "team.location",
             "valid_from": "2026-03-01T00:00:00Z", "valid_to": "2026-04-01T00:00:00Z"},
            {"content": "Sam lives in Braga", "key": "sam.city",
             "valid_from": "2026-03-01T00:00:00Z", "valid_to": "2026-04-01T00:00:00Z"},
        ]  # fmt: skip
        path = tmp_path / "ingest.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        with draining_in_background(poller):
            result = await anyio.to_thread.run_sync(
                lambda: cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
            )
        assert result.exit_code == 0, result.output

        for at, held in (
            ("2026-02-01", "Porto"),
            ("2026-03-15", "Madrid"),
            ("2026-05-01", "Porto"),  # was nothing: Porto ended at Madrid's start
            ("2026-07-01", "Lisbon"),
        ):
            answer = await _values_at(client, "team.location", office, valid_at=at)
            assert list(answer) == [f"The team works from the {held} office"], (at, answer)
        assert list(await _values_at(client, "team.location", office)) == [
            "The team works from the Lisbon office"
        ]
        for at, held in (
            ("2026-02-01", "Faro"),
            ("2026-03-15", "Braga"),
            ("2026-05-01", "Faro"),
            ("2026-12-01", "Faro"),
        ):
            answer = await _values_at(client, "sam.city", city, valid_at=at)
            assert list(answer) == [f"Sam lives in {held}"], (at, answer)
        # today's fact is Faro again, not Braga, which ended in April
        today = await _values_at(client, "sam.city", city)
        assert list(today) == ["Sam lives in Faro"]
        after = today["Sam lives in Faro"]
        braga = (await _values_at(client, "sam.city", city, valid_at="2026-03-15"))["Sam lives in Braga"]
        assert f"{faro} holds again after it as {after}" in await _reason(client, braga)
        again = await _memory(client, after)
        assert (again["status"], again["valid_from"], again["metadata"]["resumes"]) == (
            "active",
            "2026-04-01T00:00:00Z",
            faro,
        )
        assert await _state(client, braga) == ("superseded", "2026-04-01T00:00:00Z", after)
        assert await _state(client, faro) == ("superseded", "2026-03-01T00:00:00Z", braga)
        madrid = (await _values_at(client, "team.location", office, valid_at="2026-03-15"))[
            "The team works from the Madrid office"
        ]
        porto_after = (await _values_at(client, "team.location", office, valid_at="2026-05-01"))[
            "The team works from the Porto office"
        ]
        assert await _state(client, porto_after) == ("superseded", "2026-06-01T00:00:00Z", lisbon)
        assert await _state(client, porto) == ("superseded", "2026-03-01T00:00:00Z", madrid)

        # one statement in two memories: forgetting the one written takes its continuation along
        forgot = await call(client, "memory_forget", {"id": faro, "reason": "wrong person"})
        assert [a["id"] for a in forgot["also_forgotten"]] == [after]
        assert forgot["also_forgotten"][0]["reason"].startswith(
            f"the same value of its key as forgotten memory {faro}"
        )
        assert await _values_at(client, "sam.city", city) == {}
        assert list(await _values_at(client, "sam.city", city, valid_at="2026-05-01")) == []


def _ingest_each(cli: Any, tenant: str, tmp_path: Path, lines: list[dict[str, Any]]) -> None:  # noqa: F811
    """One ``hindsight ingest --wait`` per line, so the lines are stored in their order."""
    for n, line in enumerate(lines):
        path = tmp_path / f"line-{n}.jsonl"
        path.write_text(json.dumps(line) + "\n")
        result = cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
        assert result.exit_code == 0, result.output


def _sam(city: str, start: str, end: str | None = None) -> dict[str, Any]:
    line = {"content": f"Sam lives in {city}", "key": "sam.city", "valid_from": f"{start}T00:00:00Z"}
    return line | ({"valid_to": f"{end}T00:00:00Z"} if end else {})


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["open first", "bounded first"])
async def test_a_keys_timeline_does_not_depend_on_the_order_a_bounded_value_and_the_open_one_arrive_in(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Trial 11:08 H1: Braga [Mar, Apr) written *before* Faro from January left Faro [Jan, Mar) and
    nothing after April — Braga, ended, stayed the key's fact and ``valid_at`` 2026-04-10 answered nothing;
    in the other order Faro holds again from April. Both orders now give the same timeline."""
    city = "where does Sam live, which city"
    faro, braga = _sam("Faro", "2026-01-01"), _sam("Braga", "2026-03-01", "2026-04-01")
    lines = [faro, braga] if order == "open first" else [braga, faro]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        for at, held in (
            ("2026-02-01", "Faro"),
            ("2026-03-10", "Braga"),
            ("2026-04-10", "Faro"),  # was nothing when Braga came first
            ("2026-12-01", "Faro"),
        ):
            answer = await _values_at(client, "sam.city", city, valid_at=at)
            assert list(answer) == [f"Sam lives in {held}"], (order, at, answer)
        today = await _values_at(client, "sam.city", city)
        assert list(today) == ["Sam lives in Faro"], today  # was Braga, ended in April
        again = await _memory(client, today["Sam lives in Faro"])
        first = (await _values_at(client, "sam.city", city, valid_at="2026-02-01"))["Sam lives in Faro"]
        bounded = (await _values_at(client, "sam.city", city, valid_at="2026-03-10"))["Sam lives in Braga"]
        assert (again["status"], again["valid_from"], again["valid_to"]) == (
            "active",
            "2026-04-01T00:00:00Z",
            None,
        )
        assert again["metadata"]["resumes"] == first
        assert await _state(client, first) == ("superseded", "2026-03-01T00:00:00Z", bounded)
        assert await _state(client, bounded) == ("superseded", "2026-04-01T00:00:00Z", again["id"])
        if order == "bounded first":
            assert f"holds again after {bounded}" in await _reason(client, first)


@pytest.mark.anyio
async def test_restoring_a_piece_of_a_split_value_never_empties_the_bounded_values_stated_period(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 11:08 H2: restoring the first piece of Faro (split around Braga [Mar, Apr)) made it the fact
    from January with no end and emptied Braga's stated period ([Mar, Mar)): ``valid_at`` 2026-03-10
    answered Faro. Faro already holds again from April, so the restore leaves everything as it is and says
    so."""
    city = "where does Sam live, which city"
    lines = [_sam("Faro", "2026-01-01"), _sam("Braga", "2026-03-01", "2026-04-01")]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        first = (await _values_at(client, "sam.city", city, valid_at="2026-02-01"))["Sam lives in Faro"]
        braga = (await _values_at(client, "sam.city", city, valid_at="2026-03-10"))["Sam lives in Braga"]
        again = (await _values_at(client, "sam.city", city))["Sam lives in Faro"]
        version = (await _memory(client, first))["version"]

        answer = await call(client, "memory_update", {"id": first, "action": "restore"})
        assert answer["superseded"] is None, answer
        assert answer["note"].startswith(f"nothing restored: the value of memory {first} already holds"), (
            answer
        )
        assert f"from 2026-04-01T00:00:00+00:00 (with no end) as memory {again}" in answer["note"], answer
        assert (answer["memory"]["status"], answer["memory"]["version"]) == ("superseded", version)
        assert await _state(client, braga) == ("superseded", "2026-04-01T00:00:00Z", again)
        assert (await _memory(client, braga))["valid_from"] == "2026-03-01T00:00:00Z"
        assert await _state(client, first) == ("superseded", "2026-03-01T00:00:00Z", braga)
        for at, held in (("2026-02-01", "Faro"), ("2026-03-10", "Braga"), ("2026-04-10", "Faro")):
            assert list(await _values_at(client, "sam.city", city, valid_at=at)) == [f"Sam lives in {held}"]


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["open first", "bounded first"])
async def test_a_bounded_value_holding_now_is_the_keys_fact_and_the_value_after_it_upcoming(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Trial 11:08 M5: Bergen from January, then Tromso from five days ago until two months ahead: the
    timeline was right, but Tromso — true today — was superseded, so the default search and
    memory_summarize gave only Bergen's continuation (upcoming) and no value for today. Tromso is now the
    key's fact (active) and the continuation active, flagged upcoming; in both arrival orders."""
    now = datetime.now(UTC).replace(microsecond=0)
    start, end = now - timedelta(days=5), now + timedelta(days=60)

    def line(city: str, begins: datetime, ends: datetime | None = None) -> dict[str, Any]:
        at = {"valid_from": _iso(begins)} | ({"valid_to": _iso(ends)} if ends else {})
        return {"content": f"Ola works from {city}", "key": "ola.office"} | at

    bergen, tromso = line("Bergen", now - timedelta(days=300)), line("Tromso", start, end)
    lines = [bergen, tromso] if order == "open first" else [tromso, bergen]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    office = "where does Ola work, which office"
    async with mcp_client(server.url, token) as client:
        found = await call(client, "memory_search", {"query": office, "key": "ola.office", "top_k": 20})
        hits = {h["memory"]["content"]: h for h in found["results"]}
        assert set(hits) == {"Ola works from Tromso", "Ola works from Bergen"}, list(hits)  # was Bergen only
        today, later = hits["Ola works from Tromso"], hits["Ola works from Bergen"]
        assert today["memory"]["status"] == "active", today
        assert "upcoming" not in today["flags"], today
        assert "upcoming" in later["flags"], later
        assert later["memory"]["valid_from"] == _iso(end), later
        assert later["memory"]["metadata"]["resumes"]
        for at, held in (
            (now, "Tromso"),
            (end + timedelta(days=30), "Bergen"),
            (start - timedelta(days=1), "Bergen"),
        ):
            answer = await _values_at(client, "ola.office", office, valid_at=_iso(at))
            assert list(answer) == [f"Ola works from {held}"], (at, answer)
        hint = await call(client, "memory_summarize", {"key": "ola.office"})
        assert "Ola works from Tromso" in hint["hint"], hint
        assert f"(not valid yet: holds from {end.isoformat()})" in hint["hint"], hint


@pytest.mark.anyio
async def test_restoring_a_value_that_stays_a_past_value_says_so(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 11:08 M3: restoring Braga [Mar, Apr), a past value of Faro's continuation from April, bumped
    its version and answered no note: it silently stayed superseded. The answer says it stays a past
    value, of which memory, from when."""
    city = "where does Sam live, which city"
    lines = [_sam("Faro", "2026-01-01"), _sam("Braga", "2026-03-01", "2026-04-01")]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        braga = (await _values_at(client, "sam.city", city, valid_at="2026-03-10"))["Sam lives in Braga"]
        again = (await _values_at(client, "sam.city", city))["Sam lives in Faro"]
        answer = await call(client, "memory_update", {"id": braga, "action": "restore"})
        assert answer["memory"]["status"] == "superseded", answer
        assert answer["note"] == (
            f"past value: memory {again} holds key sam.city from 2026-04-01T00:00:00+00:00; memory {braga} "
            "stays superseded by it (valid until then)"
        ), answer
        assert await _state(client, braga) == ("superseded", "2026-04-01T00:00:00Z", again)
        assert list(await _values_at(client, "sam.city", city, valid_at="2026-03-10")) == [
            "Sam lives in Braga"
        ]


@pytest.mark.anyio
async def test_a_stated_end_is_not_cut_by_a_continuations_derived_start(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 11:08 M1: Faro from January, Braga [Mar, Apr), Coimbra [May, Jun), then Evora [Mar 15, Apr 15):
    Evora was stored until April 1, cut by Faro's continuation after Braga, whose start is derived, not
    stated — valid_at 2026-04-10 answered Faro. The value with the latest stated start holds: Evora until
    April 15, Faro again from then until May."""
    city = "where does Sam live, which city"
    lines = [
        _sam("Faro", "2026-01-01"),
        _sam("Braga", "2026-03-01", "2026-04-01"),
        _sam("Coimbra", "2026-05-01", "2026-06-01"),
        _sam("Evora", "2026-03-15", "2026-04-15"),
    ]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        for at, held in (
            ("2026-02-01", "Faro"),
            ("2026-03-10", "Braga"),
            ("2026-03-20", "Evora"),
            ("2026-04-10", "Evora"),  # was Faro: Evora's stated end was cut to April 1
            ("2026-04-20", "Faro"),
            ("2026-05-10", "Coimbra"),
            ("2026-06-10", "Faro"),
        ):
            answer = await _values_at(client, "sam.city", city, valid_at=at)
            assert list(answer) == [f"Sam lives in {held}"], (at, answer)
        evora = (await _values_at(client, "sam.city", city, valid_at="2026-04-10"))["Sam lives in Evora"]
        after = (await _values_at(client, "sam.city", city, valid_at="2026-04-20"))["Sam lives in Faro"]
        assert await _state(client, evora) == ("superseded", "2026-04-15T00:00:00Z", after)
        assert (await _memory(client, after))["valid_from"] == "2026-04-15T00:00:00Z"
        assert f"{after} (a continuation) now holds from 2026-04-15T00:00:00+00:00" in await _reason(
            client, evora
        )


_FOUR = {
    "F": _sam("Faro", "2026-01-01"),
    "B": _sam("Braga", "2026-03-01", "2026-04-01"),
    "C": _sam("Coimbra", "2026-05-01", "2026-06-01"),
    "E": _sam("Evora", "2026-03-15", "2026-04-15"),
}


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["FBCE", "BCEF", "EBFC", "BCFE", "CEBF", "EFCB"])
async def test_four_values_give_one_timeline_whatever_order_they_arrive_in(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Faro from January; Braga [Mar, Apr), Coimbra [May, Jun), Evora [Mar 15, Apr 15): at each instant the
    value with the latest stated start among those whose stated period contains it holds, in every
    arrival order (all 24 were probed; before, an open value written after two bounded ones held only
    after the first: BCEF answered nothing on Apr 20 and Jun 10, and Coimbra, ended, was today's fact)."""
    lines = [_FOUR[c] for c in order]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    city = "where does Sam live, which city"
    async with mcp_client(server.url, token) as client:
        for at, held in (
            ("2026-02-01", "Faro"),
            ("2026-03-10", "Braga"),
            ("2026-03-20", "Evora"),
            ("2026-04-10", "Evora"),
            ("2026-04-20", "Faro"),
            ("2026-05-10", "Coimbra"),
            ("2026-06-10", "Faro"),
            (None, "Faro"),
        ):
            args = {"valid_at": at} if at else {}
            answer = await _values_at(client, "sam.city", city, **args)
            assert list(answer) == [f"Sam lives in {held}"], (order, at, answer)


def _ola(city: str, begins: datetime, ends: datetime | None = None) -> dict[str, Any]:
    at = {"valid_from": _iso(begins)} | ({"valid_to": _iso(ends)} if ends else {})
    return {"content": f"Ola works from {city}", "key": "ola.office"} | at


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["open first", "bounded first"])
async def test_an_everyday_write_on_the_key_holds_from_now_over_a_continuations_derived_start(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Trial 2 H8: Bergen from January, Tromso from five days ago until two months ahead (Bergen's
    continuation upcoming from then), then a plain memory_write "Ola works from Oslo" (no period: from now,
    no end) was stored as a past value of the continuation — whose start is only derived from Tromso's end
    — and the agent got no current fact. Oslo, stated after Bergen's stated start, supersedes the
    continuation as it would Bergen: Oslo holds from now with no end, the continuation never holds."""
    now = datetime.now(UTC).replace(microsecond=0)
    start, end = now - timedelta(days=5), now + timedelta(days=60)
    bergen, tromso = _ola("Bergen", now - timedelta(days=300)), _ola("Tromso", start, end)
    lines = [bergen, tromso] if order == "open first" else [tromso, bergen]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    office = "where does Ola work, which office"
    async with mcp_client(server.url, token) as client:
        found = await _values_at(client, "ola.office", office)
        tromso_id, later = found["Ola works from Tromso"], found["Ola works from Bergen"]
        oslo = await _stored(client, poller, key="ola.office", content="Ola works from Oslo")
        reason = await _reason(client, oslo)
        assert "past value" not in reason, reason
        memory = await _memory(client, oslo)
        assert (memory["status"], memory["valid_to"]) == ("active", None), memory
        assert list(await _values_at(client, "ola.office", office)) == ["Ola works from Oslo"]
        for at in (end + timedelta(days=30), end, now + timedelta(days=1)):
            answer = await _values_at(client, "ola.office", office, valid_at=_iso(at))
            assert list(answer) == ["Ola works from Oslo"], (at, answer)
        answer = await _values_at(client, "ola.office", office, valid_at=_iso(start + timedelta(days=1)))
        assert list(answer) == ["Ola works from Tromso"], answer
        tromso_state = await _memory(client, tromso_id)
        assert (tromso_state["status"], tromso_state["superseded_by"]) == ("superseded", oslo)
        assert tromso_state["valid_to"] <= memory["valid_from"]
        resumed = await _memory(client, later)
        assert resumed["metadata"]["resumes"]
        # never held: an empty period, superseded by Oslo
        assert (resumed["status"], resumed["superseded_by"]) == ("superseded", oslo), resumed
        assert resumed["valid_to"] == resumed["valid_from"], resumed
        hint = (await call(client, "memory_summarize", {"key": "ola.office"}))["hint"]
        assert "Ola works from Oslo" in hint, hint
        assert "Ola works from Bergen" not in hint, hint


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["BTP", "TBP", "BPT", "PBT", "TPB", "PTB"])
async def test_an_open_value_stated_after_the_originals_start_holds_after_the_bounded_value(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Trial 2 H7 (simple case): Bergen from ten months ago, Tromso from five days ago until two months
    ahead, Porto from four months ago (open): after Tromso, Porto holds — it replaced Bergen, stated
    earlier. With Porto written last (BTP, TBP) Bergen's continuation held from Tromso's end instead."""
    now = datetime.now(UTC).replace(microsecond=0)
    start, end = now - timedelta(days=5), now + timedelta(days=60)
    porto_from = now - timedelta(days=120)
    values = {
        "B": _ola("Bergen", now - timedelta(days=300)),
        "T": _ola("Tromso", start, end),
        "P": _ola("Porto", porto_from),
    }
    lines = [values[c] for c in order]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    office = "where does Ola work, which office"
    async with mcp_client(server.url, token) as client:
        for at, held in (
            (porto_from - timedelta(days=1), "Bergen"),
            (porto_from + timedelta(days=1), "Porto"),
            (now, "Tromso"),
            (end + timedelta(days=30), "Porto"),
        ):
            answer = await _values_at(client, "ola.office", office, valid_at=_iso(at))
            assert list(answer) == [f"Ola works from {held}"], (order, at, answer)
        hits = await call(client, "memory_search", {"query": office, "key": "ola.office", "top_k": 20})
        found = {h["memory"]["content"]: h for h in hits["results"]}
        assert set(found) == {"Ola works from Tromso", "Ola works from Porto"}, (order, list(found))
        assert "upcoming" in found["Ola works from Porto"]["flags"]
        hint = (await call(client, "memory_summarize", {"key": "ola.office"}))["hint"]
        assert "Ola works from Bergen" not in hint, hint
        assert "Ola works from Porto" in hint, hint


@pytest.mark.anyio
@pytest.mark.parametrize("order", ["FBP", "FPB", "BFP", "PBF"])
async def test_an_open_value_inside_a_bounded_values_period_cuts_it_and_holds_on(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    order: str,
) -> None:
    """Trial 2 H7: Faro from January, Braga [Jul 15, Sep 1), Porto from Aug 1 (open): with Porto written
    after Braga (FBP) Porto was stored [Aug 1, Sep 1) and Faro's continuation, whose start is derived from
    Braga's end, held from September. Porto, stated after Faro's start, holds from Aug 1 in every order."""
    values = {
        "F": _sam("Faro", "2026-01-01"),
        "B": _sam("Braga", "2026-07-15", "2026-09-01"),
        "P": _sam("Porto", "2026-08-01"),
    }
    lines = [values[c] for c in order]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    city = "where does Sam live, which city"
    async with mcp_client(server.url, token) as client:
        for at, held in (
            ("2026-02-01", "Faro"),
            ("2026-07-20", "Braga"),
            ("2026-08-10", "Porto"),
            ("2026-09-15", "Porto"),
            (None, "Porto"),
        ):
            args = {"valid_at": at} if at else {}
            answer = await _values_at(client, "sam.city", city, **args)
            assert list(answer) == [f"Sam lives in {held}"], (order, at, answer)

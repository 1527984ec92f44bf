"""A value split around a bounded value (``key_resume``) is whole again when the bounded value goes or
shrinks, and forget → restore of the pieces gives back the timeline they had (trial 3: H5/H9, H6, H10).
End to end: ``hindsight ingest`` lines, the official MCP client over HTTP, the worker, real Postgres.

Faro from January (open) and Braga [Mar, Apr) give Faro [Jan, Mar), Braga, Faro again (a continuation)
from April. Forgetting Braga left nothing from March to April; shortening Braga's end left a gap before
the continuation; moving a bounded value's end into the past left it today's fact; forgetting Faro and
restoring it emptied Braga's period. A reader asking ``valid_at`` any instant gets exactly the value the
stated periods say."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_key_timeline import _ingest_each, _ola, _sam, _values_at
from tests.integration.test_operator_cli import cli  # noqa: F401 (the fixture)
from tests.integration.test_valid_time_order import _iso, _memory, _state, _stored
from tests.support import drain, draining_in_background, mcp_client, mint, tool_error

pytestmark = pytest.mark.integration
CITY = "where does Sam live, which city"


async def _split(cli: Any, poller: SqsPoller, tenant: str, tmp_path: Path, client: Client) -> dict[str, str]:  # noqa: F811
    """Faro from January, Braga [Mar, Apr): the ids of Faro, Braga and Faro's continuation."""
    lines = [_sam("Faro", "2026-01-01"), _sam("Braga", "2026-03-01", "2026-04-01")]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    faro = (await _values_at(client, "sam.city", CITY, valid_at="2026-02-01"))["Sam lives in Faro"]
    braga = (await _values_at(client, "sam.city", CITY, valid_at="2026-03-10"))["Sam lives in Braga"]
    again = (await _values_at(client, "sam.city", CITY))["Sam lives in Faro"]
    assert again != faro
    return {"faro": faro, "braga": braga, "again": again}


async def _timeline(client: Client, expected: list[tuple[str | None, str | None]]) -> None:
    """Each (instant, city) of ``expected``: the key's values a search at that instant answers are that
    city's alone (None: no value; instant None: today)."""
    for at, held in expected:
        args = {"valid_at": at} if at else {}
        answer = await _values_at(client, "sam.city", CITY, **args)
        assert list(answer) == ([f"Sam lives in {held}"] if held else []), (at, answer)


@pytest.mark.anyio
@pytest.mark.parametrize("hard", [False, True], ids=["soft", "hard"])
async def test_forgetting_the_bounded_value_makes_the_split_value_whole_again(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    hard: bool,
) -> None:
    """H5/H9: forgetting Braga left Faro [Jan, Mar) and Faro [Apr, –): nothing held in March. Faro is one
    memory again, from January with no end, the key's fact; its continuation is gone."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        await call(client, "memory_forget", {"id": ids["braga"], "reason": "never lived there", "hard": hard})
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Faro"), ("2026-05-01", "Faro"),
                                 (None, "Faro")])  # fmt: skip
        for at in ("2026-02-01", "2026-03-10", "2026-05-01", None):
            args = {"valid_at": at} if at else {}
            assert (await _values_at(client, "sam.city", CITY, **args))["Sam lives in Faro"] == ids["faro"]
        faro = await _memory(client, ids["faro"])
        assert (faro["status"], faro["valid_from"], faro["valid_to"]) == (
            "active",
            "2026-01-01T00:00:00Z",
            None,
        )
        assert await _dropped(client, ids["again"]) == ids["faro"]  # out of every read of today (MED-2)


async def _dropped(client: Client, memory_id: str) -> str:
    """The memory whose change dropped the continuation ``memory_id`` (``key_rejoin.drop``): it is
    forgotten, with the history row that says so."""
    found = await call(client, "memory_get", {"id": memory_id})
    assert found["memory"]["status"] == "forgotten", found
    return str(found["history"][-1]["changes"]["dropped"])


@pytest.mark.anyio
async def test_the_continuation_a_rejoin_drops_is_still_what_the_store_held_before_it(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial MED-2: forgetting Braga makes Faro one memory again, and its continuation (Faro from April) was
    deleted with its history: a ``known_at`` read at an instant before the forget ("what did we hold
    then") no longer answered Faro from April. It is dropped, not deleted: out of every read of today, not
    restorable, and seen as it stood by a read at an instant it held, until Faro is forgotten on request."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        await anyio.sleep(0.05)  # an instant strictly between the split and the forget
        then = _iso(datetime.now(UTC))
        await anyio.sleep(0.05)
        await call(client, "memory_forget", {"id": ids["braga"]})
        known = {"known_at": then, "valid_at": "2026-05-01"}
        assert await _values_at(client, "sam.city", CITY, **known) == {"Sam lives in Faro": ids["again"]}
        assert await _values_at(client, "sam.city", CITY, valid_at="2026-05-01") == {
            "Sam lives in Faro": ids["faro"]
        }
        held = (await call(client, "memory_get", {"id": ids["again"], "known_at": then}))["memory"]
        assert (held["status"], held["valid_from"], held["valid_to"]) == (
            "active",
            "2026-04-01T00:00:00Z",
            None,
        )
        assert await _dropped(client, ids["again"]) == ids["faro"]
        refused = await tool_error(client, "memory_update", {"id": ids["again"], "action": "restore"})
        assert (refused["kind"], refused["errors"][0]["field"]) == ("invalid_arguments", "id"), refused
        assert ids["faro"] in refused["message"], refused
        await _timeline(client, [("2026-03-10", "Faro"), ("2026-05-01", "Faro"), (None, "Faro")])
        await call(client, "memory_forget", {"id": ids["faro"]})  # on request: seen at no time any more
        assert await _values_at(client, "sam.city", CITY, **known) == {}
        error = await tool_error(client, "memory_get", {"id": ids["again"], "known_at": then})
        assert error["kind"] == "not_found", error


@pytest.mark.anyio
async def test_forgetting_a_bounded_value_another_one_cut_gives_its_instants_back_to_the_split_value(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Faro from January, Braga [Mar, Apr), Evora [Mar 15, Apr 15): Braga holds [Mar, Mar 15). Forgetting
    Braga: Faro until Evora begins, Evora, Faro again from Evora's end."""
    lines = [
        _sam("Faro", "2026-01-01"),
        _sam("Braga", "2026-03-01", "2026-04-01"),
        _sam("Evora", "2026-03-15", "2026-04-15"),
    ]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        braga = (await _values_at(client, "sam.city", CITY, valid_at="2026-03-10"))["Sam lives in Braga"]
        await call(client, "memory_forget", {"id": braga})
        expected = [("2026-02-01", "Faro"), ("2026-03-10", "Faro"), ("2026-03-20", "Evora"),
                    ("2026-04-10", "Evora"), ("2026-04-20", "Faro"), (None, "Faro")]  # fmt: skip
        await _timeline(client, expected)


@pytest.mark.anyio
async def test_moving_a_bounded_values_end_earlier_or_later_moves_where_the_split_value_holds_again(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """H6: Braga's end moved from April 1 to March 15 left nothing from March 15 to April; moving it to May
    was refused against Faro's continuation, whose start is only derived from Braga's end (trial MED)."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        change = {"id": ids["braga"], "action": "update", "valid_to": "2026-03-15T00:00:00Z"}
        await call(client, "memory_update", change)
        await _timeline(client, [("2026-03-10", "Braga"), ("2026-03-20", "Faro"), ("2026-05-01", "Faro"),
                                 (None, "Faro")])  # fmt: skip
        assert (await _memory(client, ids["again"]))["valid_from"] == "2026-03-15T00:00:00Z"
        change = {"id": ids["braga"], "action": "update", "valid_to": "2026-05-01T00:00:00Z"}
        await call(client, "memory_update", change)
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-04-10", "Braga"), ("2026-05-10", "Faro"),
                                 (None, "Faro")])  # fmt: skip
        assert await _state(client, ids["braga"]) == ("superseded", "2026-05-01T00:00:00Z", ids["again"])


@pytest.mark.anyio
async def test_moving_a_bounded_values_end_to_where_the_next_value_begins_drops_the_continuation_between(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial LOW-5: Faro from January, Braga [Mar, Apr), Porto from June: Faro holds again [Apr, Jun) as its
    continuation. Moving Braga's end to June (where Porto begins) was refused against that continuation,
    whose period is only derived from Braga's; Braga holds until Porto begins now, and the continuation,
    left holding nothing, is dropped."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        porto = await _stored(
            client, poller, key="sam.city", content="Sam lives in Porto", occurred_at="2026-06-01"
        )
        await _timeline(client, [("2026-05-01", "Faro"), ("2026-06-10", "Porto")])
        change = {"id": ids["braga"], "action": "update", "valid_to": "2026-06-01T00:00:00Z"}
        await call(client, "memory_update", change)
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Braga"), ("2026-05-01", "Braga"),
                                 ("2026-06-10", "Porto"), (None, "Porto")])  # fmt: skip
        assert await _state(client, ids["braga"]) == ("superseded", "2026-06-01T00:00:00Z", porto)
        assert await _dropped(client, ids["again"]) == ids["braga"]


@pytest.mark.anyio
async def test_moving_the_end_of_todays_bounded_value_into_the_past_makes_the_value_after_it_todays_fact(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """H6: Tromso, true from five days ago for two months, is today's fact; its end moved to yesterday, it
    stayed active and today's fact, and Bergen (after it) stayed upcoming from two months ahead."""
    now = datetime.now(UTC).replace(microsecond=0)
    start, end = now - timedelta(days=5), now + timedelta(days=60)
    lines = [_ola("Bergen", now - timedelta(days=300)), _ola("Tromso", start, end)]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    office = "where does Ola work, which office"
    async with mcp_client(server.url, token) as client:
        found = await _values_at(client, "ola.office", office)
        tromso, later = found["Ola works from Tromso"], found["Ola works from Bergen"]
        yesterday = now - timedelta(days=1)
        await call(client, "memory_update", {"id": tromso, "action": "update", "valid_to": _iso(yesterday)})
        assert await _values_at(client, "ola.office", office) == {"Ola works from Bergen": later}
        assert await _state(client, tromso) == ("superseded", _iso(yesterday), later)
        bergen = await _memory(client, later)
        assert (bergen["status"], bergen["valid_from"]) == ("active", _iso(yesterday))
        answer = await _values_at(client, "ola.office", office, valid_at=_iso(now - timedelta(days=3)))
        assert answer == {"Ola works from Tromso": tromso}


@pytest.mark.anyio
@pytest.mark.parametrize("piece", ["faro", "again"])
async def test_forgetting_and_restoring_the_split_value_gives_back_its_timeline(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    piece: str,
) -> None:
    """H10: forgetting Faro (its continuation goes along) and restoring it made Faro the value from January
    with no end and emptied Braga's period ([Mar, Mar)). The pieces come back as they were."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        forgot = await call(client, "memory_forget", {"id": ids[piece]})
        assert len(forgot["also_forgotten"]) == 1
        await _timeline(client, [("2026-02-01", None), ("2026-03-10", "Braga"), ("2026-05-01", None)])
        await call(client, "memory_update", {"id": ids[piece], "action": "restore"})
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Braga"), ("2026-05-01", "Faro"),
                                 (None, "Faro")])  # fmt: skip
        braga = await _memory(client, ids["braga"])
        assert (braga["valid_from"], braga["valid_to"]) == ("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")
        assert await _state(client, ids["braga"]) == ("superseded", "2026-04-01T00:00:00Z", ids["again"])
        assert await _state(client, ids["faro"]) == ("superseded", "2026-03-01T00:00:00Z", ids["braga"])
        assert await _state(client, ids["again"]) == ("active", None, None)


@pytest.mark.anyio
async def test_forgetting_and_restoring_the_bounded_value_splits_the_value_again(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """H10: Braga forgotten then restored is the value from March to April again, Faro before and after it
    (a new continuation: the one Braga's forget removed was derived data)."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        await call(client, "memory_forget", {"id": ids["braga"]})
        await call(client, "memory_update", {"id": ids["braga"], "action": "restore"})
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Braga"), ("2026-05-01", "Faro"),
                                 (None, "Faro")])  # fmt: skip
        braga = await _memory(client, ids["braga"])
        assert (braga["valid_from"], braga["valid_to"]) == ("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")
        assert await _state(client, ids["faro"]) == ("superseded", "2026-03-01T00:00:00Z", ids["braga"])
        after = (await _values_at(client, "sam.city", CITY))["Sam lives in Faro"]
        assert (await _memory(client, after))["metadata"]["resumes"] == ids["faro"]
        assert await _state(client, ids["braga"]) == ("superseded", "2026-04-01T00:00:00Z", after)


@pytest.mark.anyio
async def test_a_forgotten_past_value_restored_is_a_past_value_again(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Found by the key timeline property test: Faro from January, Porto from March (both open); Faro
    forgotten and restored became the value from January with no end, and Porto, which nothing had changed,
    never held. Undoing the forget gives back what was: Faro until March, a past value of Porto."""
    lines = [_sam("Faro", "2026-01-01"), _sam("Porto", "2026-03-01")]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        faro = (await _values_at(client, "sam.city", CITY, valid_at="2026-02-01"))["Sam lives in Faro"]
        porto = (await _values_at(client, "sam.city", CITY))["Sam lives in Porto"]
        await call(client, "memory_forget", {"id": faro})
        answer = await call(client, "memory_update", {"id": faro, "action": "restore"})
        # the answer names the successor, as memory_get does (trial 3: superseded_by was null)
        assert (answer["memory"]["status"], answer["memory"]["superseded_by"]) == ("superseded", porto)
        assert answer["note"].startswith(f"past value: memory {porto} holds key sam.city from 2026-03-01")
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-04-01", "Porto"), (None, "Porto")])
        assert await _state(client, faro) == ("superseded", "2026-03-01T00:00:00Z", porto)
        assert await _state(client, porto) == ("active", None, None)


@pytest.mark.anyio
async def test_an_imported_value_a_bounded_value_of_the_tenant_interrupts_holds_again_after_it(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 3 (MED): an import split a value only when the bounded value came second. The tenant holds
    Braga [Mar, Apr); the import brings Faro from January (open): Faro was stored until March and nothing
    held after April. Faro holds again from April and is the key's fact, as after a write of it."""
    source = f"{tenant}-src"
    async with mcp_client(server.url, await mint(stack, source)) as client:
        args = {"content": "Sam lives in Faro", "key": "sam.city", "occurred_at": "2026-01-01"}
        await call(client, "memory_write", args)
        await drain(poller)
    with draining_in_background(poller):
        lines = [_sam("Braga", "2026-03-01", "2026-04-01")]
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    dump = tmp_path / "export.jsonl"
    exported = await anyio.to_thread.run_sync(lambda: cli("export", "--tenant", source, "-o", str(dump)))
    assert exported.exit_code == 0, exported.output
    imported = await anyio.to_thread.run_sync(
        lambda: cli("import", str(dump), "--tenant", tenant, "--remap-ids", "--json")
    )
    assert imported.exit_code == 0, imported.output
    async with mcp_client(server.url, token) as client:
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Braga"), ("2026-04-10", "Faro"),
                                 (None, "Faro")])  # fmt: skip
    [settled] = json.loads(imported.stdout)["settled"]
    [again] = settled["resumed"]
    assert f"as {again}" in settled["reason"], settled


@pytest.mark.anyio
async def test_moving_a_bounded_values_start_later_gives_the_instants_back_to_the_split_value(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 3 (MED): Braga's start moved from March 1 to March 15 left nothing held in early March; Faro,
    stated from January with no end, holds there."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        change = {"id": ids["braga"], "action": "update", "valid_from": "2026-03-15T00:00:00Z"}
        await call(client, "memory_update", change)
        await _timeline(client, [("2026-02-01", "Faro"), ("2026-03-10", "Faro"), ("2026-03-20", "Braga"),
                                 ("2026-05-01", "Faro"), (None, "Faro")])  # fmt: skip
        assert await _state(client, ids["faro"]) == ("superseded", "2026-03-15T00:00:00Z", ids["braga"])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("porto", "braga_until", "expected"),
    [
        ("2026-03-15", None, [("2026-03-10", "Braga"), ("2026-03-20", "Porto"), ("2026-04-10", "Porto")]),
        (
            "2026-04-15",
            "2026-05-01",
            [("2026-03-10", "Braga"), ("2026-04-10", "Braga"), ("2026-04-20", "Porto")],
        ),
    ],
    ids=["porto inside braga", "braga's end moved while forgotten"],
)
async def test_restoring_a_bounded_value_a_value_written_since_overlaps_leaves_that_value_holding(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
    porto: str,
    braga_until: str | None,
    expected: list[tuple[str | None, str | None]],
) -> None:
    """Trial (HIGH): Braga [Mar, Apr) forgotten (Faro whole again), Porto written from inside Braga's
    period, then Braga restored: Porto was emptied ([its start, its start)) and nothing held after Braga's
    end. A value written since holds at instants Braga held, so Braga comes back as a past value of Porto
    and Porto stays the key's fact, its period intact."""
    async with mcp_client(server.url, token) as client:
        ids = await _split(cli, poller, tenant, tmp_path, client)
        await call(client, "memory_forget", {"id": ids["braga"]})
        if braga_until is not None:  # an edit of the forgotten memory is accepted
            change = {"id": ids["braga"], "action": "update", "valid_to": f"{braga_until}T00:00:00Z"}
            await call(client, "memory_update", change)
        args = {"key": "sam.city", "content": "Sam lives in Porto", "occurred_at": f"{porto}T00:00:00Z"}
        porto_id = await _stored(client, poller, **args)
        assert (await _values_at(client, "sam.city", CITY)) == {"Sam lives in Porto": porto_id}
        await call(client, "memory_update", {"id": ids["braga"], "action": "restore"})
        await _timeline(client, [("2026-02-01", "Faro"), *expected, ("2026-05-10", "Porto"), (None, "Porto")])
        assert await _state(client, porto_id) == ("active", None, None)
        assert (await _memory(client, porto_id))["valid_from"] == f"{porto}T00:00:00Z"
        assert await _state(client, ids["braga"]) == ("superseded", f"{porto}T00:00:00Z", porto_id)


@pytest.mark.anyio
async def test_a_restore_that_leaves_a_past_value_changes_nothing_and_a_forgotten_successor_is_named_by_none(
    cli: Any,  # noqa: F811
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial leftovers: Faro [Jan, Mar), Porto from March (open). A restore of Faro, a past value of Porto
    that stays one, bumped its version by 2 (active, then superseded again) though nothing changed: it
    changes nothing now (the version kept, no history row), with its note. Porto forgotten, Faro (and a
    fact superseded by a ``supersedes`` link, its successor forgotten) kept naming it in ``superseded_by``:
    it names no forgotten memory."""
    lines = [_sam("Faro", "2026-01-01", "2026-03-01"), _sam("Porto", "2026-03-01")]
    with draining_in_background(poller):
        await anyio.to_thread.run_sync(lambda: _ingest_each(cli, tenant, tmp_path, lines))
    async with mcp_client(server.url, token) as client:
        faro = (await _values_at(client, "sam.city", CITY, valid_at="2026-02-01"))["Sam lives in Faro"]
        porto = (await _values_at(client, "sam.city", CITY))["Sam lives in Porto"]
        before = await call(client, "memory_get", {"id": faro})
        answer = await call(client, "memory_update", {"id": faro, "action": "restore"})
        assert answer["note"].startswith(f"past value: memory {porto} holds key sam.city"), answer
        after = await call(client, "memory_get", {"id": faro})
        assert (after["memory"]["version"], len(after["history"])) == (
            before["memory"]["version"],
            len(before["history"]),
        )
        assert await _state(client, faro) == ("superseded", "2026-03-01T00:00:00Z", porto)
        await call(client, "memory_forget", {"id": porto})
        assert await _state(client, faro) == ("superseded", "2026-03-01T00:00:00Z", None)
        tea = await _stored(client, poller, key=None, content="The office opens at 9")
        coffee = await _stored(client, poller, key=None, content="The office now opens at 8 on weekdays")
        await call(client, "memory_link", {"from_id": coffee, "to_id": tea, "kind": "supersedes"})
        assert (await _memory(client, tea))["superseded_by"] == coffee
        await call(client, "memory_forget", {"id": coffee})
        assert await _state(client, tea) == ("superseded", (await _memory(client, tea))["valid_to"], None)

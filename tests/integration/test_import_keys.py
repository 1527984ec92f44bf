"""A key names one fact, also across an import (re-trial of the one-fact-per-key fixes): ``hindsight import``
of an export (another tenant's, or a copy with new ids into the same tenant) whose active keyed facts
meet active facts of the target agent on the same key settles each
pair by the write path's rules — valid-time order, the source rules, additions — instead of inserting a
second holder; the report lists every settlement. Through the CLI against real Postgres."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from hindsight.client import call
from hindsight.domain.memory import MemoryDraft
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.archive import remap
from tests.integration.test_forgetting import _consolidated
from tests.integration.test_operator_cli import _store, cli  # noqa: F401 (the fixture)
from tests.support import drain, mcp_client, mint

pytestmark = pytest.mark.integration
JAN, MAR, JUN = (datetime(2026, m, 1, tzinfo=UTC) for m in (1, 3, 6))


def _rows(stack: LocalStack, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        return conn.execute(query, params).fetchall()


def _two_holders(stack: LocalStack, tenant: str) -> list[tuple[Any, ...]]:
    """Keys with two active facts that no addition and no source rule keeps: none may be left."""
    return _rows(
        stack,
        """SELECT key, count(*) FROM memories
           WHERE tenant_id = %s AND layer = 'semantic' AND status = 'active' AND key IS NOT NULL
             AND key <> 'cy.diet'
           GROUP BY agent_id, key HAVING count(*) > 1""",
        tenant,
    )


def _state(stack: LocalStack, memory_id: Any) -> tuple[Any, ...]:
    [row] = _rows(stack, "SELECT status, valid_from, valid_to FROM memories WHERE id = %s", memory_id)
    return row


def test_an_import_of_another_tenants_facts_onto_held_keys_settles_them_as_writes(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
) -> None:
    lisbon, nine, vegan = _store(
        stack,
        tenant,
        [
            ("default", MemoryDraft(content="The team works from the Lisbon office", key="team.location",
                                    valid_from=JUN)),
            ("default", MemoryDraft(content="The standup is at 9:00", key="standup.time", valid_from=JAN)),
            ("default", MemoryDraft(content="Cy is vegan", key="cy.diet", valid_from=JAN)),
        ],
    )  # fmt: skip
    source = f"{tenant}-src"
    porto, ten, meat = _store(
        stack,
        source,
        [
            ("default", MemoryDraft(content="The team works from the Porto office", key="team.location",
                                    valid_from=JAN)),
            ("default", MemoryDraft(content="The standup is at 10:00", key="standup.time", valid_from=MAR)),
            ("default", MemoryDraft(content="Cy eats meat", key="cy.diet", source="agent_inferred",
                                    valid_from=MAR)),
        ],
    )  # fmt: skip
    dump = tmp_path / "export.jsonl"
    assert cli("export", "--tenant", source, "-o", str(dump)).exit_code == 0
    imported = cli("import", str(dump), "--tenant", tenant, "--remap-ids", "--json")
    assert imported.exit_code == 0, imported.output
    porto, ten, meat = (remap(str(i), tenant) for i in (porto, ten, meat))
    report = json.loads(imported.stdout)
    assert report["inserted"]["memory"] == 3

    assert _two_holders(stack, tenant) == []
    # older than the tenant's fact: a past value of it, ending where it begins
    assert _state(stack, porto) == ("superseded", JAN, JUN)
    assert _state(stack, lisbon) == ("active", JUN, None)
    # newer: it takes the key, the tenant's fact ends where it begins
    assert _state(stack, ten) == ("active", MAR, None)
    assert _state(stack, nine) == ("superseded", JAN, MAR)
    # an inference never replaces what the user stated: both stay, linked contradicts
    assert _state(stack, meat)[0] == _state(stack, vegan)[0] == "active"
    assert _rows(
        stack, "SELECT kind FROM memory_relations WHERE from_id = %s AND to_id = %s", meat, vegan
    ) == [("contradicts",)]
    # each settlement is reported and recorded in the history, as a write's
    settled = {s["key"]: s for s in report["settled"]}
    assert set(settled) == {"team.location", "standup.time", "cy.diet"}
    assert settled["team.location"]["past_value_of"] == str(lisbon)
    assert settled["team.location"]["reason"].startswith(f"past value: {lisbon} holds the key from 2026-06")
    assert settled["standup.time"]["superseded"] == [str(nine)]
    assert settled["cy.diet"]["kept"] == [str(vegan)]
    assert _rows(
        stack,
        "SELECT action, actor FROM memory_history WHERE memory_id = %s AND action = 'superseded'",
        nine,
    ) == [("superseded", "import")]
    said = cli("import", str(dump), "--tenant", f"{tenant}-x", "--remap-ids")  # nothing to settle there
    assert said.exit_code == 0, said.output
    assert "key " not in said.stdout


def test_a_remapped_copy_into_the_same_tenant_leaves_one_fact_per_key(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
) -> None:
    [theme] = _store(
        stack, tenant, [("default", MemoryDraft(content="The user prefers dark mode", key="ui.theme"))]
    )
    dump = tmp_path / "export.jsonl"
    assert cli("export", "--tenant", tenant, "-o", str(dump)).exit_code == 0
    imported = cli("import", str(dump), "--tenant", tenant, "--remap-ids")
    assert imported.exit_code == 0, imported.output
    assert _two_holders(stack, tenant) == []
    assert "key ui.theme (default): " in imported.stdout
    # the copy began to hold at the same instant: a tie goes to the newer write, as on a key
    assert _state(stack, theme)[0] == "superseded"


def test_an_imported_value_is_fitted_among_the_keys_past_values_and_never_silently_over_an_archived_statement(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
) -> None:
    lisbon, porto, vegan = _store(
        stack,
        tenant,
        [
            ("default", MemoryDraft(content="The team works from the Lisbon office", key="team.location",
                                    valid_from=JUN)),
            ("default", MemoryDraft(content="The team works from the Porto office", key="team.location",
                                    valid_from=JAN)),  # a past value of Lisbon: [Jan, Jun)
            ("default", MemoryDraft(content="Cy is vegan", key="cy.diet")),
        ],
    )  # fmt: skip
    _rows(stack, "UPDATE memories SET status = 'archived' WHERE id = %s RETURNING id", vegan)
    source = f"{tenant}-src"
    madrid, meat = _store(
        stack,
        source,
        [
            ("default", MemoryDraft(content="The team works from the Madrid office", key="team.location",
                                    valid_from=MAR)),
            ("default", MemoryDraft(content="Cy eats meat", key="cy.diet", source="agent_inferred")),
        ],
    )  # fmt: skip
    dump = tmp_path / "export.jsonl"
    assert cli("export", "--tenant", source, "-o", str(dump)).exit_code == 0
    imported = cli("import", str(dump), "--tenant", tenant, "--remap-ids", "--json")
    assert imported.exit_code == 0, imported.output
    madrid, meat = (remap(str(i), tenant) for i in (madrid, meat))
    # Porto held until Madrid began; Madrid until Lisbon: one value at every instant
    assert _state(stack, porto) == ("superseded", JAN, MAR)
    assert _state(stack, madrid) == ("superseded", MAR, JUN)
    assert _state(stack, lisbon) == ("active", JUN, None)
    # the inference is stored, linked to the user's archived statement, which stays archived
    assert _state(stack, meat)[0] == "active"
    assert _state(stack, vegan)[0] == "archived"
    assert _rows(
        stack, "SELECT kind FROM memory_relations WHERE from_id = %s AND to_id = %s", meat, vegan
    ) == [("contradicts",)]
    settled = {s["key"]: s for s in json.loads(imported.stdout)["settled"]}
    assert settled["team.location"]["ended"] == [str(porto)]
    assert settled["cy.diet"]["kept"] == [str(vegan)]


async def _values_at(client: Any, key: str, query: str, **args: Any) -> list[str]:
    """The contents of the key's values a search answers (``valid_at`` given: those valid then; else
    today's facts)."""
    found = await call(client, "memory_search", {"query": query, "key": key, "top_k": 20, **args})
    return sorted(h["memory"]["content"] for h in found["results"])


@pytest.mark.anyio
async def test_an_imported_past_value_is_fitted_into_the_keys_timeline_one_value_at_each_instant(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial 08:25 H4: a memory superseded in the file (a past value, with its end) was inserted as it
    was, so a ``valid_at`` search inside its period answered it beside the target's value of the key."""
    source = f"{tenant}-src"
    office, standup = "where does the team work, which office", "when is the standup meeting"

    async def write(client: Any, key: str, content: str, at: str) -> str:
        ack = await call(client, "memory_write", {"content": content, "key": key, "occurred_at": at})
        await drain(poller)
        return str(ack["id"])

    async with mcp_client(server.url, await mint(stack, source)) as client:
        await write(client, "team.location", "The team works from the Madrid office", "2026-01-01")
        await write(client, "team.location", "The team works from the Lisbon office", "2026-03-01")
        ten = await write(client, "standup.time", "The standup meeting is at 10:00", "2026-01-01")
        eleven = await write(client, "standup.time", "The standup meeting is at 11:00", "2026-03-01")
        await call(client, "memory_forget", {"id": eleven, "reason": "never happened"})
        past = (await call(client, "memory_get", {"id": ten}))["memory"]
        # the file holds two past values: Madrid [Jan, Mar) under Lisbon, 10:00 [Jan, Mar) whose successor
        # was forgotten
        assert (past["status"], past["valid_to"]) == ("superseded", "2026-03-01T00:00:00Z")
    async with mcp_client(server.url, token) as client:
        porto = await write(client, "team.location", "The team works from the Porto office", "2026-02-01")
        nine = await write(client, "standup.time", "The standup meeting is at 9:00", "2025-12-01")
        dump = tmp_path / "export.jsonl"
        exported = await anyio.to_thread.run_sync(lambda: cli("export", "--tenant", source, "-o", str(dump)))
        assert exported.exit_code == 0, exported.output
        imported = await anyio.to_thread.run_sync(
            lambda: cli("import", str(dump), "--tenant", tenant, "--remap-ids", "--json")
        )
        assert imported.exit_code == 0, imported.output

        for at, held in (
            ("2026-01-15", "Madrid"),  # before Porto began: the imported past value
            ("2026-02-15", "Porto"),  # Porto began inside Madrid's period: Madrid ends there
            ("2026-04-01", "Lisbon"),
        ):
            answer = await _values_at(client, "team.location", office, valid_at=at)
            assert answer == [f"The team works from the {held} office"], (at, answer)
        assert await _values_at(client, "team.location", office) == ["The team works from the Lisbon office"]
        for at, held in (
            ("2025-12-15", "9:00"),
            ("2026-02-01", "10:00"),  # the imported past value, inside 9:00's period
            ("2026-04-01", "9:00"),  # 9:00 holds again after it: no gap, and still the key's fact
        ):
            answer = await _values_at(client, "standup.time", standup, valid_at=at)
            assert answer == [f"The standup meeting is at {held}"], (at, answer)
        assert await _values_at(client, "standup.time", standup) == ["The standup meeting is at 9:00"]

    madrid, ten = (
        remap(
            str(
                _rows(
                    stack,
                    "SELECT id FROM memories WHERE tenant_id = %s AND content LIKE %s",
                    source,
                    "%Madrid%",
                )[0][0]
            ),
            tenant,
        ),
        remap(ten, tenant),
    )
    settled = {s["memory_id"]: s for s in json.loads(imported.stdout)["settled"]}
    assert settled[madrid]["past_value_of"] == porto
    assert settled[madrid]["reason"].startswith(f"past value: {porto} holds the key from 2026-02-01")
    assert settled[ten]["ended"] == [nine]
    [resumed] = settled[ten]["resumed"]
    assert f"{nine} holds again after it as {resumed}" in settled[ten]["reason"]
    assert _state(stack, resumed) == ("active", datetime(2026, 3, 1, tzinfo=UTC), None)
    assert _state(stack, nine) == (
        "superseded",
        datetime(2025, 12, 1, tzinfo=UTC),
        datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert _two_holders(stack, tenant) == []

    # a remapped copy keeps the continuation's reference to the memory it continues
    copy, again = f"{tenant}-copy", tmp_path / "again.jsonl"
    exported = await anyio.to_thread.run_sync(lambda: cli("export", "--tenant", tenant, "-o", str(again)))
    assert exported.exit_code == 0, exported.output
    copied = await anyio.to_thread.run_sync(
        lambda: cli("import", str(again), "--tenant", copy, "--remap-ids")
    )
    assert copied.exit_code == 0, copied.output
    [(metadata,)] = _rows(stack, "SELECT metadata FROM memories WHERE id = %s", remap(resumed, copy))
    assert metadata["resumes"] == remap(nine, copy)


@pytest.mark.anyio
async def test_a_restored_older_value_survives_an_export_import_round_trip(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    server: BackgroundServer,
    poller: SqsPoller,
    tenant: str,
    tmp_path: Path,
) -> None:
    """New-user trial F8: the value a restore retired has an empty period ``[Apr 1, Apr 1)``; import read it
    as a bounded value inside the restored fact's period and split that fact around it (a new continuation
    memory held the key; the id agents hold named a past value; "skipped 1 existing" into an empty
    tenant)."""
    source, copy = f"{tenant}-src", f"{tenant}-copy"
    async with mcp_client(server.url, await mint(stack, source)) as client:
        ids = []
        for city, at in (("Madrid", "2026-03-01"), ("Lisbon", "2026-04-01")):
            args = {"content": f"The team works from {city}", "key": "team.location", "occurred_at": at}
            ids.append(str((await call(client, "memory_write", args))["id"]))
            await drain(poller)
        await call(
            client, "memory_update", {"id": ids[0], "action": "restore", "reason": "Lisbon was a mistake"}
        )
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    exported = await anyio.to_thread.run_sync(lambda: cli("export", "--tenant", source, "-o", str(first)))
    assert exported.exit_code == 0, exported.output
    imported = await anyio.to_thread.run_sync(
        lambda: cli("import", str(first), "--tenant", copy, "--remap-ids", "--json")
    )
    assert imported.exit_code == 0, imported.output
    report = json.loads(imported.stdout)
    assert (report["skipped"], report["settled"]) == (0, [])

    def timeline(t: str) -> list[tuple[Any, ...]]:
        return _rows(
            stack,
            """SELECT id::text, content, status, valid_from, valid_to FROM memories
               WHERE tenant_id = %s ORDER BY valid_from, content""",
            t,
        )

    madrid, lisbon = (remap(i, copy) for i in ids)
    assert [(r[0], *r[2:]) for r in timeline(copy)] == [
        (madrid, "active", datetime(2026, 3, 1, tzinfo=UTC), None),
        (lisbon, "superseded", datetime(2026, 4, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)),
    ]
    assert [r[1:] for r in timeline(copy)] == [r[1:] for r in timeline(source)]
    exported = await anyio.to_thread.run_sync(lambda: cli("export", "--tenant", copy, "-o", str(second)))
    assert exported.exit_code == 0, exported.output
    count = len(_rows(stack, "SELECT 1 FROM memory_relations WHERE tenant_id = %s", source))
    assert len(_rows(stack, "SELECT 1 FROM memory_relations WHERE tenant_id = %s", copy)) == count


def test_a_remapped_copy_names_only_its_own_memories(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
) -> None:
    """Trial L5: a ``--remap-ids`` copy kept the source's ids inside its rows — a summary's
    ``representative`` in metadata, its history's members, "consolidated into summary <id>" — naming
    memories the copy does not hold (and, in one tenant, the originals). Every reference is the copy's."""
    summary, members = anyio.run(_consolidated, stack, tenant)
    dump = tmp_path / "dump.jsonl"
    assert cli("export", "--tenant", tenant, "-o", str(dump)).exit_code == 0
    copy = f"{tenant}-copy"
    imported = cli("import", str(dump), "--tenant", copy, "--remap-ids")
    assert imported.exit_code == 0, imported.output
    held = [
        *_rows(stack, "SELECT metadata::text FROM memories WHERE tenant_id = %s", copy),
        *_rows(stack, "SELECT reason, changes::text FROM memory_history WHERE tenant_id = %s", copy),
        *_rows(stack, "SELECT reason FROM memory_relations WHERE tenant_id = %s", copy),
    ]
    assert not [r for r in held if any(i in str(r) for i in (summary, *members))]
    [(metadata,)] = _rows(stack, "SELECT metadata FROM memories WHERE id = %s", remap(summary, copy))
    assert metadata["consolidation"]["representative"] in {remap(m, copy) for m in members}
    [(changes,)] = _rows(
        stack,
        "SELECT changes FROM memory_history WHERE memory_id = %s AND action = 'created'",
        remap(summary, copy),
    )
    assert sorted(changes["members"]) == sorted(remap(m, copy) for m in members)

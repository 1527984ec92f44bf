"""Keys compare case-insensitively (keys15 HIGH), end to end through the official MCP client, the SQS
emulator and the worker: "User.Home" and then "user.home" are one key with one current value, found by
any spelling, on every path that gives a key (write, search filter, summary, a move by memory_update, a
restore, working-memory promote); and migration 029 brings a store's keys written before it to that form,
settling two spellings' current values into one, with nothing lost — as the maintenance step ``key_case``
(migrations 030, 031) does for a key an older version stored as typed during a deploy."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.adapters.postgres.migrations import default_migrations_dir, load_migrations
from hindsight.adapters.postgres.pool import open_pool
from hindsight.adapters.system_clock import SystemClock
from hindsight.client import call
from hindsight.domain.memory import Scope, SearchRequest
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.maintain import Maintain, MaintenancePolicy, MaintenanceReport
from tests.integration.test_schema import _fresh_database, _migrate
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.integration]


@pytest.mark.anyio
async def test_two_spellings_of_a_key_hold_one_current_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given a value written on "User.Home"
        denver = await call(client, "memory_write", {"content": "I live in Denver", "key": "User.Home"})
        assert denver["key"] == "user.home"  # the answer says the key as stored
        await drain(poller)
        # When a new value is written on "user.home"
        boston = await call(client, "memory_write", {"content": "I live in Boston", "key": "user.home"})
        await drain(poller)
        # Then it is the one current value, found by any spelling of the key
        for spelling in ("user.home", "User.Home", "USER.HOME"):
            found = await call(client, "memory_search", {"query": "Where do I live?", "key": spelling})
            assert [h["memory"]["content"] for h in found["results"]] == ["I live in Boston"], spelling
        old = (await call(client, "memory_get", {"id": denver["id"]}))["memory"]
        assert (old["status"], old["key"], old["superseded_by"]) == ("superseded", "user.home", boston["id"])
        summary = await call(client, "memory_summarize", {"key": "User.HOME"})
        assert "Boston" in json.dumps(summary), summary

        # a restore makes the old value the key's fact again, whatever spelling it was written in
        restored = await call(client, "memory_update", {"id": denver["id"], "action": "restore"})
        assert (restored["memory"]["status"], restored["memory"]["key"]) == ("active", "user.home")
        now = await call(client, "memory_search", {"query": "Where do I live?", "key": "User.Home"})
        assert [h["memory"]["content"] for h in now["results"]] == ["I live in Denver"]

        # a move by memory_update onto another spelling of a key joins that key
        job = await call(client, "memory_write", {"content": "I work at Acme", "key": "work.place"})
        await drain(poller)
        moved = await call(client, "memory_write", {"content": "I work at Globex now", "key": "job.now"})
        await drain(poller)
        update = await call(
            client, "memory_update", {"id": moved["id"], "action": "update", "key": "Work.Place"}
        )
        assert update["memory"]["key"] == "work.place"
        acme = (await call(client, "memory_get", {"id": job["id"]}))["memory"]
        assert (acme["status"], acme["superseded_by"]) == ("superseded", moved["id"])

        # working-memory promote with a key in capitals supersedes the value on the key
        await call(
            client, "working_memory_set", {"session_id": "s-1", "key": "Home", "content": "I live in Austin"}
        )
        promoted = await call(
            client, "working_memory_promote", {"session_id": "s-1", "key": "Home", "memory_key": "USER.Home"}
        )
        assert promoted["key"] == "user.home"
        await drain(poller)
        last = await call(client, "memory_search", {"query": "Where do I live?", "key": "user.home"})
        assert [h["memory"]["content"] for h in last["results"]] == ["I live in Austin"]


_VECTOR = "[" + ",".join(["0.1"] * 384) + "]"


def _insert(conn: psycopg.Connection[Any], key: str, content: str, **columns: Any) -> uuid.UUID:
    """A memory row of tenant 't', agent 'a' (semantic, user_stated, active unless ``columns`` say)."""
    row: dict[str, Any] = {
        "id": uuid.uuid4(),
        "tenant_id": "t",
        "agent_id": "a",
        "layer": "semantic",
        "key": key,
        "content": content,
        "content_hash": uuid.uuid4().hex,
        **columns,
    }
    names = ", ".join(row)
    values = ", ".join(f"%({n})s" for n in row)
    conn.execute(
        f"INSERT INTO memories ({names}, embedding) VALUES ({values}, %(e)s::vector)", {**row, "e": _VECTOR}
    )
    return uuid.UUID(str(row["id"]))


def test_migration_029_lowers_stored_keys_and_settles_two_spellings(stack: LocalStack) -> None:
    # Given a store at the schema before 029, holding values of one key in two spellings
    migrations = load_migrations(default_migrations_dir(None))
    url = _fresh_database(stack)
    _migrate(url, [m for m in migrations if m.version < 29])
    with psycopg.connect(url) as conn:
        denver = _insert(conn, "User.Home", "I live in Denver", valid_from="2020-01-01T00:00:00Z")
        boston = _insert(conn, "user.home", "I live in Boston", valid_from="2024-03-01T00:00:00Z")
        # an inference that began later never replaces what the user stated, in any spelling
        stated = _insert(conn, "Pet.Name", "My dog is Rex", valid_from="2021-01-01T00:00:00Z")
        guess = _insert(
            conn,
            "pet.name",
            "The dog is probably Max",
            valid_from="2022-01-01T00:00:00Z",
            source="agent_inferred",
        )
        # a newer value that says it adds keeps the other
        tea = _insert(conn, "Drink.Likes", "I like tea", valid_from="2021-01-01T00:00:00Z")
        coffee = _insert(conn, "drink.likes", "I also like coffee", valid_from="2022-01-01T00:00:00Z")
        # an episode and a key in another script; a key moved by memory_update, as the history records it
        cafe = _insert(conn, "CAFÉ.Menu", "Lunch at the café", layer="episodic")
        cyrillic = _insert(conn, "Город.Дом", "Я живу в Москве")
        conn.execute(
            """INSERT INTO memory_history (memory_id, tenant_id, action, changes, actor)
               VALUES (%s, 't', 'updated', '{"key": {"from": "Work.Place", "to": "User.Home"}}', 'k1')""",
            (boston,),
        )
        before = conn.execute("SELECT count(*) FROM memories").fetchone()
    # When migration 029 runs
    assert _migrate(url, [m for m in migrations if m.version <= 29]) == [29]
    with psycopg.connect(url) as conn:
        rows = {
            r[0]: r[1:] for r in conn.execute("SELECT id, key, status, valid_to FROM memories").fetchall()
        }
        links = set(conn.execute("SELECT from_id, to_id, kind FROM memory_relations").fetchall())
        history = conn.execute(
            "SELECT memory_id, action, changes, actor FROM memory_history ORDER BY id"
        ).fetchall()
        after = conn.execute("SELECT count(*) FROM memories").fetchone()
    # Then nothing is lost, every key is in its stored form
    assert before == after
    assert {r[0] for r in rows.values()} == {"user.home", "pet.name", "drink.likes", "café.menu", "город.дом"}
    # the later value is the key's fact; the other spelling's is its past value, ended where it began
    assert rows[boston][1:] == ("active", None)
    assert rows[denver][1] == "superseded"
    assert rows[denver][2].isoformat() == "2024-03-01T00:00:00+00:00"
    assert (boston, denver, "supersedes") in links
    # the source rules and an additive value keep both, linked
    assert (rows[stated][1], rows[guess][1]) == ("active", "active")
    assert (guess, stated, "contradicts") in links
    assert (rows[tea][1], rows[coffee][1]) == ("active", "active")
    assert (coffee, tea, "related") in links
    assert rows[cafe][1] == rows[cyrillic][1] == "active"
    # the history says what changed and keeps each key's spelling
    by_memory = {(m, a): (c, who) for m, a, c, who in history}
    assert by_memory[(denver, "superseded")][0]["status"] == {"from": "active", "to": "superseded"}
    assert by_memory[(denver, "superseded")][1] == "migration 029"
    assert by_memory[(denver, "updated")][0] == {"key_case": {"from": "User.Home", "to": "user.home"}}
    assert by_memory[(cafe, "updated")][0] == {"key_case": {"from": "CAFÉ.Menu", "to": "café.menu"}}
    assert (boston, "updated") in by_memory
    moved = next(c for m, a, c, who in history if m == boston and who == "k1")
    assert moved["key"] == {
        "from": "work.place",
        "to": "user.home",
        "written": {"from": "Work.Place", "to": "User.Home"},
    }
    assert not any(m == boston and c.get("key_case") for m, a, c, _ in history)  # its key was lower already


def test_a_key_written_as_typed_after_029_is_settled_by_the_next_maintenance_run(stack: LocalStack) -> None:
    # Given a store migrated to the end, where the code from before 029 (still serving during a deploy)
    # stored keys as they were typed, beside values the new code stored in lower case
    url = _fresh_database(stack)
    _migrate(url, load_migrations(default_migrations_dir(None)))
    with psycopg.connect(url) as conn:
        denver = _insert(conn, "user.home", "I live in Denver", valid_from="2020-01-01T00:00:00Z")
        boston = _insert(conn, "User.Home", "I live in Boston", valid_from="2024-03-01T00:00:00Z")
        # a bounded value inside an open one's period: the open one holds again after it (key_resume)
        acme = _insert(conn, "user.job", "I work at Acme", valid_from="2020-01-01T00:00:00Z")
        leave = _insert(
            conn,
            "User.Job",
            "I was on leave at Initech",
            valid_from="2023-01-01T00:00:00Z",
            valid_to="2023-06-01T00:00:00Z",
        )
        before = conn.execute("SELECT count(*) FROM memories").fetchone()
    scope = Scope(tenant_id="t", agent_id="a")
    request = SearchRequest(text="", top_k=10, now=datetime.now(UTC), key="User.Home", layers=("semantic",))

    async def maintain() -> tuple[list[str], MaintenanceReport, list[str]]:
        # as the application runs: role hindsight_app, under row-level security (migration 004)
        pool = await open_pool(url, min_size=1, max_size=2, timeout_s=10, role="hindsight_app")
        async with pool:
            reader = PostgresMemoryReader(pool)
            found = [m.content for m in await reader.latest(scope, request, 10)]
            maintain = Maintain(
                PostgresMaintenanceStore(pool), _NoEmbedder(), SystemClock(), MaintenancePolicy()
            )
            report = await maintain.run(tenant_id="t")
            return found, report, [m.content for m in await reader.latest(scope, request, 10)]

    found_before, report, found_after = asyncio.run(maintain())
    # Then the new code missed the value typed "User.Home" before maintenance, and finds it after
    assert found_before == ["I live in Denver"]
    assert found_after == ["I live in Boston"]
    counts = next(s for s in report.steps if s.name == "key_case").counts
    assert counts == {"lowered": 2, "superseded": 2, "resumed": 1, "scopes": 1}
    with psycopg.connect(url) as conn:
        rows = {r[0]: r[1:] for r in conn.execute("SELECT id, key, status, valid_to FROM memories")}
        links = set(conn.execute("SELECT from_id, to_id, kind FROM memory_relations").fetchall())
        history = conn.execute("SELECT memory_id, action, changes, actor FROM memory_history").fetchall()
        continuation = conn.execute(
            "SELECT id, status, valid_from, valid_to FROM memories WHERE metadata->>'resumes' = %s",
            (str(acme),),
        ).fetchall()
        after = conn.execute("SELECT count(*) FROM memories").fetchone()
    # the later value is the key's fact, the other its past value, ended where the fact began (as 029)
    assert rows[boston] == ("user.home", "active", None)
    assert rows[denver][:2] == ("user.home", "superseded")
    assert rows[denver][2] == datetime(2024, 3, 1, tzinfo=UTC)
    assert (boston, denver, "supersedes") in links
    # the bounded value ends Acme where it begins, and Acme holds again after it: the write path's timeline
    assert rows[acme][1:] == ("superseded", datetime(2023, 1, 1, tzinfo=UTC))
    assert rows[leave][:2] == ("user.job", "superseded")
    ((again, status, start, end),) = continuation
    assert (status, start, end) == ("active", datetime(2023, 6, 1, tzinfo=UTC), None)
    assert (again, leave, "supersedes") in links
    # nothing is lost, and the history says what changed, by whom
    assert after is not None
    assert before is not None
    assert after[0] == before[0] + 1
    by_memory = {(m, a): (c, who) for m, a, c, who in history}
    lowered = {"key_case": {"from": "User.Home", "to": "user.home"}}
    assert by_memory[(boston, "updated")] == (lowered, "maintenance")
    assert by_memory[(denver, "superseded")][0]["status"] == {"from": "active", "to": "superseded"}
    assert by_memory[(denver, "superseded")][1] == "maintenance"
    # a second run finds nothing to do
    _, again_report, _ = asyncio.run(maintain())
    assert next(s for s in again_report.steps if s.name == "key_case").counts == {"scopes": 1}


class _NoEmbedder:
    """Maintenance's embedder where no pattern is made (no episodes): never called."""

    dim = 384
    model_name = "none"

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("no embedding expected")

    async def embed_query(self, text: str) -> list[float]:
        raise AssertionError("no embedding expected")

    def passage_window(self) -> None:
        return None


def _key_case_counts(url: str) -> dict[str, int]:
    """One maintenance run of tenant 't' as the application runs it; the ``key_case`` step's counts."""

    async def run() -> MaintenanceReport:
        pool = await open_pool(url, min_size=1, max_size=2, timeout_s=10, role="hindsight_app")
        async with pool:
            store = PostgresMaintenanceStore(pool)
            return await Maintain(store, _NoEmbedder(), SystemClock(), MaintenancePolicy()).run(tenant_id="t")

    report = asyncio.run(run())
    assert report.finished
    return dict(next(s for s in report.steps if s.name == "key_case").counts)


def test_key_case_reads_only_keyed_rows_written_or_changed_since_the_last_cycle(stack: LocalStack) -> None:
    # Given a store migrated to the end with a key typed as written beside lower-case ones
    url = _fresh_database(stack)
    _migrate(url, load_migrations(default_migrations_dir(None)))
    with psycopg.connect(url) as conn:
        _insert(conn, "user.home", "I live in Denver")
        job = _insert(conn, "User.Job", "I work at Acme")
    # When maintenance runs: the key is lowered; the next cycle re-reads the rows that one changed
    assert _key_case_counts(url) == {"lowered": 1, "scopes": 1}
    assert _key_case_counts(url) == {"scopes": 1}
    # Then a scope with nothing written since the last completed cycle is skipped, as the other steps skip it
    assert _key_case_counts(url) == {"unchanged": 1, "scopes": 1}
    # and a key typed as written after that is lowered at the next run
    with psycopg.connect(url) as conn:
        car = _insert(conn, "User.Car", "I drive a Volvo")
    assert _key_case_counts(url) == {"lowered": 1, "scopes": 1}
    # while a row unchanged since the last completed cycle began is not read again (that cycle examined it)
    with psycopg.connect(url) as conn:
        (since,) = conn.execute("SELECT changed_since FROM maintenance_state").fetchone() or (None,)
        assert since is not None
        before = since - timedelta(seconds=1)  # not due for decay either, which would change it
        old = _insert(conn, "Old.Key", "a row from before", created_at=before, updated_at=before)
    assert _key_case_counts(url) == {"scopes": 1}  # the rows run 4 lowered: changed since, nothing to do
    assert _key_case_counts(url) == {"unchanged": 1, "scopes": 1}
    with psycopg.connect(url) as conn:
        keys = dict(conn.execute("SELECT id, key FROM memories").fetchall())
    assert (keys[job], keys[car], keys[old]) == ("user.job", "user.car", "Old.Key")
    # the three-argument function a version before 031 calls (a rollback) still settles the whole scope
    with psycopg.connect(url) as conn:
        settled = conn.execute("SELECT old_id, link FROM hindsight_settle_key_case('t', 'a', 'x')").fetchall()
        (key,) = conn.execute("SELECT key FROM memories WHERE id = %s", (old,)).fetchone() or (None,)
    assert (settled, key) == ([(old, "renamed")], "old.key")

"""The reads' round trips (issue 15): ``tenant_rows`` sends the tenant setting and its statement with
one Sync, the pool skips its checkout round trip for a connection just returned — without ever
handing out one the server has ended — and a search's rows and relations are one pipelined read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import UUID

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

import hindsight.adapters.postgres.pool as pool_module
from hindsight.adapters.postgres.pool import open_pool
from hindsight.adapters.postgres.rows import tenant_rows
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.memory import Scope
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
SETTING = "SELECT current_setting('hindsight.tenant_id', true) AS tenant"


@pytest.fixture
async def one_connection_pool(stack: LocalStack) -> AsyncIterator[AsyncConnectionPool]:
    """A pool of exactly one connection as the application's role, so every read reuses it."""
    settings = stack.require_settings()
    pool = await open_pool(
        settings.require_database_url(), min_size=1, max_size=1, timeout_s=5, role=settings.db_app_role
    )
    try:
        yield pool
    finally:
        await pool.close()


async def test_the_tenant_setting_holds_for_its_statement_and_ends_with_it(
    one_connection_pool: AsyncConnectionPool,
) -> None:
    assert await tenant_rows(one_connection_pool, "tenant-a", SETTING) == [{"tenant": "tenant-a"}]
    # the same connection afterwards: the implicit transaction ended at the Sync, and the setting with it
    async with one_connection_pool.connection() as conn:
        left = await (await conn.execute(SETTING)).fetchone()
    assert left is not None
    assert left[0] in (None, "")
    assert await tenant_rows(one_connection_pool, "tenant-b", SETTING) == [{"tenant": "tenant-b"}]


async def test_a_failed_statement_raises_and_leaves_the_connection_usable(
    one_connection_pool: AsyncConnectionPool,
) -> None:
    with pytest.raises(psycopg.errors.DivisionByZero):
        await tenant_rows(one_connection_pool, "tenant-a", "SELECT 1 / 0")
    assert await tenant_rows(one_connection_pool, "tenant-a", SETTING) == [{"tenant": "tenant-a"}]


async def test_a_connection_just_returned_is_handed_out_without_the_check_round_trip(
    one_connection_pool: AsyncConnectionPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = 0
    full_check = AsyncConnectionPool.check_connection

    async def counted(conn: psycopg.AsyncConnection) -> None:
        nonlocal checks
        checks += 1
        await full_check(conn)

    monkeypatch.setattr(AsyncConnectionPool, "check_connection", staticmethod(counted))
    monkeypatch.setattr(pool_module, "TRUSTED_IDLE_S", 3600.0)
    await tenant_rows(one_connection_pool, "tenant-a", SETTING)  # may be its first checkout: checked
    first = checks
    for _ in range(3):
        await tenant_rows(one_connection_pool, "tenant-a", SETTING)
    assert checks == first
    monkeypatch.setattr(pool_module, "TRUSTED_IDLE_S", 0.0)  # idle "too long": checked again
    await tenant_rows(one_connection_pool, "tenant-a", SETTING)
    assert checks == first + 1


async def test_a_connection_the_server_ended_is_replaced_even_when_just_returned(
    stack: LocalStack, one_connection_pool: AsyncConnectionPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "TRUSTED_IDLE_S", 3600.0)  # only the socket can tell
    [row] = await tenant_rows(one_connection_pool, "tenant-a", "SELECT pg_backend_pid() AS pid")
    url = stack.require_settings().require_database_url()
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as admin:
        await admin.execute("SELECT pg_terminate_backend(%s)", (row["pid"],))
        for _ in range(100):  # until the backend has exited (it has then written to the socket)
            gone = await (
                await admin.execute(
                    "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = %s)", (row["pid"],)
                )
            ).fetchone()
            if gone and gone[0]:
                break
            await asyncio.sleep(0.05)
    [after] = await tenant_rows(one_connection_pool, "tenant-a", "SELECT pg_backend_pid() AS pid")
    assert after["pid"] != row["pid"]


async def test_rows_with_relations_read_together_are_what_the_two_reads_return(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ids = []
        for arguments in (
            {"content": "The user's favourite colour is blue."},
            {"content": "The user's favourite colour is green.", "source": "agent_inferred"},
            {"content": "The user walks to work."},
        ):
            ids.append(UUID((await call(client, "memory_write", arguments))["id"]))
            await drain(poller)
    scope = Scope(tenant_id=tenant, agent_id="default")
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        reader = container.reader
        relations = await reader.relations(scope, ids[:2])
        assert {r.kind for r in relations} >= {"contradicts"}  # the pair is linked
        together = await reader.get_many_with_relations(scope, ids[::-1], ids[:2])
        assert together == (await reader.get_many(scope, ids[::-1]), relations)
        assert [m.id for m in together[0]] == ids[::-1]
        assert await reader.get_many_with_relations(scope, ids, []) == (await reader.get_many(scope, ids), [])
    finally:
        await container.aclose()

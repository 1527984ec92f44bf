"""Who gets in, and the second wall: OAuth discovery (protected-resource metadata), JWTs from a real
loopback JWKS beside API keys, rate limits per key, and row-level security tried with raw SQL as the
application's role with code-level scoping deliberately left out."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx2
import psycopg
import pytest

from hindsight.bootstrap import build_container
from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.jwt_issuer import AUDIENCE, ISSUER, LoopbackIssuer
from tests.support import drain, mcp_client, mint, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
TENANT_TABLES = [
    "memories",
    "memory_relations",
    "memory_history",
    "memory_chunks",
    "write_results",
    "pending_causal_links",
    "memory_access",
]
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def issuer() -> Iterator[LoopbackIssuer]:
    server = LoopbackIssuer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def jwt_server(stack: LocalStack, issuer: LoopbackIssuer) -> Iterator[BackgroundServer]:
    settings = stack.require_settings().replace(
        jwt_issuer=ISSUER,
        jwt_audience=[AUDIENCE],
        jwt_jwks_url=issuer.jwks_url,
        jwt_agent_ids_claim="agents",
    )
    server = BackgroundServer(settings).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def limited_server(stack: LocalStack) -> Iterator[BackgroundServer]:
    settings = stack.require_settings().replace(rate_limit_per_minute=4, rate_limit_writes_per_minute=2)
    server = BackgroundServer(settings).start()
    yield server
    server.stop()


def _metadata_url(server: BackgroundServer) -> str:
    return server.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")


# ---- discovery ------------------------------------------------------------------------------------


async def test_a_401_points_to_the_protected_resource_metadata(jwt_server: BackgroundServer) -> None:
    async with httpx2.AsyncClient() as http:
        refused = await http.post(
            jwt_server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=JSON_HEADERS
        )
        assert refused.status_code == 401
        assert f'resource_metadata="{_metadata_url(jwt_server)}"' in refused.headers["www-authenticate"]
        metadata = (await http.get(_metadata_url(jwt_server))).json()
    assert metadata["resource"] == jwt_server.url
    assert metadata["bearer_methods_supported"] == ["header"]


async def test_with_jwt_off_no_metadata_and_a_plain_bearer_challenge(
    server: BackgroundServer, token: str
) -> None:
    """API keys only: there is no authorization server, so nothing may send an OAuth client to one (the
    server itself answers 404 to the authorization-server metadata); the client asks for a static token."""
    base = server.url.removesuffix("/mcp")
    async with httpx2.AsyncClient() as http:
        refused = await http.post(
            server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=JSON_HEADERS
        )
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert "resource_metadata" not in challenge
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ):
            assert (await http.get(base + path)).status_code == 404, path
    async with mcp_client(server.url, token) as client:  # the static bearer token is all it takes
        assert (await client.list_tools()).tools


async def test_with_jwt_on_the_metadata_names_the_issuer_and_the_scopes(jwt_server: BackgroundServer) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(_metadata_url(jwt_server))
    assert response.status_code == 200
    metadata = response.json()
    assert metadata["authorization_servers"] == [ISSUER]
    assert metadata["scopes_supported"] == ["memory:read", "memory:write"]
    assert metadata["resource"] == jwt_server.url


# ---- JWT beside API keys --------------------------------------------------------------------------


async def test_a_jwt_and_an_api_key_of_one_tenant_share_its_memory(
    jwt_server: BackgroundServer, poller: SqsPoller, stack: LocalStack, issuer: LoopbackIssuer
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    async with mcp_client(jwt_server.url, issuer.token(tenant=tenant)) as client:
        ack = await call(
            client, "memory_write", {"content": "Deploys go out on Tuesdays", "key": "deploy.day"}
        )
    await drain(poller)
    api_key = await mint(stack, tenant)
    async with mcp_client(jwt_server.url, api_key) as client:
        detail = await call(client, "memory_get", {"id": ack["id"]})
    assert detail["memory"]["content"] == "Deploys go out on Tuesdays"
    assert detail["history"][0]["action"] == "created"


async def test_a_read_only_jwt_may_search_but_not_write(
    jwt_server: BackgroundServer, issuer: LoopbackIssuer
) -> None:
    async with mcp_client(jwt_server.url, issuer.token(scope="memory:read")) as client:
        await call(client, "memory_search", {"query": "anything"})
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": "not allowed"})
    assert caught.value.code == -32003
    assert "read-only" in caught.value.error["message"]


async def test_a_jwt_limited_to_agents_cannot_act_for_others(
    jwt_server: BackgroundServer, issuer: LoopbackIssuer
) -> None:
    async with mcp_client(jwt_server.url, issuer.token(agents=["planner"])) as client:
        await call(client, "memory_search", {"query": "anything"})  # its one agent is the default
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_search", {"query": "anything", "agent_id": "coder"})
    assert caught.value.code == -32003


@pytest.mark.parametrize(
    "case", ["expired", "wrong audience", "wrong issuer", "unknown kid", "no tenant", "tampered"]
)
async def test_a_bad_jwt_is_401(jwt_server: BackgroundServer, issuer: LoopbackIssuer, case: str) -> None:
    good = issuer.token()
    token = {
        "expired": issuer.token(lifetime_s=-120),
        "wrong audience": issuer.token(aud="someone-else"),
        "wrong issuer": issuer.token(iss="https://evil.example"),
        "unknown kid": issuer.token(kid="rotated-away"),
        "no tenant": issuer.token(tenant=None),
        "tampered": good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB"),
    }[case]
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            jwt_server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={**JSON_HEADERS, "authorization": f"Bearer {token}"},
        )
    assert response.status_code == 401
    assert "invalid_token" in response.headers["www-authenticate"]


async def test_without_an_issuer_configured_a_jwt_is_401(
    server: BackgroundServer, issuer: LoopbackIssuer
) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={**JSON_HEADERS, "authorization": f"Bearer {issuer.token()}"},
        )
    assert response.status_code == 401


# ---- rate limits ----------------------------------------------------------------------------------


async def test_a_key_over_its_budget_gets_a_rate_limited_result_with_retry_after(
    limited_server: BackgroundServer, stack: LocalStack
) -> None:
    token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    other = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    async with mcp_client(limited_server.url, token) as client:
        for _ in range(4):
            await call(client, "memory_search", {"query": "anything"})
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_search", {"query": "anything"})
    assert caught.value.code == -32029
    assert caught.value.error["retry_after_s"] >= 1
    assert caught.value.error["limit"] == 4
    assert caught.value.error["window_s"] == 60
    assert "rate limit exceeded" in caught.value.error["message"]
    async with mcp_client(limited_server.url, other) as client:  # another key has its own budget
        await call(client, "memory_search", {"query": "anything"})


async def test_writes_have_a_smaller_budget(limited_server: BackgroundServer, stack: LocalStack) -> None:
    token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    async with mcp_client(limited_server.url, token) as client:
        for i in range(2):
            await call(client, "working_memory_set", {"session_id": "s", "key": f"k{i}", "content": "x"})
        with pytest.raises(ToolCallError) as caught:
            await call(client, "working_memory_set", {"session_id": "s", "key": "k3", "content": "x"})
        assert caught.value.code == -32029
        assert caught.value.error["budget"] == "writes"
        await call(client, "working_memory_get", {"session_id": "s"})  # reading is still allowed


async def test_calls_refused_for_their_arguments_do_not_spend_the_call_or_write_budgets(
    limited_server: BackgroundServer, stack: LocalStack
) -> None:
    # A model retrying a malformed call until it gets it right used to lock itself out: every refusal
    # counted against the 4 calls and 2 writes a minute, so its correct calls were then rate limited.
    token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    async with mcp_client(limited_server.url, token) as client:
        for bad in ({"query": "x", "top_k": 1000}, {"query": "x", "top-k": 5}, {"query": 5}):
            with pytest.raises(ToolCallError) as caught:
                await call(client, "memory_search", bad)
            assert caught.value.error["kind"] == "invalid_arguments"
        with pytest.raises(ToolCallError) as caught:
            await call(client, "working_memory_set", {"session_id": "s", "key": "k", "content": ""})
        assert caught.value.error["kind"] == "invalid_arguments"
        for i in range(2):  # the whole writes budget is still there
            await call(client, "working_memory_set", {"session_id": "s", "key": f"k{i}", "content": "x"})
        for _ in range(2):  # and the rest of the calls budget (4 = 2 writes + 2 reads)
            await call(client, "memory_search", {"query": "anything"})
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_search", {"query": "anything"})
        assert (caught.value.error["kind"], caught.value.error["budget"]) == ("rate_limited", "requests")


async def test_a_key_redaction_would_change_is_refused_with_the_argument_errors(
    limited_server: BackgroundServer, stack: LocalStack
) -> None:
    # A new-user trial: a refused key was found by the tool, after the argument check, so it spent the
    # calls and writes budgets and was answered alone, not beside the schema's other errors.
    token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    async with mcp_client(limited_server.url, token) as client:
        for key in ("bob@example.com", "deploy.AKIAIOSFODNN7EXAMPLE"):
            error = await tool_error(
                client, "working_memory_set", {"session_id": "s", "key": key, "content": "x"}
            )
            assert (error["kind"], error["errors"][0]["field"]) == ("invalid_arguments", "key")
            assert error["errors"][0]["type"] == "redacted_identifier"
            assert key not in str(error)
        error = await tool_error(
            client, "working_memory_set", {"session_id": "s", "key": "bob@example.com", "content": ""}
        )
        assert sorted(e["field"] for e in error["errors"]) == ["content", "key"]  # answered together
        for i in range(2):  # the whole writes budget is still there
            await call(client, "working_memory_set", {"session_id": "s", "key": f"k{i}", "content": "x"})
        for _ in range(2):  # and the rest of the calls budget (4 = 2 writes + 2 reads)
            await call(client, "memory_search", {"query": "anything"})


async def test_a_flood_of_malformed_calls_is_bounded_by_its_own_budget(
    limited_server: BackgroundServer, stack: LocalStack
) -> None:
    token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
    async with mcp_client(limited_server.url, token) as client:
        for _ in range(4):  # the refused budget is as large as the calls budget: 4 a minute here
            with pytest.raises(ToolCallError) as caught:
                await call(client, "memory_search", {"query": "x", "top_k": 0})
            assert caught.value.error["kind"] == "invalid_arguments"
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_search", {"query": "x", "top_k": 0})
        error = caught.value.error
        assert (error["kind"], error["budget"], error["limit"]) == ("rate_limited", "refused", 4), error
        assert "calls refused for their arguments" in error["message"], error
        await call(client, "memory_search", {"query": "anything"})  # a correct call still goes through


async def test_two_stores_sharing_one_redis_keep_separate_budgets(stack: LocalStack) -> None:
    from hindsight.adapters.redis_client import redis_client
    from hindsight.adapters.redis_rate_limiter import RedisRateLimiter

    client = redis_client(stack.require_settings().redis_url)
    first, second = f"store-{uuid.uuid4().hex[:8]}", f"store-{uuid.uuid4().hex[:8]}"
    bucket = f"key-{uuid.uuid4().hex[:8]}"  # the same key id (or tenant) in both stores
    try:
        assert await RedisRateLimiter(client, first).hit(bucket, 1, 60) is None
        assert await RedisRateLimiter(client, first).hit(bucket, 1, 60) is not None  # over in the first
        assert await RedisRateLimiter(client, second).hit(bucket, 1, 60) is None  # its own budget
        assert [key async for key in client.scan_iter(match=f"hs:{first}:rl*")]
    finally:
        await client.aclose()


async def test_rate_limits_fail_open_when_redis_is_down(stack: LocalStack) -> None:
    settings = stack.require_settings().replace(
        redis_url="redis://127.0.0.1:9/0", rate_limit_per_minute=1, rate_limit_writes_per_minute=1
    )
    server = BackgroundServer(settings).start()
    try:
        token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
        async with mcp_client(server.url, token) as client:
            # over the budget of 1, but nobody can count: every call goes through and is answered
            answers = [await call(client, "memory_search", {"query": "anything"}) for _ in range(3)]
        assert [(a["results"], a["count"]) for a in answers] == [([], 0)] * 3
    finally:
        await asyncio.to_thread(server.stop)


# ---- row-level security: the second wall ----------------------------------------------------------


def _app_connection(stack: LocalStack) -> psycopg.Connection[Any]:
    """A raw connection as the application's role, like every pooled connection."""
    url = stack.require_settings().require_database_url()
    return psycopg.connect(url, options="-c role=hindsight_app", autocommit=True)


async def _two_tenants(server: BackgroundServer, poller: SqsPoller, stack: LocalStack) -> dict[str, str]:
    """Two tenants with memories, a relation, a causal chain, chunks, history and write results."""
    tenants = {"a": f"t-{uuid.uuid4().hex[:12]}", "b": f"t-{uuid.uuid4().hex[:12]}"}
    for name, tenant in tenants.items():
        async with mcp_client(server.url, await mint(stack, tenant)) as client:
            first = await call(
                client, "memory_write", {"content": f"zebracorn {name} fact", "layer": "episodic"}
            )
            second = await call(
                client,
                "memory_write",
                {
                    "content": f"{name} follow-up " + "long text " * 700,  # chunked
                    "layer": "episodic",
                    "causal_parent": first["id"],
                    "entities": {"ticket": f"{name.upper()}-1"},
                },
            )
            await drain(poller)
            await call(
                client, "memory_link", {"from_id": first["id"], "to_id": second["id"], "kind": "related"}
            )
    return tenants


async def test_with_no_where_clause_the_app_role_sees_only_the_tenant_in_the_setting(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack
) -> None:
    tenants = await _two_tenants(server, poller, stack)
    with _app_connection(stack) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("hindsight_app",)
        for table in TENANT_TABLES:
            with conn.transaction():
                conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (tenants["a"],))
                seen = {r[0] for r in conn.execute(f"SELECT tenant_id FROM {table}").fetchall()}
            assert seen <= {tenants["a"]}, table
        with conn.transaction():
            conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (tenants["a"],))
            # the data is there: tenant A's own rows are visible
            for table in ("memories", "memory_relations", "memory_history", "memory_chunks", "write_results"):
                assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() != (0,), table
            contents = [r[0] for r in conn.execute("SELECT content FROM memories").fetchall()]
            assert not any(c.startswith(("zebracorn b", "b follow-up")) for c in contents)
            # the GIN helpers enforce the same wall
            text = """SELECT count(*) FROM hindsight_text_matches(to_tsquery('english', 'zebracorn'),
                          to_tsquery('english', 'zebracorn'), %s::tsquery, ARRAY['default', '*'],
                          ARRAY['active'], ARRAY['episodic', 'semantic'], NULL, 1000)"""
            assert conn.execute(text, (None,)).fetchone() == (1,)  # A's only, though B has the word too
            # and through the rows holding two query words (migration 017)
            assert conn.execute(text, ("'zebracorn' & 'zebracorn'",)).fetchone() == (1,)
            entity = """SELECT count(*) FROM hindsight_entity_matches(%s, NULL::vector,
                            ARRAY['default', '*'], ARRAY['active'], ARRAY['episodic'], NULL, 1000)"""
            assert conn.execute(entity, (["a-1"],)).fetchone() == (1,)
            assert conn.execute(entity, (["b-1"],)).fetchone() == (0,)


async def test_with_no_tenant_setting_nothing_is_visible(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack
) -> None:
    await _two_tenants(server, poller, stack)
    with _app_connection(stack) as conn:
        for table in TENANT_TABLES:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
        with conn.transaction():  # a setting made and ended leaves '' behind: still nothing
            conn.execute("SELECT set_config('hindsight.tenant_id', 'x', true)")
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        assert conn.execute("SELECT current_setting('hindsight.tenant_id', true)").fetchone() == ("",)
        conn.execute("RESET ROLE")  # the startup role is the default: RESET does not escape it
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)


async def test_the_app_role_cannot_write_into_another_tenant(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack
) -> None:
    tenants = await _two_tenants(server, poller, stack)
    with _app_connection(stack) as conn:
        with conn.transaction():
            conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (tenants["a"],))
            # no WHERE clause: only tenant A's two memories are touched
            assert conn.execute("UPDATE memories SET importance = importance").rowcount == 2
            assert (
                conn.execute("DELETE FROM memory_history WHERE tenant_id = %s", (tenants["b"],)).rowcount == 0
            )
            raise psycopg.Rollback()
        for statement, params in [
            ("UPDATE memories SET tenant_id = %s", (tenants["b"],)),  # WITH CHECK refuses the move
            (
                "INSERT INTO write_results (job_id, tenant_id, outcome) VALUES (%s, %s, 'stored')",
                (uuid.uuid4(), tenants["b"]),
            ),
        ]:
            with conn.transaction():
                conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (tenants["a"],))
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement, params)
                raise psycopg.Rollback()


async def test_every_table_with_a_tenant_id_has_forced_row_level_security(stack: LocalStack) -> None:
    """A new tenant-scoped table (a later migration) without the wall fails here."""
    not_tenant_data = {"api_keys"}  # looked up before the tenant is known; holds digests only
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute(
            """SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
                      EXISTS (SELECT 1 FROM pg_policies p WHERE p.tablename = c.relname
                              AND p.policyname = 'tenant_isolation') AS has_policy
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE c.relkind = 'r' AND n.nspname = current_schema()
                 AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
                             AND a.attname = 'tenant_id' AND NOT a.attisdropped)"""
        ).fetchall()
    walled = {name: (rls, forced, policy) for name, rls, forced, policy in rows}
    assert set(TENANT_TABLES) <= set(walled)
    for name, state in walled.items():
        if name not in not_tenant_data:
            assert state == (True, True, True), name


async def test_the_application_pool_runs_as_the_app_role(stack: LocalStack) -> None:
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        async with container.pool.connection() as conn:
            cur = await conn.execute("SELECT current_user, session_user")
            row = await cur.fetchone()
    finally:
        await container.aclose()
    assert row is not None
    assert row[0] == "hindsight_app"
    assert row[1] != "hindsight_app"  # the login user; a superuser here, and it does not matter


async def test_maintenance_still_visits_every_tenant(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack
) -> None:
    tenants = await _two_tenants(server, poller, stack)
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        assert container.maintain is not None
        store = container.maintain._store  # type: ignore[attr-defined]
        found = []
        after = None
        while True:
            page = await store.scopes(after, 500)
            if not page:
                break
            found += page
            after = page[-1]
        only_a = await store.scopes(None, 10, tenant_id=tenants["a"])
    finally:
        await container.aclose()
    pairs = {(s.tenant_id, s.agent_id) for s in found}
    assert {(tenants["a"], "default"), (tenants["b"], "default")} <= pairs
    assert [(s.tenant_id, s.agent_id) for s in only_a] == [(tenants["a"], "default")]


async def test_a_missing_app_role_stops_start_up_with_the_fix(stack: LocalStack) -> None:
    from hindsight.adapters.postgres.pool import open_pool
    from hindsight.domain.errors import ConfigurationError

    url = stack.require_settings().require_database_url()
    with pytest.raises(ConfigurationError, match="hindsight migrate"):
        await open_pool(url, min_size=1, max_size=1, timeout_s=2, role="no_such_role")

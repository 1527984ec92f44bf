"""The memory inspector page (HTTP and headless Chromium with a screenshot) and the per-request
observability of the MCP endpoint: correlation ids on every line, a retrieval-trace line per search
without memory content, metrics counted."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from hindsight.adapters.observability import json_handler
from hindsight.bootstrap import build_container
from hindsight.client import call, connect
from hindsight.domain.auth import Principal
from hindsight.domain.memory import MemoryDraft, Relation, Scope, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
SECRET = "Maya's PIN is 4821"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


@pytest.fixture
def captured() -> Iterator[Any]:
    """Every ``hindsight.*`` log line as the JSON the deployed functions write (``lines()`` reads them)."""
    import io

    stream = io.StringIO()
    handler = json_handler(stream)
    logger = logging.getLogger("hindsight")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    def lines() -> list[dict[str, Any]]:
        return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]

    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


async def test_each_search_logs_a_trace_without_content_under_the_request_correlation_id(
    server: BackgroundServer, token: str, poller: SqsPoller, captured: Any
) -> None:
    async with connect(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": SECRET, "key": "maya.pin", "importance": 0.8})
        await drain(poller)
        result = await call(client, "memory_search", {"query": "what is Maya's PIN?"})
    assert result["results"][0]["memory"]["id"] == ack["id"]
    lines = captured()
    traces = [line for line in lines if line.get("message") == "retrieval trace"]
    requests = [line for line in lines if line.get("message") == "mcp request"]
    assert traces
    assert requests
    trace = traces[-1]
    assert trace["ids"][0] == ack["id"]
    assert len(trace["query_sha256"]) == 16
    assert isinstance(trace["scores"][0], float)
    assert trace["tool"] == "memory_search"
    assert trace["rpc_method"] == "tools/call"
    search_request = [r for r in requests if r.get("tool") == "memory_search"][-1]
    assert trace["correlation_id"] == search_request["correlation_id"]
    assert trace["rpc_id"] == search_request["rpc_id"]
    assert search_request["status"] == 200
    text = json.dumps(lines)
    assert "4821" not in text
    assert "PIN" not in text
    assert "query" not in trace
    assert "contents" not in trace


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_every_search_of_a_session_logs_under_its_own_request(
    server: BackgroundServer, token: str, poller: SqsPoller, captured: Any, mode: str
) -> None:
    """Context variables must not leak from one request of a session (or a stateless era's long-lived
    task) to the next: the n-th search's trace carries the n-th request's correlation id."""
    async with connect(server.url, token, mode=mode) as client:
        await call(client, "memory_write", {"content": "The standup moved to 9:30", "importance": 0.6})
        await drain(poller)
        for query in ("when is standup?", "what moved?", "standup time"):
            await call(client, "memory_search", {"query": query})
    # the request line is written when the response has been sent: the client may read the result first
    for _ in range(100):
        lines = captured()
        if sum(r.get("message") == "mcp request" and r.get("tool") == "memory_search" for r in lines) >= 3:
            break
        await asyncio.sleep(0.05)
    traces = [line for line in lines if line.get("message") == "retrieval trace"]
    searches = [r for r in lines if r.get("message") == "mcp request" and r.get("tool") == "memory_search"]
    assert len(traces) == len(searches) == 3
    ids = [r["correlation_id"] for r in searches]
    assert len(set(ids)) == 3
    assert [t["correlation_id"] for t in traces] == ids


def test_the_trace_line_carries_content_only_at_debug(stack: LocalStack, tenant: str) -> None:
    import io

    from hindsight.usecases.recall import RecallQuery, resolve

    stream = io.StringIO()
    handler = json_handler(stream)
    logger = logging.getLogger("hindsight.retrieval")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    async def go(level: str) -> None:
        container = await build_container(stack.require_settings().replace(log_level=level), with_queue=False)
        try:
            request = resolve(RecallQuery(text="secret question"), datetime.now(UTC))
            await container.recall.search(Scope(tenant_id=tenant), request)
            assert container.metrics.snapshot()["counts"]["Searches"] == 1
            assert "SearchLatency" in container.metrics.snapshot()["timings"]
        finally:
            await container.aclose()

    try:
        asyncio.run(go("INFO"))
        asyncio.run(go("DEBUG"))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    info, debug = (json.loads(line) for line in stream.getvalue().splitlines())
    assert "query" not in info
    assert "secret" not in json.dumps(info)
    assert debug["query"] == "secret question"
    assert debug["contents"] == []


def _seed(stack: LocalStack, tenant: str) -> dict[str, uuid.UUID]:
    """A small agent memory: a superseded preference, a causal chain with a failure, a link, an
    inference, and a working-memory session."""

    async def go() -> dict[str, uuid.UUID]:
        container = await build_container(stack.require_settings(), with_queue=False)
        try:
            start = datetime.now(UTC) - timedelta(hours=2)
            ids: dict[str, uuid.UUID] = {}

            async def store(name: str, draft: MemoryDraft) -> None:
                job = WriteJob(
                    id=uuid.uuid4(),
                    tenant_id=tenant,
                    agent_id="default",
                    submitted_at=start + timedelta(minutes=len(ids)),
                    draft=draft,
                )
                (result,) = await container.store_memories([job])
                assert result.outcome == "stored", result
                ids[name] = job.id

            when = datetime(2026, 11, 26, 9, tzinfo=UTC)
            await store(
                "dark", MemoryDraft(content="The user prefers dark mode", key="user.display", importance=0.6)
            )
            await store(
                "order",
                MemoryDraft(
                    content="Maya's standing desk order A-1042 shipped on Monday",
                    layer="episodic",
                    occurred_at=when - timedelta(days=2),
                    entities={"order_id": "A-1042"},
                ),
            )
            await store(
                "429",
                MemoryDraft(
                    content="Payments API returned HTTP 429 (rate limited) charging A-1042",
                    layer="episodic",
                    outcome="failure",
                    occurred_at=when,
                    importance=0.7,
                    entities={"order_id": "A-1042"},
                ),
            )
            await store(
                "wait",
                MemoryDraft(
                    content="Waited 30 s before retrying the charge",
                    layer="episodic",
                    causal_parent=ids["429"],
                    occurred_at=when + timedelta(seconds=30),
                ),
            )
            await store(
                "retry",
                MemoryDraft(
                    content="Retry succeeded; order A-1042 paid",
                    layer="episodic",
                    outcome="success",
                    causal_parent=ids["wait"],
                    importance=0.65,
                    occurred_at=when + timedelta(seconds=65),
                ),
            )
            await store(
                "lesson",
                MemoryDraft(
                    content="Back off at least 30 s on HTTP 429 from the payments API",
                    key="payments.rate_limit",
                    importance=0.85,
                    source="agent_inferred",
                ),
            )
            await store(
                "light",
                MemoryDraft(
                    content="The user now prefers light mode during the day",
                    key="user.display",
                    importance=0.6,
                ),
            )
            await store(
                "allergy",
                MemoryDraft(
                    content="Alex is allergic to peanuts",
                    key="alex.allergies",
                    importance=0.9,
                    entities={"person": "Alex"},
                ),
            )
            await container.editor.link(
                Scope(tenant_id=tenant),
                Relation(from_id=ids["lesson"], to_id=ids["429"], kind="related", strength=0.8),
            )
            assert container.working_memory is not None
            principal = Principal(tenant_id=tenant, key_id="seed")
            wm = container.working_memory
            await wm.set(
                principal,
                None,
                "s-0142",
                "goal",
                "Charge order A-1042 and confirm delivery with Maya",
                0.9,
                True,
            )
            await wm.set(principal, None, "s-0142", "last_error", "HTTP 429 from /charges at 09:00", 0.6)
            await wm.set(principal, None, "s-0142", "retry_after", "30 s", 0.4)
            return ids
        finally:
            await container.aclose()

    return asyncio.run(go())


@pytest.fixture
def base(server: BackgroundServer) -> str:
    return server.url.removesuffix("/mcp")


def test_the_inspector_needs_a_key_and_keeps_it_out_of_urls(base: str, token: str, tenant: str) -> None:
    with httpx.Client(base_url=base, follow_redirects=False, timeout=60) as http:
        login = http.get("/inspector")
        assert login.status_code == 200
        assert "Sign in" in login.text
        assert 'type="password"' in login.text
        assert http.get("/inspector", headers={"Authorization": "Bearer hsk_nope.nope"}).status_code == 401
        assert http.post("/inspector/login", data={"token": "hsk_nope.nope"}).status_code == 401
        assert http.get("/inspector", headers={"Host": "evil.example:80"}).status_code == 403
        signed_in = http.post("/inspector/login", data={"token": token})
        assert signed_in.status_code == 303
        assert signed_in.headers["location"] == "/inspector"
        cookie = signed_in.headers["set-cookie"].lower()
        assert "httponly" in cookie
        assert "samesite=strict" in cookie
        assert "path=/inspector" in cookie
        page = http.get("/inspector")
        assert page.status_code == 200
        assert f"tenant <b>{tenant}</b>" in page.text
        assert token not in page.text
        assert "default-src 'none'" in page.headers["content-security-policy"]
        out = http.post("/inspector/logout")
        assert out.status_code == 303
        assert "Sign in" in http.get("/inspector").text


def test_the_inspector_shows_the_agent_and_the_retrieval_trace(
    base: str, token: str, tenant: str, stack: LocalStack
) -> None:
    ids = _seed(stack, tenant)
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        page = http.get("/inspector", params={"q": "payments rate limit", "top_k": 3})
    assert page.status_code == 200, page.text
    body = page.text
    for text in (
        "Working memory",
        "s-0142",
        "core",
        "expires in",
        "Relations and causal chains",
        "caused_by",
        "supersedes",
        "superseded",
        "failure",
        "inferred",
        "Retrieval trace",
        "dead letters",
    ):
        assert text in body, text
    trace = body[body.index('id="trace-table"') : body.index("</table>", body.index('id="trace-table"'))]
    rows = trace.count("<tr") - 1
    assert rows >= 5  # every candidate, not only the top 3
    assert trace.count('class=" ') + trace.count('class="out') >= rows - 3
    assert str(ids["429"])[-8:] in trace
    # looking is not recalling: the access counts stay at 0
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        again = http.get("/inspector").text
    assert ">1</td>" not in again.split('id="semantic"')[1].split("</table>")[0]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"agent": "\x00"}, "agent"),
        ({"agent": "ops\x1bbot"}, "agent"),
        ({"agent": "ops\n"}, "agent"),
        ({"agent": "a" * 129}, "agent"),
        ({"agent": "default", "q": "\x00"}, "q"),
        ({"q": "rate\x07limit"}, "q"),
        ({"q": "x" * 2001}, "q"),
        ({"top_k": "0"}, "top_k"),
        ({"top_k": "101"}, "top_k"),
        ({"top_k": "ten"}, "top_k"),
        ({"top_k": "\x00"}, "top_k"),
        ({"status": "bogus"}, "status"),
        ({"topk": "3"}, "topk"),
        ([("agent", "default"), ("agent", "ops")], "agent"),
    ],
)
def test_bad_inspector_parameters_are_400_naming_the_parameter(
    base: str, token: str, params: Any, named: str
) -> None:
    """The page's parameters carry the MCP tools' limits: never a 500 from Postgres (NUL), a clear 400."""
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        refused = http.get("/inspector", params=params)
        assert refused.status_code == 400, refused.text
        assert refused.headers["content-type"].startswith("text/html")
        assert "Bad request" in refused.text
        assert f"<li>{named}: " in refused.text
        assert "\x00" not in refused.text
        page = http.get("/inspector", params={"agent": "default", "q": "rate limit", "top_k": 3})
        assert page.status_code == 200, page.text
        assert "Retrieval trace" in page.text


def test_with_the_sign_in_cookie_a_nul_is_400_not_500(base: str, token: str) -> None:
    with httpx.Client(base_url=base, follow_redirects=False, timeout=60) as http:
        assert http.post("/inspector/login", data={"token": token}).status_code == 303
        for query in ("agent=%00", "agent=default&q=%00"):
            refused = http.get(f"/inspector?{query}")
            assert refused.status_code == 400, refused.text
            assert "Bad request" in refused.text
        assert http.get("/inspector?agent=default&q=rate+limit").status_code == 200


def test_inspector_limits_are_the_mcp_limits(base: str, token: str) -> None:
    """At the limits (and with empty fields, as a cleared form sends them) the page works."""
    # A 2,000-character query is embedded on the page's request: allow for a busy machine (httpx's
    # default read timeout is 5 s).
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        cases: list[dict[str, Any]] = [
            {"agent": "a" * 128, "q": "x" * 2000, "top_k": 100},
            {"agent": "", "q": "  ", "top_k": ""},
            {"q": "tab\tand newline\nare fine", "top_k": 1, "status": ["active", "archived"]},
        ]
        for params in cases:
            page = http.get("/inspector", params=params)
            assert page.status_code == 200, (params, page.text[:300])


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_the_inspector_in_headless_chromium(
    base: str, token: str, tenant: str, stack: LocalStack, tmp_path: Path
) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    _seed(stack, tenant)
    shot = Path("docs/inspector.png") if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path / "inspector.png"
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{base}/inspector")
            page.fill("input[name=token]", token)
            page.click("button[type=submit]")
            page.wait_for_selector("#counts")
            assert "token" not in page.url
            page.fill("input[name=q]", "payments rate limit")
            page.fill("input[name=top_k]", "3")
            page.click("#trace button[type=submit]")
            page.wait_for_selector("#trace-table")
            assert page.locator("#trace-table tr").count() >= 6
            assert "failed_before" in page.inner_text("#trace-table")
            assert page.locator("#graph svg rect").count() >= 4
            assert "s-0142" in page.inner_text("#working-memory").lower()
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1400
    assert height > 1200
    assert len(data) > 60_000  # not a blank page


async def test_an_mcp_request_gets_a_correlation_header(server: BackgroundServer, token: str) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.post(
            server.url,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "X-Correlation-Id": "caller-chose-this",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
    assert response.headers["x-correlation-id"] == "caller-chose-this"

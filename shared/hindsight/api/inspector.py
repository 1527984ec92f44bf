"""The memory inspector: one server-rendered page per agent (Starlette routes on the MCP app, Jinja2,
inline CSS and SVG — no build step, nothing fetched from elsewhere).

It shows working memory with TTLs, long-term memories by layer and status with importance and last
access, relations and causal links as a graph (laid out by ``api.inspector_graph``), queue depths, and
for a query the retrieval trace: every candidate with its vector, keyword, entity, recency and importance
scores and its fused rank.

Auth is the MCP endpoint's: a bearer API key (or JWT) in the ``Authorization`` header, or entered once in
the login form, which keeps it in an HttpOnly, SameSite=Strict cookie scoped to ``/inspector``. Tokens
never appear in URLs or logs. The Host header is checked against ``allowed_hosts`` as for ``/mcp``.
Served when ``settings.inspector`` is on (the local stack turns it on; off by default in AWS).

The query parameters (``agent``, ``q``, ``top_k``, ``status``) carry the MCP tools' limits
(``domain.limits``); a bad one — a control character, too long, out of range, unknown — is a 400 page
naming the parameter and the rule, before anything reaches the database.
"""

from __future__ import annotations

import fnmatch
import html
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from hindsight.api.http_guard import canonical_host
from hindsight.api.inspector_graph import graph_layout
from hindsight.api.mcp_context import ContainerHolder
from hindsight.config import Settings
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Forbidden, HindsightError
from hindsight.domain.limits import (
    DEFAULT_AGENT_ID,
    DEFAULT_TOP_K,
    MAX_SEARCH_QUERY_CHARS,
    MAX_TOP_K,
    AgentId,
    SearchText,
    TopK,
)
from hindsight.domain.memory import MemoryStatus, StoredMemory

COOKIE = "hindsight_inspector"
PATH = "/inspector"


@lru_cache(maxsize=1)
def _templates() -> Any:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("hindsight.api", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["short"] = lambda text, width=90: (
        text if len(text := " ".join(str(text).split())) <= width else text[: width - 1] + "…"
    )
    env.filters["num"] = lambda v, d=3: "" if v is None else f"{v:.{d}f}"
    env.filters["when"] = lambda v: "" if v is None else f"{v:%Y-%m-%d %H:%M}"
    env.filters["clock"] = lambda v: "" if v is None else f"{v:%H:%M:%S}"
    env.filters["sid"] = lambda v: "…" + str(v)[-8:]  # UUIDv7: the leading digits are the time
    return env


def _host_allowed(request: Request, allowed: list[str]) -> bool:
    if allowed == ["*"]:
        return True
    server = request.scope.get("server")
    host = canonical_host(request.headers.get("host", ""), request.url.scheme, server[1] if server else None)
    return any(fnmatch.fnmatchcase(host, pattern.lower()) for pattern in allowed)


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.cookies.get(COOKIE) or None


class PageParams(BaseModel):
    """The page's query parameters, with the MCP tools' limits (``domain.limits``): ``agent`` as
    ``agent_id``, ``q`` as ``memory_search``'s query, ``top_k`` as its top_k. Unknown names are refused,
    as the tools refuse unknown arguments (a misspelt ``topk`` would otherwise be ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: AgentId | None = None
    q: SearchText | None = None
    top_k: TopK = DEFAULT_TOP_K
    status: list[MemoryStatus] = []


_SINGLE = ("agent", "q", "top_k")


def _shown(name: str, width: int = 60) -> str:
    """A parameter name as it can be shown: control characters escaped, shortened."""
    text = repr(name[:width])[1:-1]
    return text + ("…" if len(name) > width else "")


def parse_params(request: Request) -> PageParams | list[str]:
    """The page's parameters, or one readable line per bad parameter (name: rule).

    An empty ``agent``, ``q`` or ``top_k`` (a cleared form field) means the default; whitespace-only
    ``q`` means no query."""
    params = request.query_params
    problems: list[str] = []
    raw: dict[str, Any] = {}
    for name in dict.fromkeys(params.keys()):
        values = params.getlist(name)
        if name == "status":
            raw[name] = values
        elif name in _SINGLE and len(values) > 1:
            problems.append(f"{name}: give it once (it was given {len(values)} times)")
        elif name == "q":
            if values[0].strip():
                raw[name] = values[0]
        elif values[0] != "" or name not in _SINGLE:
            raw[name] = values[0]
    try:
        parsed = PageParams.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors(include_url=False, include_input=False):
            loc = err["loc"]
            field = _shown(str(loc[0])) if loc else "parameters"
            if err["type"] == "extra_forbidden":
                message = f"not a parameter of this page (it takes: {', '.join(PageParams.model_fields)})"
            else:
                message = err["msg"]
            problems.append(f"{field}: {message}")
        return problems
    return problems or parsed


def _page(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        body,
        status_code=status,
        headers={
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
        },
    )


class Inspector:
    """The routes: GET /inspector (login form or the page), POST /inspector/login, POST /inspector/logout."""

    def __init__(self, holder: ContainerHolder, settings: Settings) -> None:
        self._holder = holder
        self._settings = settings
        self._tools: tuple[Any, Any] | None = None

    async def _principal(self, request: Request) -> Principal | None:
        token = _token(request)
        if token is None or self._holder.container is None:
            return None
        try:
            principal: Principal | None = await self._holder.get().authenticate(token)
        except HindsightError:
            return None
        return principal

    def _login(self, message: str | None = None, status: int = 200) -> HTMLResponse:
        return _page(_templates().get_template("login.html").render(message=message), status)

    async def page(self, request: Request) -> Response:
        if not _host_allowed(request, self._settings.allowed_hosts):
            return _page("<h1>Forbidden host</h1>", 403)
        principal = await self._principal(request)
        if principal is None:
            message = "That key is not valid (any more)." if _token(request) else None
            return self._login(message, 401 if _token(request) else 200)
        from hindsight.operator_tools import operator_tools
        from hindsight.usecases.recall import RecallQuery

        params = parse_params(request)
        if not isinstance(params, PageParams):
            items = "".join(f"<li>{html.escape(p)}</li>" for p in params)
            return _page(
                f'<h1>Bad request</h1><ul>{items}</ul><p><a href="{PATH}">Back to the inspector</a></p>',
                400,
            )
        try:
            scope = principal.scope(params.agent)
        except Forbidden as exc:
            return _page(f"<h1>Forbidden</h1><p>{html.escape(str(exc))}</p>", 403)
        container = self._holder.get()
        if self._tools is None or self._tools[0] is not container:
            self._tools = (container, operator_tools(container))
        tools = self._tools[1]
        overview = await tools.inspect.overview(scope, memory_limit=200)
        query = params.q or ""
        top_k = params.top_k
        statuses = list(dict.fromkeys(params.status))
        trace, trace_error = None, None
        if query:
            try:
                trace = await tools.inspect.trace(
                    scope, RecallQuery(text=query, top_k=top_k, statuses=tuple(statuses) or ("active",))
                )
            except HindsightError as exc:
                trace_error = str(exc)
        by_layer: dict[str, list[StoredMemory]] = {"semantic": [], "episodic": []}
        for memory in overview.memories:
            by_layer.setdefault(memory.layer, []).append(memory)
        metrics = container.metrics.snapshot() if hasattr(container.metrics, "snapshot") else None
        agents = (
            overview.agents
            if any(a == scope.agent_id for a, _ in overview.agents)
            else [*overview.agents, (scope.agent_id, 0)]
        )
        body = (
            _templates()
            .get_template("inspector.html")
            .render(
                view=overview,
                agents=agents,
                agent=scope.agent_id,
                default_agent=DEFAULT_AGENT_ID,
                by_layer=by_layer,
                graph=graph_layout(overview.memories, overview.relations),
                query=query,
                top_k=top_k,
                max_top_k=MAX_TOP_K,
                max_query=MAX_SEARCH_QUERY_CHARS,
                statuses=statuses or ["active"],
                trace=trace,
                trace_error=trace_error,
                metrics=metrics,
                key_id=principal.key_id,
            )
        )
        return _page(body)

    async def login(self, request: Request) -> Response:
        if not _host_allowed(request, self._settings.allowed_hosts):
            return _page("<h1>Forbidden host</h1>", 403)
        form = await request.form()
        token = str(form.get("token") or "").strip()
        if (
            not token
            or self._holder.container is None
            or await self._holder.get().authenticate(token) is None
        ):
            return self._login("That key is not valid.", 401)
        response = RedirectResponse(PATH, status_code=303)
        response.set_cookie(
            COOKIE, token, path=PATH, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return response

    async def logout(self, request: Request) -> Response:
        response = RedirectResponse(PATH, status_code=303)
        response.delete_cookie(COOKIE, path=PATH)
        return response


def register_inspector(mcp: Any, holder: ContainerHolder, settings: Settings) -> None:
    """Add the inspector's routes to the MCP server's app."""
    inspector = Inspector(holder, settings)
    mcp.custom_route(PATH, methods=["GET"])(inspector.page)
    mcp.custom_route(f"{PATH}/login", methods=["POST"])(inspector.login)
    mcp.custom_route(f"{PATH}/logout", methods=["POST"])(inspector.logout)

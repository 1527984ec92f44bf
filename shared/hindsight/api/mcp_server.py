"""The MCP server: tools over stateless streamable HTTP with JSON responses, bearer-token auth.

The same Starlette app is served by uvicorn locally and by the Lambda adapter (``lambda_http``).
Tools are thin: parse arguments (the annotated types carry the limits), call one use case, map the
result. Domain errors become JSON-RPC errors (``api.errors``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hindsight import __version__
from hindsight.api.errors import domain_errors, validation_error
from hindsight.bootstrap import Container
from hindsight.config import Settings
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unauthorized
from hindsight.domain.limits import (
    DEFAULT_IMPORTANCE,
    DEFAULT_TOP_K,
    MAX_STATUS_IDS,
    AgentId,
    Content,
    Importance,
    MemoryKey,
    Metadata,
    RecallHint,
    SearchText,
    Timestamp,
    TopK,
)
from hindsight.domain.memory import Layer, MemoryDraft, SearchHit, SearchRequest
from hindsight.usecases.remember import WriteAck
from hindsight.usecases.write_status import WriteStatus

ContainerFactory = Callable[[], Awaitable[Container]]

INSTRUCTIONS = """Hindsight is your long-term memory across conversations.
Search it (memory_search) at the start of a task and whenever the user refers to something from
before; write to it (memory_write) when you learn a preference, a fact about a person, project or
order, a state change, a correction, or how a task ended. Writes are queued and searchable within
seconds."""


class _Holder:
    """The per-process container, filled in by the server lifespan (once per Lambda instance)."""

    container: Container | None = None

    def get(self) -> Container:
        if self.container is None:
            raise RuntimeError("the MCP server lifespan has not started")
        return self.container


class ApiKeyVerifier:
    """MCP SDK TokenVerifier over Hindsight API keys: the principal travels in the token's claims."""

    def __init__(self, holder: _Holder) -> None:
        self._holder = holder

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = await self._holder.get().authenticate(token)
        if principal is None:
            return None
        scopes = ["memory:read"] if principal.read_only else ["memory:read", "memory:write"]
        return AccessToken(
            token=token,
            client_id=principal.key_id,
            scopes=scopes,
            claims={"principal": principal.model_dump(mode="json")},
        )


def current_principal() -> Principal:
    """The caller of the current request. Raises Unauthorized outside an authenticated request."""
    token = get_access_token()
    if token is None or not token.claims or "principal" not in token.claims:
        raise Unauthorized("no authenticated principal")
    return Principal.model_validate(token.claims["principal"])


class HindsightMCP(MCPServer[Container]):
    """MCPServer whose argument validation failures are JSON-RPC errors naming field and limit.

    The SDK reports them as tool results with isError; a memory service must refuse bad input
    unambiguously, so they are raised as INVALID_PARAMS instead.
    """

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise validation_error(exc.__cause__) from exc
            raise


# ---- tool results -----------------------------------------------------------------------------


class RecalledMemory(BaseModel):
    """One search hit as the agent sees it."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    content: str
    key: str | None
    layer: Layer
    occurred_at: datetime | None
    created_at: datetime
    importance: float
    metadata: dict[str, Any]
    scores: dict[str, float | None] = Field(description="vector, keyword, rrf, relevance, importance, final")

    @classmethod
    def from_hit(cls, hit: SearchHit) -> RecalledMemory:
        m = hit.memory
        return cls(
            id=m.id,
            content=m.content,
            key=m.key,
            layer=m.layer,
            occurred_at=m.occurred_at,
            created_at=m.created_at,
            importance=m.importance,
            metadata=m.metadata,
            scores=hit.scores.model_dump(),
        )


class StatusResult(BaseModel):
    """What memory_status returns, one entry per id asked, in order."""

    writes: list[WriteStatus]


class SearchResult(BaseModel):
    """What memory_search returns: hits best first."""

    results: list[RecalledMemory]
    count: int


# ---- the app ------------------------------------------------------------------------------------


def create_mcp_server(holder: _Holder, settings: Settings, factory: ContainerFactory) -> HindsightMCP:
    """The MCP server with its tools; the container is built in its lifespan."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[Container]) -> AsyncIterator[Container]:
        container = await factory()
        holder.container = container
        try:
            yield container
        finally:
            holder.container = None
            await container.aclose()

    resource = (settings.public_url or f"http://{settings.http_host}:{settings.http_port}").rstrip("/")
    mcp = HindsightMCP(
        "hindsight",
        title="Hindsight memory",
        version=__version__,
        instructions=INSTRUCTIONS,
        token_verifier=ApiKeyVerifier(holder),
        auth=AuthSettings(
            issuer_url=resource,
            resource_server_url=f"{resource}/mcp",  # type: ignore[arg-type]
            validate_token_resource=False,
        ),
        lifespan=lifespan,
        log_level=settings.log_level,
    )

    @mcp.tool(
        name="memory_write",
        description=(
            "Save something worth remembering beyond this conversation. Call it when the user states a "
            "preference or constraint ('I prefer…', 'from now on…', 'remember that…'), when you learn a new "
            "fact about a person, project or order, when something changes state ('shipped', 'cancelled'), "
            "when the user corrects you, or when a task ends (what worked, what failed). Do not store "
            "small talk. Returns at once with the memory id and status 'queued'; it is searchable "
            "within seconds."
        ),
        annotations=ToolAnnotations(
            readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False
        ),
    )
    async def memory_write(
        content: Content,
        layer: Annotated[
            Layer,
            Field(
                description="'semantic' for facts and preferences (what is true), "
                "'episodic' for events (what happened, when)."
            ),
        ] = "semantic",
        key: MemoryKey | None = None,
        query: RecallHint | None = None,
        importance: Importance = DEFAULT_IMPORTANCE,
        metadata: Metadata | None = None,
        occurred_at: Annotated[Timestamp | None, Field(description="When it happened (ISO 8601).")] = None,
        agent_id: AgentId | None = None,
    ) -> WriteAck:
        with domain_errors():
            draft = MemoryDraft(
                content=content,
                layer=layer,
                key=key,
                query=query,
                importance=importance,
                metadata=metadata or {},
                occurred_at=occurred_at,
            )
            remember = holder.get().remember
            if remember is None:
                raise RuntimeError("no write queue configured in this process")
            return await remember(current_principal(), agent_id, draft)

    @mcp.tool(
        name="memory_search",
        description=(
            "Recall what you learned in earlier conversations. Call it at the start of a task, whenever the "
            "user refers to something from before ('as I said', 'last time', 'my order', 'again'), before "
            "asking the user for something they may already have told you, and before retrying an "
            "approach that may have failed. Combines meaning (vector) and exact words (full text); "
            "returns the best memories first with their scores."
        ),
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )
    async def memory_search(
        query: SearchText,
        top_k: TopK = DEFAULT_TOP_K,
        key: MemoryKey | None = None,
        min_importance: Annotated[
            float, Field(ge=0.0, le=1.0, description="Only memories at least this important (0–1).")
        ] = 0.0,
        agent_id: AgentId | None = None,
    ) -> SearchResult:
        with domain_errors():
            request = SearchRequest(text=query, top_k=top_k, key=key, min_importance=min_importance)
            hits = await holder.get().recall(current_principal(), agent_id, request)
            return SearchResult(results=[RecalledMemory.from_hit(h) for h in hits], count=len(hits))

    @mcp.tool(
        name="memory_status",
        description=(
            "Check whether memories you wrote are stored yet. Call it after memory_write when you must be "
            "sure a memory is searchable before relying on it (e.g. before ending a session or handing off "
            "to another agent). 'pending' means still queued; 'merged' means it matched an existing memory "
            "(memory_id) and updated it instead."
        ),
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )
    async def memory_status(
        ids: Annotated[
            list[UUID],
            Field(
                min_length=1,
                max_length=MAX_STATUS_IDS,
                description=f"Ids returned by memory_write (1–{MAX_STATUS_IDS}).",
            ),
        ],
    ) -> StatusResult:
        with domain_errors():
            return StatusResult(writes=await holder.get().write_status(current_principal(), ids))

    @mcp.custom_route("/healthz", methods=["GET"])  # type: ignore[untyped-decorator]
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "ready": holder.container is not None})

    return mcp


def create_http_app(settings: Settings, factory: ContainerFactory) -> Starlette:
    """The ASGI app serving ``/mcp`` (and ``/healthz``) for uvicorn and Lambda alike."""
    holder = _Holder()
    mcp = create_mcp_server(holder, settings, factory)
    open_hosts = settings.allowed_hosts == ["*"]
    security = TransportSecuritySettings(
        # Behind a Lambda Function URL or API Gateway the Host header is AWS's own domain, set by AWS:
        # DNS rebinding (a browser tricked into calling a local server) does not apply there.
        enable_dns_rebinding_protection=not open_hosts,
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=[f"http://{h}" for h in settings.allowed_hosts],
    )
    return mcp.streamable_http_app(stateless_http=True, json_response=True, transport_security=security)

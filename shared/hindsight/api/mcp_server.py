"""The MCP server: tools over stateless streamable HTTP with JSON responses, bearer-token auth.

The same Starlette app is served by uvicorn locally and by the Lambda adapter (``lambda_http``).
Tools are thin: parse arguments (the annotated types carry the limits), call one use case, map the
result. Domain errors become JSON-RPC errors (``api.errors``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hindsight import __version__
from hindsight.api.errors import validation_error
from hindsight.api.mcp_context import ApiKeyVerifier, ContainerHolder
from hindsight.api.tools_memory import register_memory_tools
from hindsight.api.tools_memory_admin import register_memory_admin_tools
from hindsight.api.tools_reflection import register_reflection_tools
from hindsight.api.tools_working_memory import register_working_memory_tools
from hindsight.bootstrap import Container
from hindsight.config import Settings

ContainerFactory = Callable[[], Awaitable[Container]]

INSTRUCTIONS = """Hindsight is your long-term memory across conversations.
Search it (memory_search) at the start of a task and whenever the user refers to something from
before; write to it (memory_write) when you learn a preference, a fact about a person, project or
order, a state change, a correction, or how a task ended. Writes are queued and searchable within
seconds."""


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


def create_mcp_server(holder: ContainerHolder, settings: Settings, factory: ContainerFactory) -> HindsightMCP:
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

    register_memory_tools(mcp, holder)
    register_memory_admin_tools(mcp, holder)
    register_reflection_tools(mcp, holder)
    register_working_memory_tools(mcp, holder)

    @mcp.custom_route("/healthz", methods=["GET"])  # type: ignore[untyped-decorator]
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "ready": holder.container is not None})

    return mcp


def create_http_app(settings: Settings, factory: ContainerFactory) -> Starlette:
    """The ASGI app serving ``/mcp`` (and ``/healthz``) for uvicorn and Lambda alike."""
    holder = ContainerHolder()
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

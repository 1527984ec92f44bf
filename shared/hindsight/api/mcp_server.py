"""The MCP server: tools over stateless streamable HTTP with JSON responses, bearer-token auth.

The same Starlette app is served by uvicorn locally and by the Lambda adapter (``lambda_http``).
Tools are thin: parse arguments (the annotated types carry the limits), call one use case, map the
result. Domain and argument errors become ``isError`` results a model can read (``api.errors``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, get_args

from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import x_mcp_header_map
from mcp_types import INVALID_PARAMS, Icon, ToolAnnotations
from mcp_types import Tool as MCPTool
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hindsight import __version__
from hindsight.api.errors import (
    admit_errors,
    error_object,
    error_result,
    invalid_arguments,
    validation_error,
)
from hindsight.api.http_guard import RequestGuard
from hindsight.api.mcp_context import ApiKeyVerifier, ContainerHolder, current_principal
from hindsight.api.observe import RequestContext
from hindsight.api.request_body import set_aside_in_items, unreadable_values
from hindsight.api.strict_args import StrictArguments, validated_once
from hindsight.api.tool_hints import ITEMWISE_META, RATE_BUDGET_META
from hindsight.api.tools_memory import register_memory_tools
from hindsight.api.tools_memory_admin import register_memory_admin_tools
from hindsight.api.tools_reflection import register_reflection_tools
from hindsight.api.tools_summary import register_summary_tools
from hindsight.api.tools_working_memory import register_working_memory_tools
from hindsight.config import Settings
from hindsight.container import Container
from hindsight.domain.errors import HindsightError
from hindsight.domain.limits import Identifier
from hindsight.domain.redaction import Redactor, identifier_refusal

ContainerFactory = Callable[[], Awaitable[Container]]
log = logging.getLogger(__name__)

INSTRUCTIONS = """Hindsight is your long-term memory across conversations.
Search it (memory_search) at the start of a task and whenever the user refers to something from
before; write to it (memory_write) when you learn a preference, a fact about a person, project or
order, a state change, a correction, or how a task ended. Writes are queued and searchable within
seconds. Before a long task, memory_summarize gives a short hint of what failed and what worked before."""


class HindsightMCP(MCPServer[Container]):
    """MCPServer whose tool errors are results a model can read (MCP 2025-11-25, SEP-1303).

    Argument errors (the SDK's validation against the tool's signature, made strict for every tool in
    ``add_tool``, and arguments a tool does not take: the SDK would silently drop a misspelt ``top-k``),
    domain errors (not found, forbidden, rate limited, a dependency down) all become a ``CallToolResult``
    with ``isError`` through one mapping, ``api.errors``. An unknown tool stays a JSON-RPC error
    (-32602): the request names nothing to call.

    Every call first counts against the caller's rate limits (``usecases.rate_limits``): a call whose
    arguments are refused before the tool runs (``_argument_errors``) against the ``refused`` budget
    only, any other against the calls budget and, for a tool whose ``_meta`` says ``RATE_BUDGET_META:
    "writes"``, the budget of calls that change memory.
    """

    holder: ContainerHolder | None = None
    _tools: ToolManager
    _queued_tools: list[Callable[[], None]] | None = None
    _building_tools = False
    _header_tools: dict[str, tuple[Tool, bool]] | None = None
    """Tool name → (the tool, whether its input schema declares an ``x-mcp-header``)."""

    @property
    def _tool_manager(self) -> ToolManager:
        """The SDK's tool registry, every tool added so far built into it first.

        Building a tool (the SDK's pydantic model of its signature and its input and output JSON
        schemas) takes ~4 ms of CPU each, ~65 ms for the 16 tools: ``add_tool`` only queues it and the
        first use of the registry (``tools/list``, ``tools/call``, the SDK's input-schema look-up, a
        test's ``list_tools``) builds them all, in the order they were added. So a Lambda cold start's
        first answer, ``initialize``, which reads no tool, does not wait for them (bench/ab_coldstart.py);
        a cold instance whose first request is a tool call pays the same as before. A tool that fails to
        build raises there, at every use until the queue is through, instead of at startup.
        """
        queued = self._queued_tools
        while queued and not self._building_tools:
            self._building_tools = True  # building goes through MCPServer.add_tool, back in here
            try:
                queued.pop(0)()
            finally:
                self._building_tools = False
        return self._tools

    @_tool_manager.setter
    def _tool_manager(self, manager: ToolManager) -> None:
        self._tools = manager

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Register a tool (``mcp.tool`` comes here too) whose arguments are read strictly
        (``api.strict_args``): the one place no tool can forget it. Built on the registry's first use
        (``_tool_manager``)."""

        def build() -> None:
            super(HindsightMCP, self).add_tool(
                fn, name, title, description, annotations, icons, meta, structured_output
            )
            tool = self._tool_manager.get_tool(name or fn.__name__)
            assert tool is not None
            tool.fn_metadata = StrictArguments.of(tool.fn_metadata)

        if self._queued_tools is None:
            self._queued_tools = []
        self._queued_tools.append(build)

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        """The input schema the SDK checks a 2026-07-28 ``tools/call``'s ``Mcp-Param-*`` headers against
        (``mcp.shared.inbound.validate_mcp_param_headers``), or None (no check). None also for a tool
        whose schema declares no ``x-mcp-header`` (none of ours does): the check would walk the whole
        schema twice on every call to find nothing to compare, and answer no rejection, as it does with
        None (15 % of the server's main-thread CPU over 300 memory_writes of a 2026-07-28 client, under
        cProfile). Whether a tool declares any is read once per tool (tools do not change once built)."""
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return None
        if self._header_tools is None:
            self._header_tools = {}
        known = self._header_tools.get(name)
        if known is None or known[0] is not tool:
            known = (tool, bool(x_mcp_header_map(tool.parameters)))
            self._header_tools[name] = known
        return tool.parameters if known[1] else None

    async def _count_call(self, tool: Tool | None, *, refused: bool) -> Callable[[], Awaitable[None]] | None:
        """Count the call (raises RateLimited); the claim of the caller's next units
        (``CheckRateLimit.lease_next``) for an admitted call, to run beside its tool, or None."""
        container = self.holder.container if self.holder is not None else None
        if container is None or container.rate_limit is None:
            return None
        principal = current_principal()
        if refused:
            await container.rate_limit.refused(principal)
            return None
        write = tool is not None and (tool.meta or {}).get(RATE_BUDGET_META) == "writes"
        await container.rate_limit(principal, write=write)
        return functools.partial(container.rate_limit.lease_next, principal, write=write)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        container = self.holder.container if self.holder is not None else None
        redactor = container.redactor if container is not None else None
        refusal, checked = (None, None) if tool is None else _argument_errors(tool, arguments, redactor)
        try:
            lease_next = await self._count_call(tool, refused=tool is None or refusal is not None)
        except HindsightError as exc:
            if tool is not None:
                return _error_result(name, exc)
            raise
        if tool is None:
            raise MCPError(
                INVALID_PARAMS,
                f"Invalid arguments: name: unknown tool '{name[:100]}' (tools/list names the tools)",
                {"errors": [{"field": "name", "message": "no tool of this name", "type": "unknown_tool"}]},
            )
        if refusal is not None:
            log.info("tool %r refused arguments %r", name, [e["field"] for e in refusal["errors"]])
            return error_result(refusal)
        # the next call's units are claimed while this one's tool waits on its I/O, and awaited before
        # it is answered: nothing runs after a response (usecases.rate_limits, "Leases")
        leasing = asyncio.ensure_future(lease_next()) if lease_next is not None else None
        try:
            with validated_once(tool.fn_metadata, arguments, checked):  # the SDK's run reuses the check
                return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if error_object(exc.__cause__) is None:
                raise
            return _error_result(name, exc.__cause__)
        finally:
            if leasing is not None:
                await leasing

    async def list_tools(self) -> list[MCPTool]:
        """The tools, each output schema also admitting the ``{"error": …}`` of an ``isError`` result
        (``api.errors.admit_errors``)."""
        return [
            tool.model_copy(update={"output_schema": admit_errors(tool.output_schema)})
            if tool.output_schema is not None
            else tool
            for tool in await super().list_tools()
        ]


def _argument_errors(
    tool: Tool, arguments: dict[str, Any], redactor: Redactor | None = None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(The ``invalid_arguments`` error object of a call refused before its tool runs, or None; the
    tool's validated keyword arguments when its argument model accepted them, or None). Refused: values
    that could not be read (``http_guard`` replaced them by stand-ins, which this removes from
    ``arguments``), arguments the tool does not take, the tool's argument model refusing them (the
    SDK validates them again when it calls the tool), and an identifier argument (a key, a session id:
    ``domain.limits.Identifier``) that ``redactor`` would change (``redacted_identifier``; no memory
    or item can have it), every problem named once. For a tool whose
    ``_meta`` names a list argument under ``ITEMWISE_META`` (memory_write_batch's ``items``), a value
    unreadable inside one of its objects is that item's error, answered by the tool
    (``request_body.set_aside_in_items``), not the call's."""
    unreadable = unreadable_values(arguments, tool.parameters)
    itemwise = (tool.meta or {}).get(ITEMWISE_META)
    if unreadable and isinstance(itemwise, str):
        unreadable = set_aside_in_items(arguments, itemwise, unreadable)
    errors = [u.detail() for u in unreadable]
    parts = [f"{e['field']}: {e['message']}" for e in errors]
    allowed = tool.parameters.get("properties", {})
    unknown = sorted(str(k) for k in arguments if k not in allowed)[:20]
    for name in unknown:
        errors.append(
            {"field": name[:100], "message": "not an argument of this tool", "type": "unexpected_argument"}
        )
        parts.append(f"{name[:100]}: not an argument of {tool.name}")
    if unknown:
        parts[-1] += f" (it takes: {', '.join(sorted(allowed))})"
    checked = None
    try:
        checked = tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        named = [e["field"] for e in errors]
        for error in validation_error(exc, schema=tool.parameters)["errors"]:
            if not any(_overlap(error["field"], field) for field in named):  # a stand-in's or an unknown's
                errors.append(error)
                parts.append(f"{error['field']}: {error['message']}")
    if redactor is not None:
        named = [e["field"] for e in errors]
        for name, mark in _identifier_arguments(tool.fn_metadata.arg_model).items():
            value = arguments.get(name)
            if not isinstance(value, str) or any(_overlap(name, field) for field in named):
                continue
            message = identifier_refusal(redactor, value.strip(), mark.what, mark.example)
            if message is not None:
                errors.append({"field": name, "message": message, "type": "redacted_identifier"})
                parts.append(f"{name}: {message}")
    if errors:
        return invalid_arguments(errors, "Invalid arguments: " + "; ".join(parts)), checked
    return None, checked


@functools.cache
def _identifier_arguments(model: type[BaseModel]) -> dict[str, Identifier]:
    """A tool's arguments whose type is marked ``Identifier`` (also inside ``… | None``), by name."""
    return {
        name: mark
        for name, field in model.model_fields.items()
        if (mark := _identifier_mark([*field.metadata, field.annotation])) is not None
    }


def _identifier_mark(items: Iterable[Any]) -> Identifier | None:
    """The ``Identifier`` among annotation metadata, searched through ``Annotated`` and unions."""
    for item in items:
        if isinstance(item, Identifier):
            return item
        args = get_args(item)
        found = _identifier_mark([*args, *getattr(item, "__metadata__", ())]) if args else None
        if found is not None:
            return found
    return None


def _overlap(field: str, other: str) -> bool:
    """Whether one dotted field is the other or inside it."""
    return field == other or field.startswith(f"{other}.") or other.startswith(f"{field}.")


def _error_result(tool: str, exc: BaseException | None) -> Any:
    """The isError result for an anticipated error, logged without the caller's values."""
    error = error_object(exc)
    if error is None:
        raise RuntimeError(f"no error result for {type(exc).__name__}") from exc
    fields = [e["field"] for e in error.get("errors", [])]
    log.info("tool %r answered %s %r", tool, error["kind"], fields or type(exc).__name__)
    return error_result(error)


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

    resource = resource_url(settings)
    mcp = HindsightMCP(
        "hindsight",
        title="Hindsight memory",
        version=__version__,
        instructions=INSTRUCTIONS,
        token_verifier=ApiKeyVerifier(holder),
        auth=AuthSettings(
            # With JWTs on, the SDK serves the protected-resource metadata (RFC 9728) naming the issuer as
            # the authorization server, and a 401 points to it (``resource_metadata`` in WWW-Authenticate),
            # so an OAuth-capable client discovers where to get a token. With API keys only there is no
            # authorization server: no metadata and a plain ``Bearer`` challenge, so a client asks for a
            # static token instead of running OAuth against a server that has none. (``issuer_url`` is
            # required by the SDK but used only for the metadata and its own OAuth server, which is off.)
            issuer_url=settings.jwt_issuer or resource,  # type: ignore[arg-type]
            resource_server_url=f"{resource}/mcp" if settings.jwt_issuer else None,  # type: ignore[arg-type]
            validate_token_resource=False,  # the verifiers check audience themselves
        ),
        lifespan=lifespan,
        log_level=settings.log_level,
        # No subscriptions/listen (2026-07-28): the tool list never changes at run time, there are no
        # resources to watch, and a Lambda cannot hold the stream open; served, the SDK would advertise
        # listChanged and resources.subscribe to clients of that era.
        subscriptions=False,
    )

    mcp.holder = holder
    register_memory_tools(mcp, holder)
    register_memory_admin_tools(mcp, holder)
    register_reflection_tools(mcp, holder)
    register_summary_tools(mcp, holder)
    register_working_memory_tools(mcp, holder)

    if settings.inspector:
        from hindsight.api.inspector import register_inspector

        register_inspector(mcp, holder, settings)

    @mcp.custom_route("/healthz", methods=["GET"])  # type: ignore[untyped-decorator]
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "ready": holder.container is not None})

    return mcp


def resource_url(settings: Settings) -> str:
    """The external base URL (``HINDSIGHT_PUBLIC_URL``, else the local host and port), no trailing /."""
    return (settings.public_url or f"http://{settings.http_host}:{settings.http_port}").rstrip("/")


def _advertise_scopes(app: Starlette, settings: Settings) -> None:
    """With OAuth on, the protected-resource metadata (RFC 9728) also lists the scopes a client should
    ask for. The SDK ties ``scopes_supported`` to ``required_scopes``, which would refuse read-only
    tokens, so its route is swapped for one built by the same SDK function with the scopes."""
    if not settings.jwt_issuer:
        return
    from mcp.server.auth.routes import create_protected_resource_routes
    from pydantic import AnyHttpUrl

    routes = create_protected_resource_routes(
        resource_url=AnyHttpUrl(f"{resource_url(settings)}/mcp"),
        authorization_servers=[AnyHttpUrl(settings.jwt_issuer)],
        scopes_supported=[settings.jwt_read_scope, settings.jwt_write_scope],
        resource_name="Hindsight memory",
    )
    paths = {r.path for r in routes}
    app.router.routes[:] = routes + [r for r in app.router.routes if getattr(r, "path", None) not in paths]


def create_http_app(settings: Settings, factory: ContainerFactory) -> Starlette:
    """The ASGI app serving ``/mcp`` (and ``/healthz``) for uvicorn and Lambda alike."""
    holder = ContainerHolder()
    mcp = create_mcp_server(holder, settings, factory)
    open_hosts = settings.allowed_hosts == ["*"]
    security = TransportSecuritySettings(
        # Behind a Lambda Function URL or API Gateway the Host header is AWS's own domain, set by AWS:
        # DNS rebinding (a browser tricked into calling a local server) does not apply there.
        enable_dns_rebinding_protection=not open_hosts,
        allowed_hosts=[h.lower() for h in settings.allowed_hosts],  # http_guard lower-cases the Host
        allowed_origins=[f"http://{h}" for h in settings.allowed_hosts],
    )
    app = mcp.streamable_http_app(stateless_http=True, json_response=True, transport_security=security)
    _advertise_scopes(app, settings)
    # Clear 4xx with a JSON-RPC body for a refused Host/Origin, batches, wrong types, GET; 503 when down.
    app.add_middleware(RequestGuard, path="/mcp", security=security)
    # Outermost: correlation id and JSON-RPC id on every log line of the request, metrics flushed after it.
    app.add_middleware(
        RequestContext, metrics=lambda: holder.container.metrics if holder.container is not None else None
    )
    return app

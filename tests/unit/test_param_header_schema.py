"""The input schema the SDK checks a 2026-07-28 ``tools/call``'s ``Mcp-Param-*`` headers against
(``HindsightMCP._tool_input_schema``): only a tool whose schema declares an ``x-mcp-header`` has one to
check; for the others the check would walk the whole schema on every call to find nothing (issue 15,
write acknowledgement)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.shared.inbound import validate_mcp_param_headers
from pydantic import Field

from hindsight.api.mcp_context import ContainerHolder
from hindsight.api.mcp_server import HindsightMCP, create_mcp_server
from hindsight.config import Settings


def _server() -> HindsightMCP:
    settings = Settings.load(database_url="postgresql://unused@/unused", write_queue_url="http://unused")
    mcp = create_mcp_server(ContainerHolder(), settings, factory=None)  # type: ignore[arg-type]

    async def routed(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], n: int = 0
    ) -> dict[str, Any]:
        return {"region": region, "n": n}

    mcp.add_tool(routed, name="routed")
    return mcp


def test_a_tool_declaring_no_header_has_no_schema_to_check_headers_against() -> None:
    lookup = _server()._lowlevel_server.get_tool_input_schema
    assert lookup is not None

    assert lookup("memory_write") is None
    assert lookup("memory_write") is None  # read once, answered the same
    assert lookup("no_such_tool") is None


def test_a_tool_declaring_a_header_still_has_its_headers_checked() -> None:
    mcp = _server()
    lookup = mcp._lowlevel_server.get_tool_input_schema
    assert lookup is not None

    schema = lookup("routed")

    tool = mcp._tool_manager.get_tool("routed")
    assert tool is not None
    assert schema is tool.parameters
    assert validate_mcp_param_headers(schema, {"region": "eu"}, {"mcp-param-region": "eu"}) is None
    refused = validate_mcp_param_headers(schema, {"region": "eu"}, {"mcp-param-region": "us"})
    assert refused is not None
    assert "Mcp-Param-Region" in refused.message

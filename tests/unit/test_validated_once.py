"""A tool call's arguments are validated once: ``mcp_server``'s check before the rate limit, whose result
the SDK's run of the tool reuses (``api.strict_args.validated_once``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hindsight.api import strict_args
from hindsight.api.mcp_context import ContainerHolder
from hindsight.api.mcp_server import HindsightMCP, create_mcp_server
from hindsight.config import Settings


def _server() -> HindsightMCP:
    settings = Settings.load(database_url="postgresql://unused@/unused", write_queue_url="http://unused")
    mcp = create_mcp_server(ContainerHolder(), settings, factory=None)  # type: ignore[arg-type]

    async def echo(n: int, tags: list[str] | None = None) -> dict[str, Any]:
        return {"n": n, "tags": tags}

    mcp.add_tool(echo, name="echo")
    return mcp


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    real = strict_args.validate_strict

    def counted(model: Any, arguments: Any) -> Any:
        seen.append(dict(arguments))
        return real(model, arguments)

    monkeypatch.setattr(strict_args, "validate_strict", counted)
    return seen


def test_a_calls_arguments_are_validated_once_and_the_tool_gets_them(monkeypatch: pytest.MonkeyPatch) -> None:
    mcp = _server()
    seen = _counting(monkeypatch)

    result = asyncio.run(mcp.call_tool("echo", {"n": 3, "tags": ["a"]}))

    assert seen == [{"n": 3, "tags": ["a"]}]
    assert not result.is_error
    assert result.structured_content == {"n": 3, "tags": ["a"]}


def test_refused_arguments_are_still_refused_before_the_tool_and_each_call_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mcp = _server()
    seen = _counting(monkeypatch)

    refused = asyncio.run(mcp.call_tool("echo", {"n": True}))  # strict: a boolean is not an integer
    assert refused.is_error
    assert refused.structured_content["error"]["errors"][0]["field"] == "n"
    again = asyncio.run(mcp.call_tool("echo", {"n": 4}))

    assert again.structured_content == {"n": 4, "tags": None}
    assert seen == [{"n": True}, {"n": 4}]


def test_only_the_same_arguments_object_reuses_the_check() -> None:
    mcp = _server()
    tool = mcp._tool_manager.get_tool("echo")
    assert tool is not None
    arguments = {"n": 1}
    with strict_args.validated_once(tool.fn_metadata, arguments, {"n": 1, "tags": None}):
        assert tool.fn_metadata.validate_arguments(arguments) == {"n": 1, "tags": None}
        assert tool.fn_metadata.validate_arguments({"n": 2}) == {"n": 2, "tags": None}
    assert tool.fn_metadata.validate_arguments({"n": 5})["n"] == 5

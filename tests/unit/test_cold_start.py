"""What a Lambda instance's first invocation does not pay for: the cyclic garbage collector
(``api.runtime.cold_start_without_gc``) and building the MCP tools before a request uses them
(``api.mcp_server.HindsightMCP._tool_manager``)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from hindsight.api.mcp_context import ContainerHolder
from hindsight.api.mcp_server import HindsightMCP, create_mcp_server
from hindsight.api.runtime import cold_start_without_gc
from hindsight.api.strict_args import StrictArguments
from hindsight.config import Settings


def test_the_collector_is_off_during_the_cold_start_and_on_again_after_it_even_when_it_fails() -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    seen: list[bool] = []

    def first_invocation() -> None:
        with cold_start_without_gc():
            seen.append(gc.isenabled())
            raise RuntimeError("the first invocation failed")

    try:
        with pytest.raises(RuntimeError):
            first_invocation()
        assert seen == [False]
        assert gc.isenabled()
        # what the cold start left alive is out of later collections' way
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_process_that_had_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    try:
        with cold_start_without_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def _server() -> HindsightMCP:
    settings = Settings.load(database_url="postgresql://unused@/unused", write_queue_url="http://unused")
    return create_mcp_server(ContainerHolder(), settings, factory=None)  # type: ignore[arg-type]


def test_the_tools_are_built_on_the_registrys_first_use_all_of_them_in_order_and_strict() -> None:
    mcp = _server()
    queued = list(mcp._queued_tools or ())
    assert len(queued) >= 16  # add_tool only queued them: nothing built while the app was made
    assert mcp._tools.list_tools() == []

    listed = asyncio.run(mcp.list_tools())  # the first use builds them all

    assert mcp._queued_tools == []
    built = mcp._tool_manager.list_tools()
    assert [t.name for t in listed] == [t.name for t in built]
    assert len(built) == len(queued)
    assert [t.name for t in built][:3] == ["memory_write", "memory_write_batch", "memory_search"]
    assert all(isinstance(t.fn_metadata, StrictArguments) for t in built)


def test_a_tool_call_before_any_listing_finds_its_tool() -> None:
    mcp = _server()
    assert mcp._tool_manager.get_tool("memory_search") is not None
    assert mcp._queued_tools == []

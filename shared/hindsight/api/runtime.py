"""The process a Lambda instance is: one asyncio event loop kept across invocations, and its cold start.

Pools, clients and the MCP session manager's task group belong to the loop they were created on, so
every invocation of a warm Lambda instance must run on the same loop.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class ProcessLoop:
    """A private event loop that is run, never closed, once per invocation."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def make_current(self) -> None:
        """Make this the thread's current loop (libraries that call ``asyncio.get_event_loop()``)."""
        asyncio.set_event_loop(self.loop)

    def run(self, awaitable: Awaitable[T]) -> T:
        self.make_current()
        return self.loop.run_until_complete(asyncio.ensure_future(awaitable, loop=self.loop))


@contextmanager
def cold_start_without_gc() -> Iterator[None]:
    """Run a Lambda instance's first invocation (imports, app and container build, the first request)
    with the cyclic garbage collector off, then move everything alive to the permanent generation.

    A cold start allocates hundreds of thousands of long-lived objects (modules, the MCP SDK's and our
    pydantic classes and schemas) and almost no garbage; each full collection on the way scans them all.
    Measured on the MCP function (bench/ab_coldstart.py): ~300 collections, 2 of them full, took ~12 % of
    the cold start. ``gc.freeze()`` afterwards keeps later collections of warm invocations from
    re-scanning the startup objects (CPython's gc docs suggest the same disable-then-freeze for a
    process that sets itself up once). Collection is turned back on even if the block raises.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()

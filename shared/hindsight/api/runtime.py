"""One asyncio event loop per process, kept across Lambda invocations.

Pools, clients and the MCP session manager's task group belong to the loop they were created on, so
every invocation of a warm Lambda instance must run on the same loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
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

"""Lambda adapter for the MCP ASGI app (Function URL and API Gateway HTTP API v2 events).

Mangum translates events; its lifespan handling is *off* because it would start and stop the app on
every invocation, and the MCP SDK's session manager may be started only once per instance. Instead
the app's lifespan runs in one long-lived task on a loop that lives as long as the instance
(``ProcessLoop``): started on the first invocation, still open on every warm one after it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from asgi_lifespan import LifespanManager
from mangum import Mangum
from starlette.types import ASGIApp

from hindsight.api.runtime import ProcessLoop


class LambdaHttpAdapter:
    """``handler(event, context) -> response`` for one ASGI app.

    Raises whatever the app's startup raises (e.g. ConfigurationError), on every invocation until
    startup succeeds, so a misconfigured function fails loudly instead of serving errors.
    """

    def __init__(self, app: ASGIApp, startup_timeout_s: float = 60.0) -> None:
        self._app = app
        self._runtime = ProcessLoop()
        self._startup_timeout_s = startup_timeout_s
        self._lifespan_task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._mangum: Mangum | None = None

    async def _hold_lifespan(self, started: asyncio.Event, stop: asyncio.Event) -> None:
        async with LifespanManager(self._app, startup_timeout=self._startup_timeout_s, shutdown_timeout=10):
            started.set()
            await stop.wait()

    async def _start_lifespan(self) -> None:
        started, self._stop = asyncio.Event(), asyncio.Event()
        task = asyncio.get_running_loop().create_task(self._hold_lifespan(started, self._stop))
        waiter = asyncio.ensure_future(started.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            waiter.cancel()
            task.result()  # re-raise the startup failure
            raise RuntimeError("the ASGI app's lifespan ended during startup")
        self._lifespan_task = task

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        if self._mangum is None:
            self._runtime.run(self._start_lifespan())
            self._mangum = Mangum(self._app, lifespan="off")  # type: ignore[arg-type]
        self._runtime.make_current()  # Mangum runs the request on asyncio.get_event_loop()
        return self._mangum(event, context)

    def close(self) -> None:
        """Run the app's shutdown (tests; Lambda itself just freezes and discards the instance)."""
        if self._lifespan_task is not None and self._stop is not None:
            self._stop.set()
            self._runtime.run(self._lifespan_task)
            self._lifespan_task = None
            self._mangum = None

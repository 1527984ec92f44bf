"""``hindsight run``: start the local stack, print the MCP URL and token, serve until Ctrl-C."""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

from rich.console import Console

from hindsight.api.mcp_server import create_http_app
from hindsight.bootstrap import build_container
from hindsight.config import Settings
from hindsight.local.ports import free_port, port_is_free
from hindsight.local.scheduler import MaintenanceScheduler
from hindsight.local.stack import LocalStack

log = logging.getLogger(__name__)


class BackgroundServer:
    """The MCP ASGI app under uvicorn on 127.0.0.1 in a background thread (tests, benchmarks)."""

    def __init__(self, settings: Settings, port: int | None = None) -> None:
        import uvicorn

        self.port = port or free_port()
        self.settings = settings.replace(http_port=self.port)
        app = create_http_app(self.settings, lambda: build_container(self.settings))
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        )
        self._thread = threading.Thread(target=self._server.run, name="mcp-http", daemon=True)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def start(self, timeout_s: float = 30.0) -> BackgroundServer:
        """Start and wait until it accepts connections. Raises RuntimeError if it does not."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the MCP HTTP server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)


def choose_port(preferred: int) -> int:
    """``preferred`` if free (0 means any), else a free one."""
    if preferred and port_is_free(preferred):
        return preferred
    return free_port()


def client_config(url: str, token: str) -> str:
    """A ready-to-paste MCP client configuration (the common ``mcpServers`` shape)."""
    return json.dumps(
        {
            "mcpServers": {
                "hindsight": {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}
            }
        },
        indent=2,
    )


def run_local(data_dir: Path, port: int, *, redis_url: str | None, console: Console) -> None:
    """Start everything, serve the MCP app with uvicorn, stop everything cleanly on Ctrl-C.

    On shutdown the HTTP server stops first, then the poller drains what is still queued (the SQS
    emulator keeps messages in memory only), then the services stop; Postgres data stays on disk.
    """
    import uvicorn

    started = time.monotonic()
    console.print(f"[bold]Hindsight[/] local stack in {data_dir} …")
    chosen = choose_port(port)
    if port and chosen != port:
        console.print(f"[yellow]port {port} is taken; using {chosen}[/]")
    stack = LocalStack(data_dir, redis_url=redis_url, http_port=chosen)
    stack.start()
    scheduler: MaintenanceScheduler | None = None
    try:
        settings = stack.require_settings()
        token = stack.dev_token()
        env_file = stack.write_env_file()
        pollers = [stack.start_write_poller(), stack.start_reflect_poller()]
        scheduler = MaintenanceScheduler.for_settings(settings).start()  # plays the EventBridge schedule
        app = create_http_app(settings, lambda: build_container(settings))
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=chosen, log_level="warning", lifespan="on")
        )
        url = f"http://127.0.0.1:{chosen}/mcp"
        console.print(f"Postgres: {settings.require_database_url()}")
        console.print(f"Redis: {settings.redis_url}   SQS emulator: {settings.aws_endpoint_url}")
        console.print(f"CLI settings: {env_file}")
        console.print(f"Maintenance: every {settings.maintenance_interval_s:g} s")
        console.print("MCP client configuration:")
        print(client_config(url, token), flush=True)  # plain print: rich would wrap the token
        # Plain lines of their own, so scripts can read them.
        print(f"MCP URL: {url}", flush=True)
        print(f"Token: {token}", flush=True)
        console.print(f"ready in {time.monotonic() - started:.1f}s — Ctrl-C stops everything", style="green")
        server.run()
        scheduler.stop()
        console.print("stopping: draining the write queue …")
        for poller in pollers:
            poller.stop()
            poller.drain(timeout_s=30)
    finally:
        if scheduler is not None:
            scheduler.stop()
        stack.stop()
        console.print("stopped; data kept in", str(data_dir))

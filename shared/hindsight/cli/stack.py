"""The local stack and the schema: ``hindsight run`` starts the stack and serves the MCP URL, ``hindsight
migrate`` applies pending migrations to the configured database."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from hindsight.cli.common import console, err_console, load_settings, resolve_data_dir, run_or_exit
from hindsight.cli.options import DataDir
from hindsight.domain.errors import ConfigurationError, Unavailable


def run(
    port: Annotated[int, typer.Option(help="HTTP port on 127.0.0.1; a free one is used if taken.")] = 8080,
    data_dir: DataDir = None,
    redis_url: Annotated[
        str, typer.Option(help="Use this Redis if it answers, else start one.")
    ] = "redis://127.0.0.1:6379/0",
    log_level: Annotated[
        str, typer.Option(help="Level of the JSON log file (DEBUG adds query text and contents to traces).")
    ] = "INFO",
) -> None:
    """Start the local stack and serve the MCP URL until Ctrl-C or SIGTERM (both stop it cleanly: exit 0)."""
    from hindsight.local.serve import run_local
    from hindsight.logs import configure_json_log_file, configure_local_logging

    level = log_level.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        err_console.print("[red]error:[/] --log-level must be DEBUG, INFO, WARNING or ERROR")
        raise typer.Exit(2)
    os.environ.setdefault("HINDSIGHT_LOG_LEVEL", level)  # DEBUG: traces carry query text and contents
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    configure_local_logging("WARNING")
    log_file = configure_json_log_file(resolve_data_dir(data_dir) / "logs" / "hindsight.log", level)
    console.print(f"JSON logs (requests, retrieval traces): {log_file}")

    try:
        run_local(resolve_data_dir(data_dir), port, redis_url=redis_url, console=console)
    except (ConfigurationError, Unavailable) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(3) from None
    except KeyboardInterrupt:  # a second Ctrl-C/SIGTERM cut the startup short; the services are stopped
        err_console.print("interrupted")
        raise typer.Exit(130) from None


def migrate(data_dir: DataDir = None) -> None:
    """Apply pending SQL migrations (idempotent; safe to run concurrently)."""
    from hindsight.bootstrap import run_migrations

    async def go() -> list[int]:
        return await run_migrations(load_settings(data_dir))

    applied = run_or_exit(go)
    console.print(f"applied {applied}" if applied else "schema up to date")

"""The ``hindsight`` command line (typer + rich).

Commands that talk to a database read the usual ``HINDSIGHT_*`` environment, plus — when present —
the ``hindsight.env`` that ``hindsight run`` writes into its data folder, so they reach the local
stack without any setup. Exit codes: 0 success, 1 a problem with the request or the data, 2 usage,
3 configuration or an unreachable dependency.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError, HindsightError, InvalidInput, Unavailable

app = typer.Typer(help="Hindsight: long-term memory for LLM agents over MCP.", no_args_is_help=True)
token_app = typer.Typer(help="Mint, list and revoke API keys.", no_args_is_help=True)
app.add_typer(token_app, name="token")
maintenance_app = typer.Typer(
    help="Scheduled maintenance: decay and archive, consolidation, episodic → semantic, sweeps.",
    no_args_is_help=True,
)
app.add_typer(maintenance_app, name="maintenance")
console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")

DataDir = Annotated[
    Path | None, typer.Option(help="Local stack data folder (default: $HINDSIGHT_DATA_DIR or ./var/local).")
]
JsonOut = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _data_dir(data_dir: Path | None) -> Path:
    from hindsight.local.stack import default_data_dir

    return data_dir or default_data_dir()


def _settings(data_dir: Path | None) -> Settings:
    """Environment first; the local stack's env file fills what the environment does not set."""
    from hindsight.local.stack import ENV_FILE

    env_file = _data_dir(data_dir) / ENV_FILE
    if env_file.exists():
        for line in env_file.read_text().splitlines():
            name, _, value = line.partition("=")
            if name and value and name not in os.environ:
                os.environ[name] = value
    settings = Settings.load()
    endpoint = settings.aws_endpoint_url or ""
    if endpoint.startswith(("http://127.0.0.1:", "http://localhost:")):
        from hindsight.local.sqs_emulator import use_dummy_aws_credentials

        use_dummy_aws_credentials()  # the local SQS emulator takes any key; never real ones
    return settings


def _run(coro_factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine, turning Hindsight errors into a message and an exit code."""
    try:
        return asyncio.run(coro_factory())  # type: ignore[arg-type]
    except InvalidInput as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    except (ConfigurationError, Unavailable) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(3) from None
    except HindsightError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None


@app.command()
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
    """Start the local stack and serve the MCP URL until Ctrl-C."""
    from hindsight.local.serve import run_local
    from hindsight.logs import configure_json_log_file, configure_local_logging

    level = log_level.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        err_console.print("[red]error:[/] --log-level must be DEBUG, INFO, WARNING or ERROR")
        raise typer.Exit(2)
    os.environ.setdefault("HINDSIGHT_LOG_LEVEL", level)  # DEBUG: traces carry query text and contents
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    configure_local_logging("WARNING")
    log_file = configure_json_log_file(_data_dir(data_dir) / "logs" / "hindsight.log", level)
    console.print(f"JSON logs (requests, retrieval traces): {log_file}")

    try:
        run_local(_data_dir(data_dir), port, redis_url=redis_url, console=console)
    except (ConfigurationError, Unavailable) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(3) from None


@app.command()
def migrate(data_dir: DataDir = None) -> None:
    """Apply pending SQL migrations (idempotent; safe to run concurrently)."""
    from hindsight.bootstrap import run_migrations

    async def go() -> list[int]:
        return await run_migrations(_settings(data_dir))

    applied = _run(go)
    console.print(f"applied {applied}" if applied else "schema up to date")


async def _with_container(data_dir: Path | None, body: Callable[[Any], Awaitable[T]]) -> T:
    from hindsight.bootstrap import build_container

    settings = _settings(data_dir)
    container = await build_container(settings, with_queue=settings.write_queue_url is not None)
    try:
        return await body(container)
    finally:
        await container.aclose()


@token_app.command("create")
def token_create(
    tenant: Annotated[str, typer.Option(help="Tenant the key belongs to.")],
    name: Annotated[str, typer.Option(help="A label for people.")] = "api key",
    agent: Annotated[list[str] | None, typer.Option(help="Limit the key to this agent (repeatable).")] = None,
    read_only: Annotated[bool, typer.Option(help="Search only; writes are refused.")] = False,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Mint an API key. The token is printed once and never stored."""

    async def body(container: Any) -> tuple[Any, Any]:
        return await container.keys.create(tenant, name, agent or None, read_only)  # type: ignore[no-any-return]

    minted, record = _run(lambda: _with_container(data_dir, body))
    if as_json:
        print(json.dumps({"key_id": minted.key_id, "token": minted.token, "tenant_id": record.tenant_id}))
    else:
        console.print(f"key id: {minted.key_id}  tenant: {record.tenant_id}")
        print(f"Token: {minted.token}")


@token_app.command("list")
def token_list(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """List API keys (ids and scopes, never secrets)."""

    async def body(container: Any) -> list[Any]:
        return await container.keys.list(tenant)  # type: ignore[no-any-return]

    records = _run(lambda: _with_container(data_dir, body))
    if as_json:
        print(json.dumps([r.model_dump(mode="json", exclude={"secret_sha256"}) for r in records]))
        return
    table = Table("key id", "tenant", "name", "agents", "read-only", "created", "revoked")
    for r in records:
        table.add_row(
            r.key_id,
            r.tenant_id,
            r.name,
            ",".join(r.agent_ids or ["*"]),
            str(r.read_only),
            f"{r.created_at:%Y-%m-%d %H:%M}",
            f"{r.revoked_at:%Y-%m-%d %H:%M}" if r.revoked_at else "",
        )
    console.print(table)


@token_app.command("revoke")
def token_revoke(key_id: str, data_dir: DataDir = None) -> None:
    """Revoke a key by id (takes effect within the token cache TTL, 30 s by default)."""

    async def body(container: Any) -> bool:
        return await container.keys.revoke(key_id)  # type: ignore[no-any-return]

    if not _run(lambda: _with_container(data_dir, body)):
        err_console.print(f"[red]error:[/] no active key with id {key_id}")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")


@maintenance_app.command("run")
def maintenance_run(
    tenant: Annotated[
        str | None, typer.Option(help="Only this tenant's memories (a cycle of its own; no queue sweep).")
    ] = None,
    budget_s: Annotated[
        float | None, typer.Option(help="Stop after this many seconds (default: the configured budget).")
    ] = None,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Run (or resume) the maintenance cycle once, as the schedule does, and print what each step did."""
    from datetime import timedelta

    async def body(container: Any) -> Any:
        if container.maintain is None:
            raise ConfigurationError("maintenance is not wired in this process")
        budget = timedelta(seconds=budget_s) if budget_s is not None else None
        return await container.maintain.run(budget=budget, tenant_id=tenant)

    report = _run(lambda: _with_container(data_dir, body))
    if as_json:
        print(report.model_dump_json())
    else:
        table = Table("step", "status", "counts", "seconds", "detail", title="maintenance")
        for step in report.steps:
            counts = ", ".join(f"{k} {v}" for k, v in step.counts.items())
            table.add_row(step.name, step.status, counts, f"{step.duration_s:.2f}", step.detail or "")
        console.print(table)
        state = "cycle finished" if report.finished else "cycle not finished: the next run resumes it"
        console.print(f"{state} ({report.duration_s:.2f}s, budget {report.budget_s:g}s)")
    if any(step.status == "failed" for step in report.steps):
        raise typer.Exit(1)


def _register_operator_commands() -> None:
    """write, search, inspect, export, import, ingest, reembed (``hindsight.cli_ops``)."""
    from hindsight.cli_ops import register

    register(app)


_register_operator_commands()


if __name__ == "__main__":
    app()

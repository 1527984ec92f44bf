"""``hindsight token``: mint, list and revoke API keys."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from hindsight.cli.common import console, err_console, run_or_exit, with_container
from hindsight.cli.options import DataDir, JsonOut


def _tenant(value: str) -> str:
    """``--tenant`` as the service takes a tenant id (``domain.auth.tenant_id_problem``); refused (exit 2)
    before the stack opens."""
    from hindsight.domain.auth import tenant_id_problem

    problem = tenant_id_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def _agents(values: list[str] | None) -> list[str] | None:
    """Each ``--agent`` an agent id the tools accept (``domain.auth.agent_id_problem``): a key limited to
    one they refuse could not be used (trial24); refused (exit 2) before the stack opens."""
    from hindsight.domain.auth import agent_id_problem

    for value in values or ():
        problem = agent_id_problem(value)
        if problem is not None:
            raise typer.BadParameter(problem)
    return values


token_app = typer.Typer(help="Mint, list and revoke API keys.", no_args_is_help=True)


@token_app.command("create")
def token_create(
    tenant: Annotated[
        str, typer.Option(help="Tenant the key belongs to (1–128 characters).", callback=_tenant)
    ],
    name: Annotated[str, typer.Option(help="A label for people.")] = "api key",
    agent: Annotated[
        list[str] | None,
        typer.Option(
            help="Limit the key to this agent (repeatable; letters, digits and _.:@-). Leave it out for a "
            "key that may act for every agent of the tenant.",
            callback=_agents,
        ),
    ] = None,
    read_only: Annotated[bool, typer.Option(help="Search only; writes are refused.")] = False,
    trusted: Annotated[
        bool,
        typer.Option(
            help="An operator's key: its writes may give inferences (source agent_inferred) and text that "
            "reads like a prompt injection any importance; other keys are capped at 0.5."
        ),
    ] = False,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Mint an API key. The token is printed once and never stored."""

    async def body(container: Any) -> tuple[Any, Any]:
        return await container.keys.create(tenant, name, agent or None, read_only, trusted)  # type: ignore[no-any-return]

    minted, record = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
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

    records = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
    if as_json:
        print(json.dumps([r.model_dump(mode="json", exclude={"secret_sha256"}) for r in records]))
        return
    table = Table()
    # The id is what `token revoke` takes: never shortened, whatever the terminal's width.
    table.add_column("key id", no_wrap=True, min_width=max((len(r.key_id) for r in records), default=6))
    for title in ("tenant", "name", "agents", "read-only", "trusted", "created", "revoked"):
        table.add_column(title)
    for r in records:
        table.add_row(
            r.key_id,
            r.tenant_id,
            r.name,
            ",".join(r.agent_ids or ["*"]),
            str(r.read_only),
            str(r.trusted),
            f"{r.created_at:%Y-%m-%d %H:%M}",
            f"{r.revoked_at:%Y-%m-%d %H:%M}" if r.revoked_at else "",
        )
    console.print(table)


@token_app.command("revoke")
def token_revoke(key_id: str, data_dir: DataDir = None) -> None:
    """Revoke a key by id (takes effect within the token cache TTL, 30 s by default)."""

    async def body(container: Any) -> bool:
        return await container.keys.revoke(key_id)  # type: ignore[no-any-return]

    if not run_or_exit(lambda: with_container(data_dir, body)):
        err_console.print(f"[red]error:[/] no active key with id {key_id}")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")

"""``hindsight maintenance``: run the scheduled maintenance cycle by hand and print what each step did."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from hindsight.cli.common import console, run_or_exit, with_container
from hindsight.cli.options import DataDir, JsonOut

maintenance_app = typer.Typer(
    help="Scheduled maintenance: decay and archive, consolidation, episodic → semantic, sweeps.",
    no_args_is_help=True,
)


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
        budget = timedelta(seconds=budget_s) if budget_s is not None else None
        return await container.maintain.run(budget=budget, tenant_id=tenant)

    report = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
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

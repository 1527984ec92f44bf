"""The ``hindsight`` command line (typer + rich).

Commands that talk to a database read the usual ``HINDSIGHT_*`` environment, plus — when present —
the ``hindsight.env`` that ``hindsight run`` writes into its data folder, so they reach the local
stack without any setup. Exit codes: 0 success, 1 a problem with the request or the data, 2 usage,
3 configuration or an unreachable dependency.

One module per command group: ``stack`` (run, migrate, worker), ``memories`` (write, search, inspect),
``data`` (export, import, ingest), ``reembed``, ``tokens`` (the ``token`` group) and ``maintenance`` (the
``maintenance`` group); ``common`` and ``progress`` hold what they share. Every command is registered
here, on ``app`` (the ``hindsight`` console script), in the order ``hindsight --help`` lists them.
"""

from __future__ import annotations

import typer

from hindsight.cli import data, maintenance, memories, reembed, stack, tokens

app = typer.Typer(help="Hindsight: long-term memory for LLM agents over MCP.", no_args_is_help=True)
app.add_typer(tokens.token_app, name="token")
app.add_typer(maintenance.maintenance_app, name="maintenance")
app.command()(stack.run)
app.command()(stack.migrate)
app.command()(stack.worker)
app.command()(memories.write)
app.command()(memories.search)
app.command()(memories.inspect)
app.command("export")(data.export_)
app.command("import")(data.import_)
app.command()(data.ingest)
app.command()(reembed.reembed)

__all__ = ["app"]

"""The options several commands share (``--data-dir``, ``--json``, ``--tenant``, ``--agent``) and the
default tenant."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DEFAULT_TENANT = "local"
"""The local stack's dev tenant (``hindsight run`` mints its token for it)."""

DataDir = Annotated[
    Path | None, typer.Option(help="Local stack data folder (default: $HINDSIGHT_DATA_DIR or ./var/local).")
]
JsonOut = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Tenant = Annotated[str, typer.Option(help="Tenant whose memory to use.")]
Agent = Annotated[str, typer.Option(help="Agent within the tenant.")]

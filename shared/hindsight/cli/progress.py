"""Progress bars of the long operator commands (import, ingest, reembed). They go to stderr, so ``--json``
output on stdout stays clean for scripts."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from hindsight.cli.common import err_console


class RateColumn(ProgressColumn):
    """Items per second, as rich measures it over the last seconds."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "–/s", style="progress.data.speed")


def progress_bar() -> Progress:
    """A bar with the rate, elapsed and remaining time, on stderr."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )

"""The Metrics port: counters and timings."""

from __future__ import annotations

from typing import Protocol


class Metrics(Protocol):
    """Counters and timings (CloudWatch EMF through Powertools in Lambda, in memory locally).

    Names are CamelCase metric names (``Searches``, ``DedupMerges``); never raises.
    """

    def count(self, name: str, value: float = 1.0) -> None: ...

    def timing(self, name: str, ms: float) -> None: ...

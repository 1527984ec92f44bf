"""The Clock port: what "now" is, so use cases never read the system clock themselves."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Clock(Protocol):
    """Current time (UTC, timezone-aware)."""

    def now(self) -> datetime: ...

"""The Clock port on the system clock (UTC)."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    """The Clock port on the system clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

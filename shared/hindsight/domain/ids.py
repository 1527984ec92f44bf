"""Identifiers: time-ordered UUIDs (version 7, RFC 9562) so new rows land at the end of the index."""

from __future__ import annotations

import os
import time
from uuid import UUID


def uuid7(now_ms: int | None = None) -> UUID:
    """A UUIDv7: 48-bit Unix milliseconds, version and variant bits, 74 random bits (RFC 9562 §5.7)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return UUID(int=value)

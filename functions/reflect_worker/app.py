"""Reflection worker (SQS event source with ReportBatchItemFailures)."""

from __future__ import annotations

from typing import Any

_handler: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Turn each finished-task report into one episodic memory; returns the partial batch response."""
    global _handler
    if _handler is None:
        from hindsight.api.entrypoints import reflect_worker_handler

        _handler = reflect_worker_handler()
    result: dict[str, Any] = _handler(event, context)
    return result

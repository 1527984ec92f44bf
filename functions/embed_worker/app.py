"""Embedding worker (SQS event source with ReportBatchItemFailures)."""

from __future__ import annotations

from typing import Any

_handler: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Embed, deduplicate and store a batch of write jobs; returns the partial batch response."""
    global _handler
    if _handler is not None:
        result: dict[str, Any] = _handler(event, context)
        return result
    from hindsight.api.runtime import cold_start_without_gc

    with cold_start_without_gc():  # the first invocation: imports, build, first event
        from hindsight.api.entrypoints import embed_worker_handler

        _handler = embed_worker_handler()
        first: dict[str, Any] = _handler(event, context)
    return first

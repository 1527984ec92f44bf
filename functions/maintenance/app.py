"""Scheduled maintenance (EventBridge schedule): decay, consolidation, episodic → semantic, sweeps."""

from __future__ import annotations

from typing import Any

_handler: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Run (or resume) one time-boxed maintenance cycle; returns the run's report."""
    global _handler
    if _handler is None:
        from hindsight.api.entrypoints import maintenance_handler

        _handler = maintenance_handler()
    result: dict[str, Any] = _handler(event, context)
    return result

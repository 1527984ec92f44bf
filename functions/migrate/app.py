"""Schema migrations: run by a CloudFormation custom resource on every deploy, or invoked directly."""

from __future__ import annotations

from typing import Any


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Apply pending migrations; answers CloudFormation for custom-resource events (see migrate_handler)."""
    from hindsight.api.migrate_handler import handle

    result: dict[str, Any] = handle(event, context)
    return result

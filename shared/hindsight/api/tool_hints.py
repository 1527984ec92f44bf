"""What ``tools/list`` says about a tool besides its schemas: a title, behaviour hints, its rate budget.

Hints follow MCP's ``ToolAnnotations`` (all hints, for clients to decide what to confirm with a user):
``readOnlyHint`` only where the call changes nothing at all; ``idempotentHint`` where repeating a call
with the same arguments changes nothing more; ``openWorldHint`` false everywhere (the tools touch only
this service's memory). ``_meta[RATE_BUDGET_META]`` says which rate budget the call counts against
besides the request budget: "writes" for calls that change memory (``usecases.rate_limits``).
"""

from __future__ import annotations

from typing import Any

from mcp_types import ToolAnnotations

RATE_BUDGET_META = "dev.hindsight/rate_budget"
"""Tool ``_meta`` key: "writes" (counts against the budget of calls that change memory) or "requests"."""
ITEMWISE_META = "dev.hindsight/itemwise"
"""Tool ``_meta`` key: the list argument whose objects are answered one by one (memory_write_batch's
"items"): a value unreadable inside one of them is that item's error, not the call's."""


def _hints(title: str, annotations: ToolAnnotations, budget: str) -> dict[str, Any]:
    return {"title": title, "annotations": annotations, "meta": {RATE_BUDGET_META: budget}}


def read_only(title: str) -> dict[str, Any]:
    """``mcp.tool`` keyword arguments for a tool that changes nothing."""
    return _hints(title, ToolAnnotations(title=title, readOnlyHint=True, openWorldHint=False), "requests")


def recall(title: str) -> dict[str, Any]:
    """For a tool that reads but records the access (access counts and times feed ranking and eviction):
    not read-only and not idempotent (each call counts again), never destructive; it counts against the
    request budget only, as a read."""
    annotations = ToolAnnotations(
        title=title, readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False
    )
    return _hints(title, annotations, "requests")


def change(
    title: str, *, destructive: bool = False, idempotent: bool = False, itemwise: str | None = None
) -> dict[str, Any]:
    """For a tool that changes memory: ``destructive`` when it removes or overwrites what was there,
    ``idempotent`` when the same call again changes nothing more, ``itemwise`` the list argument whose
    objects it answers one by one (``ITEMWISE_META``)."""
    annotations = ToolAnnotations(
        title=title,
        readOnlyHint=False,
        destructiveHint=destructive,
        idempotentHint=idempotent,
        openWorldHint=False,
    )
    hints = _hints(title, annotations, "writes")
    if itemwise is not None:
        hints["meta"][ITEMWISE_META] = itemwise
    return hints

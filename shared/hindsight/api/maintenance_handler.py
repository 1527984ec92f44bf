"""EventBridge schedule → ``Maintain``: the maintenance function's entry logic.

The event is EventBridge's "Scheduled Event" (``source`` "aws.events", ``detail-type`` "Scheduled
Event", ``time``, ``resources`` = [rule ARN], ``detail`` {}); ``{}`` from ``aws lambda invoke`` or
``sam local invoke`` works as well. ``detail.tenant_id`` (manual invokes) limits the run to one tenant.
Any other event shape is refused with ``ValueError`` (a mis-wired trigger must not run maintenance).

The run's budget is the smaller of ``HINDSIGHT_MAINTENANCE_BUDGET_S`` and the invocation's time left
minus ``DEADLINE_MARGIN_S``; a run that runs out of time stops cleanly and the next schedule tick resumes
it. The handler returns the report as a JSON-ready dict. It raises (so the invocation counts as an
error, and the Errors alarm fires) when a step failed; the work other steps did is kept.

Nothing happens at import time; the container is built on the first invocation and kept warm.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from hindsight.api.runtime import ProcessLoop
from hindsight.bootstrap import Container, build_container
from hindsight.config import Settings
from hindsight.usecases.maintenance_report import MaintenanceReport

log = logging.getLogger(__name__)

SCHEDULED_EVENT_TYPE = "Scheduled Event"
EVENT_SOURCE = "aws.events"
DEADLINE_MARGIN_S = 20.0
"""Seconds kept back from the Lambda deadline: the unit in flight finishes and the lease is released."""
MIN_BUDGET_S = 1.0


class MaintenanceFailed(RuntimeError):
    """A maintenance step failed; the message names the steps, the report is logged."""


def is_scheduled_event(event: object) -> bool:
    """True for an EventBridge scheduled event (source ``aws.events``, detail-type ``Scheduled Event``)."""
    return (
        isinstance(event, dict)
        and event.get("source") == EVENT_SOURCE
        and event.get("detail-type") == SCHEDULED_EVENT_TYPE
    )


def _tenant(event: dict[str, Any]) -> str | None:
    detail = event.get("detail")
    if isinstance(detail, dict) and isinstance(detail.get("tenant_id"), str) and detail["tenant_id"]:
        return str(detail["tenant_id"])
    return None


class MaintenanceHandler:
    """``handler(event, context)`` for the EventBridge schedule; returns ``MaintenanceReport`` as a dict
    plus ``event_id`` and ``scheduled_at`` (the event's ``id`` and ``time``, None for a plain invoke)."""

    def __init__(self, factory: Callable[[], Awaitable[Container]], budget_s: float) -> None:
        self._factory = factory
        self._budget_s = budget_s
        self._runtime = ProcessLoop()
        self._container: Container | None = None

    def container(self) -> Container:
        if self._container is None:
            self._container = self._runtime.run(self._factory())
        return self._container

    def metrics(self) -> object | None:
        """The container's Metrics (None before the first invocation built it)."""
        return self._container.metrics if self._container is not None else None

    def budget(self, context: Any) -> timedelta:
        """The configured budget, cut to the invocation's time left minus ``DEADLINE_MARGIN_S``."""
        budget = self._budget_s
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        if remaining is not None:
            budget = min(budget, max(MIN_BUDGET_S, float(remaining()) / 1000.0 - DEADLINE_MARGIN_S))
        return timedelta(seconds=budget)

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """Raises ValueError (not a scheduled event), MaintenanceFailed (a step failed), and whatever the
        container raises at cold start (ConfigurationError, Unavailable)."""
        if event and not is_scheduled_event(event):
            raise ValueError(
                f"not an EventBridge scheduled event (source {event.get('source')!r}, detail-type "
                f"{event.get('detail-type')!r}); the maintenance function takes those or {{}}"
            )
        maintain = self.container().maintain
        report: MaintenanceReport = self._runtime.run(
            maintain.run(budget=self.budget(context), tenant_id=_tenant(event) if event else None)
        )
        result = report.model_dump(mode="json")
        result["event_id"] = event.get("id") if event else None
        result["scheduled_at"] = event.get("time") if event else None
        failed = [s for s in report.steps if s.status == "failed"]
        if failed:
            log.error("maintenance run %s: %s", report.run_id, result)
            raise MaintenanceFailed("; ".join(f"{s.name}: {s.detail}" for s in failed))
        log.info("maintenance run %s", report.run_id, extra={"report": result})
        return result

    def close(self) -> None:
        if self._container is not None:
            self._runtime.run(self._container.aclose())
            self._container = None


def build_handler(settings: Settings | None = None) -> MaintenanceHandler:
    """The maintenance function's handler: settings from the environment (unless given); with the
    queues when they are configured, so the stuck-work sweep can re-enqueue lost jobs."""
    resolved = settings or Settings.load()
    with_queue = resolved.write_queue_url is not None
    return MaintenanceHandler(
        lambda: build_container(resolved, with_queue=with_queue), budget_s=resolved.maintenance_budget_s
    )

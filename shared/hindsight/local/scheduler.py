"""A local stand-in for the EventBridge schedule of the maintenance function.

While ``hindsight run`` (``make run``) serves, a background thread invokes the maintenance function's
handler with an EventBridge "Scheduled Event" every ``interval_s`` seconds — what the ``MaintenanceRate``
schedule does in AWS — under a Lambda-like context whose time limit bounds each run's budget. Runs never
overlap (one thread) and a failed run is logged, not fatal: the next tick resumes the cycle.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hindsight.config import Settings
from hindsight.local.poller import LocalLambdaContext

log = logging.getLogger(__name__)

LOCAL_RULE_ARN = "arn:aws:events:us-east-1:000000000000:rule/hindsight-local-maintenance"
FUNCTION_NAME = "MaintenanceFunction"
LOCAL_TIMEOUT_S = 60.0
"""The local "function timeout": each run's budget is at most this minus the handler's 20 s margin, so
Ctrl-C waits at most ~40 s for a run in progress (a local run usually takes well under a second)."""
FIRST_RUN_AFTER_S = 30.0
"""The first tick comes this soon after start (or after one interval, if that is shorter)."""

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def scheduled_event(now: datetime, rule_arn: str = LOCAL_RULE_ARN) -> dict[str, Any]:
    """The event EventBridge sends a schedule rule's target (as tests/events/scheduled_maintenance.json)."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": rule_arn.split(":")[4],
        "time": now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": rule_arn.split(":")[3],
        "resources": [rule_arn],
        "detail": {},
    }


class MaintenanceScheduler:
    """Fires ``handler`` every ``interval_s`` seconds on a daemon thread until ``stop()``."""

    def __init__(
        self,
        handler: Handler,
        interval_s: float,
        *,
        first_after_s: float | None = None,
        timeout_s: float = LOCAL_TIMEOUT_S,
        close: Callable[[], None] | None = None,
    ) -> None:
        self._handler = handler
        self._interval_s = interval_s
        self._first_after_s = min(interval_s, FIRST_RUN_AFTER_S) if first_after_s is None else first_after_s
        self._timeout_s = timeout_s
        self._close = close
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.failures = 0
        self.last_report: dict[str, Any] | None = None

    @classmethod
    def for_settings(cls, settings: Settings) -> MaintenanceScheduler:
        """The maintenance function's own handler on ``settings``, every ``maintenance_interval_s``."""
        from hindsight.api.maintenance_handler import build_handler

        handler = build_handler(settings)
        return cls(handler, settings.maintenance_interval_s, close=handler.close)

    def fire(self) -> dict[str, Any] | None:
        """One invocation now; returns the report, or None when the run failed (logged)."""
        context = LocalLambdaContext(FUNCTION_NAME, timeout_s=self._timeout_s)
        try:
            report = self._handler(scheduled_event(datetime.now(UTC)), context)
        except Exception:
            self.failures += 1
            log.exception("scheduled maintenance failed; the next tick resumes it")
            return None
        finally:
            self.runs += 1
        self.last_report = report
        return report

    def _run(self) -> None:
        wait = self._first_after_s
        while not self._stop.wait(wait):
            self.fire()
            wait = self._interval_s

    def start(self) -> MaintenanceScheduler:
        self._thread = threading.Thread(target=self._run, name="maintenance-schedule", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = LOCAL_TIMEOUT_S) -> None:
        """Stop ticking, wait for a run in progress (at most ``timeout_s``), release its resources."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            alive = self._thread.is_alive()
            self._thread = None
            if alive:
                log.warning("a maintenance run is still in progress; not waiting for it")
                return
        if self._close is not None:
            try:
                self._close()
            except Exception:
                log.debug("error closing the maintenance handler", exc_info=True)
            self._close = None

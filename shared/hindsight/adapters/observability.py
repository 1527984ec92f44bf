"""Observability adapters: the Metrics port (Powertools EMF, in memory, none), structured JSON logs with
the Powertools formatter, and the Powertools Tracer. The only module besides the Lambda glue that
imports Powertools' logging, metrics and tracing; every object is built on demand, never at import.

Log lines are JSON (``LambdaPowertoolsFormatter``) with the bound request context (``correlation_id``,
``rpc_id``, ``message_id`` …, see ``hindsight.correlation``) as top-level keys. Metrics are EMF
documents on stdout, which CloudWatch turns into metrics in Lambda; locally they stay in memory (the
inspector shows them) unless asked for on stdout.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from hindsight.correlation import ContextFilter

SERVICE = "hindsight"
DEFAULT_NAMESPACE = "Hindsight"


class NullMetrics:
    """Metrics that go nowhere (tests that do not look, tools that do not care)."""

    def count(self, name: str, value: float = 1.0) -> None:
        return None

    def timing(self, name: str, ms: float) -> None:
        return None

    def flush(self) -> None:
        return None


class InMemoryMetrics:
    """Running totals per metric name, thread-safe; ``snapshot()`` for the inspector and tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, float] = defaultdict(float)
        self._timings: dict[str, list[float]] = defaultdict(list)

    def count(self, name: str, value: float = 1.0) -> None:
        with self._lock:
            self._counts[name] += value

    def timing(self, name: str, ms: float) -> None:
        with self._lock:
            samples = self._timings[name]
            samples.append(ms)
            del samples[:-1000]  # the last 1000 samples are enough for a median

    def flush(self) -> None:
        return None

    def snapshot(self) -> dict[str, Any]:
        """{"counts": {name: total}, "timings": {name: {"n", "p50_ms", "max_ms"}}}."""
        with self._lock:
            timings = {}
            for name, samples in self._timings.items():
                ordered = sorted(samples)
                timings[name] = {
                    "n": len(ordered),
                    "p50_ms": round(ordered[len(ordered) // 2], 2) if ordered else None,
                    "max_ms": round(ordered[-1], 2) if ordered else None,
                }
            return {"counts": dict(self._counts), "timings": timings}


class EmfMetrics(InMemoryMetrics):
    """Powertools Metrics: CloudWatch Embedded Metric Format on stdout, flushed once per invocation
    (or per MCP request locally). Keeps running totals as well, like ``InMemoryMetrics``."""

    def __init__(self, namespace: str | None = None, service: str = SERVICE) -> None:
        super().__init__()
        from aws_lambda_powertools import Metrics as PowertoolsMetrics

        self._emf = PowertoolsMetrics(
            namespace=namespace or os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_NAMESPACE,
            service=service,
        )
        self._pending = False

    def count(self, name: str, value: float = 1.0) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        super().count(name, value)
        self._add(name, MetricUnit.Count, value)

    def timing(self, name: str, ms: float) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        super().timing(name, ms)
        self._add(name, MetricUnit.Milliseconds, ms)

    def _add(self, name: str, unit: Any, value: float) -> None:
        try:
            with self._lock:
                self._emf.add_metric(name=name, unit=unit, value=value)
                self._pending = True
        except Exception:  # a metric must never break the request it describes
            logging.getLogger(__name__).debug("metric %s dropped", name, exc_info=True)

    def flush(self) -> None:
        """Print the pending EMF document (nothing when no metric was added since the last flush)."""
        with self._lock:
            if not self._pending:
                return
            self._pending = False
            try:
                self._emf.flush_metrics(raise_on_empty_metrics=False)
            except Exception:
                logging.getLogger(__name__).warning("metrics flush failed", exc_info=True)


def make_metrics(kind: str, *, namespace: str | None = None) -> NullMetrics | InMemoryMetrics | EmfMetrics:
    """``emf`` | ``memory`` | ``off``; ``auto`` is EMF inside Lambda and in memory elsewhere."""
    if kind == "auto":
        kind = "emf" if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") else "memory"
    if kind == "emf":
        return EmfMetrics(namespace)
    if kind == "memory":
        return InMemoryMetrics()
    return NullMetrics()


def json_formatter(service: str = SERVICE) -> logging.Formatter:
    """The Powertools JSON formatter (one object per line: level, location, message, timestamp,
    service and every ``extra`` field)."""
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    return LambdaPowertoolsFormatter(service=service)


def json_handler(stream: IO[str] | None = None, path: Path | None = None) -> logging.Handler:
    """A handler writing JSON lines with the request context to ``stream`` or ``path``."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream)
    handler.setFormatter(json_formatter())
    handler.addFilter(ContextFilter())
    return handler


def lambda_logger(level: str) -> Any:
    """The Powertools Logger for a Lambda function (service ``hindsight``): it owns the ``hindsight``
    logger, so every module logger below it writes JSON through it, with the request context."""
    from aws_lambda_powertools import Logger

    logger = Logger(service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE), level=level)
    logger.registered_handler.addFilter(ContextFilter())
    logging.getLogger(SERVICE).propagate = False  # the runtime's root handler would print it twice
    return logger


_TRUTHY = {"1", "y", "yes", "t", "true", "on"}
"""Values Powertools reads as true (``aws_lambda_powertools.shared.functions.strtobool``)."""


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Powertools' own rule for whether its Tracer records (``Tracer._is_tracer_disabled``): inside
    Lambda (``LAMBDA_TASK_ROOT``), not under SAM local or Chalice, and ``POWERTOOLS_TRACE_DISABLED``
    not truthy. Read from ``env`` (default ``os.environ``) without importing the X-Ray SDK."""
    env = os.environ if env is None else env
    disabled = env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in _TRUTHY
    local = bool(env.get("AWS_SAM_LOCAL") or env.get("AWS_CHALICE_CLI_MODE"))
    return bool(env.get("LAMBDA_TASK_ROOT")) and not local and not disabled


class _NoTracer:
    """What ``lambda_tracer`` returns when tracing is off: the handler runs unwrapped."""

    def capture_lambda_handler(self, handler: Any) -> Any:
        return handler


def lambda_tracer() -> Any:
    """The Powertools Tracer (X-Ray) when ``tracing_enabled()``; otherwise a stand-in that wraps nothing,
    so a function without tracing (outside Lambda, ``TracingMode=PassThrough`` in the template, which sets
    ``POWERTOOLS_TRACE_DISABLED``) never imports the X-Ray SDK: about a sixth of the MCP function's cold
    start (bench/latency.py, cold starts)."""
    if not tracing_enabled():
        return _NoTracer()
    from aws_lambda_powertools import Tracer

    return Tracer(service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE))

"""Builders for the Lambda entry points: settings from the environment → adapter, wrapped with the
Powertools Logger, Tracer and a metrics flush per invocation (``api.observe.ObservedHandler``). Called
lazily by ``functions/*/app.py`` on the first invocation (nothing happens at import time). Each builder
imports only what its function runs: a cold start pays for no other function's modules."""

from __future__ import annotations

from hindsight.api.observe import ObservedHandler
from hindsight.config import Settings


def mcp_http_handler() -> ObservedHandler:
    """The MCP function: validate settings, then serve the ASGI app through the Lambda adapter (the
    app's middleware flushes metrics after each request)."""
    from hindsight.api.lambda_http import LambdaHttpAdapter
    from hindsight.api.mcp_server import create_http_app
    from hindsight.bootstrap import build_container

    settings = Settings.load()
    adapter = LambdaHttpAdapter(create_http_app(settings, lambda: build_container(settings)))
    return ObservedHandler(adapter, name="mcp_http", level=settings.log_level)


def reflect_worker_handler() -> ObservedHandler:
    """The reflection worker: the reflector (rules or chat model), the embedder and the store."""
    from hindsight.api.sqs_worker import ReflectJobWorker
    from hindsight.bootstrap import build_container

    settings = Settings.load()
    worker = ReflectJobWorker(lambda: build_container(settings, with_queue=False))
    return ObservedHandler(worker, name="reflect_worker", level=settings.log_level, metrics=worker.metrics)


def embed_worker_handler() -> ObservedHandler:
    """The embedding worker: no queue client needed, only the store and the embedder."""
    from hindsight.api.sqs_worker import WriteJobWorker
    from hindsight.bootstrap import build_container

    settings = Settings.load()
    worker = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    return ObservedHandler(worker, name="embed_worker", level=settings.log_level, metrics=worker.metrics)


def maintenance_handler() -> ObservedHandler:
    """The scheduled maintenance function (``api.maintenance_handler``)."""
    from hindsight.api.maintenance_handler import build_handler

    settings = Settings.load()
    handler = build_handler(settings)
    return ObservedHandler(handler, name="maintenance", level=settings.log_level, metrics=handler.metrics)

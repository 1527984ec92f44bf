"""Builders for the Lambda entry points: settings from the environment → adapter. Called lazily by
``functions/*/app.py`` on the first invocation (nothing happens at import time)."""

from __future__ import annotations

from hindsight.api.lambda_http import LambdaHttpAdapter
from hindsight.api.mcp_server import create_http_app
from hindsight.api.sqs_worker import ReflectJobWorker, WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.config import Settings


def mcp_http_handler() -> LambdaHttpAdapter:
    """The MCP function: validate settings, then serve the ASGI app through the Lambda adapter."""
    settings = Settings.load()
    return LambdaHttpAdapter(create_http_app(settings, lambda: build_container(settings)))


def reflect_worker_handler() -> ReflectJobWorker:
    """The reflection worker: the reflector (rules or chat model), the embedder and the store."""
    settings = Settings.load()
    return ReflectJobWorker(lambda: build_container(settings, with_queue=False))


def embed_worker_handler() -> WriteJobWorker:
    """The embedding worker: no queue client needed, only the store and the embedder."""
    settings = Settings.load()
    return WriteJobWorker(lambda: build_container(settings, with_queue=False))

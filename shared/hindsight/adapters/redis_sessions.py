"""The SessionLister port on Redis: an agent's working-memory sessions, for operators (inspect, the
inspector page). Reads only; records no access and leaves every TTL as it is."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from redis.exceptions import RedisError

from hindsight.adapters.redis_working_memory import _decode, _expires_in, _unavailable, session_prefix
from hindsight.domain.working_memory import SessionState


class RedisSessionLister:
    """SCANs the store's ``hs:<store id>:wm:<tenant>:<agent>:*`` (bounded by ``limit`` sessions)."""

    def __init__(self, client: Any, store_id: str = "") -> None:
        self._client = client
        self._store_id = store_id

    async def sessions(self, tenant_id: str, agent_id: str, limit: int) -> list[tuple[str, SessionState]]:
        prefix = session_prefix(self._store_id, tenant_id, agent_id)
        found: list[tuple[str, SessionState]] = []
        try:
            async for raw_key in self._client.scan_iter(match=prefix + "*", count=200):
                key = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
                session_id = unquote(key[len(prefix) :])
                async with self._client.pipeline(transaction=True) as pipe:
                    pipe.hgetall(key)
                    pipe.pttl(key)
                    raw, pttl = await pipe.execute()
                if raw:
                    found.append(
                        (
                            session_id,
                            SessionState(items=_decode(key, raw), expires_in_s=_expires_in(int(pttl))),
                        )
                    )
                if len(found) >= limit:
                    break
        except (RedisError, OSError) as exc:
            raise _unavailable(exc) from exc
        return sorted(found, key=lambda pair: pair[0])

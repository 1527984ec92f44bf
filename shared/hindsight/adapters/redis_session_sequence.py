"""The SessionSequence port on Redis: one counter per (tenant, agent, session), ``hs[:<store id>]:seq:…``.

A counter is created at the current time in microseconds (Redis' own clock, ``TIME``) and then counts up
by one per write, in one Lua script (atomic, one round trip). Its key expires ``SEQUENCE_TTL_S`` after the
session's last write; a session written to again later, or after Redis lost the key, starts a new counter
at the new time — greater than every number the old one gave (it would need a million writes a second
since its creation to catch up), so numbers only ever increase within a session.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hindsight.domain.errors import Unavailable

SEQUENCE_TTL_S = 30 * 86_400
"""A session's counter lives this long after its last write (numbers stay increasing after it anyway)."""

_NEXT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2])))
end
local value = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return value
"""


class RedisSessionSequence:
    """``next`` is one script call; the Redis client is the process's shared one."""

    def __init__(self, client: Any, store_id: str = "") -> None:
        self._client = client
        self._prefix = f"hs:{store_id}:seq:" if store_id else "hs:seq:"
        self._script: Any = None

    async def next(self, tenant_id: str, agent_id: str, session_id: str) -> int:
        """See ``SessionSequence.next``. Raises Unavailable when Redis cannot be reached."""
        key = self._prefix + ":".join(quote(part, safe="") for part in (tenant_id, agent_id, session_id))
        if self._script is None:
            self._script = self._client.register_script(_NEXT)
        try:
            return int(await self._script(keys=[key], args=[SEQUENCE_TTL_S]))
        except Exception as exc:  # redis-py raises ConnectionError, TimeoutError, ResponseError, …
            raise Unavailable(f"session sequence unavailable ({type(exc).__name__})") from exc

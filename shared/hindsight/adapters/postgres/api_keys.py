"""ApiKeyStore over Postgres (the ``api_keys`` table holds digests, never secrets)."""

from __future__ import annotations

from datetime import datetime

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from hindsight.domain.auth import ApiKeyRecord

_COLUMNS = "key_id, tenant_id, name, secret_sha256, agent_ids, read_only, created_at, revoked_at, trusted"


class PostgresApiKeyStore:
    """The ApiKeyStore port."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def find(self, key_id: str) -> ApiKeyRecord | None:
        async with self._pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            await cur.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE key_id = %s", (key_id,))
            row = await cur.fetchone()
        return ApiKeyRecord.model_validate(row) if row else None

    async def create(self, record: ApiKeyRecord) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                f"INSERT INTO api_keys ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    record.key_id,
                    record.tenant_id,
                    record.name,
                    record.secret_sha256,
                    record.agent_ids,
                    record.read_only,
                    record.created_at,
                    record.revoked_at,
                    record.trusted,
                ),
            )

    async def revoke(self, key_id: str, at: datetime) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE api_keys SET revoked_at = %s WHERE key_id = %s AND revoked_at IS NULL", (at, key_id)
            )
            return cur.rowcount == 1

    async def list(self, tenant_id: str | None) -> list[ApiKeyRecord]:
        async with self._pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            if tenant_id is None:
                await cur.execute(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at")
            else:
                await cur.execute(
                    f"SELECT {_COLUMNS} FROM api_keys WHERE tenant_id = %s ORDER BY created_at", (tenant_id,)
                )
            rows = await cur.fetchall()
        return [ApiKeyRecord.model_validate(r) for r in rows]

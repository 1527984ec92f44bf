"""The maintenance cycle's lease and resume point on Postgres: the ``maintenance_state`` row (schema 003),
which belongs to no tenant."""

from __future__ import annotations

from datetime import timedelta

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.rows import fetch_one
from hindsight.domain.maintenance import MaintenanceState
from hindsight.domain.memory import Scope

_STATE_COLUMNS = "step, cursor_tenant_id, cursor_agent_id, position, cycle_started_at, changed_since"


class PostgresCycleLease:
    """The MaintenanceStore port's lease and resume point (a part of ``PostgresMaintenanceStore``)."""

    _pool: AsyncConnectionPool

    async def acquire(self, name: str, owner: str, lease: timedelta) -> MaintenanceState | None:
        """Take the lease of cycle ``name`` for ``lease`` (database clock) unless another owner holds an
        unexpired one; returns the saved state, or None when the lease is held elsewhere."""
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO maintenance_state (name) VALUES (%s) ON CONFLICT (name) DO NOTHING", (name,)
            )
            row = await fetch_one(
                conn,
                f"""UPDATE maintenance_state
                    SET lease_owner = %(owner)s, lease_until = now() + %(lease)s, updated_at = now()
                    WHERE name = %(name)s
                      AND (lease_owner IS NULL OR lease_owner = %(owner)s OR lease_until < now())
                    RETURNING {_STATE_COLUMNS}""",
                {"name": name, "owner": owner, "lease": lease},
            )
        if row is None:
            return None
        cursor = (
            Scope(tenant_id=row["cursor_tenant_id"], agent_id=row["cursor_agent_id"])
            if row["cursor_tenant_id"] is not None and row["cursor_agent_id"] is not None
            else None
        )
        return MaintenanceState(
            step=row["step"],
            cursor=cursor,
            position=row["position"],
            cycle_started_at=row["cycle_started_at"],
            changed_since=row["changed_since"],
        )

    async def save(self, name: str, owner: str, state: MaintenanceState, lease: timedelta) -> bool:
        """Persist ``state`` and extend the lease; False when ``owner`` no longer holds it."""
        async with self._pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                """UPDATE maintenance_state
                   SET step = %(step)s, cursor_tenant_id = %(ct)s, cursor_agent_id = %(ca)s,
                       position = %(position)s, cycle_started_at = %(started)s, changed_since = %(since)s,
                       lease_until = now() + %(lease)s, updated_at = now()
                   WHERE name = %(name)s AND lease_owner = %(owner)s""",
                {
                    "name": name,
                    "owner": owner,
                    "step": state.step,
                    "ct": state.cursor.tenant_id if state.cursor else None,
                    "ca": state.cursor.agent_id if state.cursor else None,
                    "position": state.position,
                    "started": state.cycle_started_at,
                    "since": state.changed_since,
                    "lease": lease,
                },
            )
            return cur.rowcount == 1

    async def release(self, name: str, owner: str) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(
                """UPDATE maintenance_state SET lease_owner = NULL, lease_until = NULL, updated_at = now()
                   WHERE name = %s AND lease_owner = %s""",
                (name, owner),
            )

"""What the maintenance step ``key_case`` costs on one large scope with no key to lower (h-kc).

A throwaway embedded stack (``LocalStack``, ephemeral) gets one scope of ``--rows`` keyed rows with CJK keys
(non-ASCII: ``hindsight_key_form`` normalizes them) and as many ASCII keys, all in stored form. Timed, as
the application runs it (role hindsight_app, under row-level security), median of ``--repeat`` calls:

* ``before``: 030's stray-key query (what the step ran on every scope before 031, whether or not the scope
  changed; with strays, the function ran it twice more);
* ``unchanged``: ``settle_key_case(scope, since)`` when no keyed row changed since ``since``;
* ``changed_1pct``: the same when 1 % of the rows were updated since;
* ``first_cycle``: ``since`` None (every keyed row read, as before; the first cycle after a fresh start).

    timeout 600 nice -n 15 .venv/bin/python bench/key_case_cost.py --rows 50000
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.migrations import default_migrations_dir, load_migrations, migrate
from hindsight.adapters.postgres.pool import one_connection, open_pool
from hindsight.adapters.postgres.rows import fetch_all, tenant_transaction
from hindsight.domain.memory import Scope
from hindsight.local.stack import LocalStack

_BEFORE = """SELECT DISTINCT hindsight_key_form(key) AS key FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND key IS NOT NULL
     AND (key ~ '[A-Z]' OR octet_length(key) <> char_length(key)) AND key <> hindsight_key_form(key)"""

_FILL = """INSERT INTO memories (id, tenant_id, agent_id, layer, key, content, content_hash, embedding,
                                 created_at, updated_at)
   SELECT gen_random_uuid(), 't', 'a', 'semantic', k, 'value ' || i, md5(k), %(e)s::vector,
          now() - interval '1 day', now() - interval '1 day'
   FROM generate_series(1, %(n)s) AS i,
        LATERAL (VALUES ('用户.城市' || i), ('user.item_' || i)) AS v(k)"""


async def _median_ms(call: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        await call()  # type: ignore[operator]
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def _measure(url: str, repeat: int, since: datetime) -> dict[str, float]:
    scope = Scope(tenant_id="t", agent_id="a")
    pool = await open_pool(url, min_size=1, max_size=2, timeout_s=30, role="hindsight_app")
    async with pool:
        store = PostgresMaintenanceStore(pool)

        async def before() -> None:
            async with tenant_transaction(pool, "t") as conn:
                assert not await fetch_all(conn, _BEFORE, ("t", "a"))

        async def after(since_: datetime | None) -> None:
            done = await store.settle_key_case(scope, since_)
            assert done is None or not done.as_counts()

        out = {
            "before": await _median_ms(before, repeat),
            "unchanged": await _median_ms(lambda: after(since), repeat),
        }
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE memories SET updated_at = now() WHERE random() < 0.01")
        out["changed_1pct"] = await _median_ms(lambda: after(since), repeat)
        out["first_cycle"] = await _median_ms(lambda: after(None), repeat)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000, help="CJK keys (and as many ASCII keys)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalStack(Path(tmp), ephemeral=True) as stack:
        base = stack.require_settings().require_database_url()
        name = f"kc_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        url = base.replace("/hindsight?", f"/{name}?")

        async def setup() -> None:
            conn = await one_connection(url)
            try:
                migrations = load_migrations(default_migrations_dir(None))
                await migrate(conn, migrations, embedding_dim=384, embedding_model="m")
            finally:
                await conn.close()

        asyncio.run(setup())
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(_FILL, {"n": args.rows, "e": "[" + ",".join(["0.1"] * 384) + "]"})
            conn.execute("VACUUM ANALYZE memories")
        since = datetime.now(UTC)
        figures = asyncio.run(_measure(url, args.repeat, since))
    print(f"scope: {args.rows} CJK + {args.rows} ASCII keyed rows, none to lower; median of {args.repeat}")
    for label, ms in figures.items():
        print(f"  {label:13s} {ms:9.1f} ms")


if __name__ == "__main__":
    main()

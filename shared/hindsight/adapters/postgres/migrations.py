"""Versioned SQL migrations (``infra/migrations/NNN_name.sql``) and the start-up schema check.

Each migration runs in its own transaction under an advisory lock, is recorded in
``schema_migrations`` with a checksum, and is skipped when already applied, so ``migrate`` is
idempotent and safe to run from several processes at once. ``{{embedding_dim}}`` in a file is
replaced by the configured dimension, ``{{hnsw_ef_construction}}`` by ``hnsw.HNSW_EF_CONSTRUCTION``.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from psycopg import AsyncConnection, sql

from hindsight.adapters.postgres.hnsw import HNSW_EF_CONSTRUCTION
from hindsight.domain.errors import ConfigurationError

log = logging.getLogger(__name__)
_FILE = re.compile(r"^(?P<version>\d{3})_(?P<name>[a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x68696E64  # "hind": one advisory lock id for every migrator
DIM_PLACEHOLDER = "{{embedding_dim}}"
EF_CONSTRUCTION_PLACEHOLDER = "{{hnsw_ef_construction}}"


@dataclass(frozen=True)
class Migration:
    """One migration file: ``template`` is the text before the dimension is substituted."""

    version: int
    name: str
    template: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.template.encode()).hexdigest()

    def render(self, embedding_dim: int) -> str:
        return self.template.replace(DIM_PLACEHOLDER, str(int(embedding_dim))).replace(
            EF_CONSTRUCTION_PLACEHOLDER, str(HNSW_EF_CONSTRUCTION)
        )


def default_migrations_dir(configured: Path | None) -> Path:
    """The configured folder, else the copy packaged with hindsight, else the repository's infra/."""
    candidates = [configured] if configured else []
    here = Path(__file__).resolve()
    candidates += [here.parents[2] / "migrations", here.parents[4] / "infra" / "migrations"]
    for path in candidates:
        if path is not None and path.is_dir():
            return path
    raise ConfigurationError(
        "SQL migrations not found; set HINDSIGHT_MIGRATIONS_DIR to the infra/migrations folder"
    )


def load_migrations(folder: Path) -> list[Migration]:
    """Migrations in version order. Raises ConfigurationError on a gap or a duplicate version."""
    found: dict[int, Migration] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _FILE.match(path.name)
        if match is None:
            raise ConfigurationError(f"migration file name not NNN_name.sql: {path}")
        version = int(match.group("version"))
        if version in found:
            raise ConfigurationError(f"two migrations with version {version:03d} in {folder}")
        found[version] = Migration(version, match.group("name"), path.read_text(encoding="utf-8"))
    versions = sorted(found)
    if versions != list(range(1, len(versions) + 1)):
        raise ConfigurationError(f"migration versions must run 001, 002, … without gaps; found {versions}")
    return [found[v] for v in versions]


async def _applied(conn: AsyncConnection) -> dict[int, str]:
    await conn.execute(
        """CREATE TABLE IF NOT EXISTS schema_migrations (
               version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now())"""
    )
    cur = await conn.execute("SELECT version, checksum FROM schema_migrations")
    return {int(v): str(c) for v, c in await cur.fetchall()}


async def migrate(
    conn: AsyncConnection, migrations: list[Migration], *, embedding_dim: int, embedding_model: str
) -> list[int]:
    """Apply pending migrations; returns the versions applied now.

    Raises:
        ConfigurationError: an applied migration's file changed since it ran.
    """
    applied_now: list[int] = []
    for migration in migrations:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            applied = await _applied(conn)
            if migration.version in applied:
                if applied[migration.version] != migration.checksum:
                    raise ConfigurationError(
                        f"migration {migration.version:03d}_{migration.name} was changed after it was "
                        "applied; add a new migration instead of editing an old one"
                    )
                continue
            await conn.execute(sql.SQL(migration.render(embedding_dim)))  # type: ignore[call-overload]
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                (migration.version, migration.name, migration.checksum),
            )
            applied_now.append(migration.version)
    await conn.execute(
        """INSERT INTO hindsight_meta (name, value) VALUES ('embedding_model', %s)
           ON CONFLICT (name) DO NOTHING""",
        (embedding_model,),
    )
    # This database's identity: state kept outside it (idempotency records, queued-job status in Redis)
    # is namespaced by it, so a new or wiped database never inherits another one's.
    await conn.execute(
        """INSERT INTO hindsight_meta (name, value) VALUES ('store_id', gen_random_uuid()::text)
           ON CONFLICT (name) DO NOTHING"""
    )
    return applied_now


async def store_identity(conn: AsyncConnection) -> str:
    """The database's store id (``hindsight_meta.store_id``, set by ``migrate``); "" on a store migrated
    before it existed, until the next ``migrate``."""
    cur = await conn.execute("SELECT to_regclass('hindsight_meta') IS NOT NULL")
    exists = await cur.fetchone()
    if not exists or not exists[0]:  # not migrated: check_schema says so where it matters
        return ""
    cur = await conn.execute("SELECT value FROM hindsight_meta WHERE name = 'store_id'")
    row = await cur.fetchone()
    return str(row[0]) if row else ""


async def check_schema(
    conn: AsyncConnection, *, latest_version: int, embedding_dim: int, embedding_model: str
) -> None:
    """Refuse to start against a database this code cannot use.

    Raises:
        ConfigurationError: not migrated, schema older than the code, embedding column
            dimension or embedding model different from the configuration — each with the fix.
    """
    cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
    row = await cur.fetchone()
    if not row or not row[0]:
        raise ConfigurationError("the database has no Hindsight schema: run `hindsight migrate` first")
    cur = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations")
    row = await cur.fetchone()
    current = int(row[0]) if row else 0
    if current < latest_version:
        raise ConfigurationError(
            f"database schema is at version {current} but this code needs {latest_version}: "
            "run `hindsight migrate`"
        )
    if current > latest_version:
        # Deploys migrate first, then roll out code: for a moment old code meets a newer schema.
        # Migrations are additive (expand/contract), so that is safe; it is logged, not refused.
        log.warning("database schema is at version %d, newer than this code (%d)", current, latest_version)
    cur = await conn.execute(
        """SELECT a.atttypmod FROM pg_attribute a
           WHERE a.attrelid = 'memories'::regclass AND a.attname = 'embedding' AND NOT a.attisdropped"""
    )
    row = await cur.fetchone()
    column_dim = int(row[0]) if row else -1
    if column_dim != embedding_dim:
        raise ConfigurationError(
            f"embedding dimension mismatch: the database column memories.embedding is vector({column_dim}) "
            f"but HINDSIGHT_EMBEDDING_DIM is {embedding_dim}. Fix: set HINDSIGHT_EMBEDDING_DIM={column_dim} "
            f"(and the embedder that produces it), or re-embed the store into vector({embedding_dim})."
        )
    cur = await conn.execute("SELECT value FROM hindsight_meta WHERE name = 'embedding_model'")
    row = await cur.fetchone()
    if row and row[0] != embedding_model:
        raise ConfigurationError(
            f"embedding model mismatch: memories were embedded with '{row[0]}' but the configured "
            f"embedder is '{embedding_model}'; vectors from different models are not comparable. "
            "Fix: configure the original embedder, or re-embed the store."
        )

"""FROZEN: the schema histories from before Alembic, and how a database leaves them.

A database made before Alembic keeps its version in ``PRAGMA user_version``
(SQLite, :data:`~storage.legacy.sqlite.MIGRATIONS`) or the ``schema_version``
table (PostgreSQL, :data:`~storage.legacy.postgres.PG_MIGRATIONS`). At open it
is brought to that history's head by the frozen steps, finished (each history
lacked one index the other had), and handed to Alembic as its baseline
revision (:mod:`storage.migrate`). Its legacy version is then set one past the
head (:data:`SQLITE_MARK`, :data:`POSTGRES_MARK`), so a Koloda from before
Alembic refuses it as newer instead of running on a schema it does not know.

Nothing here is ever extended: schema changes are Alembic revisions.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from storage.legacy.postgres import PG_MIGRATIONS
from storage.legacy.sqlite import MIGRATIONS

if TYPE_CHECKING:
    import sqlalchemy as sa

SQLITE_HEAD = len(MIGRATIONS)
SQLITE_MARK = SQLITE_HEAD + 1
POSTGRES_HEAD = len(PG_MIGRATIONS)
POSTGRES_MARK = POSTGRES_HEAD + 1

_SQLITE_FINISH = (
    "CREATE INDEX IF NOT EXISTS sessions_ended ON sessions (updated)"
    " WHERE status IN ('finished', 'cancelled')"
)
_POSTGRES_FINISH = "CREATE INDEX IF NOT EXISTS results_seq ON results (seq)"


def sqlite_steps(connection: sqlite3.Connection) -> None:
    """Apply the legacy steps a file made before Alembic still lacks, each in its
    own transaction (``connection`` in autocommit: ``isolation_level=None``)."""
    current = int(connection.execute("PRAGMA user_version").fetchone()[0])
    for number in range(current, SQLITE_HEAD if current else 0):
        try:
            connection.executescript(
                f"BEGIN IMMEDIATE;\n{MIGRATIONS[number]}\n"
                f"PRAGMA user_version = {number + 1};\nCOMMIT;"
            )
        except BaseException:
            if connection.in_transaction:
                connection.rollback()
            raise


def sqlite_leave(connection: sa.Connection) -> bool:
    """In the Alembic transaction: finish a file at the legacy head and mark it; True if
    it was one (to be stamped with the baseline)."""
    current = int(connection.exec_driver_sql("PRAGMA user_version").scalar_one())
    if current not in (SQLITE_HEAD, 0):
        return False
    if current == SQLITE_HEAD:
        connection.exec_driver_sql(_SQLITE_FINISH)
    connection.exec_driver_sql(f"PRAGMA user_version = {SQLITE_MARK}")
    return current == SQLITE_HEAD


async def postgres_version(connection: Any) -> int:
    """The legacy schema version of a PostgreSQL database (0: none), on asyncpg."""
    if not await connection.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
        return 0
    version: int = await connection.fetchval(
        "SELECT COALESCE(MAX(version), 0) FROM schema_version"
    )
    return version


async def postgres_step(connection: Any) -> bool:
    """Apply the next legacy step a database made before Alembic lacks, on asyncpg
    inside the caller's locked transaction; False when none is left."""
    current = await postgres_version(connection)
    if current in (0, POSTGRES_HEAD) or current >= POSTGRES_MARK:
        return False
    await connection.execute(PG_MIGRATIONS[current])
    await connection.execute("INSERT INTO schema_version (version) VALUES ($1)", current + 1)
    return True


def postgres_leave(connection: sa.Connection) -> bool:
    """In the Alembic transaction: finish a database at the legacy head and mark it
    (creating the marker for a new one); True if it was one (to be stamped)."""
    connection.exec_driver_sql(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    current = connection.exec_driver_sql(
        "SELECT COALESCE(MAX(version), 0) FROM schema_version"
    ).scalar_one()
    if current == POSTGRES_HEAD:
        connection.exec_driver_sql(_POSTGRES_FINISH)
    if current < POSTGRES_MARK:
        connection.exec_driver_sql(
            f"INSERT INTO schema_version (version) VALUES ({POSTGRES_MARK})"
        )
    return bool(current == POSTGRES_HEAD)

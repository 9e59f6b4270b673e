"""The PostgreSQL backend: the statements of :mod:`storage.store` on a pool.

For several workers on one database (``DATABASE_URL=postgresql://…``): an
asyncpg pool, each write one transaction on one pooled connection. A session is
saved as ``UPDATE … WHERE id = … AND version = …`` (under READ COMMITTED the
second of two racing updates waits for the first, then finds another version
and touches no row); a lease on due work is one atomic
``INSERT … ON CONFLICT … DO UPDATE … WHERE``; ratings are read ``FOR UPDATE``.
Stored state is jsonb, encoded and decoded with orjson exactly as SQLite's text
is (number keys become strings), so both backends hand back the same values.
The schema is migrated under an advisory lock, so workers starting together
migrate once.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import orjson
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import asyncpg as sa_asyncpg
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from storage import legacy, migrate
from storage.protocol import DatabaseUnusable
from storage.sql import Dialect, OnConnection, Row, Sql, Tx
from storage.store import SqlStore

#: Connections per worker: a move takes one for a few milliseconds.
POOL_MAX = 10
#: Seconds to wait for a connection to the server before giving up (start-up
#: must not hang on an unreachable host).
CONNECT_TIMEOUT = 10.0
#: How long a starting worker waits for another one's migration (the advisory
#: lock) before it gives up with DatabaseUnusable instead of hanging.
MIGRATION_WAIT = "60s"
#: The key of the ``pg_advisory_xact_lock`` held while migrating ("koloda" in ASCII).
MIGRATION_LOCK = 0x6B6F6C6F6461

T = TypeVar("T")

if TYPE_CHECKING:  # asyncpg's classes are generic in its stubs only
    from asyncpg.pool import PoolConnectionProxy

    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record]
    Pool: TypeAlias = asyncpg.Pool[asyncpg.Record]
    Pooled: TypeAlias = PoolConnectionProxy[asyncpg.Record]

DIALECT = Dialect(
    "postgresql",
    sa_asyncpg.dialect(),  # type: ignore[no-untyped-call]
    {
        "greatest": "GREATEST",
        "for_update": " FOR UPDATE",
        # taken after the row locks: matches sharing a player are numbered in order
        "next_seq": "nextval('rating_seq')",
        "seat_rows": "COALESCE((SELECT jsonb_agg("
        "jsonb_build_array(user_id, name, level, timeouts, stands_in_for) ORDER BY seat)"
        " FROM seats WHERE session = s.id), '[]'::jsonb)",
    },
)


def _dump_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


async def _init_connection(connection: Connection) -> None:
    """jsonb in and out as Python values, through orjson (as SQLite's text)."""
    await connection.set_type_codec(
        "jsonb", encoder=_dump_json, decoder=orjson.loads, schema="pg_catalog", format="text"
    )


def _count(status: str) -> int:
    """The rows a command changed, from its status ("UPDATE 1", "INSERT 0 1")."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


class PgTx(OnConnection["Pooled"]):
    """Statements on one pooled connection inside its transaction."""

    __slots__ = ()

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """Run a statement; how many rows it changed."""
        text, args = sql.bind(DIALECT, params)
        return _count(await self._connection.execute(text, *args))

    async def executemany(self, sql: Sql, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run a statement once per parameter set."""
        if rows:
            await self._connection.executemany(*sql.bind_many(DIALECT, rows))

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """Every row a statement returns."""
        text, args = sql.bind(DIALECT, params)
        return list(await self._connection.fetch(text, *args))

    async def batches(self, sql: Sql, size: int) -> AsyncIterator[list[Row]]:
        """A query's rows, ``size`` at a time (a server-side cursor)."""
        rows: list[Row] = []
        async for record in self._connection.cursor(sql.compiled(DIALECT)[0], prefetch=size):
            rows.append(record)
            if len(rows) == size:
                yield rows
                rows = []
        if rows:
            yield rows


class PgBackend:
    """One PostgreSQL database behind the store (see :class:`storage.sql.Backend`):
    a pool, and the dialect."""

    def __init__(self, pool: Pool) -> None:
        self.dialect = DIALECT
        self.pool = pool

    async def write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """``work`` in one transaction on a pooled connection."""
        async with self.pool.acquire() as connection, connection.transaction():
            return await work(PgTx(connection))

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """One statement (its own transaction); rows changed."""
        text, args = sql.bind(DIALECT, params)
        return _count(await self.pool.execute(text, *args))

    async def returning(self, sql: Sql, /, **params: Any) -> list[Row]:
        """One statement with RETURNING (its own transaction); its rows."""
        return await self.fetch(sql, **params)

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """The rows of a query, on any pooled connection."""
        text, args = sql.bind(DIALECT, params)
        return list(await self.pool.fetch(text, *args))

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Tx]:
        """A read-only REPEATABLE READ transaction."""
        async with self.pool.acquire() as connection, connection.transaction(
            isolation="repeatable_read", readonly=True
        ):
            yield PgTx(connection)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """One write transaction on a pooled connection."""
        async with self.pool.acquire() as connection, connection.transaction():
            yield PgTx(connection)

    def dump_json(self, value: Any) -> Any:
        """The value itself: the connection's jsonb codec encodes it."""
        return value

    def load_json(self, value: Any) -> Any:
        """The value itself: the connection's jsonb codec decoded it."""
        return value

    def chat_busy(self, error: Exception) -> bool:
        """The unique index on open group sessions refused the row."""
        return (
            isinstance(error, asyncpg.UniqueViolationError)
            and error.constraint_name == "sessions_open_group"
        )

    async def lock_ratings(self, tx: Tx) -> None:
        """Hold off matches finishing meanwhile (they write these tables)."""
        await tx.execute(_LOCK_RATINGS)

    async def after_import(self, tx: Tx) -> None:
        """Move the session id and rating sequences past the rows copied in."""
        await tx.fetch(_SESSION_IDS_PAST)
        await tx.fetch(_RATING_SEQ_PAST)

    async def close(self) -> None:
        """Wait for the connections in use and close the pool."""
        await self.pool.close()

    async def ping(self, timeout: float) -> None:
        """A connection from the pool answers a query within ``timeout`` seconds."""
        async with self.pool.acquire(timeout=timeout) as connection:
            await connection.fetchval("SELECT 1", timeout=timeout)


#: what a failed migration raises when the database, not the code, is the matter
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, sa.exc.DBAPIError)
_LOCK_RATINGS = Sql("LOCK TABLE ratings, rating_changes, season_ratings IN EXCLUSIVE MODE")
_SESSION_IDS_PAST = Sql(
    "SELECT setval(pg_get_serial_sequence('sessions', 'id'),"
    " COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM sessions"
)
_RATING_SEQ_PAST = Sql(
    "SELECT setval('rating_seq', COALESCE(MAX(seq), 1), MAX(seq) IS NOT NULL) FROM results"
)


class PostgresStore(SqlStore):
    """The store for several workers: one PostgreSQL database (``postgresql://…``)."""

    backend: PgBackend

    def __init__(self, pool: Pool) -> None:
        super().__init__(PgBackend(pool))

    @property
    def pool(self) -> Pool:
        """The connection pool."""
        return self.backend.pool

    @pool.setter
    def pool(self, pool: Pool) -> None:
        self.backend.pool = pool

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        """Connect a pool to ``url`` and bring the schema up to date.

        Raises :class:`DatabaseUnusable` (one line, the password left out) if the
        server cannot be reached, refuses the login, has no such database, or
        holds a schema newer than this code.
        """
        where = _redacted(url)
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=POOL_MAX, timeout=CONNECT_TIMEOUT,
                init=_init_connection,
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise DatabaseUnusable(f"cannot use the database at {where}: {_line(error)}") from None
        try:
            await _migrate(pool, url, f"the database at {where}")
        except BaseException as error:
            await pool.close()
            if isinstance(error, _DRIVER_ERRORS):
                cause = error.orig if isinstance(error, sa.exc.DBAPIError) else error
                raise DatabaseUnusable(
                    f"cannot bring the database at {where} up to date: {_line(cause or error)}"
                ) from None
            raise
        return cls(pool)

    async def schema_version(self) -> str:
        """The Alembic revision stored in the database."""
        async with self.pool.acquire() as connection:
            revision: str = await connection.fetchval("SELECT version_num FROM alembic_version")
            return revision


async def _migrate(pool: Pool, url: str, what: str) -> None:
    """The legacy steps a database made before Alembic lacks, then Alembic; each
    transaction under the advisory lock, so of several workers starting at once
    one migrates while the others wait and then find nothing left to do."""
    async with pool.acquire() as connection:
        while True:
            async with connection.transaction():
                await connection.execute(f"SET LOCAL lock_timeout = '{MIGRATION_WAIT}'")
                await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                current = await legacy.postgres_version(connection)
                if current > legacy.POSTGRES_MARK:
                    raise DatabaseUnusable(
                        f"{what} has schema version {current}, newer than this code's"
                        f" {legacy.POSTGRES_MARK}: run a newer Koloda"
                    )
                if not await legacy.postgres_step(connection):
                    break
    engine = create_async_engine(
        "postgresql+asyncpg://",
        async_creator=lambda: asyncpg.connect(url, timeout=CONNECT_TIMEOUT),
        poolclass=NullPool,
    )
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_alembic, what)
            await connection.commit()
    finally:
        await engine.dispose()


def _alembic(connection: sa.Connection, what: str) -> None:
    connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{MIGRATION_WAIT}'")
    connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    was_legacy = legacy.postgres_leave(connection)
    migrate.upgrade(connection, legacy=was_legacy, what=what)


def _redacted(url: str) -> str:
    """``url`` without its password (it goes into an operator's log)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "the configured URL"


def _line(error: BaseException) -> str:
    """An exception as one line (no traceback, no newlines)."""
    text = re.sub(r"\s+", " ", str(error)).strip()
    return text or type(error).__name__

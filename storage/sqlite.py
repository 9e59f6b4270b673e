"""The SQLite backend: the statements of :mod:`storage.store` on one file.

One file, WAL, ``synchronous=FULL``; writes go through the
:class:`~storage.database.Database`'s group commit (many moves, one fsync),
reads through its second connection (committed data only). JSON is kept as
text (orjson: number keys become strings), flags as 0/1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Self, TypeVar

import aiosqlite
import orjson
from sqlalchemy.dialects import sqlite

from storage.database import Database
from storage.sql import Dialect, Hooks, OnConnection, Row, Sql, Tx
from storage.store import SqlStore

T = TypeVar("T")

DIALECT = Dialect(
    "sqlite",
    sqlite.dialect(paramstyle="qmark"),
    {
        "greatest": "MAX",
        "for_update": "",
        # the single writer numbers rated matches one after the other
        "next_seq": "(SELECT COALESCE(MAX(seq), 0) + 1 FROM results)",
        # (ordered in a subquery: json_group_array takes no ORDER BY)
        "seat_rows": "(SELECT json_group_array("
        "json_array(user_id, name, level, timeouts, stands_in_for))"
        " FROM (SELECT * FROM seats WHERE session = s.id ORDER BY seat))",
    },
)


def dump_json(value: Any) -> str | None:
    """Compact JSON text (orjson: number keys become strings), None for None."""
    return None if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def load_json(text: str | bytes | None) -> Any:
    """The value of stored JSON text (None stays None)."""
    return None if text is None else orjson.loads(text)


class SqliteTx(OnConnection[aiosqlite.Connection]):
    """Statements on the writer (or a snapshot's) connection."""

    __slots__ = ()

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """Run a statement; how many rows it changed."""
        cursor = await self._connection.execute(*sql.bind(DIALECT, params))
        return cursor.rowcount

    async def executemany(self, sql: Sql, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run a statement once per parameter set."""
        if rows:
            await self._connection.executemany(*sql.bind_many(DIALECT, rows))

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """Every row a statement returns."""
        return list(await self._connection.execute_fetchall(*sql.bind(DIALECT, params)))

    async def batches(self, sql: Sql, size: int) -> AsyncIterator[list[Row]]:
        """A query's rows, ``size`` at a time."""
        async with self._connection.execute(*sql.bind(DIALECT, {})) as cursor:
            while rows := list(await cursor.fetchmany(size)):
                yield rows


class SqliteBackend(Hooks):
    """One SQLite file behind the store (see :class:`storage.sql.Backend`): a
    :class:`Database` and the dialect; no rows to lock, no sequences to move."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.dialect = DIALECT

    async def write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """``work`` in a group-committed transaction; its result after COMMIT."""
        return await self.db.write(lambda connection: work(SqliteTx(connection)))

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """One statement, group-committed; rows changed."""
        text, args = sql.bind(DIALECT, params)

        async def work(connection: aiosqlite.Connection) -> int:
            return (await connection.execute(text, args)).rowcount

        return await self.db.write(work)

    async def returning(self, sql: Sql, /, **params: Any) -> list[Row]:
        """One statement with RETURNING, group-committed; its rows."""
        text, args = sql.bind(DIALECT, params)

        async def work(connection: aiosqlite.Connection) -> list[Row]:
            return list(await connection.execute_fetchall(text, args))

        return await self.db.write(work)

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """The rows of a read-only query, on the reader connection."""
        return await self.db.fetchall(*sql.bind(DIALECT, params))

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Tx]:
        """A read transaction on the reader connection."""
        async with self.db.snapshot() as connection:
            yield SqliteTx(connection)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """One exclusive write transaction (not group-committed)."""
        async with self.db.transaction() as connection:
            yield SqliteTx(connection)

    def dump_json(self, value: Any) -> str | None:
        """JSON text."""
        return dump_json(value)

    def load_json(self, value: Any) -> Any:
        """The value of JSON text."""
        return load_json(value)

    def chat_busy(self, error: Exception) -> bool:
        """The unique index on open group sessions' ``chat_id`` refused the row."""
        return isinstance(error, sqlite3.IntegrityError) and "sessions.chat_id" in str(error)

    async def close(self) -> None:
        """Finish pending writes and close the file."""
        await self.db.close()

    async def ping(self, timeout: float) -> None:
        """The file takes a write lock within ``timeout`` (see :meth:`Database.ping`)."""
        await self.db.ping(timeout)


class SqliteStore(SqlStore):
    """The default store: one SQLite file (``sqlite:///path``)."""

    def __init__(self, db: Database) -> None:
        super().__init__(SqliteBackend(db))
        self.db = db

    @classmethod
    async def open(cls, url: str) -> Self:
        """Open (creating and migrating if needed) the file named by ``url``."""
        return cls(await Database.open(url))

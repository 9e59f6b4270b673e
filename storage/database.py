"""One SQLite database: a writer connection, a reader connection, migrations.

Writes never interleave on the single writer connection: an asyncio lock is
held around every ``BEGIN IMMEDIATE … COMMIT`` (rolled back on any error).

- ``async with db.transaction() as tx`` is one exclusive transaction.
- ``await db.write(work)`` is a *group commit*: pieces of work submitted
  while a commit is in progress are run together in the next transaction, so
  one fsync (``synchronous=FULL``) acknowledges many of them. Each piece is
  still all-or-nothing: if any piece fails, the batch is rolled back and every
  piece is retried alone in its own transaction, so only the failing one fails.
  ``write`` returns only after the COMMIT that holds the work.

Reads go to a second connection, which in WAL mode sees only committed data.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from storage.migrations import MIGRATIONS
from storage.url import MEMORY, parse_database_url

Row = sqlite3.Row
Params = Iterable[Any]
T = TypeVar("T")
#: A unit of work for :meth:`Database.write`: statements on the writer connection.
Work = Callable[[aiosqlite.Connection], Awaitable[Any]]
#: The most pieces of work one group commit takes.
MAX_BATCH = 256

_PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
)


class Database:
    """The bot's SQLite file, opened with :meth:`open` and closed with :meth:`close`."""

    def __init__(self, writer: aiosqlite.Connection, reader: aiosqlite.Connection | None) -> None:
        self._writer = writer
        self._reader = reader
        self._lock = asyncio.Lock()
        self._pending: list[tuple[Work, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str) -> Database:
        """Open (creating if needed) and migrate the database named by ``url``."""
        path = parse_database_url(url)
        if path != MEMORY:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        writer = await _connect(path)
        reader = None if path == MEMORY else await _connect(path)
        db = cls(writer, reader)
        try:
            await db._migrate()
        except BaseException:
            await db.close()
            raise
        return db

    async def close(self) -> None:
        """Close both connections (waits for pending writes and a running transaction)."""
        if self._committer is not None:
            await asyncio.gather(self._committer, return_exceptions=True)
        async with self._lock:
            if self._reader is not None:
                await self._reader.close()
            await self._writer.close()

    @property
    def schema_version(self) -> int:
        """How many migrations the schema has (the target ``user_version``)."""
        return len(MIGRATIONS)

    async def user_version(self) -> int:
        """The schema version stored in the file."""
        row = await self.fetchone("PRAGMA user_version")
        assert row is not None
        return int(row[0])

    async def settings(self) -> dict[str, Any]:
        """The writer connection's journal_mode, synchronous and foreign_keys pragmas."""
        values: dict[str, Any] = {}
        async with self._lock:
            for name in ("journal_mode", "synchronous", "foreign_keys"):
                rows = list(await self._writer.execute_fetchall(f"PRAGMA {name}"))
                values[name] = rows[0][0]
        return values

    async def _migrate(self) -> None:
        current = await self.user_version()
        if current > len(MIGRATIONS):
            raise RuntimeError(
                f"the database has schema version {current}, newer than this code's "
                f"{len(MIGRATIONS)}"
            )
        for number in range(current, len(MIGRATIONS)):
            script = MIGRATIONS[number]
            async with self._lock:
                # executescript runs its statements as given: the explicit
                # BEGIN … COMMIT makes one migration one transaction.
                try:
                    await self._writer.executescript(
                        f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number + 1};\nCOMMIT;"
                    )
                except BaseException:
                    if self._writer.in_transaction:
                        await self._writer.rollback()
                    raise

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The writer connection inside ``BEGIN IMMEDIATE``; commits on exit."""
        async with self._lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                await self._writer.rollback()
                raise
            await self._writer.commit()

    async def write(self, work: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """Run ``work(tx)`` in a (group-committed) transaction; its result after COMMIT."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.get_running_loop().create_task(self._commit_pending())
        result: T = await future
        return result

    async def _commit_pending(self) -> None:
        while self._pending:
            batch = self._pending[:MAX_BATCH]
            del self._pending[:MAX_BATCH]
            try:
                async with self._lock:
                    await self._commit_batch(batch)
            except BaseException as error:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                raise

    async def _commit_batch(self, batch: list[tuple[Work, asyncio.Future[Any]]]) -> None:
        """One transaction for the whole batch; on a failure, each piece alone."""
        results: list[Any] = []
        await self._writer.execute("BEGIN IMMEDIATE")
        try:
            for work, _ in batch:
                results.append(await work(self._writer))
            await self._writer.commit()
        except Exception:
            await self._writer.rollback()
            for work, future in batch:
                await self._commit_alone(work, future)
            return
        except BaseException:
            await self._writer.rollback()
            raise
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def _commit_alone(self, work: Work, future: asyncio.Future[Any]) -> None:
        await self._writer.execute("BEGIN IMMEDIATE")
        try:
            result = await work(self._writer)
            await self._writer.commit()
        except Exception as error:
            await self._writer.rollback()
            if not future.done():
                future.set_exception(error)
            return
        except BaseException:
            await self._writer.rollback()
            raise
        if not future.done():
            future.set_result(result)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """All rows of a read-only query (committed data only)."""
        if self._reader is None:
            async with self._lock:
                return list(await self._writer.execute_fetchall(sql, tuple(params)))
        return list(await self._reader.execute_fetchall(sql, tuple(params)))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a read-only query, or None."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None


async def _connect(path: str) -> aiosqlite.Connection:
    connection = await aiosqlite.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    for pragma in _PRAGMAS:
        if path == MEMORY and "journal_mode" in pragma:
            continue
        await connection.execute(pragma)
    return connection

"""One SQLite database: a writer connection, a reader connection, the checks at open.

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

Opening checks the file before changing anything in it: a file that is not a
SQLite database (or is corrupt), a schema newer than this code, or a file whose
write lock another process holds for longer than :data:`BUSY_TIMEOUT_MS` raise
:class:`~storage.protocol.DatabaseUnusable` with one line, and leave the file
as it was. No step of opening waits longer than that timeout. A usable file is
then migrated (:mod:`storage.sqlite_schema`) before the connections are made.

One process per file: a usable file is then claimed with an exclusive
``flock`` on ``<file>.lock`` beside it (held until closed; the kernel lets go
when the process dies), so a second bot on the same file stops at start-up
with one line instead of running alongside. Stores of one process share the
claim. Other SQLite clients (``sqlite3 … ".backup"``) are not affected.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar
from uuid import uuid4

import aiosqlite

from storage.legacy import SQLITE_MARK
from storage.migrate import newer_message, unknown_revision
from storage.protocol import DatabaseUnusable
from storage.sqlite_schema import upgrade_file
from storage.url import MEMORY, parse_database_url

Row = sqlite3.Row
Params = Iterable[Any]
T = TypeVar("T")
#: A unit of work for :meth:`Database.write`: statements on the writer connection.
Work = Callable[[aiosqlite.Connection], Awaitable[Any]]
#: The most pieces of work one group commit takes.
MAX_BATCH = 256

#: How long a statement waits for another process's lock before failing
#: ("database is locked"); at start-up, before the file is called locked.
BUSY_TIMEOUT_MS = 5000

_PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
)


class Database:
    """The bot's SQLite file, opened with :meth:`open` and closed with :meth:`close`."""

    def __init__(
        self,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection | None,
        claim: str | None = None,
    ) -> None:
        self._claim = claim
        self._path: str | None = None  # the file (None: in memory)
        self._writer = writer
        self._reader = reader
        self._lock = asyncio.Lock()
        self._pending: list[tuple[Work, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str) -> Database:
        """Open (creating if needed) and migrate the database named by ``url``.

        Raises ValueError for a malformed URL and :class:`DatabaseUnusable`
        (one line; the file left unchanged) for a file that is not a usable
        SQLite database: corrupt, of a newer schema, or locked by another writer.
        """
        path = parse_database_url(url)
        # an in-memory database is named, so the migrating connection reaches it too
        target = f"file:koloda-{uuid4().hex}?mode=memory&cache=shared" if path == MEMORY else path
        claim = None
        anchor = None
        try:
            if path != MEMORY:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                # Every check reads; only a usable file gets migrated and WAL.
                await asyncio.to_thread(_check, path)
                claim = _claim(path)
            else:
                anchor = sqlite3.connect(target, uri=True, check_same_thread=False)
            await asyncio.to_thread(
                upgrade_file, target, f"the database {path}", BUSY_TIMEOUT_MS / 1000
            )
            writer = await _connect(target)
        except OSError as error:
            _release(claim)
            raise DatabaseUnusable(f"cannot open the database {path}: {_line(error)}") from None
        except sqlite3.Error as error:
            _release(claim)
            raise DatabaseUnusable(_unusable(path, error)) from None
        except BaseException:
            _release(claim)
            raise
        finally:
            if anchor is not None:
                anchor.close()
        try:
            await _configure(writer, path)
            reader = None if path == MEMORY else await _configured(path)
        except BaseException as error:
            await writer.close()
            _release(claim)
            if isinstance(error, sqlite3.Error):
                raise DatabaseUnusable(_unusable(path, error)) from None
            raise
        db = cls(writer, reader, claim)
        db._path = None if path == MEMORY else path
        return db

    async def close(self) -> None:
        """Close both connections (waits for pending writes and a running transaction)."""
        if self._committer is not None:
            await asyncio.gather(self._committer, return_exceptions=True)
        async with self._lock:
            if self._reader is not None:
                await self._reader.close()
            await self._writer.close()
        _release(self._claim)
        self._claim = None

    async def ping(self, timeout: float) -> None:
        """Raise if the file cannot take a write within ``timeout`` seconds (locked by
        another process, unreadable, gone): an empty write transaction on a connection
        of its own, in a thread, so the writer is never left inside one."""
        if self._path is None:
            await self.fetchone("SELECT 1")
            return
        await asyncio.to_thread(_writable, self._path, timeout)

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

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[aiosqlite.Connection]:
        """A read transaction: every query on the connection it yields sees the same
        committed state (for a copy of the whole file while it is in use)."""
        if self._reader is None:
            async with self._lock:
                await self._writer.execute("BEGIN")
                try:
                    yield self._writer
                finally:
                    await self._writer.rollback()
            return
        await self._reader.execute("BEGIN")
        try:
            yield self._reader
        finally:
            await self._reader.rollback()

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
                if not isinstance(error, Exception):
                    raise
                # (BEGIN failed: the database is locked or gone) each caller has the
                # error; raising it here too would be a second, unread traceback

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
    """A connection with a bounded busy timeout and nothing else set (nothing written)."""
    connection = await aiosqlite.connect(
        path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, uri=path.startswith("file:")
    )
    connection.row_factory = sqlite3.Row
    await connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")
    return connection


#: This process's claims: lock file → [its descriptor, how many open databases use it].
_CLAIMS: dict[str, list[int]] = {}


def _claim(path: str) -> str:
    """Claim the database file for this process (see the module docstring); the lock
    file's path. Raises :class:`DatabaseUnusable` if another process has claimed it."""
    lock = os.path.realpath(path) + ".lock"
    held = _CLAIMS.get(lock)
    if held is not None:
        held[1] += 1
        return lock
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise DatabaseUnusable(
            f"the database {path} is in use by another Koloda process (one process per"
            " SQLite file: stop the other one, or use PostgreSQL for several workers)"
        ) from None
    _CLAIMS[lock] = [descriptor, 1]
    return lock


def _release(lock: str | None) -> None:
    """Give back one use of a claim; the last one unlocks the file."""
    held = None if lock is None else _CLAIMS.get(lock)
    if lock is None or held is None:
        return
    held[1] -= 1
    if held[1] <= 0:
        del _CLAIMS[lock]
        os.close(held[0])


def _check(path: str) -> None:
    """Refuse a file that is not a database, of a newer schema, or write-locked.

    Reads only: the header (``user_version``), the schema table (a corrupt
    one fails here) and an empty write transaction (the write lock, given
    back at once), so a refused file is left as it was. Plain sqlite3 in a
    thread: a connection that fails here leaves no aiosqlite worker behind.
    """
    connection = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")
        current = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if current > SQLITE_MARK:
            raise DatabaseUnusable(f"the database {path} {_newer(current)}")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
        if connection.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'"
        ).fetchall():
            revisions = [row[0] for row in connection.execute("SELECT * FROM alembic_version")]
            newer = unknown_revision(revisions)
            if newer is not None:
                raise DatabaseUnusable(newer_message(f"the database {path}", newer))
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    finally:
        connection.close()


def _writable(path: str, timeout: float) -> None:
    """Take the file's write lock and give it back at once (raises if it cannot)."""
    uri = f"{Path(path).resolve().as_uri()}?mode=rw"  # never creates a missing file
    connection = sqlite3.connect(uri, isolation_level=None, timeout=timeout, uri=True)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    finally:
        connection.close()


async def _configure(connection: aiosqlite.Connection, path: str) -> None:
    for pragma in _PRAGMAS:
        if path == MEMORY and "journal_mode" in pragma:
            continue
        await connection.execute(pragma)


async def _configured(path: str) -> aiosqlite.Connection:
    connection = await _connect(path)
    try:
        await _configure(connection, path)
    except BaseException:
        await connection.close()
        raise
    return connection


def _newer(current: int) -> str:
    return (
        f"has schema version {current}, newer than this code's {SQLITE_MARK}:"
        " run a newer Koloda (the file was not changed)"
    )


def _unusable(path: str, error: sqlite3.Error) -> str:
    """One line for the operator: what is wrong with the file."""
    text = _line(error)
    if "locked" in text or "busy" in text:
        return (
            f"the database {path} is locked by another process (another bot on the same"
            f" file?): {text}"
        )
    if isinstance(error, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "corrupt" in text
    ):
        return f"the file {path} is not a usable SQLite database (corrupt?): {text}"
    return f"cannot use the database {path}: {text}"


def _line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__

"""Opening a store: migrations, and a database that cannot be used.

A database that is corrupt, of a newer schema, locked, unreachable or refuses
the login raises ``DatabaseUnusable`` with one line for the operator, and a
refused SQLite file keeps every byte.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from storage import DatabaseUnusable, SessionRecord, open_store
from storage import database as sqlite_database
from storage.legacy import POSTGRES_MARK, SQLITE_MARK
from storage.migrate import head
from storage.postgres import MIGRATION_LOCK, PostgresStore
from tests.support.pg_server import PASSWORD, PgServer


def one_line(error: BaseException) -> str:
    """The error's message, checked to be a single line with no traceback in it."""
    text = str(error)
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


# ---------------------------------------------------------------- SQLite


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(8192),
        b"not a database, just some text\n" * 200,
        b"SQLite format 3\x00" + b"\xff" * 200,
    ],
    ids=["random-bytes", "text", "broken-header"],
)
async def test_a_corrupt_file_is_unusable_and_unchanged(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "koloda.sqlite3"
    path.write_bytes(content)
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(url_of(path))
    assert "not a usable SQLite database" in one_line(caught.value)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["koloda.sqlite3"]


async def test_a_newer_sqlite_schema_is_unusable_and_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY)")
    other.execute(f"PRAGMA user_version = {SQLITE_MARK + 1}")
    other.commit()
    other.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(url_of(path))
    assert f"schema version {SQLITE_MARK + 1}, newer" in one_line(caught.value)
    assert path.read_bytes() == before  # not even switched to WAL


@pytest.mark.parametrize("wal", [True, False], ids=["wal", "rollback-journal"])
async def test_a_file_another_writer_holds_is_unusable_and_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wal: bool
) -> None:
    path = tmp_path / "locked.sqlite3"
    if wal:  # a file the bot made: migrated, in WAL mode
        await (await open_store(url_of(path))).close()
    else:
        made = sqlite3.connect(path)
        made.execute("CREATE TABLE t (x)")
        made.commit()
        made.close()
    before = path.read_bytes()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE')\n"
         "print('locked', flush=True)\n"
         "sys.stdin.readline()\n",
         str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        monkeypatch.setattr(sqlite_database, "BUSY_TIMEOUT_MS", 200)
        with pytest.raises(DatabaseUnusable) as caught:
            await asyncio.wait_for(open_store(url_of(path)), 30)
        assert "locked by another process" in one_line(caught.value)
    finally:
        holder.communicate("\n", timeout=30)
    assert path.read_bytes() == before
    # once the other writer is gone the file opens
    await (await open_store(url_of(path))).close()


async def test_a_file_another_process_has_open_is_unusable_and_unchanged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "koloda.sqlite3"
    await (await open_store(url_of(path))).close()
    other = subprocess.Popen(  # another bot on the same file, idle between writes
        [sys.executable, "-c",
         "import asyncio, sys\n"
         "from storage import open_store\n"
         "async def main():\n"
         "    store = await open_store('sqlite:///' + sys.argv[1])\n"
         "    print('open', flush=True)\n"
         "    await asyncio.to_thread(sys.stdin.readline)\n"
         "    await store.close()\n"
         "asyncio.run(main())\n",
         str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "open\n"
        before = path.read_bytes()
        with pytest.raises(DatabaseUnusable) as caught:
            await open_store(url_of(path))
        assert "in use by another Koloda process" in one_line(caught.value)
        assert path.read_bytes() == before
    finally:
        other.communicate("\n", timeout=30)
    await (await open_store(url_of(path))).close()  # free again once it is gone


async def test_stores_of_one_process_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / "koloda.sqlite3"
    first = await open_store(url_of(path))
    second = await open_store(url_of(path))
    await first.close()
    third = await open_store(url_of(path))
    await second.close()
    await third.close()


async def test_a_folder_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(url_of(tmp_path))
    one_line(caught.value)


async def test_sqlite_migrates_an_empty_file_once(tmp_path: Path) -> None:
    path = tmp_path / "new" / "koloda.sqlite3"
    store = await open_store(url_of(path))
    await store.close()
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SQLITE_MARK
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        check.close()
    await (await open_store(url_of(path))).close()


# ---------------------------------------------------------------- PostgreSQL


def _refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again: nothing listens there


async def test_an_unreachable_server_is_unusable() -> None:
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(f"postgresql://koloda:secret@127.0.0.1:{_refused_port()}/koloda")
    text = one_line(caught.value)
    assert "secret" not in text and "127.0.0.1" in text


async def test_a_wrong_password_is_unusable_and_not_shown(pg_server: PgServer) -> None:
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(pg_server.url(password="wrong-password"))
    text = one_line(caught.value)
    assert "password authentication failed" in text
    assert "wrong-password" not in text and PASSWORD not in text


@pytest.mark.parametrize(
    ("user", "database", "says"),
    [("nobody_here", "postgres", "authentication failed"),
     ("postgres", "no_such_db", 'database "no_such_db" does not exist')],
    ids=["user", "database"],
)
async def test_an_unknown_user_or_database_is_unusable(
    pg_server: PgServer, user: str, database: str, says: str
) -> None:
    url = pg_server.url(database).replace("//postgres:", f"//{user}:", 1)
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(url)
    assert says in one_line(caught.value)


async def test_a_login_that_may_not_create_tables_is_unusable(pg_database: str) -> None:
    connection = await asyncpg.connect(pg_database)
    try:
        await connection.execute("DROP ROLE IF EXISTS koloda_reader")
        await connection.execute(f"CREATE ROLE koloda_reader LOGIN PASSWORD '{PASSWORD}'")
        await connection.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        url = pg_database.replace("//postgres:", "//koloda_reader:", 1)
        with pytest.raises(DatabaseUnusable) as caught:
            await open_store(url)
        assert "permission denied" in one_line(caught.value)
        assert "up to date" in str(caught.value)
    finally:
        await connection.execute("DROP OWNED BY koloda_reader")
        await connection.execute("DROP ROLE koloda_reader")
        await connection.close()


async def test_a_migration_held_up_elsewhere_is_waited_for_a_bounded_time(
    pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import storage.postgres

    monkeypatch.setattr(storage.postgres, "MIGRATION_WAIT", "200ms")
    holder = await asyncpg.connect(pg_database)
    try:
        transaction = holder.transaction()
        await transaction.start()
        await holder.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        with pytest.raises(DatabaseUnusable) as caught:
            await asyncio.wait_for(open_store(pg_database), 30)
        assert "lock timeout" in one_line(caught.value)
        await transaction.rollback()
    finally:
        await holder.close()
    await (await open_store(pg_database)).close()  # once it is free, start-up goes on


async def _schema_rows(url: str) -> list[int]:
    connection = await asyncpg.connect(url)
    try:
        return [row[0] for row in await connection.fetch(
            "SELECT version FROM schema_version ORDER BY version"
        )]
    finally:
        await connection.close()


async def test_workers_starting_together_migrate_once(pg_database: str) -> None:
    stores = await asyncio.gather(*(PostgresStore.open(pg_database) for _ in range(4)))
    try:
        assert await _schema_rows(pg_database) == [POSTGRES_MARK]
        assert {await store.schema_version() for store in stores} == {head()}
        session_id = await stores[0].create_session(SessionRecord(
            0, -1, "group", "eleven", "lobby", 7, {}, None, None, 1, 0, None, None, None, 1.0, []
        ))
        assert await stores[3].session_version(session_id) == 1
    finally:
        await asyncio.gather(*(store.close() for store in stores))
    # a restart finds nothing to do
    await (await open_store(pg_database)).close()
    assert await _schema_rows(pg_database) == [POSTGRES_MARK]


async def test_a_newer_postgres_schema_is_unusable_and_unchanged(pg_database: str) -> None:
    await (await open_store(pg_database)).close()
    connection = await asyncpg.connect(pg_database)
    try:
        await connection.execute(
            "INSERT INTO schema_version (version) VALUES ($1)", POSTGRES_MARK + 1
        )
    finally:
        await connection.close()
    with pytest.raises(DatabaseUnusable) as caught:
        await open_store(pg_database)
    assert f"schema version {POSTGRES_MARK + 1}, newer" in one_line(caught.value)
    assert PASSWORD not in str(caught.value)
    assert await _schema_rows(pg_database) == [POSTGRES_MARK, POSTGRES_MARK + 1]

"""SQLite storage below the Store protocol: URL parsing, migrations, pragmas,
transactions, group commit, replay. (What every store does is in
test_store_contract.py, opening unusable files in test_store_open.py.)"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from dataclasses import replace
from functools import partial
from pathlib import Path

import aiosqlite
import pytest

from games import REGISTRY, IllegalAction
from sessions.replay import replay
from storage import (
    DatabaseUnusable,
    MoveRecord,
    SeatRecord,
    SessionRecord,
    parse_database_url,
)
from storage.database import Database
from storage.legacy import SQLITE_MARK
from storage.legacy.sqlite import MIGRATIONS
from storage.sqlite import SqliteStore


def db_url(path: Path) -> str:
    """A sqlite URL for an absolute file path."""
    return f"sqlite:///{path}"


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///koloda.sqlite3", "koloda.sqlite3"),
        ("sqlite:///data/koloda.db", "data/koloda.db"),
        ("sqlite:////var/lib/koloda.db", "/var/lib/koloda.db"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_database_url_forms(url: str, path: str) -> None:
    assert parse_database_url(url) == path


@pytest.mark.parametrize(
    "url", ["", "koloda.db", "postgres://x/y", "sqlite://koloda.db", "sqlite:///", "sqlite:///d/"]
)
def test_bad_database_url_is_a_clear_value_error(url: str) -> None:
    with pytest.raises(ValueError, match="DATABASE_URL"):
        parse_database_url(url)


def _lobby(chat_id: int = -1, version: int = 1) -> SessionRecord:
    return SessionRecord(
        id=0,
        chat_id=chat_id,
        kind="group",
        game="eleven",
        status="lobby",
        creator=7,
        options={"target": 5},
        timer=None,
        seed=None,
        version=version,
        moves=0,
        state=None,
        deadline=None,
        result=None,
        created=1.0,
        seats=[SeatRecord(7, "Ann", None)],
    )


async def test_migrations_from_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "fresh.sqlite3"
    db = await Database.open(db_url(path))
    try:
        assert await db.user_version() == SQLITE_MARK
        tables = {r["name"] for r in await db.fetchall("SELECT name FROM sqlite_master")}
        assert {
            "sessions",
            "seats",
            "moves",
            "messages",
            "results",
            "users",
            "chats",
            "invites",
        } <= tables
        assert await db.settings() == {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1}
    finally:
        await db.close()


async def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    url = db_url(tmp_path / "k.sqlite3")
    store = await SqliteStore.open(url)
    session_id = await store.create_session(_lobby())
    await store.close()
    store = await SqliteStore.open(url)
    try:
        assert await store.db.user_version() == SQLITE_MARK
        record = await store.load_session(session_id)
        assert record is not None and record.seats == [SeatRecord(7, "Ann", None)]
        assert record.options == {"target": 5}
    finally:
        await store.close()


async def test_the_upgrade_gives_links_and_unseats_uninvited_guests(tmp_path: Path) -> None:
    path = tmp_path / "before-links.sqlite3"
    links = next(i for i, sql in enumerate(MIGRATIONS) if "ADD COLUMN link" in sql)
    old = sqlite3.connect(path)
    old.executescript("\n".join(MIGRATIONS[:links]) + f"\nPRAGMA user_version = {links};")
    for session, kind in ((1, "private"), (2, "private"), (3, "group")):
        old.execute(
            "INSERT INTO sessions (id, chat_id, kind, game, status, creator, options, version,"
            " moves, created, updated) VALUES (?, 7, ?, 'king', 'lobby', 7, '{}', 2, 0, 1.0, 1.0)",
            (session, kind),
        )
        for seat, user in enumerate((7, 8)):
            old.execute("INSERT INTO seats (session, seat, user_id, name, timeouts)"
                        " VALUES (?, ?, ?, 'x', 0)", (session, seat, user))
    old.execute("INSERT INTO invites VALUES ('c', 2, 7, 9.0, 8)")  # 8 came to 2 by invite
    old.commit()
    old.close()
    store = await SqliteStore.open(db_url(path))
    try:
        seated = {}
        for session in (1, 2, 3):
            record = await store.load_session(session)
            assert record is not None and record.link is not None and len(record.link) >= 16
            seated[session] = [s.user_id for s in record.seats]
        assert seated == {1: [7], 2: [7, 8], 3: [7, 8]}  # a guessed /start j no longer sits
    finally:
        await store.close()


async def test_a_first_schema_file_is_upgraded_and_keeps_its_move_log(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(f"{MIGRATIONS[0]}\nPRAGMA user_version = 1;")
    old.execute(
        "INSERT INTO sessions (id, chat_id, kind, game, status, creator, options, version,"
        " moves, created, updated) VALUES (1, -5, 'group', 'eleven', 'running', 7, '{}', 3, 1,"
        " 1.0, 1.0)"
    )
    old.execute("INSERT INTO moves VALUES (1, 1, 0, 'AS', 0, 2.0)")
    old.commit()
    old.close()
    store = await SqliteStore.open(db_url(path))
    try:
        assert await store.db.user_version() == SQLITE_MARK
        assert await store.moves_of(1) == [MoveRecord(1, 0, "AS", False, 2.0, None)]
        assert await store.move_at_version(1, 2) is None  # old rows carry no version
        record = await store.load_session(1)  # migration 3's columns: nothing due yet
        assert record is not None and record.due is None and record.updated == 1.0
    finally:
        await store.close()


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    sqlite3.connect(path).execute(f"PRAGMA user_version = {SQLITE_MARK + 1}").connection.close()
    with pytest.raises(DatabaseUnusable, match="newer"):
        await Database.open(db_url(path))


async def test_a_failing_transaction_changes_nothing() -> None:
    db = await Database.open("sqlite:///:memory:")
    try:
        with pytest.raises(RuntimeError):
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO users (id, name) VALUES (1, 'Ann')")
                raise RuntimeError("boom")
        assert await db.fetchall("SELECT id FROM users") == []
    finally:
        await db.close()


async def test_move_log_rejects_a_duplicate_number(tmp_path: Path) -> None:
    store = await SqliteStore.open(db_url(tmp_path / "d.sqlite3"))
    try:
        session_id = await store.create_session(_lobby())
        record = replace(_lobby(), id=session_id, version=2)
        await store.save_session(record, 1, move=MoveRecord(1, 0, "AS", False, 2.0))
        with pytest.raises(sqlite3.IntegrityError):
            await store.save_session(
                replace(record, version=3), 2, move=MoveRecord(1, 1, "KS", False, 3.0)
            )
        stored = await store.load_session(session_id)
        assert stored is not None and stored.version == 2
        assert [m.action for m in await store.moves_of(session_id)] == ["AS"]
    finally:
        await store.close()


def test_replay_rebuilds_the_played_game() -> None:
    rng = random.Random(3)
    game = REGISTRY["eleven"].new(2, {"target": 1}, seed=99)
    moves = []
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        moves.append((seat, action))
    assert replay("eleven", 2, {"target": 1}, 99, moves) == game
    assert replay("eleven", 2, {"target": 1}, 99, moves[:10]) != game


def test_replay_of_a_foreign_log_is_illegal() -> None:
    with pytest.raises(IllegalAction):
        replay("eleven", 2, {}, 1, [(0, "XX")])


async def test_group_commit_isolates_a_failing_piece(tmp_path: Path) -> None:
    db = await Database.open(db_url(tmp_path / "g.sqlite3"))
    try:

        async def name(tx: aiosqlite.Connection, user: int) -> int:
            await tx.execute("INSERT INTO users (id, name) VALUES (?, ?)", (user, f"u{user}"))
            if user == 2:
                raise LookupError("piece two fails")
            return user

        results = await asyncio.gather(
            *(db.write(partial(name, user=u)) for u in (1, 2, 3)), return_exceptions=True
        )
        assert results[0] == 1 and results[2] == 3 and isinstance(results[1], LookupError)
        rows = await db.fetchall("SELECT id FROM users ORDER BY id")
        assert [r["id"] for r in rows] == [1, 3]
    finally:
        await db.close()

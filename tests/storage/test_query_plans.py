"""Every query of a press, /start, /top (and /top season, /score season) and /stats uses
an index, on both backends.

The database holds a long history (thousands of finished matches with their
seats, moves, results and ratings; analysed, so the planners know). The bot
runs against it through the fake Bot API; every statement the store sends
while it handles one press, one /start, one /top and one /stats is recorded as
sent (with its parameters) and explained: SQLite's plan must not SCAN, and
PostgreSQL's must have no Seq Scan, on the tables that grow with history.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.context import KolodaApp
from sessions.months import month_of
from storage import open_store
from storage.postgres import PostgresStore, _init_connection
from storage.sqlite import SqliteStore
from storage.tables import TABLES, Table
from tests.support.fake_telegram import FakeTelegram, FakeUser
from tests.support.harness import Harness, start_harness

#: Tables whose size grows with every match ever played.
GROWING = ("sessions", "seats", "moves", "results", "ratings", "rating_changes",
           "season_ratings")
MATCHES = 3000
PLAYERS = 600
CHATS = 40
GAMES = ("eleven", "king", "fifteen", "mau_mau")
MOVE = re.compile(r"^\d+:\d+:.+$")
T0 = 1_700_000_000.0


@pytest.fixture(params=["sqlite", "postgres"])
def history_url(request: pytest.FixtureRequest, db_dir: Path) -> str:
    """An empty database of one backend, about to get a long history."""
    if request.param == "sqlite":
        return f"sqlite:///{db_dir / 'history.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    return url


class FirstLegal:
    """The computer players: the first legal action."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        return str(view["legal"][0])


def _table(name: str) -> Table:
    return next(table for table in TABLES if table.name == name)


async def _history(chats: list[int], known: list[int]) -> AsyncIterator[tuple[Table, list[Any]]]:
    """Finished matches in ``chats`` among strangers and the ``known`` users."""
    rng = random.Random(7)
    people = [*known, *range(50_000_000, 50_000_000 + PLAYERS)]
    yield _table("users"), [(user, f"P{user}", None, True) for user in people]
    sessions: list[tuple[Any, ...]] = []
    seats: list[tuple[Any, ...]] = []
    moves: list[tuple[Any, ...]] = []
    results: list[tuple[Any, ...]] = []
    for session in range(1, MATCHES + 1):
        chat, game = rng.choice(chats), rng.choice(GAMES)
        at = T0 + session * 60
        sessions.append((session, chat, "group", game, "finished", people[0], {}, None, 1,
                         20, 16, None, None, {"scores": [1, 0, 0, 0], "winners": [0]}, at, at,
                         None, None, None, f"link{session}", 0, None, None))
        players = rng.sample(people, 3)
        for seat, user in enumerate(players):
            seats.append((session, seat, user, f"P{user}", None, 0, None))
            results.append((session, user, chat, game, seat, seat == 0, float(3 - seat), at,
                            session))
        seats.append((session, 3, None, "Computer (easy)", "easy", 0, None))
        moves += [(session, n, n % 4, "7C", n % 4 == 3, at, n) for n in range(1, 17)]
    yield _table("sessions"), sessions
    yield _table("seats"), seats
    yield _table("moves"), moves
    yield _table("results"), results
    ratings = [
        (scope, game, user, rng.uniform(15, 35), rng.uniform(1, 8), rng.randint(1, 90), 0)
        for scope in [0, *chats]
        for game in GAMES
        for user in people
        if scope == 0 or user in known or rng.random() < 0.05
    ]
    yield _table("ratings"), ratings
    # the seasons around this one (the bot's clock is the wall clock here)
    now = month_of(time.time())
    yield _table("season_ratings"), [
        (month, *rating) for month in range(now - 3, now + 2) for rating in ratings
    ]


async def fill(url: str, chats: list[int], known: list[int]) -> None:
    """The long history, imported in one transaction, then analysed."""
    store = await open_store(url)
    try:
        assert isinstance(store, SqliteStore | PostgresStore)
        await store.import_tables(_history(chats, known))
        if isinstance(store, SqliteStore):
            async with store.db.transaction() as tx:
                await tx.execute("ANALYZE")
        else:
            await store.pool.execute("ANALYZE")
    finally:
        await store.close()


class Recorder:
    """The statements the bot's store sends, as sent (SQLite: parameters bound in)."""

    def __init__(self) -> None:
        self.on = False
        self.sqlite: list[str] = []
        self.postgres: list[tuple[str, tuple[Any, ...]]] = []

    @contextmanager
    def recording(self) -> Iterator[None]:
        self.on = True
        try:
            yield
        finally:
            self.on = False

    def traced(self, sql: str) -> None:
        if self.on:
            self.sqlite.append(sql)

    def logged(self, query: asyncpg.connection.LoggedQuery) -> None:
        if self.on:
            self.postgres.append((query.query, tuple(query.args)))


async def start_bot(fake: FakeTelegram, url: str, recorder: Recorder) -> Harness:
    """The bot polling ``fake`` on ``url``, its store wired to ``recorder``."""

    async def record(app: KolodaApp) -> None:
        assert app.bot_data.koloda is not None
        store = app.bot_data.koloda.manager.store
        if isinstance(store, SqliteStore):
            for connection in (store.db._writer, store.db._reader):
                if connection is not None:
                    await connection.set_trace_callback(recorder.traced)
            return
        assert isinstance(store, PostgresStore)

        async def init(connection: Any) -> None:
            await _init_connection(connection)
            connection.add_query_logger(recorder.logged)

        old, store.pool = store.pool, await asyncpg.create_pool(url, min_size=1, init=init)
        await old.close()

    return await start_harness(
        fake, Path(), FirstLegal(), database_url=url, started=record
    )


def _statement(sql: str) -> bool:
    return sql.lstrip().split(" ", 1)[0].upper() in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")


def sqlite_scans(path: str, statements: list[str]) -> list[str]:
    """Each statement's plan lines that scan a growing table."""
    found = []
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for sql in filter(_statement, statements):
            aliases = dict(re.findall(r"\b(\w+) AS (\w+)\b", sql))
            for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}"):
                words = str(row[3]).split()
                if words[:1] == ["SCAN"] and len(words) > 1:
                    table = next((t for t, a in aliases.items() if a == words[1]), words[1])
                    if table in GROWING:
                        found.append(f"{row[3]}  ←  {sql}")
    finally:
        connection.close()
    return found


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


async def postgres_scans(url: str, statements: list[tuple[str, tuple[Any, ...]]]) -> list[str]:
    """Each statement's Seq Scan nodes on a growing table."""
    found = []
    connection = await asyncpg.connect(url)
    try:
        await _init_connection(connection)
        for sql, args in statements:
            if not _statement(sql) or ";" in sql:  # the pool's own reset, not the store's
                continue
            many = bool(args) and isinstance(args[0], tuple) and "$" in sql
            try:
                explained = await connection.fetchval(
                    f"EXPLAIN (FORMAT JSON) {sql}", *(args[0] if many else args)
                )
            except asyncpg.PostgresError as error:
                raise AssertionError(f"cannot explain {sql!r} {args!r}") from error
            plan = json.loads(explained)[0]["Plan"]
            for node in _nodes(plan):
                if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in GROWING:
                    found.append(f"Seq Scan on {node['Relation Name']}  ←  {sql}")
    finally:
        await connection.close()
    return found


async def scans(url: str, recorder: Recorder) -> list[str]:
    """What the recorded statements scan; the record is emptied."""
    if url.startswith("sqlite"):
        found = sqlite_scans(url.removeprefix("sqlite:///"), recorder.sqlite)
    else:
        found = await postgres_scans(url, recorder.postgres)
    assert recorder.sqlite or recorder.postgres, "nothing was recorded"
    recorder.sqlite.clear()
    recorder.postgres.clear()
    return found


def _hand(fake: FakeTelegram, user: FakeUser) -> tuple[Any, list[str]]:
    hand = fake.last_message(user.id, containing="🃏")
    assert hand is not None
    return hand, [b["callback_data"] for b in hand.buttons()
                  if MOVE.match(b.get("callback_data") or "")]


async def test_a_press_start_top_and_stats_use_indexes(
    fake: FakeTelegram, history_url: str
) -> None:
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("Friends")
    chats = [group.id, *(-2_000_000_000_000 - n for n in range(1, CHATS))]
    await fill(history_url, chats, [alice.id, bob.id])
    recorder = Recorder()
    harness = await start_bot(fake, history_url, recorder)
    try:
        for user in (alice, bob):
            await harness.command(user, fake.private(user).id, "/start")
        await harness.command(alice, group.id, "/new eleven")
        lobby = fake.last_message(group.id)
        assert lobby is not None
        session = await harness.kol.manager.open_in_chat(group.id)
        assert session is not None and session.id > MATCHES
        await harness.press(bob, lobby, f"join:{session.id}")
        await harness.press(alice, lobby, f"start:{session.id}")
        session = await harness.kol.manager.get(session.id)
        seat = session.to_move
        assert seat is not None
        player = alice if session.seats[seat].user_id == alice.id else bob
        hand, buttons = _hand(fake, player)
        assert buttons

        with recorder.recording():
            await harness.press(player, hand, buttons[0])
        assert await scans(history_url, recorder) == [], "a press"
        assert (await harness.kol.manager.get(session.id)).version == session.version + 1

        with recorder.recording():
            await harness.command(bob, fake.private(bob).id, "/start")
        assert await scans(history_url, recorder) == [], "/start"
        with recorder.recording():
            await harness.command(bob, fake.private(bob).id, f"/start h{session.id}")
        assert await scans(history_url, recorder) == [], "/start h"

        for chat in (group.id, fake.private(alice).id):
            with recorder.recording():
                await harness.command(alice, chat, "/top")
            assert await scans(history_url, recorder) == [], "/top"
        with recorder.recording():
            await harness.command(alice, group.id, "/top king")
        assert await scans(history_url, recorder) == [], "/top king"
        with recorder.recording():
            await harness.command(alice, fake.private(alice).id, "/stats")
        assert await scans(history_url, recorder) == [], "/stats"
        top = fake.last_message(group.id)
        assert top is not None and "P" in top.text  # the history is there to rank
        for chat, asked in ((group.id, "/top season"), (group.id, "/top season king"),
                            (fake.private(alice).id, "/top season"),
                            (group.id, "/score season"), (group.id, "/score season king")):
            with recorder.recording():
                await harness.command(alice, chat, asked)
            assert await scans(history_url, recorder) == [], asked
        season = fake.last_message(group.id)
        assert season is not None and "season" in season.text
        for chat, asked in ((group.id, "/daily top eleven"), (group.id, "/daily top"),
                            (fake.private(alice).id, "/daily top")):
            with recorder.recording():
                await harness.command(alice, chat, asked)
            assert await scans(history_url, recorder) == [], asked
    finally:
        await harness.stop()
        await asyncio.sleep(0)

"""The database unavailable under the bot: presses made meanwhile are kept and take
effect once it is back; a bug is confirmed after a few tries (bot/updates.py)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot import updates
from bot.delivery import Retries
from bot.i18n import t
from bot.render.common import Screen
from bot.updates import KolodaApplication
from sessions import manager as manager_module
from storage import database
from storage.outage import unavailable
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import Harness, start_harness
from tests.support.tables import move_data, mover, open_table


@pytest.fixture
async def quick(fake: FakeTelegram, db_dir: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[Harness]:
    """The polling bot with short lock waits and retry pauses (the same logic)."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(updates, "RETRY_FIRST", 0.05)
    monkeypatch.setattr(updates, "RETRY_CAP", 0.2)
    running = await start_harness(fake, db_dir / "koloda.sqlite3", RandomComputer())
    yield running
    await running.stop()


@asynccontextmanager
async def locked(path: Path) -> AsyncIterator[None]:
    """Another process holds the database's write lock (a long backup, an operator's
    sqlite3 shell): every write of the bot fails with "database is locked".

    The lock is taken in a thread, as another process would: the bot may be in the
    middle of a write transaction, which it finishes only if its event loop runs on
    while the lock waits for it (a wait on the loop itself would hold the bot inside
    its transaction until the wait timed out)."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        await asyncio.to_thread(other.execute, "BEGIN EXCLUSIVE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def _app(harness: Harness) -> KolodaApplication:
    assert isinstance(harness.app, KolodaApplication)
    return harness.app


async def _failed(harness: Harness, update_id: int, times: int) -> None:
    """Wait until the bot has failed ``update_id`` at least ``times`` times."""
    async with asyncio.timeout(30):
        while _app(harness).failures(update_id) < times:
            await asyncio.sleep(0.01)


def to_chat(chat_id: int) -> Callable[[dict[str, Any]], bool]:
    """Whether a call's parameters address ``chat_id``."""
    return lambda params: params.get("chat_id") == chat_id


def test_storage_outages_and_bugs_are_told_apart() -> None:
    locked_error = sqlite3.OperationalError("database is locked")
    locked_error.sqlite_errorcode = 5
    assert unavailable(locked_error)
    assert unavailable(ConnectionRefusedError(111, "Connection refused"))
    assert unavailable(ValueError("Connection closed"))
    wrapped = RuntimeError("commit failed")
    wrapped.__cause__ = locked_error
    assert unavailable(wrapped)
    syntax = sqlite3.OperationalError("near 'SELEC': syntax error")
    syntax.sqlite_errorcode = 1
    assert not unavailable(syntax)
    assert not unavailable(KeyError(3)) and not unavailable(ValueError("bad literal"))


async def test_a_move_pressed_while_the_database_is_locked_counts_once_afterwards(
    quick: Harness, db_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    harness, fake = quick, quick.fake
    table = await open_table(harness)
    first, other, version = await mover(harness, table)
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None and move_data(hand)
    async with locked(db_dir / "koloda.sqlite3"):
        query = fake.push_callback(first, fake.private(first), hand.message_id, move_data(hand)[0])
        update_id = fake._updates[-1]["update_id"]
        late = fake.push_command(other, fake.private(other), "/help")["update_id"]
        await _failed(harness, update_id, 3)  # tried again and again, never given up
        assert fake.confirmed < update_id  # not acknowledged: Telegram keeps it
        assert (await harness.kol.manager.get(table.session_id)).version == version
        told = [c for c in fake.calls_of("answerCallbackQuery")
                if c.params["callback_query_id"] == query]
        assert [c.params.get("text") for c in told] == [t("en", "error-generic")]  # once
    await harness.settle()
    session = await harness.kol.manager.get(table.session_id)
    assert session.version > version and session.moves == 1  # the press took effect, once
    assert fake.confirmed >= late
    outage = [r for r in caplog.records if "database is unavailable" in r.getMessage()]
    assert len(outage) == 1 and outage[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert fake.last_message(other.id, containing="/new")  # /help, fetched after it


async def test_a_bug_is_confirmed_after_a_few_tries_with_one_error_line(
    quick: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness, fake = quick, quick.fake
    ann = fake.user("Ann")
    await harness.command(ann, fake.private(ann).id, "/start")
    tries = 0
    send = harness.kol.delivery.send

    def broken(chat_id: int, screen: Screen, thread: int | None = None) -> None:
        nonlocal tries
        if "/new" in screen.text:  # /help's answer (the error reply goes through)
            tries += 1
            raise ZeroDivisionError("a bug in /help")
        send(chat_id, screen, thread)

    monkeypatch.setattr(harness.kol.delivery, "send", broken)
    caplog.clear()
    poison = fake.push_command(ann, fake.private(ann), "/help")["update_id"]
    await fake.wait_until(lambda: fake.confirmed >= poison, timeout=30)
    assert tries == updates.BUG_TRIES
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert fake.last_message(ann.id, containing=t("en", "error-generic"))
    monkeypatch.setattr(harness.kol.delivery, "send", send)
    await harness.command(ann, fake.private(ann).id, "/help")  # the queue goes on
    assert fake.last_message(ann.id, containing="/new")


async def test_a_hand_telegram_refused_three_times_is_delivered_later(
    harness: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same back-off, shorter
    monkeypatch.setattr(harness.kol.delivery, "retries", Retries(first=0.01))
    fake = harness.fake
    table = await open_table(harness, started=False)
    for user in (table.alice, table.bob):  # every private hand's first three sends fail
        fake.fail_next(
            "sendMessage", 500, "Internal Server Error", times=3,
            when=to_chat(user.id),
        )
    await harness.press(table.alice, table.message, f"start:{table.session_id}")
    first, _, _ = await mover(harness, table)
    tries = fake.calls_of("sendMessage", first.id)
    assert [c.ok for c in tries[-4:]] == [False, False, False, True]
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None and move_data(hand)  # her turn's buttons reached her
    assert len([m for m in fake.chat_messages(first.id) if "🃏" in m.text]) == 1  # once
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_move_pressed_while_postgres_refuses_connections_counts_once_afterwards(
    fake: FakeTelegram, db_dir: Path, pg_database: str, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(updates, "RETRY_FIRST", 0.05)
    monkeypatch.setattr(updates, "RETRY_CAP", 0.2)
    harness = await start_harness(
        fake, db_dir / "unused.sqlite3", RandomComputer(), database_url=pg_database
    )
    # polling on a shared store, it takes up the work other processes leave behind
    assert harness.app.bot_data.cluster is not None
    name = pg_database.rsplit("/", 1)[1]
    admin = await asyncpg.connect(pg_database.rsplit("/", 1)[0] + "/postgres")
    try:
        table = await open_table(harness)
        first, _, version = await mover(harness, table)
        hand = fake.last_message(first.id, containing="🃏")
        assert hand is not None and move_data(hand)
        # the server takes no new connections to the database and drops the bot's
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()", name,
        )
        fake.push_callback(first, fake.private(first), hand.message_id, move_data(hand)[0])
        update_id = fake._updates[-1]["update_id"]
        await _failed(harness, update_id, 3)
        assert fake.confirmed < update_id
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await harness.settle()
        session = await harness.kol.manager.get(table.session_id)
        assert session.version > version and session.moves == 1
        assert fake.confirmed >= update_id
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
        await harness.stop()


class GatedComputer(RandomComputer):
    """RandomComputer that thinks until ``gate`` opens (a hard position)."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked = 0

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """The usual random move, once the gate is open."""
        self.asked += 1
        await self.gate.wait()
        return await super().choose(game_id, view, level, seed)


async def test_a_computer_move_the_locked_database_refused_is_made_afterwards(
    fake: FakeTelegram, db_dir: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(manager_module, "OUTAGE_PAUSE", 0.05)
    computer = GatedComputer()
    path = db_dir / "koloda.sqlite3"
    harness = await start_harness(fake, path, computer)
    try:
        vera = fake.user("Vera")
        await harness.command(vera, fake.private(vera).id, "/new fifteen")
        lobby = fake.last_message(vera.id)
        assert lobby is not None
        await harness.press(vera, lobby, "vs:1")
        query = fake.push_press(vera, lobby, "comp:1:easy")
        await fake.answer(query)
        async with asyncio.timeout(30):
            while True:  # Vera moves until the computer is thinking
                session = await harness.kol.manager.get(1)
                if computer.asked:
                    break
                hand = fake.last_message(vera.id, containing="🃏")
                if hand is not None and session.to_move == 0 and move_data(hand):
                    # (not harness.press: settling would wait for the thinking computer);
                    # answered once committed, or refused if the hand was a stale one —
                    # either way the loop looks again (she may well be to move again)
                    await fake.answer(fake.push_press(vera, hand, move_data(hand)[0]))
                await asyncio.sleep(0.01)
        before = (await harness.kol.manager.get(1)).moves
        async with locked(path):
            computer.gate.set()  # it has chosen; its commit meets the lock
            async with asyncio.timeout(30):
                while not any("waits for the database" in r.getMessage()
                              for r in caplog.records):
                    await asyncio.sleep(0.01)
        await harness.settle()
        assert (await harness.kol.manager.get(1)).moves > before  # played after all
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    finally:
        await harness.stop()

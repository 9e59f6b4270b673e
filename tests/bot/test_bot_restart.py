"""A restart delivers only what is behind: no storm of edits with thousands of open games.

Every stored message records the version it shows and the version it should
show (raised in the transaction of the change). With every table current, a
restart edits nothing; with some tables behind, exactly those are drawn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from games import REGISTRY
from sessions import TABLE, hand_purpose
from storage import MessageRef, SeatRecord, SessionRecord
from storage.sqlite import SqliteStore
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import MESSAGE_METHODS, FakeTelegram
from tests.support.harness import start_harness

CURRENT = 2000
BEHIND = 50


def _running(chat_id: int, users: tuple[int, int], seed: int) -> SessionRecord:
    game = REGISTRY["eleven"].new(2, {}, seed)
    return SessionRecord(
        id=0,
        chat_id=chat_id,
        kind="group",
        game="eleven",
        status="running",
        creator=users[0],
        options=game.options,
        timer=None,
        seed=seed,
        version=3,
        moves=0,
        state=game.to_dict(),
        deadline=None,
        result=None,
        created=1.0,
        seats=[SeatRecord(user, f"u{user}", None) for user in users],
    )


async def _store_games(path: Path, count: int) -> list[tuple[int, int]]:
    """``count`` running two-player games, each shown current: (session id, group id)."""
    store = await SqliteStore.open(f"sqlite:///{path}")
    try:

        async def one(n: int) -> tuple[int, int]:
            chat_id, users = -10_000 - n, (2 * n + 1, 2 * n + 2)
            session_id = await store.create_session(_running(chat_id, users, n))
            refs = [
                MessageRef(TABLE, chat_id, 1, None, 3, 3),
                MessageRef(hand_purpose(0), users[0], 1, None, 3, 3),
                MessageRef(hand_purpose(1), users[1], 1, None, 3, 3),
            ]
            for ref in refs:
                await store.set_message(session_id, ref)
            return session_id, chat_id

        return list(await asyncio.gather(*(one(n) for n in range(count))))
    finally:
        await store.close()


async def _deliveries_at_start(fake: FakeTelegram, path: Path) -> list[tuple[str, int]]:
    """Start the bot on ``path``, let it settle, stop it: what it sent or edited."""
    before = len(fake.calls)
    harness = await start_harness(fake, path, RandomComputer())
    try:
        await harness.settle()
    finally:
        await harness.stop()
    return [
        (c.method, c.chat_id or 0)
        for c in fake.calls[before:]
        # the fake never saw the stored messages: each edit fails and the table is posted
        if c.method in MESSAGE_METHODS and c.ok
    ]


async def test_a_restart_with_every_table_current_edits_nothing(
    fake: FakeTelegram, db_dir: Path
) -> None:
    path = db_dir / "many.sqlite3"
    games = await _store_games(path, CURRENT)
    assert await _deliveries_at_start(fake, path) == []
    # some tables fell behind (a crash between their commits and deliveries)
    store = await SqliteStore.open(f"sqlite:///{path}")
    try:
        for session_id, chat_id in games[:BEHIND]:
            await store.set_message(session_id, MessageRef(TABLE, chat_id, 1, None, 2, 3))
    finally:
        await store.close()
    delivered = await _deliveries_at_start(fake, path)
    assert sorted(chat for _, chat in delivered) == sorted(chat for _, chat in games[:BEHIND])
    # and once drawn, they are current: the next restart edits nothing again
    assert await _deliveries_at_start(fake, path) == []



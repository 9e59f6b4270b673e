"""A polling bot on PostgreSQL shares its store: it takes up the work another process
left there (the cluster duty runs whatever the transport, bot/cluster.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sessions import SessionManager
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import start_harness
from tests.support.helpers_sessions import Stuck

#: The dying process's lease on the computer turn it took (seconds).
LEASE = 0.5


async def test_a_poller_on_postgres_plays_the_computer_turn_another_process_left(
    fake: FakeTelegram, db_dir: Path, pg_database: str
) -> None:
    harness = await start_harness(
        fake, db_dir / "unused.sqlite3", RandomComputer(), database_url=pg_database
    )
    stuck = Stuck()
    dying = await SessionManager.open(pg_database, stuck, shared=True, lease=LEASE)
    try:
        group = fake.group("Left behind")
        lobby = await dying.create(group.id, "group", 1, "Ann", "eleven")
        await dying.add_computer(lobby.id, 1, "easy")
        started = (await dying.start(lobby.id, 1)).session
        if started.to_move == 0:  # Ann leads: she plays, so that the computer is to move
            legal = started.view(0)["legal"]
            started = (await dying.act(started.id, 1, started.version, legal[0])).session
        assert started.to_move == 1
        await asyncio.wait_for(stuck.asked.wait(), 10)  # the dying process took the turn
        await dying.close()  # and is gone, its lease on the turn still running
        manager = harness.kol.manager

        async def moved() -> bool:
            return (await manager.get(started.id)).version > started.version

        for _ in range(300):  # the lease runs out; the poller's cluster duty plays it
            if await moved():
                break
            await asyncio.sleep(0.05)
        assert await moved()
        computer_moves = [m for m in await manager.replay_log(started.id) if m.by_computer]
        versions = [m.version for m in computer_moves]
        assert computer_moves and len(set(versions)) == len(versions)  # each turn once
    finally:
        await harness.stop()

"""End to end: two ``python -m bot`` workers in webhook mode on one PostgreSQL database.

The fake Bot API POSTs every update, with the webhook's secret header, to the
two workers in turn (a load balancer's round robin), and enforces Telegram's
flood limits on a clock ten times faster (the workers pace on the same clock:
``KOLODA_FLOOD_SCALE``), with room over the workers' pace (tests/support/flood.py).
Two humans and two computers play a King match to the end while one worker is
SIGKILLed twice; its turns, computer moves and undelivered screens are taken
up by the other (leases of 2 s). Nothing may be lost or done twice, and the
group never gets more than its budget: the two workers share it, so the fake,
allowing half as many again, refuses none.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sessions import SessionManager
from sessions.replay import replay
from tests.support.bot_process import buttons_of, moved_on, next_press
from tests.support.buttons import version_of
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser, FloodLimits
from tests.support.flood import HEADROOM
from tests.support.webhook import WebhookWorker

SECRET = "cluster-secret_0"
SCALE = 10.0  # Telegram's clock, compressed
GROUP_PER_MINUTE = 20  # the workers' own pace in a group
LEASE = "2"

pytestmark = pytest.mark.slow


def worker(fake: FakeTelegram, database_url: str, log: Path) -> WebhookWorker:
    """One ``python -m bot`` in webhook mode on its own port, leases of 2 s."""
    return WebhookWorker(fake, {
        "DATABASE_URL": database_url,
        "WEBHOOK_URL": "https://koloda.example.org/telegram",
        "WEBHOOK_SECRET": SECRET,
        "KOLODA_LEASE_SECONDS": LEASE,
        "KOLODA_FLOOD_SCALE": str(SCALE),
    }, log)


async def press_next(fake: FakeTelegram, users: list[FakeUser], chats: dict[int, FakeChat]) -> None:
    """Play the first legal card of the human who is to move; wait for the next turn."""
    user, hand, data = next_press(fake, users)
    version = version_of(data)
    query = fake.push_callback(user, chats[user.id], hand.message_id, data)
    answer = await fake.answer(query, timeout=30)
    assert not answer.params.get("text"), answer.params
    await moved_on(fake, users, version)


async def test_two_workers_one_killed_twice_play_a_king_match_to_the_end(
    pg_database: str, tmp_path: Path
) -> None:
    # the group's 20 a minute fill up (20 arrivals in a window of 6 s, some 0.02 s apart):
    # at exactly the workers' pace a send late by a twentieth of an interval is a 429;
    # private chats: Telegram tolerates short bursts
    flood = FloodLimits(
        group_per_minute=int(GROUP_PER_MINUTE * HEADROOM), private_burst=3, scale=SCALE
    )
    fake = FakeTelegram(flood=flood)
    await fake.start()
    log = tmp_path / "workers.log"
    workers = [worker(fake, pg_database, log) for _ in range(2)]
    alice, bob = fake.user("Alice"), fake.user("Bob")
    humans = [alice, bob]
    group = fake.group("Cluster")
    chats = {alice.id: fake.private(alice), bob.id: fake.private(bob)}
    try:
        await asyncio.gather(*(w.start() for w in workers))
        assert fake.webhook is not None and fake.webhook["secret_token"] == SECRET
        fake.push_webhooks([w.url for w in workers])
        for user in humans:
            fake.push_command(user, chats[user.id], "/start")
        fake.push_command(alice, group, "/new king")
        await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == group.id, 30)
        table = fake.last_message(group.id)
        assert table is not None
        presses = [(bob, "join:1"), (alice, "comp:1:easy"), (alice, "comp:1:easy")]
        for user, data in presses:
            await fake.answer(fake.push_callback(user, group, table.message_id, data), 30)
        await fake.wait_until(lambda: table.text.count("🤖") >= 2 or "Bob" in table.text, 30)
        await fake.answer(fake.push_callback(alice, group, table.message_id, "start:1"), 30)
        await fake.wait_until(
            lambda: any(buttons_of(fake.last_message(u.id, "🃏")) for u in humans), 30
        )
        human_moves = 0
        victim = workers[0]
        for number in range(2000):
            if "game over" in table.text:
                break
            if number in (6, 40):  # mid-match, twice: the same worker, restarted between
                await victim.kill()
            if number in (14, 48):
                await victim.start()
            if any("game over" in (fake.last_message(u.id) or table).text for u in humans):
                break
            await press_next(fake, humans, chats)
            human_moves += 1
        await fake.wait_until(lambda: "game over" in table.text, timeout=60)
        assert human_moves > 48  # both kills and restarts happened mid-match
    finally:
        await asyncio.gather(*(w.stop() for w in workers))
        await fake.stop()

    # the group's budget, shared by the two workers, was kept: nothing was refused
    assert not [c for c in fake.calls if c.chat_id == group.id and c.error
                and c.error.startswith("Too Many Requests")]
    # one table message, showing the result
    assert len(fake.chat_messages(group.id)) == 1
    # redelivered updates (a worker killed while handling them) happened and were harmless
    assert any(status != 200 for _, _, status in fake.webhook_posts)

    manager = await SessionManager.open(pg_database, RandomComputer())
    try:
        session = await manager.get(1)
        assert session.status == "finished" and session.result is not None
        moves = await manager.replay_log(1)
        # every accepted press is in the log once, every computer turn was played once
        assert sum(not m.by_computer for m in moves) == human_moves
        versions = [m.version for m in moves]
        assert len(set(versions)) == len(versions)
        # the log replays to the stored end of the match: nothing lost, nothing twice
        assert session.game is not None and session.seed is not None
        replayed = replay(
            "king", 4, session.options, session.seed, [(m.seat, m.action) for m in moves]
        )
        assert replayed.finished and replayed.to_dict() == session.game.to_dict()
    finally:
        await manager.close()

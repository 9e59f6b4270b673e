"""End to end: ``python -m bot`` against the fake Bot API, killed with SIGKILL mid-game.

The bot runs as a real subprocess (its own event loop, PTB HTTP stack, SQLite
file); the test drives two players through the fake server, kills the process
without warning, starts it again and finishes the match. Nothing may be lost:
the table message is edited (never posted twice), buttons drawn before the
kill still work, and the move log holds every accepted press.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from sessions import SessionManager
from tests.support.bot_process import buttons_of, moved_on, next_press, run_to_exit, start_bot
from tests.support.buttons import version_of
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser

pytestmark = pytest.mark.slow


async def press_move(fake: FakeTelegram, users: list[FakeUser], chat: dict[int, FakeChat]) -> None:
    """Play the first legal card of whoever is to move; wait until the version moves on."""
    user, hand, data = next_press(fake, users)
    version = version_of(data)
    query = fake.push_callback(user, chat[user.id], hand.message_id, data)
    answer = await fake.answer(query, timeout=20)
    assert not answer.params.get("text"), answer.params
    await moved_on(fake, users, version)


async def test_sigkill_mid_game_loses_nothing(fake: FakeTelegram, db_dir: Path) -> None:
    database = db_dir / "e2e.sqlite3"
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("E2E")
    chats = {alice.id: fake.private(alice), bob.id: fake.private(bob)}
    process = await start_bot(fake, database)
    try:
        for user in (alice, bob):
            fake.push_command(user, chats[user.id], "/start")
        fake.push_command(alice, group, "/new fifteen")
        await fake.wait_for(
            lambda c: c.method == "sendMessage" and c.chat_id == group.id, timeout=20
        )
        table = fake.last_message(group.id)
        assert table is not None
        for user, data in ((bob, "join:1"), (alice, "opt:1:deals:2"), (alice, "back:1")):
            await fake.answer(fake.push_callback(user, group, table.message_id, data), timeout=20)
        await fake.wait_until(
            lambda: "Bob" in table.text and "Deals: <b>2</b>" in table.text, timeout=20
        )
        await fake.answer(fake.push_callback(alice, group, table.message_id, "start:1"), timeout=20)
        await fake.wait_until(
            lambda: bool(
                buttons_of(fake.last_message(alice.id, "🃏"))
                or buttons_of(fake.last_message(bob.id, "🃏"))
            ),
            timeout=20,
        )
        presses = 0
        for _ in range(3):
            await press_move(fake, [alice, bob], chats)
            presses += 1
        user, hand, data = next_press(fake, [alice, bob])  # drawn before the kill

        process.send_signal(signal.SIGKILL)
        await process.wait()
        assert process.returncode == -signal.SIGKILL
        sends_before = len(fake.calls_of("sendMessage", group.id))

        process = await start_bot(fake, database)
        # the table was re-rendered by editing it, not posted again
        assert len(fake.calls_of("sendMessage", group.id)) == sends_before
        assert fake.chat_messages(group.id) == [table]
        # a button drawn before the restart, still current, works
        answer = await fake.answer(
            fake.push_callback(user, chats[user.id], hand.message_id, data), timeout=20
        )
        assert not answer.params.get("text"), answer.params
        presses += 1
        await moved_on(fake, [alice, bob], version_of(data))
        for _ in range(200):
            if any("game over" in (fake.last_message(u.id) or hand).text for u in (alice, bob)):
                break
            await press_move(fake, [alice, bob], chats)
            presses += 1
        await fake.wait_until(lambda: "game over" in table.text, timeout=90)
        assert len(fake.chat_messages(group.id)) == 1
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
    manager = await SessionManager.open(f"sqlite:///{database}", RandomComputer())
    try:
        session = await manager.get(1)
        assert session.status == "finished"
        assert len(await manager.replay_log(1)) == presses
    finally:
        await manager.close()


async def test_a_token_telegram_rejects_is_one_line_and_exit_2(
    fake: FakeTelegram, db_dir: Path
) -> None:
    code, stderr = await run_to_exit(
        {
            "TELEGRAM_BOT_TOKEN": "999:wrong-token-wrong-token-wrong",
            "TELEGRAM_API_URL": fake.api_url,
            "DATABASE_URL": f"sqlite:///{db_dir / 'x.sqlite3'}",
        }
    )
    assert code == 2
    assert "koloda: Telegram rejected TELEGRAM_BOT_TOKEN" in stderr
    assert "Traceback" not in stderr


async def test_a_database_that_cannot_be_opened_is_one_line_and_exit_2(
    fake: FakeTelegram, db_dir: Path
) -> None:
    (db_dir / "a-file").write_text("a file where a directory should be")
    code, stderr = await run_to_exit(
        {
            "TELEGRAM_BOT_TOKEN": fake.token,
            "TELEGRAM_API_URL": fake.api_url,
            "DATABASE_URL": f"sqlite:///{db_dir / 'a-file' / 'x.sqlite3'}",
        }
    )
    assert code == 2, stderr
    assert "koloda: cannot open DATABASE_URL" in stderr
    assert "Traceback" not in stderr

"""End to end: ``python -m bot`` against the fake Bot API, killed with SIGKILL mid-game.

The bot runs as a real subprocess (its own event loop, PTB HTTP stack, SQLite
file); the test drives two players through the fake server, kills the process
without warning, starts it again and finishes the match. Nothing may be lost:
the table message is edited (never posted twice), buttons drawn before the
kill still work, and the move log holds every accepted press.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from sessions import SessionManager
from tests.conftest import RandomComputer
from tests.fake_telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage

ROOT = Path(__file__).resolve().parent.parent
MOVE = re.compile(r"^(\d+):(\d+):(.+)$")

pytestmark = pytest.mark.slow


async def start_bot(fake: FakeTelegram, database: Path) -> asyncio.subprocess.Process:
    """``python -m bot`` pointed at the fake server; returns once it polls."""
    env = fake.bot_environment(database)
    before = len(fake.calls)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    await fake.wait_for(lambda c: c.method == "setMyCommands", timeout=60, after=before)
    await asyncio.sleep(0.5)  # let it finish re-rendering and start polling
    return process


def buttons_of(message: StoredMessage | None) -> list[str]:
    """Move buttons on a message."""
    if message is None:
        return []
    return [
        b["callback_data"] for b in message.buttons() if MOVE.match(b.get("callback_data") or "")
    ]


def next_press(fake: FakeTelegram, users: list[FakeUser]) -> tuple[FakeUser, StoredMessage, str]:
    """Whoever has move buttons in their private hand message, and the first button."""
    found = []
    for user in users:
        hand = fake.last_message(user.id, containing="🃏")
        data = buttons_of(hand)
        if hand is not None and data:
            found.append((int(MOVE.match(data[0])[2]), user, hand, data[0]))  # type: ignore[index]
    assert found, [(fake.last_message(u.id) or StoredMessage(0, 0, "-", None)).text for u in users]
    found.sort(key=lambda f: f[0])
    _, user, hand, data = found[-1]
    return user, hand, data


async def press_move(fake: FakeTelegram, users: list[FakeUser], chat: dict[int, FakeChat]) -> None:
    """Play the first legal card of whoever is to move; wait until the version moves on."""
    user, hand, data = next_press(fake, users)
    version = int(MOVE.match(data)[2])  # type: ignore[index]
    query = fake.push_callback(user, chat[user.id], hand.message_id, data)
    answer = await fake.answer(query, timeout=20)
    assert not answer.params.get("text"), answer.params
    await moved_on(fake, users, version)


async def moved_on(fake: FakeTelegram, users: list[FakeUser], version: int) -> None:
    """Wait until someone holds move buttons newer than ``version``, or the game is over."""

    def newer_buttons_or_over() -> bool:
        game_over = any("game over" in getattr(fake.last_message(u.id), "text", "") for u in users)
        return game_over or any(
            int(MOVE.match(b)[2]) > version  # type: ignore[index]
            for u in users
            for b in buttons_of(fake.last_message(u.id, containing="🃏"))
        )

    await fake.wait_until(newer_buttons_or_over, timeout=20)


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
        await moved_on(fake, [alice, bob], int(MOVE.match(data)[2]))  # type: ignore[index]
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


async def run_to_exit(env: dict[str, str]) -> tuple[int, str]:
    """Run ``python -m bot`` until it exits; (exit code, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    except TimeoutError:
        process.kill()
        _, stderr = await process.communicate()
        raise AssertionError(f"python -m bot did not exit: {stderr.decode()[-2000:]}") from None
    assert process.returncode is not None
    return process.returncode, stderr.decode()


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

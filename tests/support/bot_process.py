"""``python -m bot`` as a real process against the fake Bot API, and its move buttons."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.support.buttons import MOVE, version_of
from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage

ROOT = Path(__file__).resolve().parents[2]

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
        buttons = buttons_of(hand)
        if hand is not None and buttons:
            found.append((version_of(buttons[0]), user, hand, buttons[0]))
    assert found, [(fake.last_message(u.id) or StoredMessage(0, 0, "-", None)).text for u in users]
    found.sort(key=lambda f: f[0])
    _, user, hand, data = found[-1]
    return user, hand, data


async def moved_on(fake: FakeTelegram, users: list[FakeUser], version: int) -> None:
    """Wait until someone holds move buttons newer than ``version``, or the game is over."""

    def newer_buttons_or_over() -> bool:
        game_over = any("game over" in getattr(fake.last_message(u.id), "text", "") for u in users)
        return game_over or any(
            version_of(b) > version
            for u in users
            for b in buttons_of(fake.last_message(u.id, containing="🃏"))
        )

    await fake.wait_until(newer_buttons_or_over, timeout=20)


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

"""Two tables in two topics of one forum group share the group's budget: measured.

Telegram's limit of about 20 messages a minute is per chat, not per topic, so two
tables in one forum group share it (``bot/limiter.py`` paces per chat). This runs
the real bot in-process (``tests/support/harness.py``) against the fake Bot API
with Telegram's flood limits on, both sides on a clock ``--scale`` times faster,
and four humans with no think time at each King table, who press the first move
button of their private hand as soon as it is their turn. Three rounds of the
same length, back to back: one table alone in a topic, two tables in two topics
at once, one table alone again. Printed per round, in Telegram minutes (wall
seconds × scale / 60): each table's moves a minute, the group's sends and edits
a minute (what Telegram's limit counts), and the 429s the fake answered.

    .venv/bin/python bench/topics.py                 # 3 rounds × 5 Telegram minutes
    .venv/bin/python bench/topics.py --minutes 2 --scale 20
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from bot.flood_limits import Limits  # noqa: E402
from tests.support.buttons import MOVE  # noqa: E402
from tests.support.computers import RandomComputer  # noqa: E402
from tests.support.fake_telegram import (  # noqa: E402
    MESSAGE_METHODS,
    Call,
    FakeChat,
    FakeTelegram,
    FakeUser,
    FloodLimits,
)
from tests.support.harness import Harness, start_harness  # noqa: E402


@dataclass
class Table:
    """One King table in a topic: its session, players and the moves made in a round."""

    session_id: int
    thread: int
    users: dict[int, FakeUser]
    moves: int = 0


async def open_king(harness: Harness, forum: FakeChat, thread: int, names: str) -> Table:
    """Four new players open a King table in the topic and deal."""
    fake = harness.fake
    users = [fake.user(f"{names}{n}") for n in range(4)]
    for user in users:
        fake.push_command(user, fake.private(user), "/start")
    await harness.settle()
    fake.push_command(users[0], forum, "/new king", thread=thread)
    await harness.settle()
    session = await harness.kol.manager.open_in_chat(forum.id, thread)
    assert session is not None
    lobby = next(m for m in reversed(fake.chat_messages(forum.id))
                 if any(b.get("callback_data") == f"join:{session.id}" for b in m.buttons()))
    for user in users[1:]:
        fake.push_press(user, lobby, f"join:{session.id}")
        await harness.settle()
    fake.push_press(users[0], lobby, f"start:{session.id}")
    await harness.settle()
    return Table(session.id, thread, {u.id: u for u in users})


async def play(harness: Harness, table: Table, until: float) -> None:
    """Press the mover's first current move button, turn after turn, until ``until``."""
    fake, manager = harness.fake, harness.kol.manager
    while time.monotonic() < until:
        session = await manager.get(table.session_id)
        seat = session.to_move
        if session.status != "running" or seat is None:
            return
        user = table.users[session.seats[seat].user_id or 0]
        hand = fake.last_message(user.id, containing="🃏")
        current = [
            b["callback_data"] for b in (hand.buttons() if hand else [])
            if (m := MOVE.match(b.get("callback_data") or "")) and int(m[2]) == session.version
        ]
        if hand is None or not current:
            await asyncio.sleep(0.01)  # the hand is still on its way
            continue
        fake.push_callback(user, fake.private(user), hand.message_id, current[0])
        while time.monotonic() < until:
            await asyncio.sleep(0.005)
            if (await manager.get(table.session_id)).version != session.version:
                table.moves += 1
                break


async def round_of(
    harness: Harness, forum: FakeChat, tables: list[Table], seconds: float, scale: float
) -> dict[str, float]:
    """Play ``tables`` at once for ``seconds``; per Telegram minute: each table's moves,
    the group's sends and edits, the 429s."""
    counted: list[Call] = []

    def listen(call: Call) -> None:
        if call.method in MESSAGE_METHODS and call.chat_id == forum.id:
            counted.append(call)

    harness.fake.listeners.append(listen)
    for table in tables:
        table.moves = 0
    until = time.monotonic() + seconds
    await asyncio.gather(*(play(harness, table, until) for table in tables))
    harness.fake.listeners.remove(listen)
    minutes = seconds * scale / 60.0
    found: dict[str, float] = {}
    for t in tables:
        found[f"topic {t.thread}: moves/min"] = t.moves / minutes
        found[f"topic {t.thread}: sends/min"] = sum(
            1 for c in counted if c.ok and _thread(harness, c) == t.thread
        ) / minutes
    found["group sends/min"] = sum(1 for c in counted if c.ok) / minutes
    found["group 429s"] = sum(1 for c in counted if c.error and "Too Many" in c.error)
    return found


def _thread(harness: Harness, call: Call) -> int | None:
    """The topic a send or edit in the group went to."""
    if "message_thread_id" in call.params:
        return int(call.params["message_thread_id"])
    stored = harness.fake.messages.get((call.chat_id or 0, int(call.params.get("message_id", 0))))
    return stored.thread if stored is not None else None


async def main(minutes: float, scale: float) -> None:
    """Alone, two at once, alone again: printed as they finish."""
    seconds = minutes * 60.0 / scale
    fake = FakeTelegram(flood=FloodLimits(scale=scale))
    await fake.start()
    with tempfile.TemporaryDirectory() as scratch:
        harness = await start_harness(
            fake, Path(scratch) / "topics.sqlite3", RandomComputer(),
            limits=Limits().scaled(scale), defer=30.0 / scale,
        )
        try:
            forum = fake.forum("Cards")
            one, two, three = (fake.create_topic(forum, name) for name in ("A", "B", "C"))
            first = await open_king(harness, forum, one, "A")
            second = await open_king(harness, forum, two, "B")
            alone = await open_king(harness, forum, three, "C")
            await harness.settle()
            print(f"{minutes:g} Telegram minutes a round, clock × {scale:g}")
            for name, tables in (("alone", [alone]), ("two topics", [first, second]),
                                 ("alone again", [alone])):
                found = await round_of(harness, forum, tables, seconds, scale)
                shown = ", ".join(f"{k} {v:.1f}" for k, v in found.items())
                print(f"{name}: {shown}", flush=True)
        finally:
            await harness.stop()
            await fake.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="Telegram minutes a round")
    parser.add_argument("--scale", type=float, default=10.0, help="how much faster the clock runs")
    args = parser.parse_args()
    asyncio.run(main(args.minutes, args.scale))

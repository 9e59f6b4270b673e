"""One move press, end to end: which project files it runs, views built, store reads.

The real bot (PTB's HTTP stack, the SQLite store) runs in-process against the
project's fake Bot API, as the tests run it. Four humans open a King table in
a group and play a few moves; then one move is pressed on the hand message of
the seat to move, and a profiler hook (``sys.setprofile``, and
``threading.setprofile`` for the store's threads) records every Python
function entered from the moment the update is queued for ``getUpdates``
until the table and hand edits are sent and the bot is quiet again. The bench
waits on the fake server only, so none of the bot's code runs on its behalf.

Printed: the files of ``bot/``, ``sessions/``, ``games/`` and ``storage/``
that ran (count and list), how many times each seat's view was built
(``game.view``, entered from outside ``games/``), how many message-store reads
(``messages_of``, ``lease_message``) and language look-ups the move made, and
the Bot API calls it cost.

    .venv/bin/python bench/press_path.py
    .venv/bin/python bench/press_path.py --calls   # also every function entered, by file
    .venv/bin/python bench/press_path.py --cold    # the first press after a restart
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage  # noqa: E402
from tests.support.harness import Harness, start_harness  # noqa: E402

PACKAGES = ("bot", "sessions", "games", "storage")
PREFIXES = tuple(str(ROOT / package) + "/" for package in PACKAGES)
GAMES = str(ROOT / "games") + "/"
STORAGE = str(ROOT / "storage") + "/"
#: store methods that read the messages of a session
MESSAGE_READS = ("messages_of", "lease_message")
#: seconds with no new Bot API call after which the move counts as delivered
QUIET = 0.5
WARM_MOVES = 6


class RandomComputer:
    """A seeded random legal move (no computer plays at this table anyway)."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """Any legal action, reproducible from the seed."""
        return str(random.Random(seed).choice(view["legal"]))


class Tracer:
    """A profiler hook that notes the project's functions entered while armed."""

    def __init__(self) -> None:
        self.armed = False
        self.files: Counter[str] = Counter()
        self.functions: Counter[tuple[str, str]] = Counter()
        self.views: Counter[Any] = Counter()
        self.message_reads: Counter[str] = Counter()
        self.language_reads = 0
        self.language_store_reads = 0

    def hook(self, frame: FrameType, event: str, _: object) -> None:
        """``sys.setprofile``'s callback."""
        if not self.armed or event != "call":
            return
        path = frame.f_code.co_filename
        if not path.startswith(PREFIXES):
            return
        name = frame.f_code.co_name
        self.files[path] += 1
        self.functions[(path, name)] += 1
        caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
        if path.startswith(GAMES) and name == "view" and not caller.startswith(GAMES):
            self.views[frame.f_locals.get("seat")] += 1
        if path.startswith(STORAGE) and not caller.startswith(STORAGE):
            if name in MESSAGE_READS:
                self.message_reads[name] += 1
            if name == "language":
                self.language_store_reads += 1
        if name == "language" and path.endswith("sessions/preferences.py"):
            self.language_reads += 1


def relative(path: str) -> str:
    """A project path as the repository names it."""
    return str(Path(path).relative_to(ROOT))


async def table_in_play(harness: Harness) -> tuple[list[FakeUser], StoredMessage]:
    """Four humans at a running King table in a group; the group's table message."""
    fake = harness.fake
    users = [fake.user(name) for name in ("Alice", "Bob", "Cara", "Dan")]
    _, lobby = await harness.open_lobby("king", users, "Bench")
    for user in users[1:]:
        await harness.press(user, lobby, "join:1")
    await harness.press(users[0], lobby, "start:1")
    for _ in range(WARM_MOVES):
        await press_move(harness, users)
    return users, lobby


def move_press(harness: Harness, users: list[FakeUser], session: Any) -> tuple[FakeUser, str]:
    """Who is to move and the data of a legal move button on their hand message."""
    seat = session.to_move
    user = next(u for u in users if u.id == session.seats[seat].user_id)
    hand = harness.fake.last_message(user.id, containing="🃏")
    assert hand is not None, "no hand message"
    prefix = f"{session.id}:{session.version}:"
    moves = [b["callback_data"] for b in hand.buttons()
             if (b.get("callback_data") or "").startswith(prefix)]
    assert moves, "the hand shows no move of this version"
    return user, moves[0]


async def press_move(harness: Harness, users: list[FakeUser]) -> None:
    """One move by whoever is to move, waited for (the bot's own settle)."""
    session = await harness.kol.manager.get(1)
    user, data = move_press(harness, users, session)
    hand = harness.fake.last_message(user.id, containing="🃏")
    assert hand is not None
    await harness.press(user, hand, data)


async def quiet(fake: FakeTelegram, since: int) -> None:
    """Wait (on the fake server only) until the move's calls are made and none follow."""
    last, changed = len(fake.calls), time.monotonic()
    while True:
        await asyncio.sleep(0.02)
        if len(fake.calls) != last:
            last, changed = len(fake.calls), time.monotonic()
            continue
        edits = [c for c in fake.calls[since:] if c.method.startswith("edit")]
        if edits and not fake.undelivered() and time.monotonic() - changed > QUIET:
            return


async def measure(tracer: Tracer, show_calls: bool, cold: bool) -> None:
    """Set the table up, trace one press, print what it ran."""
    fake = FakeTelegram()
    await fake.start()
    folder = Path(tempfile.mkdtemp(prefix="koloda-bench-", dir="/dev/shm"
                                   if Path("/dev/shm").is_dir() else None))
    database = folder / "koloda.sqlite3"
    harness = await start_harness(fake, database, RandomComputer())
    try:
        users, _ = await table_in_play(harness)
        if cold:  # a restarted bot: nothing of the table in memory
            await harness.stop()
            harness = await start_harness(fake, database, RandomComputer())
        session = await harness.kol.manager.get(1)
        user, data = move_press(harness, users, session)
        hand = fake.last_message(user.id, containing="🃏")
        assert hand is not None
        await asyncio.sleep(QUIET)  # whatever the warm-up left is done
        since = len(fake.calls)
        tracer.armed = True
        query = fake.push_press(user, hand, data)
        await fake.answer(query)
        await quiet(fake, since)
        tracer.armed = False
        after = await harness.kol.manager.get(1)
        assert after.version > session.version, "the move was not made"
        calls = Counter(c.method for c in fake.calls[since:] if c.method != "getUpdates")
    finally:
        tracer.armed = False
        await harness.stop()
        await fake.stop()

    files = sorted(tracer.files, key=relative)
    state = "after a restart" if cold else "warm"
    print(f"one move press (King, 4 humans in a group, {state}): {len(files)} project files ran")
    for path in files:
        print(f"  {relative(path):40} {tracer.files[path]:6} calls")
    per_seat = ", ".join(f"seat {seat}: {n}" for seat, n in sorted(
        tracer.views.items(), key=lambda item: (item[0] is not None, item[0] or 0)))
    print(f"views built (game.view): {sum(tracer.views.values())} ({per_seat}; None = public)")
    reads = ", ".join(f"{name} {n}" for name, n in sorted(tracer.message_reads.items()))
    print(f"message-store reads: {sum(tracer.message_reads.values())} ({reads or 'none'})")
    print(f"language look-ups: {tracer.language_reads} "
          f"(of which from the store: {tracer.language_store_reads})")
    print("Bot API calls: " + ", ".join(f"{m} {n}" for m, n in sorted(calls.items())))
    if show_calls:
        for (path, name), count in sorted(tracer.functions.items(),
                                          key=lambda item: (relative(item[0][0]), item[0][1])):
            print(f"  {relative(path)}:{name} {count}")


def main() -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", action="store_true", help="list every function entered")
    parser.add_argument("--cold", action="store_true",
                        help="restart the bot before the press (nothing cached)")
    options = parser.parse_args()
    tracer = Tracer()
    # installed before anything starts, so the store's worker threads carry it too
    threading.setprofile(tracer.hook)
    sys.setprofile(tracer.hook)
    try:
        asyncio.run(measure(tracer, options.calls, options.cold))
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


if __name__ == "__main__":
    main()

"""The cost of a day's board at 10,000 players of one deal, on both backends.

Fills an empty store (SQLite in a temporary file, and PostgreSQL on a throwaway
server from ``tests/support/pg_server.py``) with ``--players`` finished plays of
one day's Eleven deal, each player a member of one of ``--groups`` groups (they
finished a group match there: the ``results`` rows that make a member), then
ANALYZEs and times, with the real store methods and the schema's indexes, the
median of ``--runs`` calls of:

- a player's place among everyone (``daily_place``),
- their place among one group's members (``daily_place`` with the chat),
- a group's board (``daily_board`` of the chat, the best 10 with places),
- the overall board (``daily_board``, the best 10),
- the groups a player is a member of (``daily_groups``).

    .venv/bin/python bench/daily.py
    .venv/bin/python bench/daily.py --players 10000 --groups 200 --runs 200
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from storage import open_store  # noqa: E402
from storage.postgres import PostgresStore  # noqa: E402
from storage.sqlite import SqliteStore  # noqa: E402
from storage.tables import TABLES, Table  # noqa: E402
from tests.support.pg_server import throwaway_server  # noqa: E402

DAY = 20_791
GAME = "eleven"
T0 = DAY * 86400.0


def table_of(name: str) -> Table:
    """The copy description of table ``name`` (the columns an import takes)."""
    return next(table for table in TABLES if table.name == name)


def row_of(table: Table, **values: Any) -> tuple[Any, ...]:
    """A row of ``table`` from its named values (the rest NULL)."""
    return tuple(values.get(column) for column in table.columns)


async def _history(players: int, groups: int) -> AsyncIterator[tuple[Table, list[Any]]]:
    """Users, one finished group match per group (its members' results), and one finished
    daily play (with its session) per user."""
    rng = random.Random(7)
    users = list(range(1, players + 1))
    yield table_of("users"), [(user, f"P{user}", None, True) for user in users]
    sessions, results, plays = table_of("sessions"), table_of("results"), table_of("daily_plays")
    session_rows, result_rows, play_rows = [], [], []
    members: dict[int, list[int]] = {}
    for user in users:
        members.setdefault(-1_000_000 - user % groups, []).append(user)
    session = 0
    base = {"kind": "group", "game": GAME, "status": "finished", "options": {}, "version": 2,
            "moves": 0, "created": T0, "updated": T0, "thread": 0}
    for chat, people in members.items():
        session += 1
        session_rows.append(row_of(sessions, id=session, chat_id=chat, creator=people[0],
                                 link=f"g{session}", **base))
        result_rows += [row_of(results, session=session, user_id=user, chat_id=chat, game=GAME,
                             seat=seat, won=seat == 0, points=1.0, time=T0)
                        for seat, user in enumerate(people)]
    for user in users:
        session += 1
        points = float(rng.randint(0, 3))  # Eleven's deal points: many ties
        session_rows.append(row_of(sessions, **{**base, "kind": "private"}, id=session,
                                 chat_id=user, creator=user, link=f"d{session}", daily=DAY))
        play_rows.append(row_of(plays, day=DAY, game=GAME, user_id=user, session=session,
                              started=T0, points=points, standing=points,
                              finished=T0 + rng.random() * 80_000))
    yield sessions, session_rows
    yield results, result_rows
    yield plays, play_rows


async def fill(store: Any, batches: AsyncIterator[tuple[Table, list[Any]]]) -> float:
    """Import ``batches`` into the empty ``store`` and ANALYZE it; the seconds it took."""
    assert isinstance(store, SqliteStore | PostgresStore)
    started = time.perf_counter()
    await store.import_tables(batches)
    if isinstance(store, SqliteStore):
        async with store.db.transaction() as tx:
            await tx.execute("ANALYZE")
    else:
        await store.pool.execute("ANALYZE")
    return time.perf_counter() - started


async def median_ms(work: Callable[[], Awaitable[Any]], runs: int) -> float:
    """The median milliseconds of ``runs`` calls (after one to warm up)."""
    await work()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def measure(name: str, url: str, players: int, groups: int, runs: int) -> None:
    """Fill the store at ``url`` and print the timings."""
    store = await open_store(url)
    try:
        assert isinstance(store, SqliteStore | PostgresStore)
        filled = await fill(store, _history(players, groups))
        chat = -1_000_000 - 1 % groups
        user = 1
        queries: dict[str, Callable[[], Awaitable[Any]]] = {
            "place overall": lambda: store.daily_place(DAY, GAME, 2.0),
            "place in a group": lambda: store.daily_place(DAY, GAME, 2.0, chat),
            "group board (10)": lambda: store.daily_board(DAY, GAME, chat),
            "overall board (10)": lambda: store.daily_board(DAY, GAME),
            "a player's groups": lambda: store.daily_groups(user),
        }
        print(f"\n{name}: {players} plays, {groups} groups of {players // groups} members"
              f" (filled in {filled:.1f} s)")
        print("| query | median ms |")
        print("|---|---|")
        for label, work in queries.items():
            print(f"| {label} | {await median_ms(work, runs):.2f} |", flush=True)
        place, of = await store.daily_place(DAY, GAME, 2.0, chat)
        print(f"(a check: place 2.0 in the group is {place} of {of})")
    finally:
        await store.close()


async def on_both(prefix: str, measure_at: Callable[[str, str], Awaitable[None]]) -> None:
    """``measure_at(name, url)`` on an empty SQLite file, then on a throwaway PostgreSQL."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(prefix=f"{prefix}-", dir=shm if shm.is_dir() else None
                                     ) as folder:
        await measure_at("SQLite", f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
    with throwaway_server(f"{prefix}-pg") as server:
        await measure_at("PostgreSQL", server.url())


async def main(args: argparse.Namespace) -> None:
    """Both backends, one after the other."""
    print(f"# Koloda daily-deal board — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    await on_both("koloda-daily", lambda name, url: measure(
        name, url, args.players, args.groups, args.runs))


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000, help="plays of the one deal")
    parser.add_argument("--groups", type=int, default=200, help="groups the players are in")
    parser.add_argument("--runs", type=int, default=200, help="timed calls per query")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

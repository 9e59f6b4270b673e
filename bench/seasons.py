"""The cost of a season's boards, tally and close, on both backends.

Fills an empty store (SQLite in a temporary file, and PostgreSQL on a throwaway
server) with ``--months`` seasons of Eleven ratings: ``--players`` rated overall
each month, spread over ``--groups`` groups (their group ratings too), and each
group's results (``--results`` matches a month over all groups, two players
each). Then ANALYZEs and times, with the real store methods and the schema's
indexes, the median of ``--runs`` calls of:

- ``/top season eleven`` in a private chat (the overall season board, best 10),
- ``/top season eleven`` in a group, and ``/top season`` there (every game),
- ``/score season`` in a group (the chat's results of the month),
- the month's close (``open_season_posts``: every group with a rated match,
  once its post rows exist).

    .venv/bin/python bench/seasons.py
    .venv/bin/python bench/seasons.py --players 10000 --groups 200 --months 12 --runs 200
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from bench.daily import fill, median_ms, on_both, row_of, table_of  # noqa: E402
from sessions.months import month_of, month_start  # noqa: E402
from storage import OVERALL, open_store  # noqa: E402
from storage.tables import Table  # noqa: E402

GAME = "eleven"
#: the last month filled (December 2026); the ones before it are older seasons
LAST = month_of(1_796_000_000.0)


def _chat(user: int, groups: int) -> int:
    return -1_000_000 - user % groups


async def _history(
    players: int, groups: int, months: int, matches: int
) -> AsyncIterator[tuple[Table, list[Any]]]:
    """Users; each month's season ratings (overall and in each player's group); each
    month's group matches with their results."""
    rng = random.Random(7)
    users = list(range(1, players + 1))
    yield table_of("users"), [(user, f"P{user}", None, True) for user in users]
    ratings = []
    for month in range(LAST - months + 1, LAST + 1):
        for user in users:
            for scope in (OVERALL, _chat(user, groups)):
                ratings.append((month, scope, GAME, user, rng.uniform(15, 35),
                                rng.uniform(1, 8), rng.randint(1, 30), 0))
    yield table_of("season_ratings"), ratings
    sessions, results = table_of("sessions"), table_of("results")
    session_rows, result_rows = [], []
    base = {"kind": "group", "game": GAME, "status": "finished", "options": {}, "version": 2,
            "moves": 0, "thread": 0}
    session = 0
    for month in range(LAST - months + 1, LAST + 1):
        start, end = month_start(month), month_start(month + 1)
        for _ in range(matches):
            session += 1
            pair = rng.sample(users, 2)
            chat = _chat(pair[0], groups)
            at = rng.uniform(start, end)
            session_rows.append(row_of(sessions, id=session, chat_id=chat, creator=pair[0],
                                       link=f"s{session}", created=at, updated=at, **base))
            result_rows += [row_of(results, session=session, user_id=user, chat_id=chat,
                                   game=GAME, seat=seat, won=seat == 0, points=1.0 - seat,
                                   time=at, seq=session) for seat, user in enumerate(pair)]
    yield sessions, session_rows
    yield results, result_rows


async def measure(name: str, url: str, args: argparse.Namespace) -> None:
    """Fill the store at ``url`` and print the timings."""
    store = await open_store(url)
    try:
        filled = await fill(store, _history(args.players, args.groups, args.months,
                                            args.results))
        chat = _chat(1, args.groups)
        period = (month_start(LAST), month_start(LAST + 1))
        await store.open_season_posts(LAST - 1)  # the rows made: later looks only read
        queries: dict[str, Callable[[], Awaitable[Any]]] = {
            "/top season eleven, private (overall, 10)":
                lambda: store.season_leaderboard(LAST, OVERALL, GAME),
            "/top season eleven, a group (10)":
                lambda: store.season_leaderboard(LAST, chat, GAME),
            "/top season, a group (every game, 3 each)":
                lambda: store.season_leaderboard(LAST, chat, None, limit=3),
            "/score season, a group": lambda: store.chat_tally(chat, None, period),
            "the month's close, a later look": lambda: store.open_season_posts(LAST - 1),
        }
        print(f"\n{name}: {args.players} players × {args.months} months, {args.groups} groups,"
              f" {args.results} matches a month (filled in {filled:.1f} s)")
        print("| query | median ms |")
        print("|---|---|")
        for label, work in queries.items():
            print(f"| {label} | {await median_ms(work, args.runs):.2f} |", flush=True)
        board = await store.season_leaderboard(LAST, OVERALL, GAME)
        print(f"(a check: the overall board has {len(board)} rows of {board[0].of} players)")
    finally:
        await store.close()


async def main(args: argparse.Namespace) -> None:
    """Both backends, one after the other."""
    print(f"# Koloda seasons — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    await on_both("koloda-seasons", lambda name, url: measure(name, url, args))


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000, help="rated players a month")
    parser.add_argument("--groups", type=int, default=200, help="groups the players are in")
    parser.add_argument("--months", type=int, default=12, help="seasons filled")
    parser.add_argument("--results", type=int, default=5_000, help="group matches a month")
    parser.add_argument("--runs", type=int, default=200, help="timed calls per query")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

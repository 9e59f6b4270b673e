"""Benchmark: many concurrent tables playing through SessionManager.act.

1,000 two-player sessions (Eleven if it exists) play random legal moves at
once against a real SQLite file in a temp dir (WAL, synchronous=FULL). Prints
committed moves per second and the p50/p99 latency of ``act``.

Usage: python bench/sessions.py [--sessions 1000] [--moves 20000] [--game eleven]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, Python puts bench/ first on sys.path, where bench/games.py
# would shadow the games package: look in the repository root instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from games import REGISTRY  # noqa: E402
from sessions import Refusal, Session, SessionManager  # noqa: E402


class NoComputer:
    """Every seat is human in this benchmark."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        raise AssertionError("no computer seats in the benchmark")


def pick_game(wanted: str) -> str:
    """``wanted`` if registered, else the first registered game for two players."""
    if wanted in REGISTRY:
        return wanted
    for game_id, game_class in REGISTRY.items():
        if game_class.min_players <= 2 <= game_class.max_players:
            return game_id
    raise SystemExit("no two-player game is registered yet")


async def seat_table(manager: SessionManager, game_id: str, chat: int) -> Session:
    """A running two-player session in its own group chat."""
    users = (chat * 2 + 1, chat * 2 + 2)
    lobby = await manager.create(-chat - 1, "group", users[0], "A", game_id)
    await manager.join(lobby.id, users[1], "B")
    return (await manager.start(lobby.id, users[0])).session


async def play(
    manager: SessionManager, session: Session, budget: list[int], latencies: list[float]
) -> None:
    """One table playing matches back to back until the shared move budget is spent."""
    rng = random.Random(session.id)
    while budget[0] > 0:
        if session.status != "running":
            session = (await manager.rematch(session.id, session.creator_id)).session
            continue
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        action = rng.choice(session.view(seat)["legal"])
        budget[0] -= 1
        started = time.perf_counter()
        try:
            session = (await manager.act(session.id, user, session.version, action)).session
        except Refusal as refusal:
            raise SystemExit(f"unexpected refusal {refusal.code} in {session.id}") from refusal
        latencies.append(time.perf_counter() - started)


async def main(sessions: int, moves: int, wanted: str) -> None:
    """Seat the tables, play ``moves`` moves across them, print the numbers."""
    game_id = pick_game(wanted)
    with tempfile.TemporaryDirectory() as folder:
        manager = await SessionManager.open(f"sqlite:///{folder}/bench.sqlite3", NoComputer())
        started = time.perf_counter()
        tables = await asyncio.gather(
            *(seat_table(manager, game_id, chat) for chat in range(sessions))
        )
        seated = time.perf_counter() - started
        budget = [moves]
        latencies: list[float] = []
        started = time.perf_counter()
        await asyncio.gather(*(play(manager, table, budget, latencies) for table in tables))
        elapsed = time.perf_counter() - started
        await manager.close()
    cuts = statistics.quantiles(latencies, n=100)
    print(f"game {game_id}: {sessions} concurrent sessions, SQLite file, synchronous=FULL")
    print(f"setup (create + join + start each): {seated:.2f} s")
    print(f"committed moves: {len(latencies)} in {elapsed:.2f} s")
    print(f"moves per second: {len(latencies) / elapsed:.0f}")
    print(f"act latency: p50 {cuts[49] * 1000:.1f} ms, p99 {cuts[98] * 1000:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--game", default="eleven")
    args = parser.parse_args()
    asyncio.run(main(args.sessions, args.moves, args.game))

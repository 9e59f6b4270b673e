"""The computer players' pool is shared by turns among chats: one chat's flood of
searches does not hold back another chat's computer."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from games.ai import Budget
from sessions.computer import ComputerPlayer
from sessions.model import TURN_OWNER
from tests.support.ai import opening

FLOODER, OTHER = 1001, -2002


def seed_recorder(seeds: list[int]) -> type[Executor]:
    """An executor whose threads note the seed of every search, in the order submitted."""

    class Recording(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            seeds.append(args[3])
            return super().submit(fn, *args, **kwargs)

    return Recording


async def test_another_chat_waits_behind_one_search_not_thirty() -> None:
    view = opening("king")
    seeds: list[int] = []
    computer = ComputerPlayer(
        workers=1, budgets={"strong": Budget(playouts=2)}, executor_factory=seed_recorder(seeds)
    )

    async def search(owner: int, seed: int) -> str:
        TURN_OWNER.set(owner)  # this task's own context
        return await computer.choose("king", view, "strong", seed)

    try:
        flood = [asyncio.create_task(search(FLOODER, n)) for n in range(30)]
        await asyncio.sleep(0)  # the flood is queued first
        other = asyncio.create_task(search(OTHER, 100))
        moves = await asyncio.gather(*flood, other)
    finally:
        computer.close()
    assert all(move in view["legal"] for move in moves)
    assert len(seeds) == 31
    # the flooder's first search had the worker; the other chat's comes within two
    assert seeds.index(100) <= 2, seeds
    assert sorted(s for s in seeds if s != 100) == list(range(30))

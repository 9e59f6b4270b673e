"""The computer players behind the session layer, thinking off the event loop.

:class:`ComputerPlayer` honours the session layer's ``Computer`` protocol
(docs/sessions-api.md): ``await choose(game_id, view, level, seed)``. Searches
(normal, strong) run in a process pool with one worker per core, so a strong
player thinking in one chat never delays an update in another; the easy level
is instant and answers in-process. If the pool breaks (a worker died), it is
replaced and that one decision falls back to the easy policy in-process.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from games import ai
from games.ai import Budget

log = logging.getLogger(__name__)

ExecutorFactory = Callable[[int], Executor]


def process_pool(workers: int) -> Executor:
    """A pool of ``workers`` fresh processes (spawned: the bot's threads are not copied)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


class ComputerPlayer:
    """Chooses moves for computer seats; ``close()`` when the bot stops.

    ``budgets`` overrides the thinking budget per level (tests pass playout
    budgets to make results reproducible); ``executor_factory`` builds the pool.
    """

    def __init__(
        self,
        workers: int | None = None,
        budgets: Mapping[str, Budget] | None = None,
        executor_factory: ExecutorFactory = process_pool,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._budgets = dict(budgets or {})
        self._factory = executor_factory
        self._pool: Executor | None = None
        self._closed = False

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """One of ``view["legal"]`` for the seat whose view it is, at ``level``.

        Raises ValueError for an unknown game or level or a view with no legal
        action, and RuntimeError once closed.
        """
        if self._closed:
            raise RuntimeError("the computer player is closed")
        ai.check_request(game_id, view, level)
        if level == "easy" or len(view["legal"]) == 1:
            return ai.choose(game_id, view, level, seed)
        pool = self._ensure_pool()
        budget = self._budgets.get(level)
        try:
            future = pool.submit(ai.choose, game_id, view, level, seed, budget)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            log.warning("the computer players' process pool broke; starting a new one")
            self._replace_pool(pool)
            return ai.choose(game_id, view, "easy", seed)

    def close(self) -> None:
        """Stop the worker processes; pending searches are cancelled."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _ensure_pool(self) -> Executor:
        if self._pool is None:
            self._pool = self._factory(self.workers)
        return self._pool

    def _replace_pool(self, broken: Executor) -> None:
        """Drop ``broken`` unless a concurrent decision already replaced it."""
        if self._pool is broken:
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = None

"""A fake :class:`bot.clock.Clock` for tests: time moves only when the test moves it.

``await clock.advance(s)`` wakes, in order, everything that sleeps until then;
``await clock.run(work)`` awaits ``work`` and jumps to the next sleeper's time
whenever everything else waits — a minute of pacing takes no real time, and the
times asserted are the clock's, never the machine's.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")

#: Event-loop turns that let every ready task run until it waits again (a chain of
#: wake-ups in the limiter and delivery is a few turns long).
TURNS = 50


async def settled() -> None:
    """Let every task that can run, run until it waits again."""
    for _ in range(TURNS):
        await asyncio.sleep(0)


class FakeClock:
    """Monotonic time starts at ``start``; wall time reads ``epoch`` then."""

    def __init__(self, start: float = 1_000.0, epoch: float = 1_700_000_000.0) -> None:
        self._now = start
        self._offset = epoch - start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        """Monotonic seconds."""
        return self._now

    def wall(self) -> float:
        """Seconds since the epoch."""
        return self._now + self._offset

    async def sleep(self, seconds: float) -> None:
        """Return once the clock has been moved ``seconds`` on."""
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), wake))
        await wake

    @property
    def sleeping(self) -> int:
        """How many sleep on this clock now."""
        return sum(not wake.done() for _, _, wake in self._sleepers)

    async def sleepers(self, count: int = 1) -> None:
        """Wait (for other tasks, not for time) until ``count`` sleep on this clock."""
        while self.sleeping < count:
            await asyncio.sleep(0.001)

    async def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on, waking each sleeper at its time, in order."""
        target = self._now + seconds
        await settled()
        while (due := self._due()) is not None and due <= target:
            self._wake()
            await settled()
        self._now = max(self._now, target)
        await settled()

    async def run(self, work: Awaitable[T], *, limit: float = 3600.0) -> T:
        """Await ``work``, jumping to the next sleeper's time whenever all else waits
        (at most ``limit`` seconds on)."""
        task = asyncio.ensure_future(work)
        end = self._now + limit
        while True:
            await settled()
            if task.done():
                return task.result()
            due = self._due()
            if due is None:  # it waits for something else (I/O): let that happen
                await asyncio.wait({task}, timeout=0.01)
                continue
            if due > end:
                task.cancel()
                raise TimeoutError(f"still waiting {limit} s on")
            self._wake()

    def _due(self) -> float | None:
        while self._sleepers and self._sleepers[0][2].done():  # cancelled
            heapq.heappop(self._sleepers)
        return self._sleepers[0][0] if self._sleepers else None

    def _wake(self) -> None:
        """Move to the earliest sleeper's time and wake everyone due then."""
        at = self._sleepers[0][0]
        self._now = max(self._now, at)
        while self._sleepers and self._sleepers[0][0] <= at:
            _, _, wake = heapq.heappop(self._sleepers)
            if not wake.done():
                wake.set_result(None)

"""The clock the bot's pacing, back-off and leases read: injected, so tests run on a
fake one instead of sleeping.

:class:`LoopClock` is the real one (the running event loop's monotonic clock, and
the wall clock every worker agrees on); tests pass a clock they move by hand.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Time as the bot's pacing, back-off and delivery leases see it."""

    def now(self) -> float:
        """Monotonic seconds: for intervals within this process."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch: for times several workers compare (a shared send
        budget's slots, a delivery lease's expiry)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return after ``seconds`` have passed on this clock."""
        ...


class LoopClock:
    """The real clock: the running event loop's time and ``asyncio.sleep``."""

    def now(self) -> float:
        """The event loop's monotonic time."""
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        """``time.time()``."""
        return time.time()

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep``."""
        await asyncio.sleep(seconds)


async def sleep_unless(clock: Clock, event: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds`` on ``clock``, or less if ``event`` is set meanwhile."""
    if event.is_set():
        return
    sleeper = asyncio.ensure_future(clock.sleep(seconds))
    setter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((sleeper, setter), return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
        setter.cancel()

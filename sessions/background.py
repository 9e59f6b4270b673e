"""Background work of the session layer: spawned tasks, turn timers, subscribers.

Computer turns and expired timers run as tasks here, so no caller waits for
them; a failing task or subscriber is logged and never breaks a game.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from sessions.model import Outcome, Subscriber
from sessions.timers import Clock, Expiry, TurnTimers

log = logging.getLogger(__name__)


class Background:
    """The tasks, timers and subscribers of one :class:`~sessions.SessionManager`."""

    def __init__(self, clock: Clock, on_expiry: Expiry) -> None:
        self.timers = TurnTimers(clock, on_expiry)
        self._tasks: set[asyncio.Task[None]] = set()
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> None:
        """Call ``callback(outcome)`` after every change nobody asked for directly."""
        self._subscribers.append(callback)

    def spawn(self, work: Awaitable[None]) -> asyncio.Task[None]:
        """Run ``work`` in the background (its failure is logged)."""

        async def run() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background work failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def notify(self, outcome: Outcome) -> None:
        """Tell every subscriber about ``outcome``."""
        for callback in list(self._subscribers):
            try:
                await callback(outcome)
            except Exception:
                log.exception("subscriber failed on session %s", outcome.session.id)

    async def idle(self) -> None:
        """Wait until no background task is pending."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Cancel the timers and every pending task."""
        self.timers.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

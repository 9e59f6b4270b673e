"""The posts a group gets once per period, looked for by every worker: the daily
boards' close (:mod:`bot.daily`) and the season champions (:mod:`bot.seasons`).

Each kind of post has its ``close`` (one look: every post now due, taken and sent
by this worker; how many it sent). :class:`Posts` runs every one of them once a
minute. A post is taken by one atomic update in the store before it is sent, so
of any number of workers, restarted or not, one sends it, once; a worker that
dies between taking and sending loses it (at most once, never twice). They go
through the one rate limiter like every other message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from bot.clock import Clock, LoopClock
from bot.periodic import Periodic
from storage.outage import unavailable

log = logging.getLogger(__name__)

#: Seconds between two looks for posts due.
EVERY = 60.0

#: One look for one kind of post: how many this worker sent.
Close = Callable[[], Awaitable[int]]


class Posts(Periodic):
    """One worker's loop over every kind of once-per-period post."""

    def __init__(
        self, closes: Sequence[Close], every: float = EVERY, clock: Clock | None = None
    ) -> None:
        self.closes = tuple(closes)
        self.every = every
        self.clock = clock or LoopClock()

    async def look(self) -> int:
        """One look for every kind of post (a failing one does not keep the others
        from theirs); how many posts this worker sent."""
        sent = 0
        for close in self.closes:
            try:
                sent += await close()
            except Exception as error:
                if not unavailable(error):
                    log.exception("sending the posts due failed; trying again later")
        return sent

    async def _run(self) -> None:
        while True:
            await self.clock.sleep(self.every)  # nothing at start-up: it can wait a minute
            await self.look()

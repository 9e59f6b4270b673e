"""The posts a group gets once per period, looked for by every worker: the daily
boards' close (:mod:`bot.daily`) and the season champions (:mod:`bot.seasons`).

Each kind of post is a :class:`PeriodPosts`; its one look
(:meth:`PeriodPosts.close`) takes and sends every post of the last few ended
periods that nobody has taken, and says how many this worker sent.
:class:`Posts` runs every kind once a minute. A post is taken by one atomic
update in the store before it is sent, so of any number of workers, restarted
or not, one sends it, once; a worker that dies between taking and sending
loses it (at most once, never twice). They go through the one rate limiter
like every other message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from bot.clock import Clock, LoopClock
from bot.periodic import Periodic
from bot.render.common import Screen
from sessions import SessionManager
from storage.outage import unavailable

log = logging.getLogger(__name__)

#: Seconds between two looks for posts due.
EVERY = 60.0

#: One look for one kind of post: how many this worker sent.
Close = Callable[[], Awaitable[int]]


class Poster(Protocol):
    """What the posts need of the presenter (:class:`bot.present.Presenter`): the
    languages, and a one-off message."""

    async def chat_language(self, chat_id: int) -> str: ...

    async def user_language(self, user_id: int) -> str: ...

    def reply(self, chat_id: int, shown: Screen, thread: int | None = None) -> None: ...


class PeriodPosts:
    """One kind of post a group gets once per period (a day, a month): what a subclass
    says is the period now, which groups wait for a post of an ended period, how one
    is taken and what it shows; the look itself is here, once."""

    #: ended periods a look goes back over (a worker down at the turn still posts)
    back = 2

    def __init__(self, manager: SessionManager, presenter: Poster) -> None:
        self.manager = manager
        self.presenter = presenter
        #: ended periods whose every post is taken (looked at no more)
        self._done: set[int] = set()

    def current(self) -> int:
        """The period now."""
        raise NotImplementedError

    async def waiting(self, period: int) -> list[int]:
        """Close ``period`` if it is over: the groups whose post nobody has taken."""
        raise NotImplementedError

    async def take(self, period: int, chat_id: int) -> bool:
        """Take the group's post of ``period`` for this worker: True once in the cluster."""
        raise NotImplementedError

    async def draw(self, period: int, chat_id: int, lang: str) -> Screen | None:
        """The group's post of ``period`` (None: nothing to say)."""
        raise NotImplementedError

    async def close(self) -> int:
        """Send every post of the ended periods nobody has taken yet, each once in the
        cluster; how many this worker sent."""
        now = self.current()
        sent = 0
        for period in range(now - self.back, now):
            if period in self._done:
                continue
            waiting = await self.waiting(period)
            if not waiting:
                self._done.add(period)  # every post of it is taken: no need to look again
            for chat in waiting:
                if not await self.take(period, chat):
                    continue  # another worker has it
                lang = await self.presenter.chat_language(chat)
                post = await self.draw(period, chat, lang)
                if post is not None:
                    self.presenter.reply(chat, post, thread=0)
                    sent += 1
        return sent


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

"""A presenter double for the once-per-period posts (tests of bot.daily, bot.seasons)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from bot.posts import PeriodPosts
from bot.render.common import Screen
from sessions import SessionManager
from tests.support.helpers_sessions import FakeClock, FirstLegal


class RecordedPosts:
    """A presenter that records the posts (the one-off messages) it is handed."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, Screen]] = []

    def reply(self, chat_id: int, shown: Screen, thread: int | None = None) -> None:
        self.sent.append((chat_id, shown))

    async def chat_language(self, chat_id: int) -> str:
        return "en"

    async def user_language(self, user_id: int) -> str:
        return "en"


async def posted_once_by_two_workers(
    url: str,
    clock: FakeClock,
    played: Callable[[SessionManager], Awaitable[None]],
    period: float,
    posts_of: Callable[[SessionManager, RecordedPosts], PeriodPosts],
) -> list[int]:
    """Two workers on one shared store (``url``): ``played`` fills a period through the
    first, the clock moves on ``period`` seconds, then both close the ended period at
    once and again. Asserts that each post went out once in all; the groups posted to."""
    workers = [await SessionManager.open(url, FirstLegal(), clock, shared=True) for _ in range(2)]
    posts = [RecordedPosts(), RecordedPosts()]
    try:
        await played(workers[0])
        clock.advance(period)
        looks = [posts_of(worker, each) for worker, each in zip(workers, posts, strict=True)]
        first = await asyncio.gather(*(look.close() for look in looks))
        again = [await look.close() for look in looks]
        assert sum(again) == 0
        assert sum(first) == sum(len(each.sent) for each in posts)
    finally:
        for worker in workers:
            await worker.close()
    return sorted(chat for each in posts for chat, _ in each.sent)

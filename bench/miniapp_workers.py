"""The bot's workers for bench/miniapp.py: one on SQLite, or two in-process on one
PostgreSQL database, and the "load balancer" that sends a page's taps to either.

With two workers, worker A serves the pages (their documents, views and event
streams) and worker B takes every update from the fake Bot API (A's polling is
stopped once it is up: two pollers of one fake would both handle each update), so
the chat's presses are drawn by B; a page's taps (its ``api/move`` requests) go to
the worker :func:`route_taps` names, tap by tap.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Route

from tests.support.browser import Opened
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import Harness
from tests.support.miniapp import start_miniapp
from tests.support.pg_server import throwaway_server

#: The workers' names in the report, by index.
NAMES = "AB"


@dataclass
class Workers:
    """The running workers: the first serves the pages, the last polls the chat."""

    harnesses: list[Harness]
    #: each worker's page address (http://127.0.0.1:…/app/)
    bases: list[str]

    @property
    def pages(self) -> Harness:
        """The worker the pages are opened through."""
        return self.harnesses[0]

    @property
    def presses(self) -> Harness:
        """The worker that takes the chat's updates."""
        return self.harnesses[-1]

    async def settle(self) -> None:
        """Every worker has handled what it was given and delivered what it owes."""
        for harness in self.harnesses:
            await harness.settle()

    async def pages_known(self, session_id: int, user_ids: list[int]) -> bool:
        """Whether every worker can see these users' pages of the session (in the
        shared store; a single worker sees its own at once)."""
        if len(self.harnesses) == 1:
            return True
        store = self.presses.kol.manager.store
        return await store.page_users(session_id, time.time()) == sorted(user_ids)


async def start_workers(
    stack: AsyncExitStack, fake: FakeTelegram, scratch: Path, count: int
) -> Workers:
    """``count`` (1 or 2) workers, stopped when ``stack`` closes: one on an SQLite
    file in ``scratch``, or two on a throwaway PostgreSQL server's database."""
    url = None
    if count > 1:
        url = stack.enter_context(throwaway_server("koloda-miniapp-pg")).url()
    harnesses, bases = [], []
    for _ in range(count):
        harness, base = await start_miniapp(fake, scratch / "mini.sqlite3", RandomComputer(),
                                            database_url=url)
        stack.push_async_callback(harness.stop)
        harnesses.append(harness)
        bases.append(base)
    for harness in harnesses[:-1]:  # only the last polls
        assert harness.app.updater is not None
        await harness.app.updater.stop()
    return Workers(harnesses, bases)


async def route_taps(opened: Opened, workers: Workers, order: Iterator[int],
                     drawn: Counter[str]) -> None:
    """Send each ``api/move`` of the page to the worker ``next(order)`` (an index of
    ``workers``), as a load balancer in front of them would; ``drawn`` counts them."""
    home = workers.bases[0]

    async def forward(route: Route) -> None:
        chosen = next(order)
        drawn[NAMES[chosen]] += 1
        if chosen == 0:
            await route.continue_()
            return
        answer = await route.fetch(url=route.request.url.replace(home, workers.bases[chosen], 1))
        await route.fulfill(response=answer)

    await opened.context.route(re.compile(re.escape(f"{home}api/move")), forward)

"""Receiving updates: confirmed to Telegram only once the change they cause is committed.

PTB's ``Updater`` asks ``getUpdates`` for more as soon as it has queued a
batch, and that request confirms the batch to Telegram. A crash (SIGKILL, out
of memory) while the batch is being handled would lose those presses for good.
:class:`KolodaBot` holds the next ``getUpdates`` back until every update of the
last batch has been handled. Handlers never wait for Telegram's flood limits —
their replies and screens are delivered in the background — so "handled" means
"its change is committed", and the wait is short. An update still running after
:data:`HOLD_BOUND` seconds (it has not failed; it will still commit) no longer
holds the fetch: one slow press never stalls every other chat.

An update that fails because the store (or a connection) is unavailable is not
confirmed: :class:`KolodaApplication` handles it again after 1, 2, 4 … seconds
(at most :data:`RETRY_CAP`) until it succeeds, and the fetch waits meanwhile
(confirming a later update would confirm it too). The user hears about the
failure once (the error handler's polite pop-up), and the press takes effect
once the store is back. Any other failure is a bug: the update is tried
:data:`BUG_TRIES` times, then confirmed with one ERROR line, so a poison update
cannot block the queue. In webhook mode the same verdict becomes the HTTP
answer (:meth:`KolodaApplication.handle`): 503 makes Telegram send it again.

After a crash Telegram delivers the unconfirmed updates again; handling one
twice is harmless (a move button carries the session version it was drawn for,
and the store recognises the repeat).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, ExtBot, Updater

from storage.outage import unavailable

log = logging.getLogger(__name__)

#: Seconds an update still being handled holds the next fetch (then it is left to
#: finish on its own: it has not failed, and will still commit).
HOLD_BOUND = 10.0
#: Pause before the first retry of an update the store could not take, doubled
#: on each failure up to :data:`RETRY_CAP`.
RETRY_FIRST = 1.0
RETRY_CAP = 30.0
#: Tries of an update that fails with a bug before it is confirmed anyway.
BUG_TRIES = 3
#: Update ids whose failures are remembered (webhook mode: Telegram's retries
#: of one update arrive as separate requests).
REMEMBERED = 4096


class Inbox:
    """The updates fetched and not yet handled, and which of them are failing."""

    def __init__(self, bound: float = HOLD_BOUND) -> None:
        self.bound = bound
        self._open: dict[int, float] = {}  # update id → when it was fetched
        self._failing: set[int] = set()
        self._changed = asyncio.Event()
        self._stopped = asyncio.Event()

    def received(self, update_ids: Iterable[int]) -> None:
        """A new batch was handed to the application."""
        now = _now()
        for update_id in update_ids:
            self._open[update_id] = now
        self._changed.set()

    def handled(self, update_id: int) -> None:
        """One update has been handled (committed, or confirmed as a bug)."""
        self._open.pop(update_id, None)
        self._failing.discard(update_id)
        self._changed.set()

    def failing(self, update_id: int) -> None:
        """An update failed for want of the store: it is retried, and holds the fetch."""
        if update_id in self._open:
            self._failing.add(update_id)
            self._changed.set()

    @property
    def open(self) -> int:
        """How many fetched updates are still being handled."""
        return len(self._open)

    @property
    def stopping(self) -> bool:
        """True once polling stops: failing updates are left unconfirmed, not retried."""
        return self._stopped.is_set()

    def stop(self) -> None:
        """Polling stops: no more waiting for failing updates (they stay unconfirmed)."""
        self._stopped.set()
        self._changed.set()

    def start(self) -> None:
        """Polling (re)starts."""
        self._stopped.clear()

    def _holding(self) -> tuple[int, float | None]:
        """How many updates hold the fetch, and the seconds until the next one lets go
        (None: none will by itself)."""
        now, holding, soonest = _now(), 0, None
        for update_id, since in self._open.items():
            if update_id in self._failing:
                if not self.stopping:
                    holding += 1
                continue
            if self.stopping or now - since < self.bound:
                holding += 1
                if not self.stopping:
                    left = since + self.bound - now
                    soonest = left if soonest is None else min(soonest, left)
        return holding, soonest

    async def settled(self) -> None:
        """Wait until no fetched update holds the next fetch: each is handled, has run
        longer than :attr:`bound` without failing, or (stopping) is failing."""
        while True:
            self._changed.clear()
            holding, soonest = self._holding()
            if not holding:
                break
            try:
                await asyncio.wait_for(self._changed.wait(), soonest)
            except TimeoutError:
                log.info(
                    "an update is still being handled after %.0f s; fetching the next ones",
                    self.bound,
                )
        if self._open and not self.stopping:
            log.debug("%d update(s) still being handled", len(self._open))

    def offset(self, offset: int | None) -> int | None:
        """``offset`` held below the first failing update: it stays unconfirmed."""
        if not self._failing or offset is None:
            return offset
        return min(offset, min(self._failing))

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, or less if polling stops."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped.wait(), seconds)


def store_outage(error: BaseException) -> bool:
    """True if ``error`` says the store is unavailable for now (a Bot API error is
    not: the handler's own answer to it stands)."""
    return not isinstance(error, TelegramError) and unavailable(error)


def _tries(error: BaseException) -> float:
    """How many times an update failing with ``error`` is tried: an outage until it
    is over; a Bot API failure once (the user was told; asking again is theirs); a
    bug :data:`BUG_TRIES` times."""
    if store_outage(error):
        return math.inf
    return 1 if isinstance(error, TelegramError) else BUG_TRIES


def _now() -> float:
    return asyncio.get_running_loop().time()


class KolodaBot(ExtBot[dict[str, Any]]):
    """PTB's ExtBot whose ``getUpdates`` confirms only updates already handled."""

    __slots__ = ("_inbox",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inbox = Inbox()

    @property
    def inbox(self) -> Inbox:
        """The updates fetched and still being handled."""
        return self._inbox

    async def get_updates(
        self, offset: int | None = None, *args: Any, **kwargs: Any
    ) -> tuple[Update, ...]:
        """Wait until nothing holds the fetch, then fetch (and so confirm what is
        handled; never an update that is failing)."""
        await self._inbox.settled()
        updates = await super().get_updates(self._inbox.offset(offset), *args, **kwargs)
        self._inbox.received(update.update_id for update in updates)
        return updates


class KolodaUpdater(Updater):
    """PTB's Updater that tells the inbox when polling stops (a failing update is then
    left unconfirmed for the next start instead of holding the stop)."""

    async def start_polling(self, *args: Any, **kwargs: Any) -> asyncio.Queue[object]:
        """Start polling (PTB's way) with the inbox open."""
        if isinstance(self.bot, KolodaBot):
            self.bot.inbox.start()
        return await super().start_polling(*args, **kwargs)

    async def stop(self) -> None:
        """Stop polling (PTB's way), without waiting for failing updates."""
        if isinstance(self.bot, KolodaBot):
            self.bot.inbox.stop()
        await super().stop()


class KolodaApplication(Application):  # type: ignore[type-arg]
    """PTB's Application that retries updates the store could not take, and tells
    :class:`KolodaBot` when an update has been handled."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: update id → the error of its current try (None: none so far)
        self._trying: dict[int, BaseException | None] = {}
        #: update id → how many of its tries failed (recent updates only)
        self._failures: OrderedDict[int, int] = OrderedDict()

    async def process_update(self, update: object) -> None:
        """Handle ``update`` (PTB's way) until it succeeds, is a bug tried
        :data:`BUG_TRIES` times, or polling stops; then mark it handled."""
        if not isinstance(update, Update):
            await super().process_update(update)
            return
        inbox = self.bot.inbox if isinstance(self.bot, KolodaBot) else None
        pause = RETRY_FIRST
        while True:
            if await self.handle(update):
                break
            if inbox is None:
                return  # nobody would confirm it; a restart's redelivery handles it again
            inbox.failing(update.update_id)
            if inbox.stopping or not self.running:
                log.warning("update %d left unconfirmed for the next start", update.update_id)
                return
            await inbox.pause(pause)
            pause = min(pause * 2, RETRY_CAP)
        if inbox is not None:
            inbox.handled(update.update_id)

    def failures(self, update_id: int) -> int:
        """How many tries of a recent update failed so far (0 once it succeeded)."""
        return self._failures.get(update_id, 0)

    async def handle(self, update: Update) -> bool:
        """One try of ``update``: True if it is done with (handled, or a bug tried
        :data:`BUG_TRIES` times: acknowledge it), False if it should come again."""
        update_id = update.update_id
        self._trying[update_id] = None
        try:
            await super().process_update(update)
        finally:
            error = self._trying.pop(update_id, None)
        if error is None:
            self._failures.pop(update_id, None)
            return True
        failed = self._failures.pop(update_id, 0) + 1
        if failed >= _tries(error):
            return True
        self._failures[update_id] = failed
        while len(self._failures) > REMEMBERED:
            self._failures.popitem(last=False)
        return False

    async def process_error(
        self,
        update: object | None,
        error: Exception,
        job: Any = None,
        coroutine: Any = None,
    ) -> bool:
        """Record the failure of an update being tried; the error handlers hear of it
        once: an outage on its first failure, anything else on its last try."""
        if isinstance(update, Update) and update.update_id in self._trying:
            first = self._trying[update.update_id] is None
            self._trying[update.update_id] = error
            failed = self._failures.get(update.update_id, 0)
            if store_outage(error):
                if not first or failed:
                    return False
            elif failed + 1 < _tries(error):
                log.info("update %d failed (%s); trying it again", update.update_id, error)
                return False
        return await super().process_error(update, error, job, coroutine)

"""Receiving updates: confirmed to Telegram only once the change they cause is committed.

PTB's ``Updater`` asks ``getUpdates`` for more as soon as it has queued a
batch, and that request confirms the batch to Telegram. A crash (SIGKILL, out
of memory) while the batch is being handled would lose those presses for good.
:class:`KolodaBot` holds the next ``getUpdates`` back until every update of the
last batch has been handled. Handlers never wait for Telegram's flood limits —
their replies and screens are delivered in the background — so "handled" means
"its change is committed", and the wait is short; it never gives up on an
update still being handled. After a crash Telegram delivers the unconfirmed
updates again; handling one twice is harmless (a move button carries the
session version it was drawn for, and the store recognises the repeat).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from telegram import Update
from telegram.ext import Application, ExtBot

log = logging.getLogger(__name__)

#: Seconds after which a batch still being handled is mentioned in the log (the
#: wait goes on: an update is never confirmed before its change is committed).
SLOW_BATCH = 5.0


class Inbox:
    """The update ids of the last batch that are still being handled."""

    def __init__(self, slow: float = SLOW_BATCH) -> None:
        self.slow = slow
        self._open: set[int] = set()
        self._settled = asyncio.Event()
        self._settled.set()

    def received(self, update_ids: Iterable[int]) -> None:
        """A new batch was handed to the application."""
        self._open = set(update_ids)
        if self._open:
            self._settled.clear()

    def handled(self, update_id: int) -> None:
        """One update has been handled (or failed: errors are not retried)."""
        self._open.discard(update_id)
        if not self._open:
            self._settled.set()

    @property
    def open(self) -> int:
        """How many updates of the last batch are still being handled."""
        return len(self._open)

    async def settled(self) -> None:
        """Wait until every update of the last batch is handled."""
        while not self._settled.is_set():
            try:
                await asyncio.wait_for(self._settled.wait(), self.slow)
            except TimeoutError:
                log.info("%d update(s) still being handled after %.0f s", self.open, self.slow)


class KolodaBot(ExtBot[dict[str, Any]]):
    """PTB's ExtBot whose ``getUpdates`` confirms only updates already handled."""

    __slots__ = ("_inbox",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inbox = Inbox()

    @property
    def inbox(self) -> Inbox:
        """The updates of the last batch still being handled."""
        return self._inbox

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """Wait for the last batch to be handled, then fetch (and so confirm it)."""
        await self._inbox.settled()
        updates = await super().get_updates(*args, **kwargs)
        self._inbox.received(update.update_id for update in updates)
        return updates


class KolodaApplication(Application):  # type: ignore[type-arg]
    """PTB's Application that tells :class:`KolodaBot` when an update has been handled."""

    async def process_update(self, update: object) -> None:
        """Handle ``update`` (PTB's way), then mark it handled."""
        try:
            await super().process_update(update)
        finally:
            if isinstance(update, Update) and isinstance(self.bot, KolodaBot):
                self.bot.inbox.handled(update.update_id)

"""Receiving updates: confirmed to Telegram only once handled, and decoded lean.

PTB's ``Updater`` asks ``getUpdates`` for more as soon as it has queued a
batch, and that request confirms the batch to Telegram. A crash (SIGKILL, out
of memory) while the batch is being handled loses those presses for good: the
player sees the spinner time out and must press again. :class:`KolodaBot`
holds the next ``getUpdates`` back until every update of the last batch has
been handled (a press: its move committed; the answer to the button goes out
in the background, so Telegram's round trip for it holds nothing up), for at most
:data:`ACK_WAIT` seconds, so one slow handler (a chat waiting out Telegram's
flood limit) cannot stall everyone for long. After a crash Telegram delivers
the unconfirmed updates again. Handling one twice is harmless: a move button
carries the session version it was drawn for, and the move log records the
version each move was made at, so the store recognises the repeat
(``applied``) and the bot answers it without a pop-up.

Decoding: a button press arrives with the whole message it sits on, inline
keyboard included. Nothing here reads that keyboard or the text's entities,
and turning them into PTB objects cost more CPU than handling the move, so
they are dropped before PTB decodes the update.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from telegram import Update
from telegram.ext import Application, ExtBot

log = logging.getLogger(__name__)

#: Longest wait (seconds) for the last batch to be handled before asking for more.
ACK_WAIT = 1.0

#: Parts of a pressed button's message that no handler reads.
_UNREAD = ("reply_markup", "entities")


class Inbox:
    """The update ids of the last batch that are still being handled."""

    def __init__(self, wait: float = ACK_WAIT) -> None:
        #: longest wait (seconds) for a batch to be handled before asking for more
        self.wait = wait
        self._open: set[int] = set()
        self._settled = asyncio.Event()
        self._settled.set()
        #: updates confirmed to Telegram while still being handled (waited too long)
        self.given_up = 0

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

    async def settled(self) -> bool:
        """Wait until the last batch is handled, at most :attr:`wait` seconds.

        True if it was; on a timeout the stragglers are given up (confirmed by
        the next ``getUpdates`` although still running) and False returned.
        """
        if self._settled.is_set():
            return True
        try:
            await asyncio.wait_for(self._settled.wait(), self.wait)
        except TimeoutError:
            self.given_up += len(self._open)
            self.received(())
            self._settled.set()
            return False
        return True


def trim(raw_update: dict[str, Any]) -> dict[str, Any]:
    """``raw_update`` without the parts of a pressed button's message no handler reads."""
    message = (raw_update.get("callback_query") or {}).get("message")
    if isinstance(message, dict):
        for key in _UNREAD:
            message.pop(key, None)
    return raw_update


class KolodaBot(ExtBot[None]):
    """PTB's ExtBot whose ``getUpdates`` confirms only handled updates and decodes lean."""

    __slots__ = ("inbox",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        with self._unfrozen():  # PTB objects refuse new attributes after __init__
            self.inbox = Inbox()

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """Wait for the last batch to be handled, then fetch (and so confirm it)."""
        if not await self.inbox.settled():
            log.info("confirming updates still being handled after %.1f s", self.inbox.wait)
        updates = await super().get_updates(*args, **kwargs)
        self.inbox.received(update.update_id for update in updates)
        return updates

    async def _post(self, endpoint: str, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        result = await super()._post(endpoint, data, *args, **kwargs)
        if endpoint == "getUpdates" and isinstance(result, list):
            result = [trim(raw) for raw in result]
        return result


class KolodaApplication(Application):  # type: ignore[type-arg]
    """PTB's Application that tells :class:`KolodaBot` when an update has been handled."""

    async def process_update(self, update: object) -> None:
        """Handle ``update`` (PTB's way), then mark it handled."""
        try:
            await super().process_update(update)
        finally:
            if isinstance(update, Update) and isinstance(self.bot, KolodaBot):
                self.bot.inbox.handled(update.update_id)

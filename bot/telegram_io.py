"""Sending and editing Telegram messages: coalesced, paced, and error-tolerant.

Every message that shows a session lives in a *slot* keyed by (session,
purpose). :meth:`TelegramIO.show` only records the latest screen for a slot;
one worker per slot delivers it, so a burst of renders (computer moves) turns
into one edit of the newest picture, and an edit whose text and buttons equal
the last delivered ones is skipped. In a *lazy* slot (a waiting player's hand)
an edit that leaves the buttons as they are waits up to ``Pacing.coalesce``
seconds for newer pictures. Telegram facts handled here:

- "message is not modified" is success;
- "message to edit not found" (deleted) → post it again and remember the new id;
- 403 from a private chat → the user is marked unreachable (the table then
  shows a deep-link button); 403 from a group → the bot was removed, the
  chat's games end;
- 429 → wait ``retry_after`` and try again.

Its requests skip PTB's typed methods and the AIORateLimiter (see
:func:`bot.http.call_raw`): the pacing here is theirs, per chat and overall.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiolimiter import AsyncLimiter
from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.http import call_raw
from bot.render.common import Screen
from bot.sessions import SessionManager

log = logging.getLogger(__name__)

#: Idle slots kept in memory (least recently shown are forgotten first). A
#: forgotten slot is rebuilt on its next show from the stored message id, so
#: thousands of idle games cost no memory; the price is one edit that may turn
#: out "not modified".
MAX_SLOTS = 2048

#: Tries of an edit whose request was lost on the way (timed out, connection
#: dropped), and the pause before the n-th retry (n × this many seconds). A lost
#: sendMessage is not sent again: it may have arrived, and would show twice.
EDIT_TRIES = 3
RETRY_PAUSE = 0.5


@dataclass(frozen=True)
class Pacing:
    """How many deliveries one chat may get per window (Telegram's flood limits).

    Groups allow about 20 sends+edits a minute, private chats about one a
    second (short bursts are fine), and a bot about 30 messages a second in
    all. ``None`` leaves that limit out (the load benchmark's fake Bot API has
    no limits).
    """

    group: tuple[int, float] | None = (20, 60.0)
    private: tuple[int, float] | None = (3, 3.0)
    overall: tuple[int, float] | None = (30, 1.0)
    #: Seconds a *lazy* slot's edit that changes only the text (not the buttons)
    #: may wait for newer screens: a waiting player's hand follows the table a
    #: moment later, in one edit for several moves. 0 delivers at once.
    coalesce: float = 0.5


@dataclass
class _Slot:
    session_id: int
    purpose: str
    chat_id: int
    ephemeral_for: int | None = None
    message_id: int | None = None
    loaded: bool = False
    pending: Screen | None = None
    pending_version: int = -1
    delivered: tuple[Any, ...] | None = None
    worker: asyncio.Task[None] | None = None
    repost: bool = False
    edit_only: bool = False
    final: bool = False  # the session is over: forget the slot once delivered
    lazy: bool = False  # text-only changes may wait (Pacing.coalesce)
    hurry: asyncio.Event | None = None  # set while a lazy delivery waits


ChatGone = Callable[[int], Awaitable[None]]


def ephemeral_purpose(seat: int) -> str:
    """The slot of a seat's ephemeral hand (kept in memory only, never stored)."""
    return f"eph:{seat}"


_NO_PREVIEW = {"is_disabled": True}


def _message_params(screen: Screen, **where: int) -> dict[str, Any]:
    """sendMessage / editMessageText parameters showing ``screen`` (HTML, no link preview)."""
    params: dict[str, Any] = {
        **where,
        "text": screen.text,
        "parse_mode": ParseMode.HTML.value,
        "link_preview_options": _NO_PREVIEW,
    }
    markup = screen.markup_json()
    if markup is not None:
        params["reply_markup"] = markup
    return params


def _in_transit(error: Exception) -> bool:
    """True for a request with no answer (timeout, dropped connection), not one Telegram
    answered with an error (``BadRequest`` and the like are ``NetworkError`` too in PTB)."""
    return type(error) in (NetworkError, TimedOut)


def _not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def _gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class TelegramIO:
    """The only place that sends or edits messages that show sessions."""

    def __init__(
        self,
        bot: Bot,
        manager: SessionManager,
        pacing: Pacing | None = None,
        on_chat_gone: ChatGone | None = None,
    ) -> None:
        self.bot = bot
        self.manager = manager
        self.pacing = pacing or Pacing()
        self.on_chat_gone = on_chat_gone
        self._slots: dict[tuple[int, str], _Slot] = {}  # least recently shown first
        self._sent: dict[int, deque[float]] = {}  # paced chats with recent deliveries
        overall = self.pacing.overall
        self._overall = AsyncLimiter(*overall) if overall is not None else None
        self._chat_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    # ------------------------------------------------------------ public

    def show(
        self,
        session_id: int,
        purpose: str,
        chat_id: int,
        screen: Screen,
        version: int,
        *,
        repost: bool = False,
        edit_only: bool = False,
        final: bool = False,
        lazy: bool = False,
    ) -> None:
        """Make the slot's message show ``screen`` (the newest ``version`` wins).

        ``edit_only`` updates the message if there is one but never posts it;
        ``final`` (the session is over) lets the slot go once delivered;
        ``lazy`` lets an edit that leaves the buttons as they are wait up to
        ``Pacing.coalesce`` seconds, so several such changes become one edit.
        """
        slot = self._slot(session_id, purpose, chat_id)
        slot.edit_only = edit_only and not repost
        slot.final = final
        slot.lazy = lazy and not final
        if version < slot.pending_version:
            return
        slot.pending, slot.pending_version = screen, version
        slot.repost = slot.repost or repost
        if slot.hurry is not None and not self._may_wait(slot, screen):
            slot.hurry.set()
        self._wake(slot)

    def show_ephemeral(
        self, session_id: int, seat: int, screen: Screen, version: int, *, final: bool = False
    ) -> None:
        """Keep the seat's ephemeral hand current (edited, never re-posted), if it has one."""
        slot = self._slots.get((session_id, ephemeral_purpose(seat)))
        if slot is not None and slot.ephemeral_for is not None:
            self.show(session_id, slot.purpose, slot.chat_id, screen, version, final=final)

    def track_ephemeral(
        self, session_id: int, seat: int, chat_id: int, user_id: int, message_id: int, shown: Screen
    ) -> None:
        """Remember an ephemeral hand just sent showing ``shown``, to keep it current."""
        slot = self._slot(session_id, ephemeral_purpose(seat), chat_id)
        slot.ephemeral_for, slot.message_id, slot.loaded = user_id, message_id, True
        slot.delivered = shown.key()

    def has_ephemeral(self, session_id: int, seat: int) -> bool:
        """True if the seat's ephemeral hand is being kept current."""
        slot = self._slots.get((session_id, ephemeral_purpose(seat)))
        return slot is not None and slot.ephemeral_for is not None

    @property
    def slots(self) -> int:
        """How many messages are being kept current (finished sessions let theirs go)."""
        return len(self._slots)

    def forget(self, session_id: int, purpose: str) -> None:
        """Drop a slot (its message is no longer ours to update)."""
        slot = self._slots.pop((session_id, purpose), None)
        if slot is not None and slot.worker is not None and not slot.worker.done():
            slot.pending = None

    async def flush(self) -> None:
        """Wait until every slot has delivered its newest screen (lazy ones at once)."""
        while True:
            workers = [s.worker for s in self._slots.values() if s.worker and not s.worker.done()]
            if not workers:
                return
            for slot in self._slots.values():
                if slot.hurry is not None:
                    slot.hurry.set()
            await asyncio.gather(*workers, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers."""
        for slot in self._slots.values():
            if slot.worker is not None:
                slot.worker.cancel()
        await asyncio.gather(
            *(s.worker for s in self._slots.values() if s.worker), return_exceptions=True
        )

    async def send(self, chat_id: int, screen: Screen) -> int | None:
        """Post a one-off message: its id, or None if the chat is closed to us (403 handled)."""
        try:
            return await self._send(chat_id, screen)
        except Forbidden:
            await self._forbidden(chat_id)
            return None

    # ------------------------------------------------------------ slots

    def _slot(self, session_id: int, purpose: str, chat_id: int) -> _Slot:
        key = (session_id, purpose)
        slot = self._slots.pop(key, None)
        if slot is None or slot.chat_id != chat_id:
            slot = _Slot(session_id, purpose, chat_id)
        self._slots[key] = slot  # now the most recently shown
        return slot

    def _wake(self, slot: _Slot) -> None:
        if slot.worker is None or slot.worker.done():
            slot.worker = asyncio.get_running_loop().create_task(self._work(slot))

    async def _work(self, slot: _Slot) -> None:
        try:
            if not slot.loaded:
                await self._load(slot)
            if slot.message_id is None and slot.edit_only:
                slot.pending = None
                return
            while slot.pending is not None:
                if slot.pending.key() == slot.delivered and not slot.repost:
                    slot.pending = None
                    continue
                if self._may_wait(slot, slot.pending):
                    await self._coalesce(slot)  # then deliver the newest screen, whatever it is
                # one delivery at a time per chat, paced by when the last ones were done
                async with self._chat_locks.setdefault(slot.chat_id, asyncio.Lock()):
                    await self._pace(slot.chat_id)
                    screen, slot.pending = slot.pending, None  # the newest render, after the wait
                    if screen is None:
                        return
                    delivered = await self._deliver(slot, screen)
                    if self._limit(slot.chat_id) is not None:
                        self._sent.setdefault(slot.chat_id, deque()).append(time.monotonic())
                if not delivered:
                    return
        except Exception as error:
            if _in_transit(error):
                # Telegram was unreachable for a while: the slot's next picture tries again
                log.warning("delivering %s/%s failed: %s", slot.session_id, slot.purpose, error)
            else:
                log.exception("delivering %s/%s failed", slot.session_id, slot.purpose)
        finally:
            key = (slot.session_id, slot.purpose)
            if slot.final and slot.pending is None and self._slots.get(key) is slot:
                del self._slots[key]
            self._forget_idle()

    def _may_wait(self, slot: _Slot, screen: Screen) -> bool:
        """True if delivering ``screen`` may wait: a lazy slot whose buttons stay as shown."""
        return (
            slot.lazy
            and self.pacing.coalesce > 0
            and slot.delivered is not None
            and not slot.repost
            and screen.rows == slot.delivered[1]
        )

    async def _coalesce(self, slot: _Slot) -> None:
        """Wait ``Pacing.coalesce`` seconds, or less if a screen with new buttons arrives."""
        slot.hurry = hurry = asyncio.Event()
        timer = asyncio.get_running_loop().call_later(self.pacing.coalesce, hurry.set)
        try:
            await hurry.wait()
        finally:
            timer.cancel()
            slot.hurry = None

    def _forget_idle(self) -> None:
        """Drop the least recently shown idle slots beyond :data:`MAX_SLOTS`, and the
        delivery times of chats that have been quiet for a whole pacing window."""
        if len(self._sent) > MAX_SLOTS:
            now = time.monotonic()
            for chat_id, sent in list(self._sent.items()):
                limit = self._limit(chat_id)
                if limit is None or not sent or sent[-1] <= now - limit[1]:
                    del self._sent[chat_id]
        excess = len(self._slots) - MAX_SLOTS
        if excess <= 0:
            return
        me = asyncio.current_task()
        for key in list(itertools.islice(self._slots, excess)):
            slot = self._slots[key]
            idle = slot.worker is None or slot.worker.done() or slot.worker is me
            # ephemeral hands live only here: they are never forgotten while shown
            if idle and slot.pending is None and slot.ephemeral_for is None:
                del self._slots[key]

    async def _load(self, slot: _Slot) -> None:
        for ref in await self.manager.messages(slot.session_id):
            if ref.purpose == slot.purpose and ref.chat_id == slot.chat_id:
                slot.message_id = ref.message_id
        slot.loaded = True

    async def _pace(self, chat_id: int) -> None:
        """Wait until ``chat_id`` may get another delivery (a sliding window per chat).

        Deliveries are counted when they complete, so a request that waited in
        a queue or on the network is never counted earlier than Telegram saw it.
        """
        limit = self._limit(chat_id)
        if limit is None:
            return
        allowed, window = limit
        while True:
            sent = self._sent.get(chat_id)
            if sent is None:
                return
            now = time.monotonic()
            while sent and sent[0] <= now - window:
                sent.popleft()
            if not sent:
                del self._sent[chat_id]  # a quiet chat costs no memory
            if len(sent) < allowed:
                return
            await asyncio.sleep(sent[0] + window - now)

    def _limit(self, chat_id: int) -> tuple[int, float] | None:
        """(deliveries, per seconds) allowed in ``chat_id``, or None if unpaced."""
        return self.pacing.private if chat_id > 0 else self.pacing.group

    # ------------------------------------------------------------ delivery

    async def _deliver(self, slot: _Slot, screen: Screen) -> bool:
        """Send or edit; False when the chat is closed to us (stop the slot)."""
        try:
            if slot.ephemeral_for is not None:
                await self._edit_ephemeral(slot, screen)
            elif slot.message_id is None or slot.repost:
                await self._post(slot, screen)
            else:
                await self._edit(slot, screen)
        except Forbidden:
            await self._forbidden(slot.chat_id)
            self._slots.pop((slot.session_id, slot.purpose), None)
            return False
        slot.delivered = screen.key()
        return True

    async def _send(self, chat_id: int, screen: Screen) -> int:
        """sendMessage showing ``screen``; the new message's id."""
        params = _message_params(screen, chat_id=chat_id)
        message = await self._call(lambda: call_raw(self.bot, "sendMessage", params))
        return int(message["message_id"])

    async def _post(self, slot: _Slot, screen: Screen) -> None:
        slot.message_id, slot.repost = await self._send(slot.chat_id, screen), False
        await self.manager.set_message(slot.session_id, slot.purpose, slot.chat_id, slot.message_id)

    async def _edit(self, slot: _Slot, screen: Screen) -> None:
        assert slot.message_id is not None
        message_id = slot.message_id
        params = _message_params(screen, chat_id=slot.chat_id, message_id=message_id)
        for attempt in range(1, EDIT_TRIES + 1):
            try:
                await self._call(lambda: call_raw(self.bot, "editMessageText", params))
                return
            except BadRequest as error:
                if _not_modified(error):
                    return
                if _gone(error):
                    log.info("message %s/%s is gone; posting it again", slot.chat_id, message_id)
                    await self._post(slot, screen)
                    return
                raise
            except NetworkError as error:
                # lost on the way (no answer): an edit can safely be made again
                if not _in_transit(error) or attempt == EDIT_TRIES:
                    raise
                log.info(
                    "editing %s/%s failed in transit (%s); again", slot.chat_id, message_id, error
                )
                await asyncio.sleep(RETRY_PAUSE * attempt)

    async def _edit_ephemeral(self, slot: _Slot, screen: Screen) -> None:
        markup = screen.markup()
        kwargs: dict[str, Any] = {
            "chat_id": slot.chat_id,
            "receiver_user_id": slot.ephemeral_for,
            "ephemeral_message_id": slot.message_id,
            "text": screen.text,
            "parse_mode": ParseMode.HTML,
        }
        if markup is not None:
            kwargs["reply_markup"] = markup
        try:
            await self._call(lambda: self.bot.do_api_request("editEphemeralMessageText", kwargs))
        except BadRequest as error:
            if not _not_modified(error):
                # an ephemeral message can vanish (the client closed it): stop updating it
                self._slots.pop((slot.session_id, slot.purpose), None)

    async def _call(self, request: Callable[[], Awaitable[Any]]) -> Any:
        """Run a Bot API request within the overall limit, waiting out 429s."""
        for _ in range(5):
            try:
                return await self._within_limit(request)
            except RetryAfter as error:
                delay = error.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
                await asyncio.sleep(float(seconds))
        return await self._within_limit(request)

    async def _within_limit(self, request: Callable[[], Awaitable[Any]]) -> Any:
        if self._overall is None:
            return await request()
        async with self._overall:
            return await request()

    async def _forbidden(self, chat_id: int) -> None:
        if chat_id > 0:
            await self.manager.set_reachable(chat_id, False)
        elif self.on_chat_gone is not None:
            with contextlib.suppress(TelegramError):
                await self.on_chat_gone(chat_id)

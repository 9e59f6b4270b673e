"""The only place that sends or edits messages that show sessions.

:class:`Delivery` puts together the parts, each in its own module: the
newest-screen slots (:mod:`bot.delivery.slots`), the Bot API calls and what their
errors mean (:mod:`bot.delivery.telegram`), the lease path several workers share
(:mod:`bot.delivery.leases`) and one-off replies (:mod:`bot.delivery.replies`).
Where the messages are it reads from and records in the message store
(:class:`sessions.Messages`); a chat that refuses us (403) is an event the app
subscribes to (:meth:`Delivery.subscribe`). Every pause is slept on an injected
:class:`~bot.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram.error import Forbidden, TelegramError
from telegram.ext import ExtBot

from bot.clock import Clock, LoopClock
from bot.config import DEFAULT_LEASE_SECONDS
from bot.delivery.leases import Leases, Newest, TurnHand
from bot.delivery.replies import Replies, asking_topic
from bot.delivery.slots import MAX_SLOTS, Showing, Slot, Slots
from bot.delivery.telegram import Retries, TelegramCalls
from bot.limiter import FloodLimiter
from bot.queueing import REPLY, URGENT
from bot.render.common import Screen
from sessions import Messages

log = logging.getLogger(__name__)

#: Seconds a screen that is not urgent for its viewer (a player's own hand right
#: after their move: they know what they played, and the table shows it) may wait
#: for a newer one while the budget it needs is short (``FloodLimiter.short``), so it
#: goes out together with their next turn's buttons, as one edit: a move then costs
#: the table and one hand. Long enough for a round of four players who think; with
#: budget to spare (or once there is again) it goes at once.
DEFER = 30.0

#: Told of a chat that refused us (403): a user's private chat (id > 0) or a group.
ChatClosed = Callable[[int], Awaitable[None]]
#: Told of a forum topic found ``closed`` or ``gone`` by a refused send or edit, or
#: ``open`` by one that went through after: (chat, thread, state).
TopicChanged = Callable[[int, int, str], Awaitable[None]]


class Delivery:
    """The only place that sends or edits messages that show sessions.

    ``shared``: other workers deliver the same messages, so each is delivered under
    its lease (``owner`` names this worker, a lease stands ``lease`` seconds).
    """

    def __init__(
        self,
        bot: ExtBot[dict[str, Any]],
        limiter: FloodLimiter,
        messages: Messages,
        *,
        defer: float = DEFER,
        shared: bool = False,
        owner: str = "",
        lease: float = DEFAULT_LEASE_SECONDS,
        clock: Clock | None = None,
        retries: Retries | None = None,
        max_slots: int = MAX_SLOTS,
    ) -> None:
        self.bot = bot
        self.limiter = limiter
        self.shared = shared
        self.clock: Clock = clock or LoopClock()
        self.telegram = TelegramCalls(bot, limiter, self.clock, retries or Retries())
        self._messages = messages
        self._listeners: list[ChatClosed] = []
        self._topic_listeners: list[TopicChanged] = []
        self._sends: set[asyncio.Task[Any]] = set()
        self._once: dict[tuple[Any, ...], asyncio.Task[None]] = {}
        self._leases = leases = Leases(messages, self.clock, owner, lease) if shared else None
        self._slots = Slots(
            self.telegram, messages, self.clock, self._closed,
            defer=defer, leases=leases, max_slots=max_slots, topic=self._topic_changed,
        )
        self._replies = Replies(self.telegram, self.clock, self.spawn, self._closed)
        #: a one-off ephemeral message (never from a handler: from work it spawned)
        self.post_ephemeral = self.telegram.post_ephemeral

    @property
    def retries(self) -> Retries:
        """How delivery tries again (the back-off)."""
        return self.telegram.retries

    @retries.setter
    def retries(self, retries: Retries) -> None:
        self.telegram.retries = retries

    @property
    def defer(self) -> float:
        """The longest wait a deferred screen gets (0: every screen goes at once)."""
        return self._slots.defer

    @property
    def replies_dropped(self) -> int:
        """Replies not posted: replaced by a newer one, repeated, or beyond a backlog."""
        return self._replies.dropped

    def subscribe(self, listener: ChatClosed) -> None:
        """Tell ``listener`` of every chat that refuses us (403): the user blocked the
        bot (a private chat), or the bot is no longer in the group."""
        self._listeners.append(listener)

    async def _closed(self, chat_id: int) -> None:
        for listener in self._listeners:
            await listener(chat_id)

    def subscribe_topics(self, listener: TopicChanged) -> None:
        """Tell ``listener`` of every forum topic a table's send or edit was refused in
        (``closed``; ``gone``: deleted), once per change, and of one that takes them
        again (``open``)."""
        self._topic_listeners.append(listener)

    async def _topic_changed(self, chat_id: int, thread: int, state: str) -> None:
        for listener in self._topic_listeners:
            await listener(chat_id, thread, state)

    def topic_reopened(self, chat_id: int, thread: int) -> None:
        """The topic is open again (Telegram said so): sends in it are no longer refused."""
        self._slots.closed_topics.discard((chat_id, thread))

    # ------------------------------------------------------------ screens

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
        deferred: bool = False,
        urgent: bool = False,
        force: bool = False,
        thread: int = 0,
        table: bool = False,
    ) -> None:
        """Make the slot's message show ``screen`` (the newest ``version`` wins), posted in
        forum topic ``thread`` (0: none) when it is posted.

        ``edit_only`` updates the message if there is one but never posts it;
        ``final`` (the session is over) lets the slot go once delivered;
        ``deferred`` (not urgent for the viewer) lets the edit wait up to
        :data:`DEFER` seconds for a newer screen, which then goes instead, in
        one edit — only while the budget it needs is short; ``urgent`` (the
        viewer's turn starts) goes first when the bot's budget is short;
        ``table`` (a running table's screen) goes after the turns' hands until it
        has waited one interval of its group's pace, then before them
        (:data:`bot.queueing.TABLE`); ``force`` edits even if the screen is the one
        delivered last (the message may not show it: a stale press came from it).
        """
        how = Showing(repost, edit_only, final, deferred, urgent, force, table)
        slot = self._slots.slot(session_id, purpose, chat_id, thread)
        self._slots.show(slot, screen, version, how)

    def draw_newest(self, newest: Newest, turn: TurnHand | None = None) -> None:
        """Shared: a chat's turn taken for a screen that another worker's newer commit
        superseded meanwhile draws ``turn``'s screen (the session's turn, if its message
        is behind in that chat), else ``newest``'s (both read from the store) instead of
        nothing, so the turn is not lost (a booked turn cannot be handed back)."""
        if self._leases is not None:
            self._leases.newest, self._leases.turn = newest, turn

    def delivered_version(self, session_id: int, purpose: str) -> int | None:
        """The newest version handed to the slot (None if it has none in memory)."""
        slot = self._slots.get(session_id, purpose)
        return None if slot is None else slot.pending_version

    def message_id(self, session_id: int, purpose: str) -> int | None:
        """The id of the slot's message, if it is in memory and posted."""
        slot = self._slots.get(session_id, purpose)
        return None if slot is None else slot.message_id

    @property
    def slots(self) -> int:
        """How many messages are being kept current (finished sessions let theirs go)."""
        return len(self._slots)

    def forget(self, session_id: int, purpose: str) -> None:
        """Drop a slot (its message is no longer ours to update)."""
        slot = self._slots.pop(session_id, purpose)
        if slot is not None and slot.worker is not None and not slot.worker.done():
            slot.pending = None

    # ------------------------------------------------------------ ephemeral messages

    def show_ephemeral(
        self,
        session_id: int,
        purpose: str,
        screen: Screen,
        version: int,
        *,
        final: bool = False,
        force: bool = False,
        deferred: bool = False,
        urgent: bool = False,
        chat_id: int = 0,
    ) -> None:
        """Keep an ephemeral message current (edited, never re-posted), if one is shown:
        sent here, or stored (sent by another worker, or before a restart); ``deferred``
        and ``urgent`` as in :meth:`show`. ``chat_id``: the group it would be in (0: not
        known till the stored one is read), so its place among the group's requests is
        taken at once."""
        slot = self._slots.get(session_id, purpose)
        if slot is not None and slot.absent:
            if not self.shared:  # none was stored, and only this worker sends them
                if final:
                    self._slots.pop(session_id, purpose)
                return
            self._slots.pop(session_id, purpose)  # another worker may have sent one since
            slot = None
        if slot is None:
            slot = self._slots.slot(session_id, purpose, chat_id)
            slot.lookup = True
        elif slot.ephemeral_for is None and not slot.lookup:
            return  # none is shown, or the purpose's message is an ordinary one
        self.show(
            session_id, purpose, slot.chat_id, screen, version,
            final=final, force=force, deferred=deferred, urgent=urgent,
        )

    async def find_ephemeral(self, session_id: int, purpose: str) -> bool:
        """True if an ephemeral message of ``purpose`` is shown — kept here, or stored by
        any worker (then it is kept current here from now on)."""
        if self.has_ephemeral(session_id, purpose):
            return True
        ref = await self._messages.stored(session_id, purpose)
        if ref is None or ref.receiver is None or ref.chat_id is None or ref.message_id is None:
            return False
        slot = self._found_ephemeral(session_id, purpose, ref.chat_id)
        slot.ephemeral_for, slot.message_id, slot.loaded = ref.receiver, ref.message_id, True
        slot.pending_version = max(slot.pending_version, ref.shown)
        return True

    def track_ephemeral(
        self,
        session_id: int,
        purpose: str,
        chat_id: int,
        user_id: int,
        ephemeral_message_id: int,
        shown: Screen,
        version: int,
    ) -> None:
        """Remember an ephemeral hand just sent showing ``shown``, to keep it current."""
        slot = self._found_ephemeral(session_id, purpose, chat_id)
        slot.ephemeral_for, slot.message_id, slot.loaded = user_id, ephemeral_message_id, True
        slot.delivered, slot.pending_version = shown.key(), version

    def _found_ephemeral(self, session_id: int, purpose: str, chat_id: int) -> Slot:
        """The slot of an ephemeral message just found (sent, or read from the store): a
        new one if the kept one only looked for it (found none, or still reads the
        store: what it reads may predate this one)."""
        kept = self._slots.get(session_id, purpose)
        if kept is not None and kept.ephemeral_for is None:
            self._slots.pop(session_id, purpose)
        return self._slots.slot(session_id, purpose, chat_id)

    async def send_ephemeral(
        self,
        session_id: int,
        purpose: str,
        chat_id: int,
        user_id: int,
        screen: Screen,
        version: int,
        query_id: str | None = None,
        *,
        priority: int = URGENT,
        thread: int = 0,
    ) -> None:
        """Send ``screen`` as an ephemeral message only ``user_id`` sees in the group (in
        forum topic ``thread``), and keep it current (:meth:`show_ephemeral`; it is stored,
        so any worker does). Raises the Bot API's error if Telegram refuses (the caller
        falls back to the private chat)."""
        ephemeral_id = await self.post_ephemeral(
            chat_id, user_id, screen, query_id, priority=priority, thread=thread
        )
        self.track_ephemeral(session_id, purpose, chat_id, user_id, ephemeral_id, screen, version)
        await self._messages.posted(
            session_id, purpose, chat_id, ephemeral_id, version, receiver=user_id
        )

    async def delete_ephemeral(self, session_id: int, purpose: str) -> None:
        """Remove an ephemeral message we keep (``deleteEphemeralMessage``), if there is
        one: sent here, or stored by any worker."""
        slot = self._slots.pop(session_id, purpose)
        if slot is not None:
            slot.pending = None
        ref = await self._messages.stored(session_id, purpose)
        if ref is not None and ref.receiver is not None:
            await self._messages.forget(session_id, purpose)
            target = ref.chat_id, ref.receiver, ref.message_id
        elif slot is not None and slot.ephemeral_for is not None:
            target = slot.chat_id, slot.ephemeral_for, slot.message_id
        else:
            return
        chat_id, receiver, ephemeral_id = target
        if chat_id is not None and ephemeral_id is not None:
            await self.telegram.delete_ephemeral(chat_id, receiver, ephemeral_id)

    def has_ephemeral(self, session_id: int, purpose: str) -> bool:
        """True if that ephemeral hand is being kept current."""
        slot = self._slots.get(session_id, purpose)
        return slot is not None and slot.ephemeral_for is not None

    # ------------------------------------------------------------ one-off messages

    def send(self, chat_id: int, screen: Screen, thread: int | None = None) -> None:
        """Post a one-off message (a command's reply) in the background, after the chat's
        screens: whoever asked does not wait for the chat's flood limit, and a table never
        waits behind replies. Replies to the same request coalesce
        (:meth:`bot.delivery.replies.Replies.send`). ``thread``: its forum topic (None:
        the one the request being handled came from)."""
        self._replies.send(chat_id, screen, thread)

    def replies_waiting(self, chat_id: int) -> int:
        """How many one-off replies to ``chat_id`` wait to be posted."""
        return self._replies.waiting(chat_id)

    async def send_now(
        self, chat_id: int, screen: Screen, thread: int | None = None
    ) -> int | None:
        """Post a one-off message (after the chat's screens) and wait for it: its id, or
        None if the chat is closed to us (403 handled). Never from a handler: from work
        it :meth:`spawn` ed."""
        try:
            return await self._replies.send_now(chat_id, screen, thread)
        except Forbidden:
            await self._closed(chat_id)
            return None

    async def ask(
        self, chat_id: int, text: str, placeholder: str, thread: int = 0
    ) -> int | None:
        """Post a question the user answers by replying (``ForceReply``); its message id,
        or None if the chat is closed to us. Never from a handler: from work it
        :meth:`spawn` ed."""
        await self.limiter.wait_turn(chat_id, REPLY)
        try:
            return await self.telegram.ask(chat_id, text, placeholder, thread)
        except Forbidden:
            await self._closed(chat_id)
            return None

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a one-off message of ours (a question that was answered); a message
        already gone is fine."""
        await self.telegram.delete(chat_id, message_id)

    def send_document(
        self, chat_id: int, filename: str, content: bytes, caption: str,
        thread: int | None = None,
    ) -> bool:
        """Post a document (a match record) in the background, in forum topic ``thread``
        (None: the asking one); PTB's ``send_document`` through the bot's rate limiter
        like every call. Once per chat and file while one is on its way (False: this one
        dropped): members pressing 📄 at once post it once."""
        if thread is None:
            thread = asking_topic(chat_id)
        posting = self._send_document(chat_id, filename, content, caption, thread)
        return self.spawn_once(("document", chat_id, thread, filename, content), posting)

    async def _send_document(
        self, chat_id: int, filename: str, content: bytes, caption: str, thread: int
    ) -> None:
        try:
            await self.telegram.send_document(chat_id, filename, content, caption, thread)
        except Forbidden:
            await self._closed(chat_id)
        except TelegramError as error:
            log.warning("sending a document to %s failed: %s", chat_id, error)

    # ------------------------------------------------------------ background work

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` (a delivery a handler must not wait for) in the background:
        :meth:`flush` waits for it, :meth:`close` stops it, a bug in it is logged."""
        task = asyncio.get_running_loop().create_task(work)
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)
        task.add_done_callback(_log_failure)
        return task

    def spawn_once(self, key: tuple[Any, ...], work: Coroutine[Any, Any, None]) -> bool:
        """:meth:`spawn` ``work`` unless work under the same ``key`` is still running (the
        same user pressing the same button while its message is on its way): then
        ``work`` is dropped and False returned."""
        running = self._once.get(key)
        if running is not None and not running.done():
            work.close()
            self._replies.dropped += 1
            return False
        task = self._once[key] = self.spawn(work)

        def forget(done: asyncio.Task[None]) -> None:
            if self._once.get(key) is done:
                del self._once[key]

        task.add_done_callback(forget)
        return True

    async def flush(self) -> None:
        """Wait until every slot has delivered its newest screen (deferred ones at once)."""
        while pending := [*self._slots.busy(), *self._sends]:
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers."""
        tasks = [*self._slots.workers(), *self._sends]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _log_failure(task: asyncio.Task[Any]) -> None:
    """A background delivery that failed with a bug: its traceback in the log."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("a background delivery failed", exc_info=error)

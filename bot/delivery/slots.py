"""Newest screen wins: one slot per message that shows a session.

Every message that shows a session lives in a *slot* keyed by (session,
purpose). :meth:`Slots.show` only records the newest screen for a slot (and takes
its place in its chat's queue: the screens of a change ask in the order they are
shown, not once each has read its message from the store); one worker per slot
waits for that turn in the bot's one rate limiter and only then takes the newest
screen, so a burst of changes (computer moves) becomes one edit, and an edit equal
to what the message already shows is skipped. A screen Telegram did not take is
delivered again with back-off; a screen that is not urgent for its viewer may wait
a while for a newer one, when the budget it needs is short
(:meth:`bot.limiter.FloodLimiter.short`).

With several workers the taken screen goes under the message's delivery lease
(:mod:`bot.delivery.leases`); with one, straight to Telegram.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError

from bot.clock import Clock, sleep_unless
from bot.delivery.telegram import TelegramCalls, answered, in_transit, retried
from bot.limiter import Ticket
from bot.queueing import LATER, NORMAL, TABLE, URGENT
from bot.render.common import Screen
from bot.topics import topic_refusal
from sessions import Messages

if TYPE_CHECKING:
    from bot.delivery.leases import Leases

log = logging.getLogger(__name__)

#: Idle slots kept in memory (least recently shown are forgotten first). A
#: forgotten slot is rebuilt on its next show from the stored message id.
MAX_SLOTS = 2048
#: Seconds between looks, while a deferred screen waits, at whether the budget it needs
#: is still short (once it is not, the screen goes).
RECHECK = 1.0


@dataclass
class Slot:
    """One message that shows a session: where it is, the newest screen for it and how
    that may go, and what was delivered last."""

    session_id: int
    purpose: str
    chat_id: int
    # where the message is
    thread: int = 0  # the forum topic it is posted in (0: none)
    ephemeral_for: int | None = None  # the receiver of an ephemeral message
    message_id: int | None = None
    loaded: bool = False  # message_id was read from the store
    # an ephemeral message this worker has not seen: the stored one, if any, is edited
    lookup: bool = False
    # none is stored (one worker: nobody else can send one, so it stays so)
    absent: bool = False
    # the newest screen, and how it may go
    pending: Screen | None = None
    pending_version: int = -1
    wait: float = 0.0  # seconds the pending screen may wait for a newer one
    priority: int = NORMAL
    repost: bool = False
    force: bool = False  # deliver even a screen equal to the one delivered last
    edit_only: bool = False
    final: bool = False  # the session is over: forget the slot once delivered
    # delivering
    delivered: tuple[Any, ...] | None = None
    worker: asyncio.Task[None] | None = None
    hurry: asyncio.Event | None = None  # set to end a deferred screen's wait
    failures: int = 0  # deliveries Telegram failed to take in a row (the back-off)

    @property
    def key(self) -> tuple[int, str]:
        """(session, purpose)."""
        return (self.session_id, self.purpose)


@dataclass(frozen=True)
class Showing:
    """How a screen goes to its message (:meth:`bot.delivery.Delivery.show`)."""

    repost: bool = False  # post it as a new message
    edit_only: bool = False  # update the message if there is one, never post it
    final: bool = False  # the session is over: let the slot go once delivered
    deferred: bool = False  # not urgent for the viewer: it may wait for a newer one
    urgent: bool = False  # the viewer's turn starts: first when the budget is short
    force: bool = False  # edit even if it is the screen delivered last
    table: bool = False  # a running table: after the turns' hands until it has waited


class Drawn(enum.Enum):
    """What :meth:`Slots.draw` did."""

    CLOSED = "the chat refused us (403)"
    DRAWN = "the message shows the screen"
    POSTED = "a new message shows it (its id is the slot's now)"


#: ``draw(slot, screen)``, as the lease path calls it.
Draw = Callable[[Slot, Screen], Awaitable[Drawn]]
#: ``topic(chat_id, thread, state)``: a forum topic was found ``closed`` or ``gone`` (a
#: send or edit refused because of it), or ``open`` again (one went through after that).
TopicListener = Callable[[int, int, str], Awaitable[None]]


class Slots:
    """The slots and their workers; ``closed`` is told of a chat that refused us."""

    def __init__(
        self,
        calls: TelegramCalls,
        messages: Messages,
        clock: Clock,
        closed: Callable[[int], Awaitable[None]],
        *,
        defer: float,
        leases: Leases | None,
        max_slots: int = MAX_SLOTS,
        topic: TopicListener | None = None,
    ) -> None:
        self._calls = calls
        self._topic = topic
        #: the (chat, thread) topics a send or edit was refused in, till one goes through
        self.closed_topics: set[tuple[int, int]] = set()
        self._messages = messages
        self._clock = clock
        self._closed = closed
        self.defer = defer
        self.leases = leases
        self.max_slots = max_slots
        self._slots: dict[tuple[int, str], Slot] = {}  # least recently shown first
        #: every worker still running, with its slot: one whose slot was let go meanwhile
        #: (its topic deleted, its ephemeral message closed) may still be telling of it
        self._running: dict[asyncio.Task[None], Slot] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[Slot]:
        return iter(list(self._slots.values()))

    def get(self, session_id: int, purpose: str) -> Slot | None:
        """The slot, if it is in memory."""
        return self._slots.get((session_id, purpose))

    def pop(self, session_id: int, purpose: str) -> Slot | None:
        """Forget the slot (and return it, if it was in memory)."""
        return self._slots.pop((session_id, purpose), None)

    def slot(self, session_id: int, purpose: str, chat_id: int, thread: int = 0) -> Slot:
        """The slot, made the most recently shown (a new one if it was not kept, or was
        in another chat); its message goes in forum topic ``thread`` (0: none)."""
        key = (session_id, purpose)
        slot = self._slots.pop(key, None)
        if slot is None or slot.chat_id != chat_id:
            slot = Slot(session_id, purpose, chat_id, thread)
        slot.thread = thread
        self._slots[key] = slot
        return slot

    def show(self, slot: Slot, screen: Screen, version: int, how: Showing) -> None:
        """Make the slot's message show ``screen`` (the newest ``version`` wins)."""
        slot.edit_only = how.edit_only and not how.repost
        slot.final = how.final
        if version < slot.pending_version:
            return
        slot.pending, slot.pending_version = screen, version
        # a screen not urgent for its viewer waits for a newer one only while the budget
        # it needs is short; otherwise it goes now (its viewer sees the change at once)
        limiter = self._calls.limiter
        limiter.asked(slot.chat_id)  # sent or replaced: what the chat is asked for counts
        may_wait = how.deferred and not how.final and not how.repost
        slot.wait = self.defer if may_wait and limiter.short(slot.chat_id) else 0.0
        slot.priority = (
            TABLE if how.table
            else URGENT if how.urgent
            else LATER if how.deferred or how.final
            else NORMAL
        )
        slot.repost = slot.repost or how.repost
        slot.force = slot.force or how.force
        if slot.hurry is not None and not slot.wait:
            slot.hurry.set()
        if slot.worker is None or slot.worker.done():
            # its place among the chat's requests is taken now, in the order the screens of
            # a change are handed over, not once its message is read from the store
            ticket = None
            if slot.chat_id and not _waits_for_newer(slot):
                ticket = limiter.ask(slot.chat_id, slot.priority, urgency=slot)
            slot.worker = worker = asyncio.get_running_loop().create_task(
                self._work(slot, ticket)
            )
            self._running[worker] = slot
            worker.add_done_callback(self._running.pop)

    def busy(self) -> list[asyncio.Task[None]]:
        """The workers still delivering, those of slots let go meanwhile too (they may be
        telling of a deleted topic); deferred screens are hurried."""
        for slot in [*self._slots.values(), *self._running.values()]:
            if slot.hurry is not None:
                slot.hurry.set()
        return [worker for worker in self._running if not worker.done()]

    def workers(self) -> list[asyncio.Task[None]]:
        """Every worker still running (to stop them)."""
        return list(self._running)

    # ------------------------------------------------------------ the worker

    async def _work(self, slot: Slot, ticket: Ticket | None) -> None:
        """Deliver the slot's newest screen until none is pending; ``ticket``: the place
        its first screen took among its chat's requests when it was shown."""
        limiter = self._calls.limiter
        try:
            if slot.lookup and not await self._stored_ephemeral(slot):
                return
            if not slot.loaded:
                ref = await self._messages.stored(slot.session_id, slot.purpose)
                slot.message_id = ref.message_id if ref and ref.chat_id == slot.chat_id else None
                slot.loaded = True
            if slot.message_id is None and slot.edit_only:
                slot.pending = None
                return
            while slot.pending is not None:
                if slot.pending.key() == slot.delivered and not (slot.repost or slot.force):
                    slot.pending = None
                    await self._shown(slot, slot.pending_version)
                    continue
                if _waits_for_newer(slot):
                    limiter.give_back(ticket)  # its place goes while it waits
                    ticket = None
                    await self._hold(slot)
                waiting = slot.pending_version
                if await self._newer_shown(slot, waiting):
                    # another worker has it in hand: spend none of the chat's budget on it
                    if slot.pending_version == waiting:  # nothing newer came meanwhile
                        slot.pending = None
                    continue
                if ticket is None or ticket.chat_id != slot.chat_id:  # it was in another chat
                    limiter.give_back(ticket)
                    # ranked by the newest screen's urgency while it waits (a hand that
                    # waited as "later" may meanwhile carry its player's turn)
                    ticket = limiter.ask(slot.chat_id, slot.priority, urgency=slot)
                taken, ticket = ticket, None
                await limiter.take(taken)
                # the newest screen, taken only now that it may go
                screen, version, slot.pending = slot.pending, slot.pending_version, None
                if screen is None:  # forgotten meanwhile: the chat's next request goes now
                    limiter.unused(slot.chat_id)
                    return
                try:
                    drawn = await self._deliver_taken(slot, screen, version)
                except Exception as error:
                    if not retried(error) or slot.failures >= self._calls.retries.tries:
                        slot.failures = 0
                        raise
                    await self._again(slot, screen, version, error)
                    continue
                if drawn is Drawn.CLOSED:
                    return
                if drawn is None:  # another worker drew it: the chat's next request goes now
                    limiter.unused(slot.chat_id)
                slot.failures = 0
        except Exception as error:
            if in_transit(error) or isinstance(error, TelegramError):
                # Telegram unreachable or refusing: the slot's next screen tries again
                log.warning("delivering %s/%s failed: %s", slot.session_id, slot.purpose, error)
            else:
                log.exception("delivering %s/%s failed", slot.session_id, slot.purpose)
        finally:
            limiter.give_back(ticket)  # nothing to send, or it failed before its turn
            if slot.final and slot.pending is None and self._slots.get(slot.key) is slot:
                del self._slots[slot.key]
            self._forget_idle()

    async def _hold(self, slot: Slot) -> None:
        """Let a deferred screen wait for a newer one: at most ``slot.wait`` seconds, and
        only while the budget it needs stays short (looked at every :data:`RECHECK`
        seconds); a screen that may not wait ends it at once."""
        slot.hurry = hurry = asyncio.Event()  # a screen that may not wait sets it
        end = self._clock.now() + slot.wait
        try:
            while not hurry.is_set() and (left := end - self._clock.now()) > 0:
                await sleep_unless(self._clock, hurry, min(RECHECK, left))
                if not self._calls.limiter.short(slot.chat_id):
                    return
        finally:
            slot.hurry = None

    async def _stored_ephemeral(self, slot: Slot) -> bool:
        """Point a slot looked up by ``show_ephemeral`` at the stored ephemeral message;
        False (nothing to show) if none is stored."""
        slot.lookup = False
        ref = await self._messages.stored(slot.session_id, slot.purpose)
        if ref is None or ref.receiver is None or ref.chat_id is None or ref.message_id is None:
            slot.pending, slot.absent = None, True
            if self.leases is not None and self._slots.get(slot.key) is slot:
                del self._slots[slot.key]
            return False
        slot.chat_id, slot.ephemeral_for = ref.chat_id, ref.receiver
        slot.message_id, slot.loaded = ref.message_id, True
        return True

    async def _newer_shown(self, slot: Slot, version: int) -> bool:
        if self.leases is None or slot.repost:
            return False
        return await self.leases.superseded(slot, version)

    async def _deliver_taken(self, slot: Slot, screen: Screen, version: int) -> Drawn | None:
        """Deliver the screen taken from the slot: what was drawn (None: nothing was sent,
        another worker drew it)."""
        if self.leases is not None:
            return await self.leases.deliver(slot, screen, version, self.draw)
        drawn = await self.draw(slot, screen)
        if drawn is Drawn.CLOSED:
            return drawn
        if drawn is Drawn.POSTED:
            assert slot.message_id is not None
            await self._messages.posted(
                slot.session_id, slot.purpose, slot.chat_id, slot.message_id, version
            )
        await self._shown(slot, version)
        return drawn

    async def _shown(self, slot: Slot, version: int) -> None:
        if slot.message_id is not None:
            await self._messages.shown(slot.session_id, slot.purpose, version)

    async def draw(self, slot: Slot, screen: Screen) -> Drawn:
        """Send or edit the slot's message (its turn in the limiter taken)."""
        drawn = Drawn.DRAWN
        try:
            if slot.ephemeral_for is not None:
                if not await self._calls.edit_ephemeral(
                    slot.chat_id, slot.ephemeral_for, slot.message_id, screen
                ):  # the client closed it: stop updating it
                    self._slots.pop(slot.key, None)
                    await self._messages.forget(slot.session_id, slot.purpose)
            elif (
                slot.message_id is None
                or slot.repost
                or not await self._calls.edit(slot.chat_id, slot.message_id, screen)
            ):
                slot.message_id = await self._calls.send(slot.chat_id, screen, slot.thread)
                slot.repost, drawn = False, Drawn.POSTED
        except Forbidden:
            await self._closed(slot.chat_id)
            self._slots.pop(slot.key, None)
            return Drawn.CLOSED
        except BadRequest as error:
            refusal = topic_refusal(error)
            if refusal is None:
                raise
            # not retried: the table waits for its topic (or ends with it); a redraw
            # once it reopens brings the message up to date
            self._slots.pop(slot.key, None)
            await self.topic_changed(slot.chat_id, slot.thread, refusal)
            return Drawn.CLOSED
        slot.delivered, slot.force = screen.key(), False
        if slot.ephemeral_for is None and (slot.chat_id, slot.thread) in self.closed_topics:
            await self.topic_changed(slot.chat_id, slot.thread, "open")
        return drawn

    async def topic_changed(self, chat_id: int, thread: int, state: str) -> None:
        """Note what a send or edit told of a forum topic (``closed``, ``gone``, ``open``),
        and tell the listener of each change once."""
        key = (chat_id, thread)
        if state == "open":
            if key not in self.closed_topics:
                return
            self.closed_topics.discard(key)
        elif key in self.closed_topics and state == "closed":
            return
        else:
            self.closed_topics.add(key)
        if self._topic is not None:
            await self._topic(chat_id, thread, state)

    async def _again(self, slot: Slot, screen: Screen, version: int, error: Exception) -> None:
        """Telegram did not take ``screen``: deliver it (or a newer one) again after
        1, 2, 4 … seconds (at most ``Retries.cap``; sooner when delivery is flushed).
        An edit is always safe to make again; a send that got an answer (a 5xx) was
        not carried out; a send lost on the way may have arrived — then the message
        shown before it (if any) is edited instead of posting a second one, and only a
        screen with no message at all is posted again (a player must not be left
        without the buttons of her turn)."""
        slot.failures += 1
        delay = self._calls.retries.backoff(slot.failures)
        if slot.repost and isinstance(error, NetworkError) and not answered(error):
            slot.repost = slot.message_id is None  # the old message takes it instead
        if slot.pending is None or slot.pending_version < version:
            slot.pending, slot.pending_version = screen, version
        log.warning(
            "delivering %s/%s failed (%s); again in %.0f s",
            slot.session_id, slot.purpose, " ".join(str(error).split()) or type(error).__name__,
            delay,
        )
        slot.hurry = hurry = asyncio.Event()
        try:
            await sleep_unless(self._clock, hurry, delay)
        finally:
            slot.hurry = None

    def _forget_idle(self) -> None:
        """Drop the least recently shown idle slots beyond ``max_slots``."""
        excess = len(self._slots) - self.max_slots
        if excess <= 0:
            return
        me = asyncio.current_task()
        for key in list(itertools.islice(self._slots, excess)):
            slot = self._slots[key]
            idle = slot.worker is None or slot.worker.done() or slot.worker is me
            if idle and slot.pending is None:  # stored: a forgotten one is looked up again
                del self._slots[key]


def _waits_for_newer(slot: Slot) -> bool:
    """Whether the slot's pending screen may wait for a newer one before it asks for its
    chat's turn (:meth:`Slots._hold`)."""
    return bool(slot.wait) and slot.delivered is not None

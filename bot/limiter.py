"""The one rate limiter for every Bot API call: Telegram's flood limits, paced smoothly.

Telegram allows a bot about 20 sends+edits a minute in a group, about one a
second in a private chat, and about 30 messages a second in all; beyond that
it answers 429 ``retry_after``. :class:`FloodLimiter` is PTB's
:class:`~telegram.ext.BaseRateLimiter`, so every call made through the
``Bot`` — typed methods and ``do_api_request`` alike — passes through it:

- each chat has its own pace (a request may go once the chat's previous one is
  an interval old: a busy group gets one edit every ~3 s, not a burst of 20
  and then a frozen minute), and the bot an overall one, shared by all chats;
- when requests queue for a chat's next slot or for the overall pace, the slot
  goes to the one :mod:`bot.queueing` ranks first when it opens (the most urgent,
  then the oldest: a table's screen before a command's reply, a player waiting to
  see their turn before other hands, ``rate_limit_args={"priority": 0}``; a running
  table's screen ages, :data:`bot.queueing.TABLE`); a waiting request whose message
  changed meanwhile (``wait_turn(..., urgency=slot)``) is ranked by what it carries
  now;
- a 429 is waited out (the chat and the whole bot hold back) and the call made
  again.

Whether the budget a message needs is short now (:meth:`FloodLimiter.short`: the
bot's requests, or the screens asked for its chat, come at half the pace or more,
or requests queue for the chat) is what a screen that may wait for a newer one asks
before it waits (:mod:`bot.delivery`).

A caller that wants to decide *what* to send only once it may send (newest
screen wins: :mod:`bot.delivery`) waits with :meth:`FloodLimiter.wait_turn`
first and passes ``rate_limit_args={"turn_taken": True}``; the call is then
counted without waiting twice. One that must first get ready (read where its
message is from the store) takes its place in the chat's queue at once
(:meth:`FloodLimiter.ask`), waits for it once ready (:meth:`FloodLimiter.take`),
or gives it back if nothing is to go (:meth:`FloodLimiter.give_back`): the order
in which requests ask decides who takes a free slot, not how long each took to
get ready. Calls that are not messages (button answers,
``getUpdates``, ``getMe``) are not paced.

Telegram counts per bot token, so several workers must pace through one
budget: after :meth:`FloodLimiter.share` each chat's next slot and the overall
one (key 0) are taken from the database (``Store.reserve_send``) instead of
this process's memory. Priorities still order this worker's own queue; across
workers the slots go first come, first served. A slot booked by a worker that dies
before it opens is given back to the next booking (``Store.beat``); so this worker
uses a booked slot only while its own beats stand (:class:`Heartbeat`), and books
another if they did not (it may have been taken for dead meanwhile). One process
keeps its budget in memory (no database round trip per send).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.clock import Clock, LoopClock
from bot.demand import Demand
from bot.flood_limits import Limits, Pace
from bot.numbers import signed_number
from bot.queueing import (
    AGED,
    FRESH,
    NORMAL,
    REPLY,
    RIPE,
    URGENT,
    Lane,
    Urgency,
    Waiting,
    first,
)

log = logging.getLogger(__name__)

#: Methods that send or edit a message (what Telegram's flood limits count).
PACED = frozenset(
    {
        "sendMessage",
        "editMessageText",
        "editMessageReplyMarkup",
        "sendDocument",
        "sendPhoto",
        "copyMessage",
        "forwardMessage",
        "editEphemeralMessageText",
        "editEphemeralMessageReplyMarkup",
    }
)
#: The key of the bot's overall budget in a shared budget (chat ids are never 0).
OVERALL = 0

#: ``reserve(key, interval, now)``: take the key's next slot, move it on by
#: ``interval``; when this send may go (a wall-clock time). ``Store.reserve_send``.
Reserve = Callable[[int, float, float], Awaitable[float]]


#: A chat asked for screens, or the bot for requests, at this share of its pace or
#: more lately (:mod:`bot.demand`) has no slot to spare (:meth:`FloodLimiter.short`).
DEMAND_SHORT = 0.5
#: Seconds of the bot's sends queued for the overall pace that make its budget short
#: however few came before.
BACKLOG = 1.0


class Heartbeat(Protocol):
    """This worker's own beats in the store it shares (:class:`bot.cluster.Pulse`)."""

    def mark(self) -> int:
        """Taken before a slot is booked."""
        ...

    def holds(self, mark: int, at: float) -> bool:
        """Whether a slot booked at ``mark`` and opening at ``at`` (wall clock) is still
        this worker's: it was not found dead meanwhile."""
        ...

    async def next_beat(self) -> None:
        """Return once another beat is stored."""
        ...


@dataclass
class Ticket:
    """A request's place among those waiting for their chat's slots, taken when it asked
    (:meth:`FloodLimiter.ask`) and waited on once it is ready (:meth:`FloodLimiter.take`)."""

    chat_id: int | None
    priority: int
    urgency: Urgency | None
    asked: float  # the clock's now() when it asked
    ripe: float  # seconds after ``asked`` from which a table's screen ranks as a turn
    turn: asyncio.Future[None] | None  # the chat's slot, once it is this one's (None: unpaced)


class FloodLimiter(BaseRateLimiter[dict[str, Any]]):
    """Per-chat and overall pacing, with priorities and 429 handling (see the module)."""

    def __init__(
        self, limits: Limits | None = None, max_retries: int = 5, *, clock: Clock | None = None
    ) -> None:
        self.limits = limits or Limits()
        self.max_retries = max_retries
        self.clock: Clock = clock or LoopClock()
        self._next_in_chat: dict[int, float] = {}  # chat → when its next request may go
        self._left_at: dict[int, float] = {}  # chat → when its last request left
        self._next_overall = 0.0
        self._queue: list[Waiting] = []  # requests waiting for the overall pace
        self._lanes: dict[int, Lane] = {}  # chats with requests waiting for their slot
        self._demand = Demand(self._pace_of)  # how much of each pace is asked for lately
        self._order = itertools.count()
        self._pump: asyncio.Task[None] | None = None
        self._overall_ahead = 0.0  # when the last overall slot reserved in a shared budget opens
        #: 429 answers seen (each waited out and retried)
        self.retries = 0
        self._reserve: Reserve | None = None
        self._heartbeat: Heartbeat | None = None

    def share(self, reserve: Reserve, heartbeat: Heartbeat | None = None) -> None:
        """Pace through a budget shared with other workers (``Store.reserve_send``);
        ``heartbeat``: this worker's beats, if it beats (a worker that does not is never
        found dead, and its slots never given back)."""
        self._reserve, self._heartbeat = reserve, heartbeat

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Stop serving the queues."""
        if self._pump is not None:
            self._pump.cancel()
            self._pump = None
        for lane in self._lanes.values():
            if lane.pump is not None:
                lane.pump.cancel()
        self._lanes.clear()

    def ask(
        self, chat_id: int | None, priority: int = NORMAL, *, urgency: Urgency | None = None
    ) -> Ticket:
        """Take a place among the requests for ``chat_id``'s next slot now, before the
        request is ready to go (its message still to be read from the store): the order
        in which requests ask, not how long each takes to get ready, decides which takes
        a free slot. :meth:`take` waits for the turn; :meth:`give_back` lets it go."""
        asked = self.clock.now()
        if self.limits.overall is not None:
            self._demand.note(OVERALL, self.limits.overall, asked)
        pace = self._chat_pace(chat_id)
        # a table's screen ages from when it asked (its wait for the chat's slot counts)
        ripe = RIPE * pace.interval if pace is not None else 0.0
        turn = None
        if pace is not None and chat_id is not None:
            turn = self._chat_turn(chat_id, pace, priority, urgency, ripe)
        return Ticket(chat_id, priority, urgency, asked, ripe, turn)

    async def take(self, ticket: Ticket) -> None:
        """Wait until the request ``ticket`` asked for may go (its chat's and the overall
        pace), and count it as sent now."""
        chat_id, priority = ticket.chat_id, ticket.priority
        if ticket.turn is not None:
            await ticket.turn
        await self._overall_turn(
            URGENT if priority == REPLY else priority, ticket.urgency, ticket.asked, ticket.ripe
        )
        pace = self._chat_pace(chat_id)
        if pace is not None and chat_id is not None and self._reserve is None:
            # a request that waited long for the overall pace (a low priority) must
            # still not leave right before its chat's next, more urgent one
            now = self.clock.now()
            gap = self._left_at.get(chat_id, -pace.interval) + pace.interval - now
            if gap > 0:
                await self.clock.sleep(gap)
            self._left_at[chat_id] = max(now, now + gap)

    async def wait_turn(
        self, chat_id: int | None, priority: int = NORMAL, *, urgency: Urgency | None = None
    ) -> None:
        """Wait until a message to ``chat_id`` may go (its chat's and the overall pace),
        and count it as sent now. ``urgency``: what the request carries may change while
        it waits (it is then ranked by ``urgency.priority`` whenever a slot opens)."""
        await self.take(self.ask(chat_id, priority, urgency=urgency))

    def give_back(self, ticket: Ticket | None) -> None:
        """The request ``ticket`` asked for will not go (its message needs nothing now):
        its place among the waiting requests goes, and a slot it was given already goes
        as an unused one does (:meth:`unused`). None: no place was taken."""
        if ticket is None or ticket.turn is None or ticket.chat_id is None:
            return
        if not ticket.turn.done():
            ticket.turn.cancel()  # the chat's queue drops it
            return
        self.unused(ticket.chat_id)

    def unused(self, chat_id: int) -> None:
        """A turn in ``chat_id`` just taken went unused (its screen needed nothing by the
        time it opened: another worker drew it meanwhile): the most urgent request waiting
        in the chat takes it now instead of the chat's next slot (a slot booked in a
        shared budget cannot be handed back); with none waiting, the chat's next request
        may go as soon as the last one that left is an interval old."""
        pace = self._chat_pace(chat_id)
        if pace is None:
            return
        lane, now = self._lanes.get(chat_id), self.clock.now()
        if lane is not None:
            lane.drop_done()
        if lane is not None and lane.queue:
            lane.take(AGED * pace.interval, FRESH * pace.interval, now).turn.set_result(None)
        elif self._reserve is None and chat_id in self._next_in_chat:
            left = self._left_at.get(chat_id, -pace.interval)
            back = max(now, left + pace.interval)
            self._next_in_chat[chat_id] = min(self._next_in_chat[chat_id], back)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: dict[str, Any] | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Pace ``endpoint`` if it is a message, make the call, wait out 429s."""
        limit_args = rate_limit_args or {}
        paced = endpoint in PACED
        chat_id = _chat_of(data)
        if paced and not limit_args.get("turn_taken"):
            await self.wait_turn(chat_id, int(limit_args.get("priority", NORMAL)))
        for attempt in range(self.max_retries + 1):
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                if attempt == self.max_retries:
                    raise
                self.retries += 1
                delay = _seconds(error.retry_after)
                log.info("%s to %s: flood limit, waiting %.1f s", endpoint, chat_id, delay)
                self._hold(chat_id, delay)
                await self.clock.sleep(delay)
                if paced:
                    await self.wait_turn(chat_id, URGENT)
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ pacing

    def _chat_pace(self, chat_id: int | None) -> Pace | None:
        if chat_id is None:
            return None
        return self.limits.private if chat_id > 0 else self.limits.group

    def _chat_turn(
        self, chat_id: int, pace: Pace, priority: int, urgency: Urgency | None, ripe: float
    ) -> asyncio.Future[None]:
        """A place among the requests for the chat's next slot, resolved once the slot is
        this one's: the most urgent waiting request takes each (a table's screen younger
        than ``ripe`` seconds after a turn's hand); a free slot is taken at once."""
        now = self.clock.now()
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        lane = self._lanes.get(chat_id)
        if lane is None and self._reserve is None and self._next_in_chat.get(chat_id, 0.0) <= now:
            self._next_in_chat[chat_id] = now + pace.interval
            self._forget_quiet(now)
            turn.set_result(None)
            return turn
        if lane is None:
            lane = self._lanes[chat_id] = Lane()
        lane.queue.append(
            Waiting(priority, next(self._order), now, turn, urgency, ripe, young=URGENT)
        )
        if lane.pump is None or lane.pump.done():
            lane.pump = asyncio.get_running_loop().create_task(
                self._serve_chat(chat_id, lane, pace)
            )
        return turn

    async def _serve_chat(self, chat_id: int, lane: Lane, pace: Pace) -> None:
        """Hand out the chat's slots one per interval, each to the most urgent request
        waiting when it opens (not to the first that asked), or to one that has waited
        :data:`AGED` intervals if those it passes are :data:`FRESH`: screens go first,
        and replies still go in the gaps the screens leave."""
        try:
            while lane.queue:
                if self._reserve is None:
                    while (wait := self._next_in_chat.get(chat_id, 0.0) - self.clock.now()) > 0:
                        await self.clock.sleep(wait)
                else:  # the slot is booked in the shared budget, and handed out once it opens
                    await self._booked(chat_id, pace.interval)
                lane.drop_done()  # callers cancelled
                if not lane.queue:
                    break
                now = self.clock.now()
                turn = lane.take(AGED * pace.interval, FRESH * pace.interval, now).turn
                if self._reserve is None:
                    self._next_in_chat[chat_id] = now + pace.interval
                turn.set_result(None)
        finally:
            if self._lanes.get(chat_id) is lane and not lane.queue:
                del self._lanes[chat_id]

    def asked(self, chat_id: int | None) -> None:
        """Note that a screen was asked for ``chat_id`` (sent, or replaced by a newer one
        before it went): how often a chat is asked for is its demand (:meth:`short`)."""
        pace = self._chat_pace(chat_id)
        if pace is not None and chat_id:
            self._demand.note(chat_id, pace, self.clock.now())

    def short(self, chat_id: int | None) -> bool:
        """True when the budget a message to ``chat_id`` needs is short: the bot's requests
        come at :data:`DEMAND_SHORT` of the overall pace or more, or :data:`BACKLOG` of
        them queue for it (with a shared budget, or this worker's last overall slot lay
        more than a slot ahead: other workers' sends queue before ours); or requests
        queue for the chat's next slot, or screens are asked for the chat at that share
        of its pace (a slot spent now is one its viewer's next turn waits for). A
        screen that may wait for a newer one waits only then."""
        now = self.clock.now()
        overall = self.limits.overall
        if overall is not None and (
            self._demand.share(OVERALL, overall, now) >= DEMAND_SHORT
            or len(self._queue) * overall.interval >= BACKLOG
            or self._overall_ahead > now + overall.interval
        ):
            return True
        pace = self._chat_pace(chat_id)
        if pace is None or not chat_id:
            return False
        return self.waiting(chat_id) > 0 or self._demand.share(chat_id, pace, now) >= DEMAND_SHORT

    def _pace_of(self, key: int) -> Pace | None:
        """The pace of a chat, or of the bot (:data:`OVERALL`)."""
        return self.limits.overall if key == OVERALL else self._chat_pace(key)

    def waiting(self, chat_id: int) -> int:
        """How many requests wait for the chat's next slot."""
        lane = self._lanes.get(chat_id)
        return 0 if lane is None else lane.waiting()

    def _hold(self, chat_id: int | None, delay: float) -> None:
        """After a 429: the chat waits ``delay``, and the whole bot a moment too."""
        now = self.clock.now()
        if chat_id is not None:
            self._next_in_chat[chat_id] = max(self._next_in_chat.get(chat_id, 0.0), now + delay)
        if chat_id is None or self.limits.overall is not None:
            self._next_overall = max(self._next_overall, now + min(delay, 1.0))

    async def _overall_turn(
        self, priority: int, urgency: Urgency | None, asked: float, ripe: float
    ) -> None:
        """Wait for the overall pace's next slot; the most urgent waiting request (at the
        time the slot opens: a table's screen that asked ``ripe`` seconds ago or more is
        ``URGENT``) takes each."""
        pace = self.limits.overall
        if pace is None:
            return
        now = self.clock.now()
        if not self._queue and self._next_overall <= now and self._reserve is None:
            self._next_overall = now + pace.interval
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(Waiting(priority, next(self._order), asked, turn, urgency, ripe))
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._serve(pace))
        await turn

    async def _serve(self, pace: Pace) -> None:
        """Let queued requests go one per interval, most urgent first."""
        while self._queue:
            wait = self._next_overall - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
            if self._reserve is not None:
                await self._booked(OVERALL, pace.interval)
            turn = first(self._queue, self.clock.now()).turn
            if turn.cancelled():
                continue
            self._next_overall = self.clock.now() + (0 if self._reserve else pace.interval)
            turn.set_result(None)

    def _forget_quiet(self, now: float) -> None:
        """Forget chats whose pace has long caught up (a quiet chat costs no memory)."""
        if len(self._next_in_chat) > 4096:
            for chat_id, at in list(self._next_in_chat.items()):
                if at < now:
                    del self._next_in_chat[chat_id]
                    self._left_at.pop(chat_id, None)

    async def _booked(self, key: int, interval: float) -> None:
        """Book ``key``'s next slot in the shared budget and sleep until it opens. If
        this worker's beats did not stand meanwhile (it may have been found dead and the
        slot given back to another worker: it must not send in it too), book again once
        they beat again (a worker whose beats fail takes no slot from the others)."""
        assert self._reserve is not None
        while True:
            mark = 0 if self._heartbeat is None else self._heartbeat.mark()
            at = await self._reserve(key, interval, self.clock.wall())
            if key == OVERALL:
                self._overall_ahead = self._local(at)
            await self._sleep_until(at)
            if self._heartbeat is None or self._heartbeat.holds(mark, self.clock.wall()):
                return
            log.info("a send slot of %s may have been given back; booking another", key)
            await self._heartbeat.next_beat()

    def _local(self, at: float) -> float:
        """The wall-clock time ``at`` on this clock's monotonic scale."""
        return self.clock.now() + at - self.clock.wall()

    async def _sleep_until(self, at: float) -> None:
        """Sleep until the wall-clock time ``at`` (shared slots are wall-clock times:
        every worker's clock reads the same)."""
        wait = at - self.clock.wall()
        if wait > 0:
            await self.clock.sleep(wait)


def _chat_of(data: dict[str, Any]) -> int | None:
    chat_id = data.get("chat_id")
    if isinstance(chat_id, int):
        return chat_id
    if isinstance(chat_id, str):
        return signed_number(chat_id)
    return None


def _seconds(delay: Any) -> float:
    seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
    return float(seconds)

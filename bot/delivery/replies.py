"""One-off replies (a command's answer): posted in the background, behind the chat's
screens, coalesced per request.

Each chat has one lane of waiting replies, served at the limiter's ``REPLY``
priority: a chat flooded with commands still sees its table move. Replies to the
same request of the same user coalesce (:meth:`Replies.send`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from telegram.error import Forbidden, TelegramError

from bot.clock import Clock
from bot.delivery.telegram import TelegramCalls
from bot.queueing import REPLY
from bot.render.common import Screen
from bot.topics import topic_refusal

log = logging.getLogger(__name__)

#: Unsent one-off replies kept per user in a chat; beyond, their oldest is dropped.
BACKLOG = 3
#: Seconds in which the same answer to the same request is not posted again.
REPEAT = 5.0


@dataclass
class Request:
    """Who asks what (the update being handled): a user id and the request's kind (a
    command with its arguments, a button's data). Its one-off replies are numbered, so
    the n-th reply to a repeated request replaces the unsent n-th of the one before."""

    user_id: int
    kind: str
    replies: int = 0
    #: where it was asked: the chat, and the forum topic in it (0: none), where the
    #: replies to it go unless told otherwise
    chat_id: int = 0
    thread: int = 0


def asking_topic(chat_id: int) -> int:
    """The forum topic of ``chat_id`` the request being handled came from (0: none, or
    the request came from another chat): the topic its replies there go to."""
    request = REQUEST.get()
    return request.thread if request is not None and request.chat_id == chat_id else 0


#: The request whose update is being handled (bot.handlers.common.note_request).
REQUEST: ContextVar[Request | None] = ContextVar("koloda_request", default=None)
#: (user, kind, n): which reply of which request; chats key their lanes by it.
ReplyKey = tuple[int, str, int]


@dataclass
class _Lane:
    """One chat's one-off replies waiting to be posted, oldest first."""

    waiting: dict[ReplyKey, tuple[Screen, int]] = field(default_factory=dict)  # with its topic
    worker: asyncio.Task[None] | None = None


class Replies:
    """The chats' lanes of one-off replies.

    ``spawn`` runs a lane's worker in the background (the delivery's tasks);
    ``closed`` is told of a chat that refused us (403).
    """

    def __init__(
        self,
        calls: TelegramCalls,
        clock: Clock,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        closed: Callable[[int], Awaitable[None]],
    ) -> None:
        self._calls = calls
        self._clock = clock
        self._spawn = spawn
        self._closed = closed
        self._lanes: dict[int, _Lane] = {}  # chat → its one-off replies waiting
        #: (chat, reply key) → when and what was last posted for it, oldest first
        self._answered: OrderedDict[tuple[int, ReplyKey], tuple[float, str]] = OrderedDict()
        self._anonymous = itertools.count()
        #: replies not posted: replaced by a newer one, repeated, or beyond a backlog
        self.dropped = 0

    def send(self, chat_id: int, screen: Screen, thread: int | None = None) -> None:
        """Post ``screen`` in the background, after the chat's screens, in forum topic
        ``thread`` (None: the topic the request being handled came from, if any).

        Replies to the same request (:data:`REQUEST`: the same user, command and
        arguments) coalesce: an unsent one is replaced by the newest, one the same as
        what was posted for it less than :data:`REPEAT` seconds ago is not posted again,
        and beyond :data:`BACKLOG` unsent replies of one user in a chat their oldest is
        dropped.
        """
        key = self._key()
        if thread is None:
            thread = asking_topic(chat_id)
        if self._repeated(chat_id, key, screen):
            self.dropped += 1
            return
        lane = self._lanes.setdefault(chat_id, _Lane())
        if key in lane.waiting:
            self.dropped += 1  # the newest answer goes instead
        elif key[0]:  # (a message that answers no one is never dropped)
            theirs = [k for k in lane.waiting if k[0] == key[0]]
            if len(theirs) >= BACKLOG:
                log.info("reply %s to %s dropped: %d newer wait", theirs[0], chat_id, BACKLOG)
                del lane.waiting[theirs[0]]
                self.dropped += 1
        lane.waiting[key] = (screen, thread)
        if lane.worker is None or lane.worker.done():
            lane.worker = self._spawn(self._answer(chat_id, lane))

    def waiting(self, chat_id: int) -> int:
        """How many one-off replies to ``chat_id`` wait to be posted."""
        lane = self._lanes.get(chat_id)
        return 0 if lane is None else len(lane.waiting)

    async def send_now(self, chat_id: int, screen: Screen, thread: int | None = None) -> int:
        """Post ``screen`` once the chat's screens have gone (its turn at ``REPLY``
        priority) in forum topic ``thread`` (None: the asking one) and wait for it: its
        id. Raises ``Forbidden``."""
        if thread is None:
            thread = asking_topic(chat_id)
        await self._calls.limiter.wait_turn(chat_id, REPLY)
        return await self._calls.send(chat_id, screen, thread)

    def _key(self) -> ReplyKey:
        request = REQUEST.get()
        if request is None:  # not an answer to anyone: never coalesced
            return (0, "", next(self._anonymous))
        request.replies += 1
        return (request.user_id, request.kind, request.replies)

    def _repeated(self, chat_id: int, key: ReplyKey, screen: Screen) -> bool:
        """True if ``screen`` was posted (or taken to be) for ``key`` in the last
        :data:`REPEAT` seconds."""
        now = self._clock.now()
        while self._answered and next(iter(self._answered.values()))[0] < now - REPEAT:
            self._answered.popitem(last=False)
        last = self._answered.get((chat_id, key))
        return last is not None and last[1] == screen.text

    def _note(self, chat_id: int, key: ReplyKey, screen: Screen) -> None:
        self._answered[(chat_id, key)] = (self._clock.now(), screen.text)
        self._answered.move_to_end((chat_id, key))

    async def _answer(self, chat_id: int, lane: _Lane) -> None:
        """Post the chat's waiting replies, oldest first, each once the chat's screens
        have gone."""
        try:
            while lane.waiting:
                key = next(iter(lane.waiting))
                screen, thread = lane.waiting.pop(key)
                if self._repeated(chat_id, key, screen):
                    self.dropped += 1
                    continue
                self._note(chat_id, key, screen)
                try:
                    await self.send_now(chat_id, screen, thread)
                except Forbidden:
                    await self._closed(chat_id)
                    lane.waiting.clear()
                except TelegramError as error:
                    if topic_refusal(error) is not None:  # the table's own path tells of it
                        log.info("reply in topic %s/%s refused: %s", chat_id, thread, error)
                        continue
                    log.warning("sending to %s failed: %s", chat_id, error)
        finally:
            if self._lanes.get(chat_id) is lane and not lane.waiting:
                del self._lanes[chat_id]

"""Sending and editing the messages that show sessions: newest screen wins.

Every message that shows a session lives in a *slot* keyed by (session,
purpose). :meth:`Delivery.show` only records the newest screen for a slot; one
worker per slot waits for its turn in the bot's one rate limiter
(:class:`bot.limiter.FloodLimiter`) and only then takes the newest screen, so
a burst of changes (computer moves) becomes one edit, and an edit equal to what
the message already shows is skipped. Telegram facts handled here:

- "message is not modified" is success;
- "message to edit not found" (deleted) → post it again and remember the new id;
- 403 from a private chat → the user is marked unreachable (the table then
  shows a deep-link button); 403 from a group → the bot was removed;
- a request lost on the way (timeout, dropped connection) is made again for
  an edit, never for a send (it may have arrived, and would show twice); an
  ephemeral send that Telegram answered with a 5xx (not sent) is made again;
- a text Telegram cannot parse ("can't parse entities") is sent again as plain
  text, with one WARNING (:func:`_readable`).

One-off replies (a command's answer) wait in a per-chat lane behind the
chat's screens (the limiter's ``REPLY`` priority): a chat flooded with
commands still sees its table move. Replies to the same request of the same
user coalesce (:meth:`Delivery.send`).

What it needs from the rest of the bot — where the messages are, who cannot be
written to, a chat that is gone — comes through the small :class:`Ledger`
interface; it never calls the session layer itself.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from telegram import ForceReply, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError, TimedOut
from telegram.ext import ExtBot

from bot.limiter import LATER, NORMAL, REPLY, URGENT, FloodLimiter
from bot.render.common import MAX_CAPTION, MAX_TEXT, Screen
from bot.render.text import plain_text
from storage import MessageRef
from storage.outage import unavailable

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Idle slots kept in memory (least recently shown are forgotten first). A
#: forgotten slot is rebuilt on its next show from the stored message id.
MAX_SLOTS = 2048
#: Tries of an edit whose request was lost on the way, and the pause before the
#: n-th retry (n × this many seconds).
EDIT_TRIES = 3
RETRY_PAUSE = 0.5
#: A screen Telegram did not take is delivered again after 1, 2, 4 … seconds, at
#: most this many.
RETRY_FIRST = 1.0
RETRY_CAP = 30.0
#: Tries of one screen before it is left to the slot's next one (or a restart,
#: which draws every message that is behind).
RETRY_TRIES = 12
#: Seconds a screen that is not urgent for its viewer (a player's own hand right
#: after their move: they know what they played, and the table shows it) may wait
#: for a newer one, so at a brisk table it goes out together with their next
#: turn's buttons, as one edit: a move then costs the table and one hand.
DEFER = 10.0
#: With several workers: seconds between two looks at a message whose delivery
#: lease another worker holds (it is sending or editing it right now).
LEASE_POLL = 0.1

#: Unsent one-off replies kept per user in a chat; beyond, their oldest is dropped.
BACKLOG = 3
#: Seconds in which the same answer to the same request is not posted again.
REPEAT = 5.0

_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass
class Request:
    """Who asks what (the update being handled): a user id and the request's kind (a
    command with its arguments, a button's data). Its one-off replies are numbered, so
    the n-th reply to a repeated request replaces the unsent n-th of the one before."""

    user_id: int
    kind: str
    replies: int = 0


#: The request whose update is being handled (bot.handlers.common.note_request).
REQUEST: ContextVar[Request | None] = ContextVar("koloda_request", default=None)
#: (user, kind, n): which reply of which request; chats key their lanes by it.
ReplyKey = tuple[int, str, int]


@dataclass
class _Replies:
    """One chat's one-off replies waiting to be posted, oldest first."""

    waiting: dict[ReplyKey, Screen] = field(default_factory=dict)
    worker: asyncio.Task[None] | None = None


class Ledger(Protocol):
    """What delivery needs to know and report (implemented over the session layer)."""

    async def message_id(self, session_id: int, purpose: str, chat_id: int) -> int | None:
        """The stored id of the slot's message, if it has one."""
        ...

    async def posted(
        self,
        session_id: int,
        purpose: str,
        chat_id: int,
        message_id: int,
        version: int,
        *,
        receiver: int | None = None,
    ) -> None:
        """A message was (re)posted for the slot, showing ``version`` (``receiver``: an
        ephemeral message only that user sees; ``message_id`` is its ephemeral id)."""
        ...

    async def stored(self, session_id: int, purpose: str) -> MessageRef | None:
        """The slot's message as stored now (whichever worker sent it), if any."""
        ...

    async def forget(self, session_id: int, purpose: str) -> None:
        """The slot's message is gone: forget it."""
        ...

    async def shown(self, session_id: int, purpose: str, version: int) -> None:
        """The slot's message now shows ``version``."""
        ...

    async def stored_message(
        self, session_id: int, purpose: str, chat_id: int
    ) -> tuple[int, int, int] | None:
        """The slot's message as stored now — its id, the version it shows and the
        version it should show (another worker may have posted it, drawn a newer one,
        or committed a newer one) — or None if there is none."""
        ...

    async def lease(self, session_id: int, purpose: str, chat_id: int) -> MessageRef | None:
        """With several workers: this worker's lease on delivering the slot's message,
        and the message as stored now (a placeholder with no id if it is about to be
        posted); None while another worker holds the lease."""
        ...

    async def release(
        self,
        session_id: int,
        purpose: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give the lease back: the message now shows ``shown``, posted as ``posted``
        (chat id, message id) if it was just posted."""
        ...

    async def unreachable(self, user_id: int) -> None:
        """The user's private chat refused us (403)."""
        ...

    async def chat_gone(self, chat_id: int) -> None:
        """A group refused us (403): the bot is no longer in it."""
        ...


@dataclass
class _Slot:
    session_id: int
    purpose: str
    chat_id: int
    ephemeral_for: int | None = None  # the receiver of an ephemeral message
    message_id: int | None = None
    loaded: bool = False
    pending: Screen | None = None
    pending_version: int = -1
    delivered: tuple[Any, ...] | None = None
    worker: asyncio.Task[None] | None = None
    repost: bool = False
    posted: bool = False  # (several workers) just posted: the lease's release records it
    force: bool = False  # deliver even a screen equal to the one delivered last
    edit_only: bool = False
    final: bool = False  # the session is over: forget the slot once delivered
    wait: float = 0.0  # seconds the pending screen may wait for a newer one
    priority: int = NORMAL
    stored: bool = True  # its message id and version are kept in the Ledger
    hurry: asyncio.Event | None = None  # set to end a deferred screen's wait
    # an ephemeral message this worker has not seen: the stored one, if any, is edited
    lookup: bool = False
    # none is stored (one worker: nobody else can send one, so it stays so)
    absent: bool = False
    failures: int = 0  # deliveries Telegram failed to take in a row (the back-off)


class Delivery:
    """The only place that sends or edits messages that show sessions."""

    def __init__(
        self,
        bot: ExtBot[dict[str, Any]],
        limiter: FloodLimiter,
        ledger: Ledger,
        *,
        defer: float = DEFER,
        shared: bool = False,
    ) -> None:
        self.bot = bot
        self.limiter = limiter
        self.ledger = ledger
        #: the longest wait a deferred screen gets (0: every screen goes at once)
        self.defer = defer
        #: other workers deliver the same messages: check the stored shown version
        #: just before each edit, so an older screen never replaces a newer one
        self.shared = shared
        self._slots: dict[tuple[int, str], _Slot] = {}  # least recently shown first
        self._sends: set[asyncio.Task[Any]] = set()
        self._replies: dict[int, _Replies] = {}  # chat → its one-off replies waiting
        #: (chat, reply key) → when and what was last posted for it, oldest first
        self._answered: OrderedDict[tuple[int, ReplyKey], tuple[float, str]] = OrderedDict()
        self._anonymous = itertools.count()
        self._once: dict[tuple[Any, ...], asyncio.Task[None]] = {}
        #: replies not posted: replaced by a newer one, repeated, or beyond a backlog
        self.replies_dropped = 0

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
        deferred: bool = False,
        urgent: bool = False,
        force: bool = False,
    ) -> None:
        """Make the slot's message show ``screen`` (the newest ``version`` wins).

        ``edit_only`` updates the message if there is one but never posts it;
        ``final`` (the session is over) lets the slot go once delivered;
        ``deferred`` (not urgent for the viewer) lets the edit wait up to
        :data:`DEFER` seconds for a newer screen, which then goes instead, in
        one edit; ``urgent`` (the viewer's turn starts) goes first when the
        bot's budget is short; ``force`` edits even if the screen is the one
        delivered last (the message may not show it: a stale press came from it).
        """
        slot = self._slot(session_id, purpose, chat_id)
        slot.edit_only = edit_only and not repost
        slot.final = final
        if version < slot.pending_version:
            return
        slot.pending, slot.pending_version = screen, version
        slot.wait = self.defer if deferred and not final and not repost else 0.0
        slot.priority = URGENT if urgent else LATER if deferred or final else NORMAL
        slot.repost = slot.repost or repost
        slot.force = slot.force or force
        if slot.hurry is not None and not slot.wait:
            slot.hurry.set()
        self._wake(slot)

    def show_ephemeral(
        self,
        session_id: int,
        purpose: str,
        screen: Screen,
        version: int,
        *,
        final: bool = False,
        force: bool = False,
    ) -> None:
        """Keep an ephemeral message current (edited, never re-posted), if one is shown:
        sent here, or stored (sent by another worker, or before a restart)."""
        key = (session_id, purpose)
        slot = self._slots.get(key)
        if slot is not None and slot.absent:
            if not self.shared:  # none was stored, and only this worker sends them
                if final:
                    del self._slots[key]
                return
            del self._slots[key]  # another worker may have sent one since
            slot = None
        if slot is None:
            slot = self._slot(session_id, purpose, 0)
            slot.lookup = True
        elif slot.ephemeral_for is None and not slot.lookup:
            return  # none is shown, or the purpose's message is an ordinary one
        self.show(session_id, purpose, slot.chat_id, screen, version, final=final, force=force)

    async def find_ephemeral(self, session_id: int, purpose: str) -> bool:
        """True if an ephemeral message of ``purpose`` is shown — kept here, or stored by
        any worker (then it is kept current here from now on)."""
        if self.has_ephemeral(session_id, purpose):
            return True
        ref = await self.ledger.stored(session_id, purpose)
        if ref is None or ref.receiver is None or ref.chat_id is None or ref.message_id is None:
            return False
        slot = self._slot(session_id, purpose, ref.chat_id)
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
        slot = self._slot(session_id, purpose, chat_id)
        slot.ephemeral_for, slot.message_id, slot.loaded = user_id, ephemeral_message_id, True
        slot.delivered, slot.pending_version = shown.key(), version

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
    ) -> None:
        """Send ``screen`` as an ephemeral message only ``user_id`` sees in the group, and
        keep it current (:meth:`show_ephemeral`; it is stored, so any worker does). Raises
        the Bot API's error if Telegram refuses (the caller falls back to the private chat)."""
        ephemeral_id = await self.post_ephemeral(
            chat_id, user_id, screen, query_id, priority=priority
        )
        self.track_ephemeral(session_id, purpose, chat_id, user_id, ephemeral_id, screen, version)
        await self.ledger.posted(
            session_id, purpose, chat_id, ephemeral_id, version, receiver=user_id
        )

    async def post_ephemeral(
        self,
        chat_id: int,
        user_id: int,
        screen: Screen,
        query_id: str | None = None,
        *,
        priority: int = URGENT,
    ) -> int:
        """A one-off ephemeral message in group ``chat_id`` that only ``user_id`` sees
        (tied to their button press ``query_id``); its ``ephemeral_message_id``. Never
        from a handler: from work it :meth:`spawn` ed.

        Bot API 10.2 ``sendMessage`` with ``ephemeral_message_parameters``: PTB 22
        does not know the parameter, so it travels in ``api_kwargs``; the message
        comes back with ``message_id`` 0 and its own ``ephemeral_message_id`` (read
        from ``api_kwargs`` too), which later edits and deletes name.

        An error Telegram *answered* (a 5xx: it did not send) is tried again, up to
        :data:`EDIT_TRIES` times; a request lost on the way is not (it may have
        arrived), nor a refusal (``BadRequest``): those are raised.
        """
        ephemeral: dict[str, Any] = {"receiver_user_id": user_id}
        if query_id is not None:
            ephemeral["callback_query_id"] = query_id
        for attempt in range(1, EDIT_TRIES + 1):
            try:
                sent = await _readable(
                    self.bot.send_message,
                    chat_id,
                    text=screen.text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=screen.markup(),
                    link_preview_options=_NO_PREVIEW,
                    api_kwargs={"ephemeral_message_parameters": ephemeral},
                    rate_limit_args={"priority": priority},
                )
            except NetworkError as error:
                if not _answered(error) or attempt == EDIT_TRIES:
                    raise
                log.info("ephemeral message to %s refused (%s); again", user_id, error)
                await asyncio.sleep(RETRY_PAUSE * attempt)
                continue
            found = sent.api_kwargs.get("ephemeral_message_id")
            return int(found) if found is not None else sent.message_id
        raise AssertionError("unreachable")

    async def delete_ephemeral(self, session_id: int, purpose: str) -> None:
        """Remove an ephemeral message we keep (``deleteEphemeralMessage``), if there is
        one: sent here, or stored by any worker."""
        slot = self._slots.pop((session_id, purpose), None)
        if slot is not None:
            slot.pending = None
        ref = await self.ledger.stored(session_id, purpose)
        if ref is not None and ref.receiver is not None:
            await self.ledger.forget(session_id, purpose)
            target = ref.chat_id, ref.receiver, ref.message_id
        elif slot is not None and slot.ephemeral_for is not None:
            target = slot.chat_id, slot.ephemeral_for, slot.message_id
        else:
            return
        try:
            await self.bot.do_api_request(
                "deleteEphemeralMessage",
                api_kwargs={
                    "chat_id": target[0],
                    "receiver_user_id": target[1],
                    "ephemeral_message_id": target[2],
                },
            )
        except TelegramError as error:
            log.info("ephemeral %s/%s not deleted: %s", session_id, purpose, error)

    def has_ephemeral(self, session_id: int, purpose: str) -> bool:
        """True if that ephemeral hand is being kept current."""
        slot = self._slots.get((session_id, purpose))
        return slot is not None and slot.ephemeral_for is not None

    def delivered_version(self, session_id: int, purpose: str) -> int | None:
        """The newest version handed to the slot (None if it has none in memory)."""
        slot = self._slots.get((session_id, purpose))
        return None if slot is None else slot.pending_version

    @property
    def slots(self) -> int:
        """How many messages are being kept current (finished sessions let theirs go)."""
        return len(self._slots)

    def forget(self, session_id: int, purpose: str) -> None:
        """Drop a slot (its message is no longer ours to update)."""
        slot = self._slots.pop((session_id, purpose), None)
        if slot is not None and slot.worker is not None and not slot.worker.done():
            slot.pending = None

    def send(self, chat_id: int, screen: Screen) -> None:
        """Post a one-off message (a command's reply) in the background, after the chat's
        screens: whoever asked does not wait for the chat's flood limit, and a table never
        waits behind replies.

        Replies to the same request (:data:`REQUEST`: the same user, command and
        arguments) coalesce: an unsent one is replaced by the newest, one the same as
        what was posted for it less than :data:`REPEAT` seconds ago is not posted again,
        and beyond :data:`BACKLOG` unsent replies of one user in a chat their oldest is
        dropped.
        """
        key = self._reply_key()
        if self._repeated(chat_id, key, screen):
            self.replies_dropped += 1
            return
        replies = self._replies.setdefault(chat_id, _Replies())
        if key in replies.waiting:
            self.replies_dropped += 1  # the newest answer goes instead
        elif key[0]:  # (a message that answers no one is never dropped)
            theirs = [k for k in replies.waiting if k[0] == key[0]]
            if len(theirs) >= BACKLOG:
                log.info("reply %s to %s dropped: %d newer wait", theirs[0], chat_id, BACKLOG)
                del replies.waiting[theirs[0]]
                self.replies_dropped += 1
        replies.waiting[key] = screen
        if replies.worker is None or replies.worker.done():
            replies.worker = self.spawn(self._answer(chat_id, replies))

    def replies_waiting(self, chat_id: int) -> int:
        """How many one-off replies to ``chat_id`` wait to be posted."""
        replies = self._replies.get(chat_id)
        return 0 if replies is None else len(replies.waiting)

    async def send_now(self, chat_id: int, screen: Screen) -> int | None:
        """Post a one-off message (after the chat's screens) and wait for it: its id, or
        None if the chat is closed to us (403 handled). Never from a handler: from work
        it :meth:`spawn` ed."""
        try:
            return await self._send(chat_id, screen, REPLY)
        except Forbidden:
            await self._forbidden(chat_id)
            return None

    async def ask(self, chat_id: int, text: str, placeholder: str) -> int | None:
        """Post a question the user answers by replying (``ForceReply``: the client opens
        the reply field; ``selective`` — only for those the text mentions); its message
        id, or None if the chat is closed to us. Never from a handler: from work it
        :meth:`spawn` ed."""
        await self.limiter.wait_turn(chat_id, REPLY)
        try:
            message = await _readable(
                self.bot.send_message,
                chat_id,
                text=text,
                parse_mode=ParseMode.HTML,
                reply_markup=ForceReply(selective=True, input_field_placeholder=placeholder),
                rate_limit_args={"turn_taken": True},
            )
        except Forbidden:
            await self._forbidden(chat_id)
            return None
        return message.message_id

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a one-off message of ours (a question that was answered); a message
        already gone is fine."""
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError as error:
            log.info("message %s/%s not deleted: %s", chat_id, message_id, error)

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
            self.replies_dropped += 1
            return False
        task = self._once[key] = self.spawn(work)

        def forget(done: asyncio.Task[None]) -> None:
            if self._once.get(key) is done:
                del self._once[key]

        task.add_done_callback(forget)
        return True

    def send_document(self, chat_id: int, filename: str, content: bytes, caption: str) -> None:
        """Post a document (a match record) in the background; PTB's ``send_document``
        through the bot's rate limiter like every call."""
        self.spawn(self._send_document(chat_id, filename, content, caption))

    async def _send_document(
        self, chat_id: int, filename: str, content: bytes, caption: str
    ) -> None:
        try:
            await _readable(
                self.bot.send_document,
                chat_id, content, filename=filename, caption=caption, parse_mode=ParseMode.HTML,
            )
        except Forbidden:
            await self._forbidden(chat_id)
        except TelegramError as error:
            log.warning("sending a document to %s failed: %s", chat_id, error)

    async def flush(self) -> None:
        """Wait until every slot has delivered its newest screen (deferred ones at once)."""
        while True:
            workers = [s.worker for s in self._slots.values() if s.worker and not s.worker.done()]
            pending = [*workers, *self._sends]
            if not pending:
                return
            for slot in self._slots.values():
                if slot.hurry is not None:
                    slot.hurry.set()
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers."""
        tasks = [*(s.worker for s in self._slots.values() if s.worker), *self._sends]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

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
            if slot.lookup and not await self._stored_ephemeral(slot):
                return
            if not slot.loaded:
                slot.message_id = await self.ledger.message_id(
                    slot.session_id, slot.purpose, slot.chat_id
                )
                slot.loaded = True
            if slot.message_id is None and slot.edit_only:
                slot.pending = None
                return
            while slot.pending is not None:
                if slot.pending.key() == slot.delivered and not (slot.repost or slot.force):
                    slot.pending = None
                    await self._shown(slot, slot.pending_version)
                    continue
                if slot.wait and slot.delivered is not None:
                    await self._hold(slot)
                waiting = slot.pending_version
                if await self._newer_shown(slot, waiting):
                    # another worker has it in hand: spend none of the chat's budget on it
                    if slot.pending_version == waiting:  # nothing newer came meanwhile
                        slot.pending = None
                    continue
                await self.limiter.wait_turn(slot.chat_id, slot.priority)
                # the newest screen, taken only now that it may go
                screen, version, slot.pending = slot.pending, slot.pending_version, None
                if screen is None:
                    return
                try:
                    if not await self._deliver_taken(slot, screen, version):
                        return
                except Exception as error:
                    if not _retried(error) or slot.failures >= RETRY_TRIES:
                        slot.failures = 0
                        raise
                    await self._again(slot, screen, version, error)
                    continue
                slot.failures = 0
        except Exception as error:
            if _in_transit(error) or isinstance(error, TelegramError):
                # Telegram unreachable or refusing: the slot's next screen tries again
                log.warning("delivering %s/%s failed: %s", slot.session_id, slot.purpose, error)
            else:
                log.exception("delivering %s/%s failed", slot.session_id, slot.purpose)
        finally:
            key = (slot.session_id, slot.purpose)
            if slot.final and slot.pending is None and self._slots.get(key) is slot:
                del self._slots[key]
            self._forget_idle()

    async def _stored_ephemeral(self, slot: _Slot) -> bool:
        """Point a slot looked up by :meth:`show_ephemeral` at the stored ephemeral
        message; False (nothing to show) if none is stored."""
        slot.lookup = False
        ref = await self.ledger.stored(slot.session_id, slot.purpose)
        if ref is None or ref.receiver is None or ref.chat_id is None or ref.message_id is None:
            slot.pending, slot.absent = None, True
            key = (slot.session_id, slot.purpose)
            if self.shared and self._slots.get(key) is slot:
                del self._slots[key]
            return False
        slot.chat_id, slot.ephemeral_for = ref.chat_id, ref.receiver
        slot.message_id, slot.loaded = ref.message_id, True
        return True

    async def _deliver_taken(self, slot: _Slot, screen: Screen, version: int) -> bool:
        """Deliver the screen taken from the slot; False when the chat is closed to us."""
        if self._leased(slot):
            return await self._deliver_leased(slot, screen, version)
        if not await self._deliver(slot, screen, version):
            return False
        await self._shown(slot, version)
        return True

    async def _again(self, slot: _Slot, screen: Screen, version: int, error: Exception) -> None:
        """Telegram did not take ``screen``: deliver it (or a newer one) again after
        1, 2, 4 … seconds (at most :data:`RETRY_CAP`; sooner when delivery is flushed).
        An edit is always safe to make again; a send that got an answer (a 5xx) was
        not carried out; a send lost on the way may have arrived — then the message
        shown before it (if any) is edited instead of posting a second one, and only a
        screen with no message at all is posted again (a player must not be left
        without the buttons of her turn)."""
        slot.failures += 1
        delay = min(RETRY_FIRST * 2 ** (slot.failures - 1), RETRY_CAP)
        if slot.repost and isinstance(error, NetworkError) and not _answered(error):
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
            await asyncio.wait_for(hurry.wait(), delay)
        except TimeoutError:
            pass
        finally:
            slot.hurry = None

    async def _hold(self, slot: _Slot) -> None:
        """Wait ``slot.wait`` seconds, or less if a screen that may not wait arrives."""
        slot.hurry = hurry = asyncio.Event()
        timer = asyncio.get_running_loop().call_later(slot.wait, hurry.set)
        try:
            await hurry.wait()
        finally:
            timer.cancel()
            slot.hurry = None

    def _forget_idle(self) -> None:
        """Drop the least recently shown idle slots beyond :data:`MAX_SLOTS`."""
        excess = len(self._slots) - MAX_SLOTS
        if excess <= 0:
            return
        me = asyncio.current_task()
        for key in list(itertools.islice(self._slots, excess)):
            slot = self._slots[key]
            idle = slot.worker is None or slot.worker.done() or slot.worker is me
            if idle and slot.pending is None:  # stored: a forgotten one is looked up again
                del self._slots[key]

    def _leased(self, slot: _Slot) -> bool:
        """True if the slot's message is delivered under a lease shared with other workers."""
        return self.shared and slot.stored

    async def _newer_shown(self, slot: _Slot, version: int) -> bool:
        """With several workers, before waiting for the chat's turn: True if another
        worker already drew ``version`` or a newer one into the message, or committed a
        newer one that the message must show (that worker delivers it): this screen
        is then not sent, and costs none of the chat's budget."""
        if not self._leased(slot) or slot.repost:
            return False
        stored = await self.ledger.stored_message(slot.session_id, slot.purpose, slot.chat_id)
        return stored is not None and _superseded(slot, stored[1], stored[2], version)

    async def _deliver_leased(self, slot: _Slot, screen: Screen, version: int) -> bool:
        """With several workers (the turn in the limiter taken): deliver under the
        message's lease, so no other worker sends or edits it meanwhile — an older
        screen never lands over a newer one, a new message is posted once — and only
        if the message does not already show this version or a newer one. False when
        the chat is closed to us."""
        while (ref := await self.ledger.lease(slot.session_id, slot.purpose, slot.chat_id)) is None:
            await asyncio.sleep(LEASE_POLL)  # another worker is sending it right now
        if slot.pending is not None and slot.pending_version > version:
            # a newer screen came while we waited: it goes in this turn instead
            screen, version, slot.pending = slot.pending, slot.pending_version, None
        delivered = slot.posted = False
        try:
            if not slot.repost and _superseded(slot, ref.shown, ref.wanted, version):
                return True
            slot.message_id = ref.message_id if ref.chat_id == slot.chat_id else None
            if slot.ephemeral_for is not None:
                if slot.message_id is None or ref.receiver is None:
                    return True  # none is stored any more (closed, deleted): nothing to edit
                slot.ephemeral_for = ref.receiver
            if not await self._deliver(slot, screen, version):
                return False
            delivered = True
            return True
        finally:
            new_id = slot.message_id if slot.posted else None
            slot.posted = False
            await self.ledger.release(
                slot.session_id, slot.purpose,
                shown=version if delivered else None,
                posted=None if new_id is None else (slot.chat_id, new_id),
            )

    async def _shown(self, slot: _Slot, version: int) -> None:
        if slot.stored and slot.message_id is not None:
            await self.ledger.shown(slot.session_id, slot.purpose, version)

    # ------------------------------------------------------------ delivery

    async def _deliver(self, slot: _Slot, screen: Screen, version: int) -> bool:
        """Send or edit (its turn in the limiter taken); False when the chat is closed to us."""
        try:
            if slot.ephemeral_for is not None:
                await self._edit_ephemeral(slot, screen)
            elif slot.message_id is None or slot.repost:
                await self._post(slot, screen, version)
            else:
                await self._edit(slot, screen, version)
        except Forbidden:
            await self._forbidden(slot.chat_id)
            self._slots.pop((slot.session_id, slot.purpose), None)
            return False
        slot.delivered, slot.force = screen.key(), False
        return True

    async def _send(self, chat_id: int, screen: Screen, priority: int) -> int:
        """sendMessage showing ``screen`` (waiting for its turn); the new message's id."""
        await self.limiter.wait_turn(chat_id, priority)
        message = await _readable(
            self.bot.send_message,
            chat_id,
            text=screen.text,
            parse_mode=ParseMode.HTML,
            reply_markup=screen.markup(),
            link_preview_options=_NO_PREVIEW,
            rate_limit_args={"turn_taken": True},
        )
        return message.message_id

    # ------------------------------------------------------------ one-off replies

    def _reply_key(self) -> ReplyKey:
        request = REQUEST.get()
        if request is None:  # not an answer to anyone: never coalesced
            return (0, "", next(self._anonymous))
        request.replies += 1
        return (request.user_id, request.kind, request.replies)

    def _repeated(self, chat_id: int, key: ReplyKey, screen: Screen) -> bool:
        """True if ``screen`` was posted (or taken to be) for ``key`` in the last
        :data:`REPEAT` seconds."""
        now = time.monotonic()
        while self._answered and next(iter(self._answered.values()))[0] < now - REPEAT:
            self._answered.popitem(last=False)
        last = self._answered.get((chat_id, key))
        return last is not None and last[1] == screen.text

    def _note_answer(self, chat_id: int, key: ReplyKey, screen: Screen) -> None:
        self._answered[(chat_id, key)] = (time.monotonic(), screen.text)
        self._answered.move_to_end((chat_id, key))

    async def _answer(self, chat_id: int, replies: _Replies) -> None:
        """Post the chat's waiting replies, oldest first, each once the chat's screens
        have gone (its turn at ``REPLY`` priority)."""
        try:
            while replies.waiting:
                key = next(iter(replies.waiting))
                screen = replies.waiting.pop(key)
                if self._repeated(chat_id, key, screen):
                    self.replies_dropped += 1
                    continue
                self._note_answer(chat_id, key, screen)
                try:
                    await self._send(chat_id, screen, REPLY)
                except Forbidden:
                    await self._forbidden(chat_id)
                    replies.waiting.clear()
                except TelegramError as error:
                    log.warning("sending to %s failed: %s", chat_id, error)
        finally:
            if self._replies.get(chat_id) is replies and not replies.waiting:
                del self._replies[chat_id]

    async def _post(self, slot: _Slot, screen: Screen, version: int) -> None:
        message = await _readable(
            self.bot.send_message,
            slot.chat_id,
            text=screen.text,
            parse_mode=ParseMode.HTML,
            reply_markup=screen.markup(),
            link_preview_options=_NO_PREVIEW,
            rate_limit_args={"turn_taken": True},
        )
        slot.message_id, slot.repost = message.message_id, False
        if self._leased(slot):
            slot.posted = True  # the lease's release records it
            return
        await self.ledger.posted(
            slot.session_id, slot.purpose, slot.chat_id, message.message_id, version
        )

    async def _edit(self, slot: _Slot, screen: Screen, version: int) -> None:
        assert slot.message_id is not None
        message_id = slot.message_id
        for attempt in range(1, EDIT_TRIES + 1):
            try:
                await _readable(
                    self.bot.edit_message_text,
                    text=screen.text,
                    chat_id=slot.chat_id,
                    message_id=message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=screen.markup(),
                    link_preview_options=_NO_PREVIEW,
                    rate_limit_args={"turn_taken": attempt == 1},
                )
                return
            except BadRequest as error:
                if _not_modified(error):
                    return
                if _gone(error):
                    log.info("message %s/%s is gone; posting it again", slot.chat_id, message_id)
                    await self._post(slot, screen, version)
                    return
                raise
            except NetworkError as error:
                await _before_next_try(attempt, error, f"editing {slot.chat_id}/{message_id}")

    async def _edit_ephemeral(self, slot: _Slot, screen: Screen) -> None:
        """Bot API 10.2 ``editEphemeralMessageText``, which PTB 22 does not wrap."""
        params: dict[str, Any] = {
            "chat_id": slot.chat_id,
            "receiver_user_id": slot.ephemeral_for,
            "ephemeral_message_id": slot.message_id,
            "text": screen.text,
            "parse_mode": ParseMode.HTML.value,
        }
        markup = screen.markup()
        if markup is not None:
            params["reply_markup"] = markup.to_json()
        for attempt in range(1, EDIT_TRIES + 1):
            try:
                await _readable(
                    self.bot.do_api_request,
                    "editEphemeralMessageText",
                    api_kwargs=params,
                    rate_limit_args={"turn_taken": attempt == 1},
                )
                return
            except BadRequest as error:
                if not _not_modified(error):
                    # an ephemeral message can vanish (the client closed it): stop updating it
                    log.info("ephemeral hand %s/%s gone: %s", slot.session_id, slot.purpose,
                             error.message)
                    self._slots.pop((slot.session_id, slot.purpose), None)
                    await self.ledger.forget(slot.session_id, slot.purpose)
                return
            except NetworkError as error:
                await _before_next_try(attempt, error, f"editing ephemeral {slot.message_id}")

    async def _forbidden(self, chat_id: int) -> None:
        if chat_id > 0:
            await self.ledger.unreachable(chat_id)
        else:
            await self.ledger.chat_gone(chat_id)


def _superseded(slot: _Slot, shown: int, wanted: int, version: int) -> bool:
    """True if a message that shows ``shown`` and should show ``wanted`` needs nothing of
    ``version``: it shows that or newer, or a newer version was committed (whose worker
    delivers it)."""
    if shown < version and wanted <= version:
        return False
    log.debug("%s/%s shows %s and wants %s; %s not sent", slot.session_id, slot.purpose,
              shown, wanted, version)
    return True


def _in_transit(error: Exception) -> bool:
    """True for a request with no answer (timeout, dropped connection), not one Telegram
    answered with an error (``BadRequest`` and the like are ``NetworkError`` too in PTB)."""
    return type(error) in (NetworkError, TimedOut)


async def _before_next_try(attempt: int, error: NetworkError, what: str) -> None:
    """An edit failed: raise ``error`` unless it was lost on the way (no answer: an edit
    can safely be made again) with tries left; else pause before the next try."""
    if not _in_transit(error) or attempt == EDIT_TRIES:
        raise error
    log.info("%s failed in transit (%s); again", what, error)
    await asyncio.sleep(RETRY_PAUSE * attempt)


def _retried(error: Exception) -> bool:
    """True for a delivery Telegram failed to take (a 5xx, a timeout, a lost
    connection) or the store failed to record: it is made again later."""
    return _in_transit(error) or (not isinstance(error, TelegramError) and unavailable(error))


def _log_failure(task: asyncio.Task[Any]) -> None:
    """A background delivery that failed with a bug: its traceback in the log."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("a background delivery failed", exc_info=error)


def _answered(error: NetworkError) -> bool:
    """True for an error Telegram answered (a 5xx), so the request was not carried out;
    PTB raises a request lost on the way from the transport's exception (or TimedOut)."""
    cause = error.__cause__
    return type(error) is NetworkError and (cause is None or isinstance(cause, TelegramError))


async def _readable(call: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``: a send or edit of an HTML ``text`` or ``caption`` (or
    of ``api_kwargs``' text). If Telegram cannot parse it ("can't parse entities": a
    screen drawn wrongly), the same once more as plain text with no parse mode, and
    one WARNING — the player still gets the screen and its buttons."""
    try:
        return await call(*args, **kwargs)
    except BadRequest as error:
        if "can't parse entities" not in error.message.lower():
            raise
        refusal = error.message
    api_kwargs = dict(kwargs.pop("api_kwargs", None) or {})
    fields = (kwargs, "caption", MAX_CAPTION) if "caption" in kwargs else (kwargs, "text", MAX_TEXT)
    if "text" in api_kwargs:
        fields = (api_kwargs, "text", MAX_TEXT)
    where, key, limit = fields
    log.warning("Telegram could not parse a text (%s); sent as plain text: %.60r",
                refusal, where[key])
    where[key] = plain_text(str(where[key]), limit)
    for params in (kwargs, api_kwargs):
        params.pop("parse_mode", None)
    if api_kwargs:
        kwargs["api_kwargs"] = api_kwargs
    return await call(*args, **kwargs)


def _not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def _gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


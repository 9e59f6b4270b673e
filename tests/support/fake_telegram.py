"""A local fake Telegram Bot API server for tests and benchmarks.

It speaks the Bot API over HTTP on 127.0.0.1 (random port), so the bot under
test runs its real python-telegram-bot HTTP stack against it::

    fake = FakeTelegram()
    await fake.start()                 # fake.api_url → "http://127.0.0.1:PORT/bot"
    alice = fake.user("Alice")
    group = fake.group("Friends")
    fake.push_command(alice, group, "/new king")
    call = await fake.wait_for(lambda c: c.method == "sendMessage")
    fake.push_callback(alice, group, call.result["message_id"], "join:1")
    await fake.stop()

It records every call (``calls``), keeps the current text and buttons of every
message (``messages``; ephemeral ones in ``ephemerals``), assigns message ids,
answers like Telegram does ("message is not modified", "message to edit not
found", 403 for users who never started the bot, "can't parse entities" for
malformed HTML, "message is too long" past 4096 characters after entity
parsing: :func:`parse_html`), can inject errors
(:meth:`fail_next`) and can enforce flood limits on a compressed clock (``flood=FloodLimits(...)``).

Ephemeral messages follow Bot API 10.2: ``sendMessage`` with
``ephemeral_message_parameters`` returns a Message whose ``message_id`` is 0,
with the message's own ``ephemeral_message_id`` and its ``receiver_user``;
``editEphemeralMessageText``, ``editEphemeralMessageReplyMarkup`` and
``deleteEphemeralMessage`` name it by ``chat_id``, ``receiver_user_id`` and
``ephemeral_message_id``; the ordinary edit methods do not find it.

Webhook mode, as Telegram does it: once the bot has called ``setWebhook``
(``getUpdates`` is then refused with 409), :meth:`push_webhooks` POSTs each
update to the given worker URLs in turn (a load balancer's round robin), with
the ``secret_token`` the bot set in the ``X-Telegram-Bot-Api-Secret-Token``
header; an update counts as delivered only on a 200, otherwise (an error, a
refused or dropped connection: a killed worker) it is sent again, to the next
worker. ``webhook_posts`` records every attempt.

Forum supergroups follow the Bot API reference: :meth:`FakeTelegram.forum` makes
one (``is_forum`` on its ``Chat``); :meth:`~FakeTelegram.create_topic` (or the
bot's ``createForumTopic``) opens a topic whose id is the ``message_id`` of its
``forum_topic_created`` service message; a message in a topic carries
``message_thread_id`` and ``is_topic_message``, one in the General topic (id 1)
neither. A send with ``message_thread_id`` 1, of a deleted topic, or in a group
without topics is refused "message thread not found"; a send or edit in a closed
topic ``TOPIC_CLOSED``. :meth:`~FakeTelegram.close_topic` and
:meth:`~FakeTelegram.reopen_topic` push the ``forum_topic_closed`` /
``forum_topic_reopened`` service messages; :meth:`~FakeTelegram.delete_topic`
deletes the topic and its messages with no update at all (as Telegram does);
:meth:`~FakeTelegram.set_forum` turns topics on or off.

For long runs (bench/load.py, bench/soak.py): ``listeners`` are called with
every answered call, ``keep_calls = False`` stops recording ``calls``, and
:meth:`seed_message` plants a message as if the bot had sent it earlier.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import math
import os
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

TOKEN = "123456:TEST-fake-token-for-koloda-tests"
#: The "error code" of :meth:`FakeTelegram.drop_next`: no answer at all.
DROP = 0
#: The methods Telegram's flood limits count (sends and edits of messages).
MESSAGE_METHODS = frozenset(
    {
        "sendMessage",
        "editMessageText",
        "editMessageReplyMarkup",
        "sendDocument",
        "editEphemeralMessageText",
        "editEphemeralMessageReplyMarkup",
    }
)
#: The same after carrying the call out (``drop_next(applied=True)``).
LOST_REPLY = -1
#: Telegram's limits on a message's text and a document's caption, in UTF-16 code
#: units after entity parsing (what a client counts as characters).
MAX_TEXT = 4096
MAX_CAPTION = 1024
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)


@dataclass(frozen=True)
class FakeUser:
    """A Telegram user; ``id`` doubles as their private chat id."""

    id: int
    first_name: str
    language_code: str = "en"

    def as_dict(self) -> dict[str, Any]:
        """The Bot API ``User`` object."""
        return {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }


@dataclass(frozen=True)
class FakeChat:
    """A chat: a group (negative id) or a user's private chat."""

    id: int
    title: str | None = None
    channel: bool = False
    #: a forum supergroup (topics on)
    forum: bool = False

    @property
    def private(self) -> bool:
        """True for a private chat."""
        return self.id > 0

    def as_dict(self) -> dict[str, Any]:
        """The Bot API ``Chat`` object."""
        if self.private:
            return {"id": self.id, "type": "private", "first_name": self.title or "user"}
        kind = "channel" if self.channel else "supergroup"
        chat: dict[str, Any] = {"id": self.id, "type": kind, "title": self.title or "group"}
        if self.forum:
            chat["is_forum"] = True
        return chat


#: The General topic's ``message_thread_id`` (a send may not name it).
GENERAL_TOPIC = 1
THREAD_NOT_FOUND = "Bad Request: message thread not found"
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"


@dataclass
class FakeTopic:
    """A forum topic: its id is the message id of its ``forum_topic_created`` message."""

    chat_id: int
    thread: int
    name: str
    closed: bool = False
    deleted: bool = False


#: The placeholder ``from`` of a message sent on behalf of a chat (Bot API, Message:
#: "the field from contains a fake sender user in non-channel chats"): an anonymous
#: group admin's (the group is the sender_chat), or a channel's.
ANONYMOUS_ADMIN = {"id": 1087968824, "is_bot": True, "first_name": "Group",
                   "username": "GroupAnonymousBot"}
CHANNEL_SENDER = {"id": 136817688, "is_bot": True, "first_name": "Channel",
                  "username": "Channel_Bot"}


@dataclass
class Call:
    """One recorded Bot API request and what the fake answered."""

    method: str
    params: dict[str, Any]
    at: float
    ok: bool = True
    result: Any = None
    error: str | None = None

    @property
    def chat_id(self) -> int | None:
        """The ``chat_id`` parameter as an int, if any."""
        value = self.params.get("chat_id")
        return int(value) if value is not None else None


@dataclass(frozen=True)
class FloodLimits:
    """Telegram-like flood limits on a compressed clock (``scale`` × faster).

    A private chat gets ``private_per_second`` on average, with bursts of up to
    ``private_burst`` (Telegram tolerates short bursts): at most ``private_burst``
    sends in any ``private_burst / private_per_second`` seconds.
    """

    group_per_minute: int = 20
    private_per_second: float = 1.0
    private_burst: int = 1
    scale: float = 1.0
    #: messages a second for the whole bot (None: no overall limit)
    overall_per_second: int | None = None


@dataclass
class Injected:
    """An error to answer instead of the real result."""

    method: str
    code: int
    description: str
    retry_after: int | None = None
    when: Callable[[dict[str, Any]], bool] | None = None
    times: int = 1


@dataclass
class StoredMessage:
    """The current state of a message the bot sent."""

    chat_id: int
    message_id: int
    text: str
    reply_markup: dict[str, Any] | None
    edits: int = 0
    ephemeral_for: int | None = None  # the receiver of an ephemeral message
    deleted: bool = False
    ephemeral_message_id: int | None = None
    #: the forum topic it is in (None: General, or a group without topics)
    thread: int | None = None

    def buttons(self) -> list[dict[str, Any]]:
        """Every inline button, flattened, in order."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [button for row in rows for button in row]

    def as_dict(
        self, bot: dict[str, Any], chat: dict[str, Any], receiver: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The Bot API ``Message`` object (``receiver``: an ephemeral one's ``User``)."""
        message: dict[str, Any] = {
            "message_id": self.message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": bot,
            "text": self.text,
        }
        if self.thread is not None:
            message["message_thread_id"] = self.thread
            message["is_topic_message"] = True
        if self.ephemeral_for is not None:  # Bot API 10.2: message_id is 0
            message["ephemeral_message_id"] = self.ephemeral_message_id
            message["receiver_user"] = receiver or {
                "id": self.ephemeral_for,
                "is_bot": False,
                "first_name": f"user{self.ephemeral_for}",
            }
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            # a Message carries only an inline keyboard (not a ForceReply)
            message["reply_markup"] = self.reply_markup
        return message


@dataclass
class SentDocument:
    """A file the bot sent with sendDocument."""

    chat_id: int
    message_id: int
    filename: str
    content: bytes
    caption: str


_JSON_FIELDS = (
    "reply_markup",
    "ephemeral_message_parameters",
    "commands",
    "scope",
    "allowed_updates",
    "link_preview_options",
    "reply_parameters",
)
_ID_FIELDS = (
    "chat_id",
    "message_id",
    "user_id",
    "receiver_user_id",
    "ephemeral_message_id",
    "offset",
    "limit",
    "timeout",
    "cache_time",
    "message_thread_id",
)


class FakeTelegram:
    """The fake Bot API server. See the module docstring for a tour."""

    def __init__(
        self,
        token: str = TOKEN,
        username: str = "koloda_test_bot",
        flood: FloodLimits | None = None,
        ephemeral: bool = True,
    ) -> None:
        self.token = token
        self.username = username
        self.flood = flood
        self.ephemeral = ephemeral
        self.bot_user = {
            "id": int(token.split(":")[0]),
            "is_bot": True,
            "first_name": "Koloda",
            "username": username,
        }
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], StoredMessage] = {}
        #: ephemeral messages by (chat id, ephemeral_message_id)
        self.ephemerals: dict[tuple[int, int], StoredMessage] = {}
        #: documents sent (sendDocument), oldest first
        self.documents: list[SentDocument] = []
        self.started: set[int] = set()  # users who opened a private chat with the bot
        self.admins: dict[int, set[int]] = defaultdict(set)
        self.chats: dict[int, FakeChat] = {}
        #: forum topics by (chat id, message_thread_id)
        self.topics: dict[tuple[int, int], FakeTopic] = {}
        self.users: dict[int, FakeUser] = {}
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._handed_out = 0  # the highest update_id the bot has fetched
        #: the highest update_id the bot has confirmed (asked for updates past it)
        self.confirmed = 0
        #: methods whose answers wait until their event is set (a slow or stuck Telegram)
        self.gates: dict[str, asyncio.Event] = {}
        self._message_ids: dict[int, itertools.count[int]] = defaultdict(lambda: itertools.count(1))
        self._ephemeral_ids: dict[int, itertools.count[int]] = defaultdict(
            lambda: itertools.count(1)
        )
        self._user_ids = itertools.count(1001)
        self._group_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        self._answered: set[str] = set()
        self._queries: dict[str, dict[str, Any]] = {}
        self._injected: list[Injected] = []
        self._sends: dict[int, deque[float]] = defaultdict(deque)
        self._overall_sends: deque[float] = deque()
        #: keep every call in :attr:`calls` (a long benchmark turns it off to stay flat)
        self.keep_calls = True
        #: called with every answered call (after ``messages`` is updated)
        self.listeners: list[Callable[[Call], None]] = []
        self._changed = asyncio.Condition()
        #: the parameters of the bot's last setWebhook (None: no webhook is set)
        self.webhook: dict[str, Any] | None = None
        #: every POST of an update: (update_id, target URL, HTTP status; 0: no answer)
        self.webhook_posts: list[tuple[int, str, int]] = []
        self._pushers: list[asyncio.Task[None]] = []
        self._in_flight: set[int] = set()
        self._runner: web.AppRunner | None = None
        #: set by :meth:`stop`: a pending long poll is answered at once
        self._stopping = False
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> str:
        """Listen on 127.0.0.1 at a random port; returns :attr:`api_url`."""
        self._stopping = False
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        self.port = server.sockets[0].getsockname()[1]
        return self.api_url

    async def stop(self) -> None:
        """Stop listening (pending long polls are answered empty) and pushing webhooks."""
        for task in self._pushers:
            task.cancel()
        await asyncio.gather(*self._pushers, return_exceptions=True)
        self._pushers = []
        self._stopping = True
        await self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def api_url(self) -> str:
        """The Bot API prefix to give the bot (``TELEGRAM_API_URL``)."""
        return f"http://127.0.0.1:{self.port}/bot"

    def bot_environment(self, database: Path, **extra: str) -> dict[str, str]:
        """The environment for ``python -m bot`` against this server and ``database``."""
        return {
            **os.environ,
            "TELEGRAM_BOT_TOKEN": self.token,
            "TELEGRAM_API_URL": self.api_url,
            "DATABASE_URL": f"sqlite:///{database}",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "LOG_LEVEL": "WARNING",
            **extra,
        }

    # ------------------------------------------------------------------ the world

    def user(self, first_name: str, language_code: str = "en") -> FakeUser:
        """A new user (not yet started the bot)."""
        user = FakeUser(next(self._user_ids), first_name, language_code)
        self.users[user.id] = user
        return user

    def group(self, title: str = "group", admins: tuple[FakeUser, ...] = ()) -> FakeChat:
        """A new group chat the bot is a member of."""
        chat = FakeChat(-1000000000000 - next(self._group_ids), title)
        self.chats[chat.id] = chat
        self.admins[chat.id] = {u.id for u in admins}
        return chat

    def forum(self, title: str = "forum", admins: tuple[FakeUser, ...] = ()) -> FakeChat:
        """A new forum supergroup (topics on) the bot is a member of; its General topic
        exists from the start."""
        chat = FakeChat(-1000000000000 - next(self._group_ids), title, forum=True)
        self.chats[chat.id] = chat
        self.admins[chat.id] = {u.id for u in admins}
        next(self._message_ids[chat.id])  # message 1 opens the General topic
        return chat

    def create_topic(self, chat: FakeChat, name: str, by: FakeUser | None = None) -> int:
        """A member opens topic ``name`` (pushed as its ``forum_topic_created`` service
        message); its ``message_thread_id``."""
        topic = self._new_topic(chat.id, name)
        if by is not None:
            self._push_service(by, chat, topic.thread, {"forum_topic_created": {
                "name": name, "icon_color": 7322096}})
        return topic.thread

    def close_topic(self, chat: FakeChat, thread: int, by: FakeUser) -> None:
        """An admin closes the topic (``forum_topic_closed`` is pushed)."""
        self.topics[(chat.id, thread)].closed = True
        self._push_service(by, chat, thread, {"forum_topic_closed": {}})

    def reopen_topic(self, chat: FakeChat, thread: int, by: FakeUser) -> None:
        """An admin reopens the topic (``forum_topic_reopened`` is pushed)."""
        self.topics[(chat.id, thread)].closed = False
        self._push_service(by, chat, thread, {"forum_topic_reopened": {}})

    def delete_topic(self, chat: FakeChat, thread: int) -> None:
        """An admin deletes the topic with all its messages; bots get no update of it."""
        self._delete_topic(chat.id, thread)

    def set_forum(self, chat: FakeChat, on: bool) -> FakeChat:
        """Turn the group's topics on or off; the chat as it is now (use it from here)."""
        changed = FakeChat(chat.id, chat.title, chat.channel, forum=on)
        self.chats[chat.id] = changed
        return changed

    def _new_topic(self, chat_id: int, name: str) -> FakeTopic:
        chat = self.chats.get(chat_id)
        if chat is None or not chat.forum:
            raise _ApiError(400, "Bad Request: the chat is not a forum")
        thread = next(self._message_ids[chat_id])  # the service message's id
        topic = FakeTopic(chat_id, thread, name)
        self.topics[(chat_id, thread)] = topic
        return topic

    def _delete_topic(self, chat_id: int, thread: int) -> None:
        topic = self.topics.get((chat_id, thread))
        if topic is None or topic.deleted:
            raise _ApiError(400, THREAD_NOT_FOUND)
        topic.deleted = True
        for stored in [*self.messages.values(), *self.ephemerals.values()]:
            if stored.chat_id == chat_id and stored.thread == thread:
                stored.deleted = True

    def _push_service(
        self, user: FakeUser, chat: FakeChat, thread: int, service: dict[str, Any]
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": thread if "forum_topic_created" in service
            else next(self._message_ids[chat.id]),
            "date": int(time.time()),
            "chat": self.chats[chat.id].as_dict(),
            "from": user.as_dict(),
            "message_thread_id": thread,
            "is_topic_message": True,
            **service,
        }
        return self._push({"message": message})

    def _thread_of(self, chat_id: int, params: dict[str, Any]) -> int | None:
        """Where a send with these parameters goes: its topic (None: General, or a group
        without topics), or Telegram's refusal."""
        value = params.get("message_thread_id")
        if value is None:
            return None
        thread = int(value)
        chat = self.chats.get(chat_id)
        topic = self.topics.get((chat_id, thread))
        if (
            chat is None or not chat.forum or thread == GENERAL_TOPIC
            or topic is None or topic.deleted
        ):
            raise _ApiError(400, THREAD_NOT_FOUND)
        if topic.closed:
            raise _ApiError(400, TOPIC_CLOSED)
        return thread

    def _check_topic_open(self, stored: StoredMessage) -> None:
        """An edit in a closed topic is refused (the bot is no admin that may post there)."""
        if stored.thread is None:
            return
        topic = self.topics.get((stored.chat_id, stored.thread))
        if topic is not None and topic.closed and not topic.deleted:
            raise _ApiError(400, TOPIC_CLOSED)

    def channel(self, title: str = "channel") -> FakeChat:
        """A channel a member of a group may post as ("send as" the channel)."""
        return FakeChat(-1000000000000 - next(self._group_ids), title, channel=True)

    def seed_message(
        self, chat_id: int, text: str, reply_markup: dict[str, Any] | None = None
    ) -> StoredMessage:
        """A message the bot sent earlier (e.g. before a restart), without a call."""
        stored = StoredMessage(chat_id, next(self._message_ids[chat_id]), text, reply_markup)
        self.messages[(chat_id, stored.message_id)] = stored
        return stored

    def private(self, user: FakeUser) -> FakeChat:
        """The user's private chat with the bot."""
        chat = FakeChat(user.id, user.first_name)
        self.chats[chat.id] = chat
        return chat

    # ------------------------------------------------------------------ updates

    def _push(self, update: dict[str, Any]) -> dict[str, Any]:
        update["update_id"] = next(self._update_ids)
        self._updates.append(update)
        asyncio.get_running_loop().create_task(self._notify())
        return update

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def push_message(
        self,
        user: FakeUser,
        chat: FakeChat,
        text: str,
        reply_to: StoredMessage | None = None,
        sender_chat: FakeChat | None = None,
        thread: int | None = None,
    ) -> dict[str, Any]:
        """A text message (a command if it starts with ``/``) from ``user`` in ``chat``,
        replying to the bot's message ``reply_to`` if given. With ``sender_chat``, it is
        sent on behalf of that chat — ``chat`` itself for an anonymous admin, or a
        channel — and, as Telegram does, ``from`` is a placeholder, not ``user``. In a
        forum, ``thread`` is the topic it is written in (None: General); a reply in
        General carries the replied-to message's id as its thread, with no
        ``is_topic_message`` (Bot API: the General topic is no topic)."""
        if chat.private:
            self.started.add(user.id)
        self.chats.setdefault(chat.id, chat)
        chat = self.chats[chat.id]
        message: dict[str, Any] = {
            "message_id": next(self._message_ids[chat.id]),
            "date": int(time.time()),
            "chat": chat.as_dict(),
            "from": user.as_dict(),
            "text": text,
        }
        if thread is not None:
            topic = self.topics.get((chat.id, thread))
            assert chat.forum and topic is not None and not topic.deleted, "no such topic"
            message["message_thread_id"] = thread
            message["is_topic_message"] = True
        elif reply_to is not None and chat.forum:
            message["message_thread_id"] = reply_to.message_id
        if sender_chat is not None:
            message["sender_chat"] = sender_chat.as_dict()
            message["from"] = dict(CHANNEL_SENDER if sender_chat.channel else ANONYMOUS_ADMIN)
        if reply_to is not None:
            message["reply_to_message"] = reply_to.as_dict(self.bot_user, chat.as_dict())
        if text.startswith("/"):
            command = text.split()[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return self._push({"message": message})

    def push_command(
        self, user: FakeUser, chat: FakeChat, text: str, thread: int | None = None
    ) -> dict[str, Any]:
        """Alias of :meth:`push_message` that reads better for commands."""
        return self.push_message(user, chat, text, thread=thread)

    def push_callback(
        self, user: FakeUser, chat: FakeChat, message_id: int | None, data: str
    ) -> str:
        """A button press; returns the callback query id (for :meth:`answer_of`)."""
        query_id = str(next(self._query_ids))
        query: dict[str, Any] = {
            "id": query_id,
            "from": user.as_dict(),
            "chat_instance": str(chat.id),
            "data": data,
        }
        stored = self.messages.get((chat.id, message_id)) if message_id else None
        if stored is not None and stored.ephemeral_for is None:
            query["message"] = stored.as_dict(self.bot_user, self._chat(chat.id).as_dict())
        self._queries[query_id] = query
        self._push({"callback_query": query})
        return query_id

    def push_again(self, query_id: str) -> None:
        """Deliver a press once more, as Telegram does with an update the bot never
        confirmed (it crashed while handling it)."""
        self._push({"callback_query": copy.deepcopy(self._queries[query_id])})

    def push_press(self, user: FakeUser, message: StoredMessage, label_or_data: str) -> str:
        """Press the button whose label or data is ``label_or_data`` on ``message``."""
        for button in message.buttons():
            if label_or_data in (button.get("text"), button.get("callback_data")):
                data = button.get("callback_data")
                assert data is not None, f"{label_or_data!r} is a URL button"
                chat = self.chats[message.chat_id]
                return self.push_callback(user, chat, message.message_id, data)
        raise AssertionError(f"no button {label_or_data!r} in {message.buttons()}")

    def push_removed(self, chat: FakeChat, by: FakeUser) -> dict[str, Any]:
        """The bot was removed from ``chat`` (a ``my_chat_member`` update)."""
        member = {"status": "member", "user": self.bot_user}
        kicked = {"status": "kicked", "user": self.bot_user, "until_date": 0}
        return self._push(
            {
                "my_chat_member": {
                    "chat": chat.as_dict(),
                    "from": by.as_dict(),
                    "date": int(time.time()),
                    "old_chat_member": member,
                    "new_chat_member": kicked,
                }
            }
        )

    # ------------------------------------------------------------------ webhooks

    def push_webhooks(self, targets: list[str], connections: int = 2) -> None:
        """POST every update (now and later) to ``targets`` in turn, ``connections`` at
        a time, until each is answered 200 (see the module docstring)."""
        from aiohttp import ClientSession, ClientTimeout

        turn = itertools.count()

        async def pusher(client: ClientSession) -> None:
            while True:
                update = await self._next_for_webhook()
                target = targets[next(turn) % len(targets)]
                status = await self._post_update(client, target, update)
                self._in_flight.discard(update["update_id"])
                if status == 200:
                    self._updates.remove(update)
                    self.confirmed = max(self.confirmed, update["update_id"])
                else:
                    await asyncio.sleep(0.1)  # Telegram waits before trying again
                await self._notify()

        async def push() -> None:
            async with ClientSession(timeout=ClientTimeout(total=60)) as client:
                await asyncio.gather(*(pusher(client) for _ in range(connections)))

        self._pushers.append(asyncio.get_running_loop().create_task(push()))

    async def _next_for_webhook(self) -> dict[str, Any]:
        async with self._changed:
            while True:
                if self.webhook is not None:
                    for update in self._updates:
                        if update["update_id"] not in self._in_flight:
                            self._in_flight.add(update["update_id"])
                            self._handed_out = max(self._handed_out, update["update_id"])
                            return update
                await self._changed.wait()

    async def _post_update(self, client: Any, target: str, update: dict[str, Any]) -> int:
        from aiohttp import ClientError

        assert self.webhook is not None
        headers = {}
        if self.webhook.get("secret_token"):
            headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
        try:
            async with client.post(target, json=update, headers=headers) as answer:
                status = int(answer.status)
        except (TimeoutError, ClientError, OSError):
            status = 0
        self.webhook_posts.append((update["update_id"], target, status))
        return status

    # ------------------------------------------------------------------ errors

    def fail_next(
        self,
        method: str,
        code: int,
        description: str,
        *,
        retry_after: int | None = None,
        when: Callable[[dict[str, Any]], bool] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (matching ``when``) with an error."""
        self._injected.append(Injected(method, code, description, retry_after, when, times))

    def drop_next(
        self,
        method: str,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        times: int = 1,
        applied: bool = False,
    ) -> None:
        """Hang up on the next ``times`` calls of ``method`` (matching ``when``) without
        answering or applying them, as a dropped connection looks to the bot; with
        ``applied`` after carrying them out (the answer is what got lost)."""
        if applied:
            self.fail_next(method, LOST_REPLY, "answer lost", when=when, times=times)
        else:
            self.fail_next(method, DROP, "connection dropped", when=when, times=times)

    def pending_faults(self, method: str) -> int:
        """How many calls of ``method`` are still to fail (:meth:`fail_next`, :meth:`drop_next`)."""
        return sum(i.times for i in self._injected if i.method == method)

    def _injected_error(self, method: str, params: dict[str, Any]) -> Injected | None:
        for injected in self._injected:
            if injected.method == method and (injected.when is None or injected.when(params)):
                injected.times -= 1
                if injected.times <= 0:
                    self._injected.remove(injected)
                return injected
        return None

    def _flooded(self, chat_id: int) -> int | None:
        """Seconds to wait if this send would break the flood limits, else None."""
        if self.flood is None:
            return None
        now = time.monotonic() * self.flood.scale
        if chat_id < 0:
            window, allowed = 60.0, self.flood.group_per_minute
        else:
            allowed = max(1, self.flood.private_burst)
            window = allowed / self.flood.private_per_second
        sends = self._sends[chat_id]
        while sends and sends[0] <= now - window:
            sends.popleft()
        if len(sends) >= allowed:
            return max(1, math.ceil((sends[0] + window - now) / self.flood.scale))
        overall = self._overall_sends
        if self.flood.overall_per_second is not None:
            while overall and overall[0] <= now - 1.0:
                overall.popleft()
            if len(overall) >= self.flood.overall_per_second:
                return 1
            overall.append(now)
        sends.append(now)
        return None

    # ------------------------------------------------------------------ queries

    async def wait_for(
        self, predicate: Callable[[Call], bool], timeout: float = 10.0, after: int = 0
    ) -> Call:
        """The first call (from index ``after``) matching ``predicate``, waiting for it."""
        deadline = time.monotonic() + timeout
        async with self._changed:
            while True:
                for call in self.calls[after:]:
                    if predicate(call):
                        return call
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no matching call within {timeout} s")
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except TimeoutError:
                    continue

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until ``condition()`` holds (checked after every call)."""
        deadline = time.monotonic() + timeout
        async with self._changed:
            while not condition():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"condition not met within {timeout} s")
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except TimeoutError:
                    continue

    def undelivered(self) -> int:
        """Updates pushed but not yet fetched by the bot."""
        return sum(1 for u in self._updates if u["update_id"] > self._handed_out)

    def unconfirmed(self) -> int:
        """Updates the bot has fetched but not yet confirmed (its next getUpdates, or a
        webhook's 200, does): on their way to the bot, being handled, or just handled."""
        return sum(
            1 for u in self._updates if self.confirmed < u["update_id"] <= self._handed_out
        )

    def calls_of(self, method: str, chat_id: int | None = None) -> list[Call]:
        """Recorded calls of ``method`` (in ``chat_id`` if given)."""
        return [
            c
            for c in self.calls
            if c.method == method and (chat_id is None or c.chat_id == chat_id)
        ]

    def answer_of(self, query_id: str) -> Call | None:
        """The ``answerCallbackQuery`` call for a press, if it came."""
        for call in self.calls_of("answerCallbackQuery"):
            if str(call.params.get("callback_query_id")) == query_id:
                return call
        return None

    async def answer(self, query_id: str, timeout: float = 10.0) -> Call:
        """Wait for the answer to a press."""
        return await self.wait_for(
            lambda c: (
                c.method == "answerCallbackQuery"
                and str(c.params.get("callback_query_id")) == query_id
            ),
            timeout,
        )

    def chat_messages(self, chat_id: int, ephemeral: bool = False) -> list[StoredMessage]:
        """The chat's live messages (or its ephemeral ones), oldest first."""
        stored = self.ephemerals if ephemeral else self.messages
        return [m for (cid, _), m in sorted(stored.items()) if cid == chat_id and not m.deleted]

    def last_message(self, chat_id: int, containing: str = "") -> StoredMessage | None:
        """The newest live message in the chat whose text contains ``containing``."""
        found = [m for m in self.chat_messages(chat_id) if containing in m.text]
        return found[-1] if found else None

    # ------------------------------------------------------------------ the API

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            raw: dict[str, Any] = await request.json()
        else:
            raw = dict(await request.post())
        params: dict[str, Any] = {}
        for key, value in raw.items():
            if isinstance(value, str) and key in _JSON_FIELDS:
                value = json.loads(value)
            elif isinstance(value, str) and key in _ID_FIELDS and value.lstrip("-").isdigit():
                value = int(value)
            elif value in ("true", "false") and key not in ("text", "data"):
                value = value == "true"
            params[key] = value
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        method = request.match_info["method"]
        params = await self._params(request)
        call = Call(method, params, time.monotonic())
        if method == "getUpdates" and self.webhook is not None:
            call.ok, call.error = False, _WEBHOOK_ACTIVE
            await self._record(call)
            return web.json_response(
                {"ok": False, "error_code": 409, "description": _WEBHOOK_ACTIVE}, status=409
            )
        gate = self.gates.get(method)
        if gate is not None:
            await gate.wait()
        failure = self._failure(method, params)
        if failure is not None and failure[0] == LOST_REPLY:  # done, then the line dropped
            try:
                if method == "getUpdates":
                    call.result = await self._get_updates(params)
                else:
                    call.result = self._dispatch(method, params)
            except _ApiError as error:
                call.result = error.description
            call.ok, call.error = False, failure[1]
            await self._record(call)
            assert request.transport is not None
            request.transport.close()
            return web.Response()  # never written: the connection is gone
        if method == "getUpdates" and failure is None:
            call.result = await self._get_updates(params)
            await self._record(call)
            return web.json_response({"ok": True, "result": call.result})
        if failure is None:
            try:
                call.result = self._dispatch(method, params)
            except _ApiError as error:
                failure = (error.code, error.description, None)
        if failure is not None:
            code, description, retry_after = failure
            call.ok, call.error = False, description
            if code == DROP:
                await self._record(call)
                assert request.transport is not None
                request.transport.close()
                return web.Response()  # never written: the connection is gone
            body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
            if retry_after is not None:
                body["parameters"] = {"retry_after": retry_after}
            await self._record(call)
            return web.json_response(body, status=code)
        await self._record(call)
        return web.json_response({"ok": True, "result": call.result})

    async def _record(self, call: Call) -> None:
        if self.keep_calls:
            self.calls.append(call)
        for listener in self.listeners:
            listener(call)
        await self._notify()

    def _failure(self, method: str, params: dict[str, Any]) -> tuple[int, str, int | None] | None:
        injected = self._injected_error(method, params)
        if injected is not None:
            return injected.code, injected.description, injected.retry_after
        if method in MESSAGE_METHODS and "chat_id" in params:
            wait = self._flooded(int(params["chat_id"]))
            if wait is not None:
                return 429, f"Too Many Requests: retry after {wait}", wait
        return None

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        self.confirmed = max(self.confirmed, offset - 1)
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        timeout = min(float(params.get("timeout") or 0), 5.0)
        deadline = time.monotonic() + timeout
        async with self._changed:
            while not self._updates and not self._stopping and time.monotonic() < deadline:
                try:
                    await asyncio.wait_for(self._changed.wait(), deadline - time.monotonic())
                except TimeoutError:
                    break
        batch = list(self._updates[: int(params.get("limit") or 100)])
        if batch:
            self._handed_out = max(self._handed_out, batch[-1]["update_id"])
        await self._notify()  # wait_until may be watching what was handed out or confirmed
        return batch

    def _dispatch(self, method: str, params: dict[str, Any]) -> Any:
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            raise _ApiError(404, f"Not Found: method {method} is not in the fake")
        return handler(params)

    def _chat(self, chat_id: int) -> FakeChat:
        return self.chats.setdefault(chat_id, FakeChat(chat_id))

    def _api_getMe(self, params: dict[str, Any]) -> Any:
        return self.bot_user

    def _api_deleteWebhook(self, params: dict[str, Any]) -> Any:
        self.webhook = None
        return True

    def _api_setWebhook(self, params: dict[str, Any]) -> Any:
        url = str(params.get("url") or "")
        if not url:  # an empty url removes the webhook
            self.webhook = None
            return True
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise _ApiError(400, "Bad Request: secret token contains unallowed characters")
        self.webhook = dict(params)
        return True

    def _api_setMyCommands(self, params: dict[str, Any]) -> Any:
        return True

    def _api_answerCallbackQuery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("callback_query_id"))
        if query_id in self._answered:  # Telegram takes one answer per press
            raise _ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        self._answered.add(query_id)
        return True

    def _api_sendMessage(self, params: dict[str, Any]) -> Any:
        chat_id = int(params["chat_id"])
        ephemeral = params.get("ephemeral_message_parameters")
        if ephemeral is not None and not self.ephemeral:
            raise _ApiError(400, "Bad Request: ephemeral messages are not supported")
        if chat_id > 0 and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        text = str(params.get("text", ""))
        _check_text(text, params.get("parse_mode"))
        markup = params.get("reply_markup") or None
        thread = self._thread_of(chat_id, params)
        _check_markup(chat_id, markup)
        if ephemeral is not None:
            if chat_id > 0:
                raise _ApiError(400, "Bad Request: ephemeral messages can't be sent to this chat")
            stored = StoredMessage(chat_id, 0, text, markup, thread=thread)
            stored.ephemeral_for = int(ephemeral["receiver_user_id"])
            stored.ephemeral_message_id = next(self._ephemeral_ids[chat_id])
            self.ephemerals[(chat_id, stored.ephemeral_message_id)] = stored
            receiver = self.users.get(stored.ephemeral_for)
            chat = self._chat(chat_id).as_dict()
            return stored.as_dict(self.bot_user, chat, receiver.as_dict() if receiver else None)
        stored = StoredMessage(chat_id, next(self._message_ids[chat_id]), text, markup,
                               thread=thread)
        self.messages[(chat_id, stored.message_id)] = stored
        return stored.as_dict(self.bot_user, self._chat(chat_id).as_dict())

    def _api_sendDocument(self, params: dict[str, Any]) -> Any:
        chat_id = int(params["chat_id"])
        if chat_id > 0 and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        upload = params.get("document")
        if not isinstance(upload, web.FileField):
            raise _ApiError(400, "Bad Request: there is no document in the request")
        caption = str(params.get("caption", ""))
        if caption and utf16_length(_visible(caption, params.get("parse_mode"))) > MAX_CAPTION:
            raise _ApiError(400, "Bad Request: message caption is too long")
        thread = self._thread_of(chat_id, params)
        stored = StoredMessage(chat_id, next(self._message_ids[chat_id]), caption, None,
                               thread=thread)
        self.messages[(chat_id, stored.message_id)] = stored
        self.documents.append(
            SentDocument(chat_id, stored.message_id, upload.filename, upload.file.read(), caption)
        )
        return stored.as_dict(self.bot_user, self._chat(chat_id).as_dict())

    def _edit(self, params: dict[str, Any], text: str | None) -> Any:
        key = (int(params["chat_id"]), int(params["message_id"]))
        if key[0] > 0 and key[0] not in self.started:  # the user blocked the bot
            raise _ApiError(403, "Forbidden: bot was blocked by the user")
        stored = self.messages.get(key)
        if stored is None or stored.deleted:
            raise _ApiError(400, "Bad Request: message to edit not found")
        self._check_topic_open(stored)
        markup = params.get("reply_markup") or None
        _check_markup(key[0], markup)
        new_text = stored.text if text is None else text
        if new_text == stored.text and markup == stored.reply_markup:
            raise _ApiError(400, NOT_MODIFIED)
        stored.text, stored.reply_markup = new_text, markup
        stored.edits += 1
        return stored.as_dict(self.bot_user, self._chat(key[0]).as_dict())

    def _api_editMessageText(self, params: dict[str, Any]) -> Any:
        text = str(params.get("text", ""))
        _check_text(text, params.get("parse_mode"))
        return self._edit(params, text)

    def _api_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        return self._edit(params, None)

    def _ephemeral(self, params: dict[str, Any], missing: str) -> StoredMessage:
        key = (int(params["chat_id"]), int(params["ephemeral_message_id"]))
        stored = self.ephemerals.get(key)
        if (
            stored is None
            or stored.deleted
            or stored.ephemeral_for != int(params["receiver_user_id"])
        ):
            raise _ApiError(400, f"Bad Request: {missing}")
        return stored

    def _edit_ephemeral(self, params: dict[str, Any], text: str | None) -> Any:
        stored = self._ephemeral(params, "message to edit not found")
        self._check_topic_open(stored)
        markup = params.get("reply_markup") or None
        _check_markup(int(params["chat_id"]), markup)
        new_text = stored.text if text is None else text
        if new_text == stored.text and markup == stored.reply_markup:
            raise _ApiError(400, NOT_MODIFIED)
        stored.text, stored.reply_markup = new_text, markup
        stored.edits += 1
        return True

    def _api_editEphemeralMessageText(self, params: dict[str, Any]) -> Any:
        text = str(params.get("text", ""))
        _check_text(text, params.get("parse_mode"))
        return self._edit_ephemeral(params, text)

    def _api_editEphemeralMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        return self._edit_ephemeral(params, None)

    def _api_deleteEphemeralMessage(self, params: dict[str, Any]) -> Any:
        self._ephemeral(params, "message to delete not found").deleted = True
        return True

    def _api_deleteMessage(self, params: dict[str, Any]) -> Any:
        stored = self.messages.get((int(params["chat_id"]), int(params["message_id"])))
        if stored is None or stored.deleted:
            raise _ApiError(400, "Bad Request: message to delete not found")
        stored.deleted = True
        return True

    def _api_createForumTopic(self, params: dict[str, Any]) -> Any:
        topic = self._new_topic(int(params["chat_id"]), str(params.get("name", "")))
        return {"message_thread_id": topic.thread, "name": topic.name, "icon_color": 7322096}

    def _api_topic(self, params: dict[str, Any]) -> FakeTopic:
        topic = self.topics.get((int(params["chat_id"]), int(params["message_thread_id"])))
        if topic is None or topic.deleted:
            raise _ApiError(400, THREAD_NOT_FOUND)
        return topic

    def _api_closeForumTopic(self, params: dict[str, Any]) -> Any:
        topic = self._api_topic(params)
        if topic.closed:
            raise _ApiError(400, "Bad Request: TOPIC_NOT_MODIFIED")
        topic.closed = True
        return True

    def _api_reopenForumTopic(self, params: dict[str, Any]) -> Any:
        topic = self._api_topic(params)
        if not topic.closed:
            raise _ApiError(400, "Bad Request: TOPIC_NOT_MODIFIED")
        topic.closed = False
        return True

    def _api_deleteForumTopic(self, params: dict[str, Any]) -> Any:
        self._delete_topic(int(params["chat_id"]), int(params["message_thread_id"]))
        return True

    def _member(self, chat_id: int, user_id: int) -> dict[str, Any]:
        status = "administrator" if user_id in self.admins.get(chat_id, set()) else "member"
        user = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        member: dict[str, Any] = {"status": status, "user": user}
        if status == "administrator":
            member.update(
                {
                    k: True
                    for k in (
                        "can_be_edited",
                        "is_anonymous",
                        "can_manage_chat",
                        "can_delete_messages",
                        "can_manage_video_chats",
                        "can_restrict_members",
                        "can_promote_members",
                        "can_change_info",
                        "can_invite_users",
                        "can_post_stories",
                        "can_edit_stories",
                        "can_delete_stories",
                    )
                }
            )
            member["can_be_edited"] = False
            member["is_anonymous"] = False
        return member

    def _api_getChatMember(self, params: dict[str, Any]) -> Any:
        return self._member(int(params["chat_id"]), int(params["user_id"]))

    def _api_getChatAdministrators(self, params: dict[str, Any]) -> Any:
        chat_id = int(params["chat_id"])
        return [self._member(chat_id, uid) for uid in sorted(self.admins.get(chat_id, set()))]


_WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active;"
    " use deleteWebhook to delete the webhook first"
)


class _ApiError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


# ---------------------------------------------------------------------- HTML parse mode

#: The tags of the Bot API's HTML style ("Only the tags mentioned above are currently
#: supported"), lower case as Telegram compares them.
HTML_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a"}
    | {"tg-emoji", "tg-time", "code", "pre", "blockquote"}
)
#: The named entities the Bot API supports; numeric ones (``&#38;``, ``&#x26;``) all are.
HTML_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY = re.compile(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));")
_ATTRIBUTE = re.compile(
    r"""\s*([a-zA-Z][a-zA-Z0-9_-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?"""
)


class HtmlError(ValueError):
    """Text Telegram refuses in HTML parse mode; the message is its error's detail."""


def utf16_length(text: str) -> int:
    """A text's length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def parse_html(text: str) -> str:
    """The visible text of ``text`` in the Bot API's HTML style, or :class:`HtmlError`.

    It follows the formatting options of the Bot API reference: only the listed tags,
    each closed in order; every ``<``, ``>`` and ``&`` that is not part of a tag or an
    entity must be written as one; named entities only ``&lt;``, ``&gt;``, ``&amp;``,
    ``&quot;``, numeric ones all. (Telegram's server is more lenient with a bare
    ``&`` or ``>`` than its reference; the fake holds the bot to the reference.) The
    messages are Telegram's own ("Unsupported start tag ... at byte offset ...").
    """
    shown: list[str] = []
    open_tags: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == "&":
            decoded, at = _entity(text, at)
            shown.append(decoded)
        elif char == ">":
            raise HtmlError(f"Character '>' at byte offset {_offset(text, at)} must be escaped")
        elif char != "<":
            shown.append(char)
            at += 1
        elif text.startswith("</", at):
            at = _end_tag(text, at, open_tags)
        else:
            at = _start_tag(text, at, open_tags)
    if open_tags:
        raise HtmlError(f'Can\'t find end tag corresponding to start tag "{open_tags[-1]}"')
    return "".join(shown)


def _offset(text: str, at: int) -> int:
    """Telegram names places by UTF-8 byte offset."""
    return len(text[:at].encode())


def _entity(text: str, at: int) -> tuple[str, int]:
    found = _ENTITY.match(text, at)
    if found is not None:
        decimal, hexadecimal, name = found.groups()
        if name is not None and name in HTML_ENTITIES:
            return HTML_ENTITIES[name], found.end()
        if name is None:
            code = int(decimal) if decimal is not None else int(hexadecimal, 16)
            if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
                return chr(code), found.end()
    raise HtmlError(
        f"Character '&' at byte offset {_offset(text, at)} is not a part of a supported entity"
    )


def _start_tag(text: str, at: int, open_tags: list[str]) -> int:
    begin = at
    at += 1
    while at < len(text) and not text[at].isspace() and text[at] != ">":
        at += 1
    if at >= len(text):
        raise HtmlError(f"Unclosed start tag at byte offset {_offset(text, begin)}")
    name = text[begin + 1 : at].lower()
    if name not in HTML_TAGS:
        raise HtmlError(f'Unsupported start tag "{name}" at byte offset {_offset(text, begin)}')
    attributes: dict[str, str] = {}
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            raise HtmlError(f"Unclosed start tag at byte offset {_offset(text, begin)}")
        if text[at] == ">":
            break
        found = _ATTRIBUTE.match(text, at)
        if found is None:
            raise HtmlError(
                "Expected equal sign in declaration of an attribute of the tag "
                f"at byte offset {_offset(text, begin)}"
            )
        key, *values = found.groups()
        attributes[key.lower()] = next((v for v in values if v is not None), "")
        at = found.end()
    if name == "span" and attributes.get("class") != "tg-spoiler":
        raise HtmlError('Tag "span" must have class "tg-spoiler"')
    open_tags.append(name)
    return at + 1


def _end_tag(text: str, at: int, open_tags: list[str]) -> int:
    close = text.find(">", at)
    if close < 0:
        raise HtmlError(f"Unclosed end tag at byte offset {_offset(text, at)}")
    name = text[at + 2 : close].strip().lower()
    if not open_tags:
        raise HtmlError(f"Unexpected end tag at byte offset {_offset(text, at)}")
    if name != open_tags[-1]:
        raise HtmlError(
            f"Unmatched end tag at byte offset {_offset(text, at)}, "
            f'expected "</{open_tags[-1]}>", found "</{name}>"'
        )
    open_tags.pop()
    return close + 1


def _visible(text: str, parse_mode: Any) -> str:
    """What a text shows: HTML parsed (a refusal as Telegram's 400), others as given."""
    if str(parse_mode or "").upper() != "HTML":
        return text
    try:
        return parse_html(text)
    except HtmlError as error:
        raise _ApiError(400, f"Bad Request: can't parse entities: {error}") from None


def _check_markup(chat_id: int, markup: dict[str, Any] | None) -> None:
    """InlineKeyboardButton.web_app: "Available only in private chats between a user and
    the bot" — Telegram refuses such a button in a group (BUTTON_TYPE_INVALID)."""
    if chat_id > 0 or not markup:
        return
    for row in markup.get("inline_keyboard", []):
        for button in row:
            if "web_app" in button:
                raise _ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")


def _check_text(text: str, parse_mode: Any) -> None:
    """Telegram's checks of a message's text: it parses, is not empty, is not too long."""
    shown = _visible(text, parse_mode)
    if not shown.strip():
        raise _ApiError(400, "Bad Request: message text is empty")
    if utf16_length(shown) > MAX_TEXT:
        raise _ApiError(400, "Bad Request: message is too long")

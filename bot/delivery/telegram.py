"""The Bot API calls delivery makes, and what Telegram's answers mean.

Every call goes through PTB's ``Bot`` (and so through the one rate limiter).
Telegram facts handled here:

- "message is not modified" is success;
- "message to edit not found" (deleted) → :meth:`TelegramCalls.edit` says so, and
  the caller posts the message again;
- an ephemeral message the client closed cannot be edited any more;
- a request lost on the way (timeout, dropped connection) is made again for an
  edit, never for a send (it may have arrived, and would show twice); an ephemeral
  send that Telegram answered with a 5xx (not sent) is made again;
- a text Telegram cannot parse ("can't parse entities") is sent again as plain
  text, with one WARNING (:func:`readable`).

A 403 (``Forbidden``: the chat is closed to the bot) is raised to the caller,
which reports the chat closed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from telegram import ForceReply, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import BadRequest, NetworkError, TelegramError, TimedOut
from telegram.ext import ExtBot

from bot.clock import Clock
from bot.limiter import FloodLimiter
from bot.queueing import URGENT
from bot.render.common import MAX_CAPTION, MAX_TEXT, Screen
from bot.render.text import plain_text
from bot.topics import thread_params
from storage.outage import unavailable

log = logging.getLogger(__name__)
T = TypeVar("T")

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

_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass(frozen=True)
class Retries:
    """How delivery tries again: an edit lost on the way ``edit_tries`` times, ``pause``
    × n seconds before the n-th retry; a screen Telegram did not take ``tries`` times,
    after ``first``, 2 × ``first`` … seconds, at most ``cap``."""

    edit_tries: int = EDIT_TRIES
    pause: float = RETRY_PAUSE
    first: float = RETRY_FIRST
    cap: float = RETRY_CAP
    tries: int = RETRY_TRIES

    def backoff(self, failures: int) -> float:
        """Seconds before delivering a screen again after ``failures`` in a row."""
        return min(self.first * 2.0 ** (failures - 1), self.cap)


class TelegramCalls:
    """Sends, edits and deletes over PTB's ``Bot``, with the retries above; pauses are
    slept on ``clock``."""

    def __init__(
        self, bot: ExtBot[dict[str, Any]], limiter: FloodLimiter, clock: Clock, retries: Retries
    ) -> None:
        self.bot = bot
        self.limiter = limiter
        self.clock = clock
        self.retries = retries

    async def send(self, chat_id: int, screen: Screen, thread: int = 0) -> int:
        """sendMessage showing ``screen`` in forum topic ``thread`` (0: none; its turn in
        the limiter already taken); the new message's id."""
        message = await readable(
            self.bot.send_message, chat_id, **_html(screen), **thread_params(thread),
            rate_limit_args={"turn_taken": True},
        )
        return message.message_id

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> bool:
        """editMessageText (its turn taken); False if the message is gone (deleted)."""
        for attempt in range(1, self.retries.edit_tries + 1):
            try:
                await readable(
                    self.bot.edit_message_text,
                    chat_id=chat_id,
                    message_id=message_id,
                    **_html(screen),
                    rate_limit_args={"turn_taken": attempt == 1},
                )
                return True
            except BadRequest as error:
                if not_modified(error):
                    return True
                if gone(error):
                    log.info("message %s/%s is gone; posting it again", chat_id, message_id)
                    return False
                raise
            except NetworkError as error:
                await self._before_next_try(attempt, error, f"editing {chat_id}/{message_id}")
        raise AssertionError("unreachable")

    async def edit_ephemeral(
        self, chat_id: int, receiver: int | None, ephemeral_id: int | None, screen: Screen
    ) -> bool:
        """Bot API 10.2 ``editEphemeralMessageText``, which PTB 22 does not wrap (its turn
        taken); False if the message is gone (the client closed it)."""
        params: dict[str, Any] = {
            "chat_id": chat_id,
            "receiver_user_id": receiver,
            "ephemeral_message_id": ephemeral_id,
            "text": screen.text,
            "parse_mode": ParseMode.HTML.value,
        }
        markup = screen.markup()
        if markup is not None:
            params["reply_markup"] = markup.to_json()
        for attempt in range(1, self.retries.edit_tries + 1):
            try:
                await readable(
                    self.bot.do_api_request,
                    "editEphemeralMessageText",
                    api_kwargs=params,
                    rate_limit_args={"turn_taken": attempt == 1},
                )
                return True
            except BadRequest as error:
                if not_modified(error):
                    return True
                log.info("ephemeral message %s/%s gone: %s", chat_id, ephemeral_id,
                         error.message)
                return False
            except NetworkError as error:
                await self._before_next_try(attempt, error, f"editing ephemeral {ephemeral_id}")
        raise AssertionError("unreachable")

    async def post_ephemeral(
        self,
        chat_id: int,
        user_id: int,
        screen: Screen,
        query_id: str | None = None,
        *,
        priority: int = URGENT,
        thread: int = 0,
    ) -> int:
        """A one-off ephemeral message in group ``chat_id`` that only ``user_id`` sees
        (tied to their button press ``query_id``); its ``ephemeral_message_id``.

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
        for attempt in range(1, self.retries.edit_tries + 1):
            try:
                sent = await readable(
                    self.bot.send_message,
                    chat_id,
                    **_html(screen),
                    **thread_params(thread),
                    api_kwargs={"ephemeral_message_parameters": ephemeral},
                    rate_limit_args={"priority": priority},
                )
            except NetworkError as error:
                if not answered(error) or attempt == self.retries.edit_tries:
                    raise
                log.info("ephemeral message to %s refused (%s); again", user_id, error)
                await self.clock.sleep(self.retries.pause * attempt)
                continue
            found = sent.api_kwargs.get("ephemeral_message_id")
            return int(found) if found is not None else sent.message_id
        raise AssertionError("unreachable")

    async def delete_ephemeral(self, chat_id: int, receiver: int, ephemeral_id: int) -> None:
        """``deleteEphemeralMessage``; one that is gone already is fine."""
        try:
            await self.bot.do_api_request(
                "deleteEphemeralMessage",
                api_kwargs={
                    "chat_id": chat_id,
                    "receiver_user_id": receiver,
                    "ephemeral_message_id": ephemeral_id,
                },
            )
        except TelegramError as error:
            log.info("ephemeral message %s/%s not deleted: %s", chat_id, ephemeral_id, error)

    async def ask(self, chat_id: int, text: str, placeholder: str, thread: int = 0) -> int:
        """Post a question answered by replying (``ForceReply``, ``selective``: only for
        those the text mentions; its turn taken), in forum topic ``thread``; its id."""
        message = await readable(
            self.bot.send_message,
            chat_id,
            **thread_params(thread),
            text=text,
            parse_mode=ParseMode.HTML,
            reply_markup=ForceReply(selective=True, input_field_placeholder=placeholder),
            rate_limit_args={"turn_taken": True},
        )
        return message.message_id

    async def delete(self, chat_id: int, message_id: int) -> None:
        """deleteMessage; a message already gone is fine."""
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError as error:
            log.info("message %s/%s not deleted: %s", chat_id, message_id, error)

    async def send_document(
        self, chat_id: int, filename: str, content: bytes, caption: str, thread: int = 0
    ) -> None:
        """sendDocument in forum topic ``thread`` (paced by the limiter like every call)."""
        await readable(
            self.bot.send_document,
            chat_id, content, filename=filename, caption=caption, parse_mode=ParseMode.HTML,
            **thread_params(thread),
        )

    async def _before_next_try(self, attempt: int, error: NetworkError, what: str) -> None:
        """An edit failed: raise ``error`` unless it was lost on the way (no answer: an
        edit can safely be made again) with tries left; else pause before the next try."""
        if not in_transit(error) or attempt == self.retries.edit_tries:
            raise error
        log.info("%s failed in transit (%s); again", what, error)
        await self.clock.sleep(self.retries.pause * attempt)


def _html(screen: Screen) -> dict[str, Any]:
    """The parameters of a message showing ``screen``: its HTML text and buttons, no
    link preview."""
    return {
        "text": screen.text,
        "parse_mode": ParseMode.HTML,
        "reply_markup": screen.markup(),
        "link_preview_options": _NO_PREVIEW,
    }


def in_transit(error: Exception) -> bool:
    """True for a request with no answer (timeout, dropped connection), not one Telegram
    answered with an error (``BadRequest`` and the like are ``NetworkError`` too in PTB)."""
    return type(error) in (NetworkError, TimedOut)


def answered(error: NetworkError) -> bool:
    """True for an error Telegram answered (a 5xx), so the request was not carried out;
    PTB raises a request lost on the way from the transport's exception (or TimedOut)."""
    cause = error.__cause__
    return type(error) is NetworkError and (cause is None or isinstance(cause, TelegramError))


def retried(error: Exception) -> bool:
    """True for a delivery Telegram failed to take (a 5xx, a timeout, a lost
    connection) or the store failed to record: it is made again later."""
    return in_transit(error) or (not isinstance(error, TelegramError) and unavailable(error))


def not_modified(error: BadRequest) -> bool:
    """True for "message is not modified": the message already shows it."""
    return "not modified" in error.message.lower()


def gone(error: BadRequest) -> bool:
    """True for an edit of a message that is no longer there (deleted, too old)."""
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


async def readable(call: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
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

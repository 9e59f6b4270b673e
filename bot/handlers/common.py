"""What every handler needs: languages, replies, pop-ups, and the button router.

Every update is first worked out once (:func:`requests`, the first handler
group): who asks what, the languages it is answered in, and a press's decoded
button — kept for the handlers after it in :class:`bot.context.Arrival`.
:func:`button` turns a handler for one kind of button (a class of
:mod:`bot.callback`) into PTB's ``CallbackQueryHandler`` for exactly that kind,
matched by the codec's prefix table: the codec is the router, there is no
second table, and the data is decoded once. Every press gets an answer:
Telegram shows a spinner until the bot answers the callback query.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import Bot, CallbackQuery, Chat, Message, Update, User
from telegram.error import BadRequest, NetworkError
from telegram.ext import (
    ApplicationHandlerStop,
    BaseHandler,
    CallbackQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.callback import BadCallback, Move, Press, Verb, kind_of, unpack
from bot.context import ARRIVAL, Arrival, Koloda, KolodaContext, arrival
from bot.delivery import REQUEST, Request
from bot.i18n import language_from_code, t
from bot.render.common import esc, screen
from bot.render.text import clean_name
from bot.topics import topic_of
from sessions import Refusal
from sessions.presses import pressing

log = logging.getLogger(__name__)

P = TypeVar("P", bound=Move | Verb)
#: A button handler: returns the pop-up text, None for a plain answer, or "" when it
#: answered the query itself.
ButtonHandler = Callable[[Koloda, Update, P], Awaitable[str | None]]
Handler = BaseHandler[Update, KolodaContext, None]


def refusal_text(lang: str, refusal: Refusal) -> str:
    """The localized pop-up for a refusal (an illegal move names its reason)."""
    if refusal.code == "illegal":
        key = f"illegal-{refusal.detail}"
        text = t(lang, key)
        return text if text != key else t(lang, "illegal-illegal")
    return t(lang, f"refusal-{refusal.code}")


def user_lang() -> str:
    """The language of the user behind this update (pop-ups, private chats)."""
    return arrival().user_lang


def chat_lang() -> str:
    """The language of this update's chat (a group's; a private chat's is the user's)."""
    return arrival().chat_lang


async def _user_language(kol: Koloda, user: User) -> str:
    """A user's own language: stored, else their Telegram one, which is then stored."""
    stored = await kol.prefs.language("user", user.id)
    if stored is None:
        stored = language_from_code(user.language_code)
        await kol.prefs.set_language("user", user.id, stored)
    return stored


async def _chat_language(kol: Koloda, chat: Chat, user: User, user_lang: str) -> str:
    """A group's language: stored, else set once from whoever spoke first; a private
    chat's is its user's."""
    if chat.type == Chat.PRIVATE:
        return user_lang
    stored = await kol.prefs.language("chat", chat.id)
    if stored is None:
        stored = language_from_code(user.language_code)
        await kol.prefs.set_language("chat", chat.id, stored)
    return stored


async def arrive(kol: Koloda, update: Update) -> Arrival:
    """Work out what an update is: its decoded button, and the languages it is
    answered in — for what the handlers answer (a press, a command, a reply to the
    bot's question), each read once through the cached preferences."""
    press: Press | BadCallback | None = None
    query = update.callback_query
    if query is not None:
        try:
            press = unpack(query.data)
        except BadCallback as error:
            press = error
    user, chat = update.effective_user, update.effective_chat
    if user is None or (query is None and not _answered(update.message)):
        return Arrival(press=press)
    user_lang = await _user_language(kol, user)
    chat_lang = user_lang if chat is None else await _chat_language(kol, chat, user, user_lang)
    return Arrival(user_lang, chat_lang, press)


def topic(update: Update) -> int:
    """The forum topic the update came from (0: none, or the General topic)."""
    return topic_of(update.effective_message)


def reply(kol: Koloda, update: Update, text: str) -> None:
    """Reply in the update's chat (in the topic it came from) with HTML text (sent in the
    background)."""
    chat = update.effective_chat
    if chat is not None:
        kol.presenter.reply(chat.id, screen(text))


def display_name(user: User) -> str:
    """How a user is called at the table: their first name made safe to show
    (:func:`clean_name`), else their username, else their id."""
    return clean_name(user.first_name or "") or clean_name(user.username or "") or str(user.id)


def is_private(update: Update) -> bool:
    """True in a private chat with the bot."""
    chat = update.effective_chat
    return chat is not None and chat.type == Chat.PRIVATE


async def is_admin(bot: Bot, chat_id: int | None, user_id: int) -> bool:
    """True if the user is an administrator of the group ``chat_id`` — the table's own
    chat, whichever chat the question came from (None or a private chat: False)."""
    if chat_id is None or chat_id > 0:
        return False
    member = await bot.get_chat_member(chat_id, user_id)
    return member.status in ("administrator", "creator")


async def check_own_chat(kol: Koloda, update: Update, press: Press) -> None:
    """Refuse (``other_chat``) a press on a group table's button from a message in any
    other chat: a forwarded or copied lobby cannot seat, start or cancel anything. A
    group table's buttons live in its group, except those the presser is also sent in
    her private chat (her hand, the settings menu); a private table's live in private
    chats only (in a group, "📊 Show score" would post its chat's tally there for all
    to read); ephemeral messages carry no chat."""
    session_id = press.session
    chat, user = update.effective_chat, update.effective_user
    if not session_id or chat is None or user is None:
        return
    if chat.id == user.id and not getattr(press, "table_only", False):
        return  # her own private chat: no need to look the table up
    session = await kol.manager.get(session_id)
    if chat.id != session.chat_id and (session.kind == "group" or chat.id < 0):
        raise Refusal("other_chat")


def current_user(update: Update) -> User:
    """The user behind the update (every update a handler gets has one)."""
    user = update.effective_user
    if user is None:
        raise Refusal("not_a_player")
    return user


async def popup(query: CallbackQuery, text: str | None = None, url: str | None = None) -> None:
    """Answer a button press; a lost or refused answer is logged, not raised.

    Telegram takes one answer per press, and only for a while: a press
    delivered again after a restart cannot be answered twice.
    """
    try:
        await query.answer(text=text, url=url)
    except BadRequest as error:
        log.info("could not answer a callback query: %s", error.message)
    except NetworkError as error:
        log.warning("could not answer a callback query: %s", error)


def button(kind: type[P], handle: ButtonHandler[P]) -> Handler:
    """PTB's handler for presses on buttons of ``kind``, answered whatever happens."""

    def matches(data: object) -> bool:
        return kind_of(data) is kind

    async def on_press(update: Update, context: KolodaContext) -> None:
        query = update.callback_query
        if query is None or update.effective_user is None:
            return
        kol = context.koloda
        lang = user_lang()
        press = arrival().press
        note: str | None
        try:
            if isinstance(press, BadCallback):
                if press.refusal is not None:
                    raise Refusal(press.refusal)
                raise press
            if not isinstance(press, kind):
                raise BadCallback(f"not a {kind.__name__}")
            await check_own_chat(kol, update, press)
            # Telegram delivers a press again when it was not confirmed (a crash, a
            # webhook timeout): its change, if it made one, is not made twice (a move
            # knows its own repeat by version, and draws the presser's hand again)
            key = f"cq:{query.id}"
            if kind is not Move and await kol.manager.pressed(key):
                raise Refusal("applied")
            with pressing(key):
                note = await handle(kol, update, press)
        except BadCallback as error:
            log.info("bad callback data from %s: %s", update.effective_user.id, error)
            note = t(lang, "bad-button")
        except Refusal as refusal:
            # "applied": the same press again (after a crash); it worked, so it is
            # answered as done, with no pop-up
            note = None if refusal.code == "applied" else refusal_text(lang, refusal)
        if note == "":  # the handler answered already
            return
        # Answered in the background: the press counts as handled (bot/updates.py) once
        # its change is committed, without waiting for Telegram's answer to the answer.
        context.application.create_task(popup(query, note), update=update)

    return CallbackQueryHandler(on_press, pattern=matches)


async def on_unknown_button(update: Update, context: KolodaContext) -> None:
    """A press whose data no handler knows (forged or from an older bot): a pop-up."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    log.info("bad callback data from %s: %r", user.id, query.data)
    note = t(user_lang(), "bad-button")
    context.application.create_task(popup(query, note), update=update)


def unknown_buttons() -> Handler:
    """The last button handler: answers whatever the others did not take."""
    return CallbackQueryHandler(on_unknown_button)


async def on_chat_sender(update: Update, context: KolodaContext) -> None:
    """A command sent on behalf of a chat — by an anonymous admin (the group itself) or
    as a channel: every such sender looks like one shared user, so it may not play.
    The sender is asked to write as themselves, and nothing else handles the update."""
    message = update.effective_message
    if message is None or message.sender_chat is None:
        return
    command = (message.text or "").split(maxsplit=1)[0]
    addressed = command.partition("@")[2]
    if addressed and addressed.lower() != (context.bot.username or "").lower():
        return  # another bot's command
    lang = chat_lang()
    anonymous = message.sender_chat.id == message.chat.id
    reply(context.koloda, update, t(lang, "sender-anonymous-admin" if anonymous
                                    else "sender-channel", chat=esc(message.sender_chat.title
                                                                    or "")))
    raise ApplicationHandlerStop


def chat_senders() -> Handler:
    """The first handler (its own group, before all others): commands sent on behalf of
    a chat get :func:`on_chat_sender`'s answer."""
    return MessageHandler(
        filters.ChatType.GROUPS & filters.SenderChat.ALL & filters.COMMAND, on_chat_sender
    )


def args_of(context: KolodaContext) -> list[str]:
    """The command's arguments (none for a plain command)."""
    return list(context.args or [])


#: The word after /top or /score that asks for this month's season (either language).
SEASON_WORDS = frozenset({"season", "сезон"})


def season_argument(args: list[str]) -> tuple[bool, list[str]]:
    """Whether a command's arguments ask for the season (``/top season king``), and the
    arguments after that word."""
    if args and args[0].lower() in SEASON_WORDS:
        return True, args[1:]
    return False, args


def _answered(message: Message | None) -> bool:
    """True for a message some handler answers: a command, or a reply."""
    if message is None:
        return False
    return (message.text or "").startswith("/") or message.reply_to_message is not None


async def note_request(update: Update, context: KolodaContext) -> None:
    """Work the update out once (:func:`arrive`), and remember who asks what while it is
    handled, so its replies coalesce with those to the same request
    (:meth:`bot.delivery.Delivery.send`). If the store fails meanwhile, the update
    fails this try (it is tried again, ``bot.updates``) and no other handler runs."""
    user, chat = update.effective_user, update.effective_chat
    if user is not None:
        where = chat.id if chat is not None else 0
        REQUEST.set(Request(user.id, request_kind(update), chat_id=where,
                            thread=topic(update)))
    try:
        ARRIVAL.set(await arrive(context.koloda, update))
    except Exception as error:
        told = language_from_code(user.language_code if user else None)
        ARRIVAL.set(Arrival(told, told))
        await context.application.process_error(update, error)
        raise ApplicationHandlerStop from error


def request_kind(update: Update) -> str:
    """What an update asks for: a button's data, a command with its arguments (the
    bot's name left out), or ``message``."""
    if update.callback_query is not None:
        return f"press {update.callback_query.data or ''}"
    message = update.effective_message
    words = (message.text or "").lower().split() if message is not None else []
    if not words or not words[0].startswith("/"):
        return "message"
    return " ".join([words[0].partition("@")[0], *words[1:]])[:64]


def requests() -> Handler:
    """The first handler of every update (a group of its own, before the others)."""
    return TypeHandler(Update, note_request)

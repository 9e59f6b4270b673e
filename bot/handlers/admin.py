"""Help, language, settings, the bot leaving a chat, and the error handler."""

from __future__ import annotations

import logging

from telegram import ChatMember, ChatMemberUpdated, Update
from telegram.error import Conflict, NetworkError, TelegramError
from telegram.ext import ChatMemberHandler, CommandHandler

from bot.callback import Language
from bot.context import Koloda, KolodaContext
from bot.handlers.common import Handler, button, chat_lang, current_user, is_private, popup, reply
from bot.handlers.lobby import chat_session
from bot.handlers.menus import show_menu
from bot.i18n import LANGUAGES, t
from bot.render.common import Button, game_name, screen
from bot.render.lobby import settings_lines
from games import REGISTRY
from storage.outage import unavailable

log = logging.getLogger(__name__)
LANGUAGE_NAMES = {"en": "English", "ru": "Русский"}


async def cmd_help(update: Update, context: KolodaContext) -> None:
    """/help: the list of commands."""
    kol = context.koloda
    reply(kol, update, t(chat_lang(), "help"))


async def cmd_lang(update: Update, context: KolodaContext) -> None:
    """/lang: choose the language (yours in private, the chat's in a group)."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    buttons = [Button(LANGUAGE_NAMES[code], Language(0, code).pack()) for code in LANGUAGES]
    kol.presenter.reply(chat.id, screen(t(lang, "lang-menu"), [buttons]))


async def on_lang(kol: Koloda, update: Update, press: Language) -> str | None:
    """A language button: store it for this user (private) or chat (group)."""
    chat, user = update.effective_chat, current_user(update)
    assert chat is not None
    lang = press.lang
    if is_private(update):
        await kol.prefs.set_language("user", user.id, lang)
    else:
        await kol.prefs.set_language("chat", chat.id, lang)
        for session in await kol.manager.tables_in_chat(chat.id):  # every topic's
            await kol.presenter.refresh(session)
    kol.presenter.reply(chat.id, screen(t(lang, "lang-set")))
    return None


async def cmd_settings(update: Update, context: KolodaContext) -> None:
    """/settings: the language and this chat's table settings; a lobby's creator also
    gets the settings menu (only they see it)."""
    kol = context.koloda
    lang = chat_lang()
    lines = [t(lang, "settings-lang", language=LANGUAGE_NAMES[lang])]
    session = await chat_session(kol, update)
    if session is not None:
        schema = REGISTRY[session.game_id].options_schema
        lines += [
            "",
            t(lang, "settings-table", game=game_name(session.game_id, lang)),
            *settings_lines(session.game_id, schema, session.options, session.timer, lang),
        ]
    reply(kol, update, "\n".join(lines))
    if (
        session is not None
        and session.status == "lobby"
        and session.creator_id == current_user(update).id
    ):
        await show_menu(kol, update, session, "settings")


async def end_chat(kol: Koloda, chat_id: int) -> None:
    """The bot is out of a group: end its games and tell the players privately."""
    for session in await kol.manager.end_chat(chat_id):
        await kol.presenter.table_gone(session)


async def on_my_member(update: Update, context: KolodaContext) -> None:
    """The bot's own membership changed: removed from a group ends its games."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type == "private":
        return
    if change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED):
        await end_chat(context.koloda, change.chat.id)


async def on_error(update: object, context: KolodaContext) -> None:
    """Log the error — a Telegram outage or an unavailable store as one WARNING line, a
    bug with its traceback — and tell the user politely, never with a traceback.

    An update the store could not take is handled again once it is back
    (bot/updates.py), so its user hears of the failure once, here."""
    error = context.error
    if update is None and isinstance(error, Conflict):  # a failed getUpdates (polling goes on)
        log.error("another process is polling Telegram with this token: %s", error)
    elif update is None and isinstance(error, TelegramError):
        log.warning("polling for updates failed (trying again): %s", error)
    elif isinstance(error, NetworkError) and type(error).__name__ in ("NetworkError", "TimedOut"):
        log.warning("the Bot API could not be reached while handling an update: %s", error)
    elif error is not None and unavailable(error):
        log.warning(
            "the database is unavailable; update %s is kept and handled again: %s",
            getattr(update, "update_id", "?"), " ".join(str(error).split()) or type(error).__name__,
        )
    else:
        log.error("error handling an update", exc_info=error)
    if not isinstance(update, Update):
        return
    try:
        kol = context.koloda
        lang = chat_lang()  # read when it arrived (or, if the store failed then, Telegram's)
        if update.callback_query is not None:
            await popup(update.callback_query, t(lang, "error-generic"))
        elif update.effective_message is not None:
            reply(kol, update, t(lang, "error-generic"))
    except (TelegramError, RuntimeError):
        log.warning("could not tell the user about the error")


HANDLERS: list[Handler] = [
    CommandHandler("help", cmd_help),
    CommandHandler("lang", cmd_lang),
    CommandHandler("settings", cmd_settings),
    ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER),
    button(Language, on_lang),
]

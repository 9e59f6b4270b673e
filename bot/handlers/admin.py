"""Help, language, settings, the bot leaving a chat, and the error handler."""

from __future__ import annotations

import logging

from telegram import ChatMember, ChatMemberUpdated, Update
from telegram.error import TelegramError
from telegram.ext import BaseHandler, ChatMemberHandler, CommandHandler, ContextTypes

from bot.callback import Verb, pack_verb
from bot.handlers.common import Koloda, is_private, lang_here, parts, popup, reply
from bot.i18n import LANGUAGES, t
from bot.present import TABLE
from bot.render.common import Button, screen
from bot.render.lobby import render_settings
from games import REGISTRY

log = logging.getLogger(__name__)
LANGUAGE_NAMES = {"en": "English", "ru": "Русский"}


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: the list of commands."""
    await reply(update, t(await lang_here(parts(context), update), "help"))


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/lang: choose the language (yours in private, the chat's in a group)."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    buttons = [Button(LANGUAGE_NAMES[code], pack_verb("lang", 0, code)) for code in LANGUAGES]
    await kol.io.send(chat.id, screen(t(lang, "lang-menu"), [buttons]))


async def on_lang(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """A language button: store it for this user (private) or chat (group)."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    lang = verb.args[0]
    if is_private(update):
        await kol.manager.set_language("user", user.id, lang)
    else:
        await kol.manager.set_language("chat", chat.id, lang)
        session = await kol.manager.open_in_chat(chat.id)
        if session is not None:
            await kol.presenter.refresh(session)
    await kol.io.send(chat.id, screen(t(lang, "lang-set")))
    return None


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: the language, and the open lobby's table settings."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    await reply(update, t(lang, "settings-lang", language=LANGUAGE_NAMES[lang]))
    session = None if is_private(update) else await kol.manager.open_in_chat(chat.id)
    if session is not None and session.status == "lobby":
        game = REGISTRY[session.game_id]
        menu = render_settings(
            session.id, session.game_id, game.options_schema, session.options, session.timer, lang
        )
        kol.io.show(session.id, TABLE, chat.id, menu, session.version)


async def end_chat(kol: Koloda, chat_id: int) -> None:
    """The bot is out of a group: end its games and tell the players privately."""
    for session in await kol.manager.end_chat(chat_id):
        kol.io.forget(session.id, TABLE)
        await kol.presenter.refresh_players(session)


async def on_my_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership changed: removed from a group ends its games."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type == "private":
        return
    if change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED):
        await end_chat(parts(context), change.chat.id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the error; tell the user politely — never a traceback."""
    log.error("error handling an update", exc_info=context.error)
    if not isinstance(update, Update):
        return
    try:
        lang = await lang_here(parts(context), update)
        if update.callback_query is not None:
            await popup(update.callback_query, t(lang, "error-generic"))
        elif update.effective_message is not None:
            await reply(update, t(lang, "error-generic"))
    except TelegramError:
        log.warning("could not tell the user about the error")


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CommandHandler("help", cmd_help),
    CommandHandler("lang", cmd_lang),
    CommandHandler("settings", cmd_settings),
    ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER),
]

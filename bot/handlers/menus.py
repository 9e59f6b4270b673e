"""The creator's menus: computer levels, table settings, typed values (✏️ Type)."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import MessageHandler, filters

from bot.callback import Computers, SetOption, SetTimer, Settings, TypeValue, VersusComputer
from bot.context import Koloda, KolodaContext
from bot.handlers.common import (
    Handler,
    button,
    chat_lang,
    current_user,
    refusal_text,
    reply,
    user_lang,
)
from bot.handlers.lobby import chat_session
from bot.i18n import t
from bot.numbers import ascii_number
from bot.render.common import Screen, esc, mention
from bot.render.lobby import decode_value, option_name, render_levels, render_settings
from games import REGISTRY
from sessions import TIMER_RANGE, Refusal, Session

#: The purpose prefix of a "type a value" prompt (``prompt:target``, ``prompt:timer``).
PROMPT = "prompt:"

log = logging.getLogger(__name__)


async def _creator_session(kol: Koloda, update: Update, session_id: int) -> Session:
    """The session, if the presser created it (Refusal otherwise)."""
    user = current_user(update)
    session = await kol.manager.get(session_id)
    if session.status != "lobby":
        raise Refusal("not_in_lobby")
    if session.creator_id != user.id:
        raise Refusal("not_creator")
    return session


def menu_screen(session: Session, which: str, lang: str) -> Screen:
    """The creator's menu: computer ``levels`` or ``settings``."""
    if which == "levels":
        return render_levels(session.id, session.game_id, lang)
    game = REGISTRY[session.game_id]
    return render_settings(
        session.id, session.game_id, game.options_schema, session.options, session.timer, lang
    )


async def show_menu(kol: Koloda, update: Update, session: Session, which: str) -> None:
    """Show the creator a menu (where it goes: :meth:`bot.present.Presenter.show_menu`)."""
    query = update.callback_query
    menu = menu_screen(session, which, user_lang())
    await kol.presenter.show_menu(session, current_user(update).id, menu,
                                  query.id if query else None)


async def on_levels(kol: Koloda, update: Update, press: Computers | VersusComputer) -> str | None:
    """ "Add computer" / "Play the computer": the level menu."""
    await show_menu(kol, update, await _creator_session(kol, update, press.session), "levels")
    return None


async def on_settings(kol: Koloda, update: Update, press: Settings) -> str | None:
    """The settings menu."""
    await show_menu(kol, update, await _creator_session(kol, update, press.session), "settings")
    return None


async def on_option(kol: Koloda, update: Update, press: SetOption) -> str | None:
    """A settings button: switch one option."""
    user = current_user(update)
    session = await _creator_session(kol, update, press.session)
    schema = {o.name: o for o in REGISTRY[session.game_id].options_schema}
    if press.name not in schema:
        raise Refusal("bad_option", press.name)
    value = decode_value(schema[press.name], press.value)
    session = await kol.manager.set_option(session.id, user.id, press.name, value)
    await settings_changed(kol, update, session)
    return None


async def settings_changed(kol: Koloda, update: Update, session: Session) -> None:
    """After a setting changed: the creator's menu and the lobby everyone sees."""
    await show_menu(kol, update, session, "settings")
    if session.kind == "group":
        await kol.presenter.refresh(session)


async def on_timer(kol: Koloda, update: Update, press: SetTimer) -> str | None:
    """The turn-timer settings button."""
    session = await kol.manager.set_timer(press.session, current_user(update).id, press.value)
    await settings_changed(kol, update, session)
    return None


def typed_range(session: Session, name: str) -> tuple[int, int]:
    """The whole numbers a creator may type for setting ``name`` (``timer``: minutes)."""
    if name == "timer":
        return TIMER_RANGE[0] // 60, TIMER_RANGE[1] // 60
    for option in REGISTRY[session.game_id].options_schema:
        if option.name == name and option.low is not None and option.high is not None:
            return option.low, option.high
    raise Refusal("bad_option", name)


def typed_name(session: Session, name: str, lang: str) -> str:
    """What the prompt calls the setting being typed."""
    if name == "timer":
        return t(lang, "option-timer-minutes")
    return option_name(session.game_id, name, lang)


async def on_type_value(kol: Koloda, update: Update, press: TypeValue) -> str | None:
    """ "✏️ Type" next to a setting: ask the creator for a number, as a reply (the prompt
    is remembered as the session's ``prompt:<setting>`` message)."""
    session = await _creator_session(kol, update, press.session)
    low, high = typed_range(session, press.name)
    user = current_user(update)
    group = session.kind == "group" and session.chat_id is not None
    chat_id = session.chat_id if group and session.chat_id is not None else user.id
    lang = await kol.presenter.chat_language(chat_id)
    # numbers as typed (str: Fluent would group the digits, "1 440")
    text = t(lang, "type-value-prompt", option=esc(typed_name(session, press.name, lang)),
             low=str(low), high=str(high))
    if group:  # only the creator gets the reply field: the prompt mentions them
        text = f"{mention(session.seats[session.seat_of(user.id) or 0], lang)} {text}"
    kol.presenter.background(_ask(kol, session, press.name, chat_id, text, f"{low}–{high}"))
    return None


async def _ask(
    kol: Koloda, session: Session, name: str, chat_id: int, text: str, placeholder: str
) -> None:
    """Post the "type a value" prompt (in the background: the chat's budget may be
    spent) and remember it as the session's ``prompt:<name>`` message."""
    try:
        thread = session.thread if chat_id == session.chat_id else 0
        message_id = await kol.presenter.ask(chat_id, text, placeholder, thread)
    except TelegramError as error:
        log.warning("the prompt for %s was not sent: %s", name, error)
        return
    if message_id is not None:
        await kol.messages.posted(session.id, f"{PROMPT}{name}", chat_id, message_id,
                                  session.version)


async def on_typed_value(update: Update, context: KolodaContext) -> None:
    """A reply to a "✏️ Type" prompt: set that setting, or say what a good value is."""
    kol = context.koloda
    message = update.effective_message
    asked = message.reply_to_message if message is not None else None
    if message is None or asked is None or asked.from_user is None:
        return
    if asked.from_user.id != context.bot.id:
        return
    session = await chat_session(kol, update)
    if session is None:
        return
    refs = await kol.messages.of(session.id)
    name = next(
        (
            ref.purpose.removeprefix(PROMPT)
            for ref in refs
            if ref.purpose.startswith(PROMPT)
            and ref.chat_id == message.chat.id
            and ref.message_id == asked.message_id
        ),
        None,
    )
    if name is None:
        return
    lang = chat_lang()
    typed = (message.text or "").strip()
    try:
        low, high = typed_range(session, name)
        number = ascii_number(typed, 9)
        if number is None or not low <= number <= high:
            what = esc(typed_name(session, name, lang))
            reply(kol, update, t(lang, "type-value-bad", value=esc(typed[:40]), option=what,
                                 low=str(low), high=str(high)))
            return
        user_id = current_user(update).id
        if name == "timer":
            changed = await kol.manager.set_timer(session.id, user_id, number * 60)
        else:
            changed = await kol.manager.set_option(session.id, user_id, name, number)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))
        return
    await kol.messages.forget(session.id, f"{PROMPT}{name}")
    kol.presenter.delete(message.chat.id, asked.message_id)  # answered
    await settings_changed(kol, update, changed)


HANDLERS: list[Handler] = [
    button(Computers, on_levels),
    button(VersusComputer, on_levels),
    button(Settings, on_settings),
    button(SetOption, on_option),
    button(SetTimer, on_timer),
    button(TypeValue, on_type_value),
    MessageHandler(filters.REPLY & filters.TEXT & ~filters.COMMAND, on_typed_value),
]

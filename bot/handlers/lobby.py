"""Opening tables, seating players, settings, invites: /new /join /leave /cancel /start."""

from __future__ import annotations

from telegram import Update, User
from telegram.ext import BaseHandler, CommandHandler, ContextTypes

from bot.callback import Verb
from bot.handlers.common import (
    Koloda,
    display_name,
    is_admin,
    is_private,
    lang_here,
    lang_of,
    parts,
    popup,
    refusal_text,
    reply,
)
from bot.i18n import t
from bot.present import TABLE, hand_purpose
from bot.render.common import Button, Screen, screen
from bot.render.lobby import decode_value, render_levels, render_settings
from bot.render.result import render_game_menu
from bot.sessions import Refusal, Session
from games import REGISTRY

GAME_ALIASES = {
    alias: gid for gid in REGISTRY for alias in (gid, gid.replace("_", "-"), gid.replace("_", ""))
}


def find_game(text: str) -> str | None:
    """A game id from what a user typed (``king``, ``two-ten-jack`` …)."""
    return GAME_ALIASES.get(text.strip().lower())


def message_slot(session: Session, user_id: int) -> tuple[str, int] | None:
    """(purpose, chat) of the message this user sees the session's lobby in."""
    if session.kind == "group" and session.chat_id is not None:
        return TABLE, session.chat_id
    seat = session.seat_of(user_id)
    return (hand_purpose(seat), user_id) if seat is not None else None


# ---------------------------------------------------------------- opening


async def open_table(
    kol: Koloda, update: Update, game_id: str, menu_message_id: int | None = None
) -> None:
    """Create a lobby for ``game_id`` in this chat and show it."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    kind = "private" if is_private(update) else "group"
    session = await kol.manager.create(chat.id, kind, user.id, display_name(user), game_id)
    if menu_message_id is not None:
        purpose = TABLE if kind == "group" else hand_purpose(0)
        await kol.manager.set_message(session.id, purpose, chat.id, menu_message_id)
    await kol.presenter.refresh(session)


async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/new [game]: a game menu, or a lobby for the named game."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    if not context.args:
        await kol.io.send(chat.id, render_game_menu(list(REGISTRY), lang))
        return
    game_id = find_game(context.args[0])
    if game_id is None:
        await reply(update, t(lang, "unknown-game", games=", ".join(REGISTRY)))
        return
    try:
        await open_table(kol, update, game_id)
    except Refusal as refusal:
        await reply(update, refusal_text(lang, refusal))


async def on_new(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """A game picked from the /new menu: the menu message becomes the lobby."""
    game_id = find_game(verb.args[0])
    if game_id is None:
        raise Refusal("unknown_game", verb.args[0])
    query = update.callback_query
    message_id = query.message.message_id if query and query.message else None
    await open_table(kol, update, game_id, message_id)
    return None


# ---------------------------------------------------------------- seating


async def greet_private(kol: Koloda, user: User, session: Session) -> bool:
    """Tell a new player their hand will come privately; False if we cannot write to them."""
    lang = await lang_of(kol, user)
    game = t(lang, f"game-{session.game_id}")
    sent = await kol.io.send(user.id, screen(t(lang, "joined-private", game=game)))
    if sent is not None:
        await kol.manager.set_reachable(user.id, True)
    return sent is not None


async def seat_user(kol: Koloda, update: Update, session_id: int) -> str | None:
    """Join a lobby; returns a deep link to open if the user's private chat is closed."""
    user = update.effective_user
    assert user is not None
    session = await kol.manager.join(session_id, user.id, display_name(user))
    await kol.presenter.refresh(session)
    if await greet_private(kol, user, session):
        return None
    return kol.presenter.link(f"h{session.id}")


async def on_join(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The Join button."""
    link = await seat_user(kol, update, verb.session)
    query = update.callback_query
    if link is not None and query is not None:
        await popup(query, url=link)
        return ""
    return None


async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/join: sit at this chat's table."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    session = await kol.manager.open_in_chat(chat.id)
    if session is None:
        await reply(update, t(lang, "no-open-game"))
        return
    try:
        link = await seat_user(kol, update, session.id)
    except Refusal as refusal:
        await reply(update, refusal_text(lang, refusal))
        return
    if link is not None:
        await kol.io.send(chat.id, _link_screen(lang, link))


def _link_screen(lang: str, link: str) -> Screen:
    return screen(t(lang, "need-private"), [[Button(t(lang, "button-open-private"), url=link)]])


async def on_leave(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The Leave button (or /leave)."""
    user = update.effective_user
    assert user is not None
    seat = (await kol.manager.get(verb.session)).seat_of(user.id)
    session = await kol.manager.leave(verb.session, user.id)
    if session.status == "running" and seat is not None:  # a computer plays the seat now
        await kol.presenter.seat_released(session, seat, user.id, "left")
    await kol.presenter.refresh(session)
    return t(await lang_of(kol, user), "left")


async def _chat_session(kol: Koloda, update: Update) -> Session | None:
    """The session a command in this chat is about."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if not is_private(update):
        return await kol.manager.open_in_chat(chat.id)
    mine = [s for s in await kol.manager.sessions_of_user(user.id) if s.kind == "private"]
    return mine[-1] if mine else None


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/leave: leave this chat's table."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    session = await _chat_session(kol, update)
    if session is None:
        await reply(update, t(lang, "no-open-game"))
        return
    try:
        await reply(update, await on_leave(kol, update, Verb("leave", session.id)) or "")
    except Refusal as refusal:
        await reply(update, refusal_text(lang, refusal))


async def cancel_session(kol: Koloda, update: Update, session_id: int) -> None:
    """Cancel a table (its creator, or a group admin)."""
    user = update.effective_user
    assert user is not None
    session = await kol.manager.get(session_id)
    admin = session.creator_id != user.id and await is_admin(update, kol.io.bot)
    cancelled = await kol.manager.cancel(session_id, user.id, is_admin=admin)
    await kol.presenter.refresh(cancelled)


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/cancel: cancel this chat's table."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    session = await _chat_session(kol, update)
    if session is None:
        await reply(update, t(lang, "no-open-game"))
        return
    try:
        await cancel_session(kol, update, session.id)
    except Refusal as refusal:
        await reply(update, refusal_text(lang, refusal))


# ---------------------------------------------------------------- menus


async def _creator_session(kol: Koloda, update: Update, session_id: int) -> Session:
    """The session, if the presser created it (Refusal otherwise)."""
    user = update.effective_user
    assert user is not None
    session = await kol.manager.get(session_id)
    if session.status != "lobby":
        raise Refusal("not_in_lobby")
    if session.creator_id != user.id:
        raise Refusal("not_creator")
    return session


async def _show_menu(kol: Koloda, update: Update, session: Session, which: str) -> None:
    user = update.effective_user
    assert user is not None
    slot = message_slot(session, user.id)
    if slot is None:
        return
    purpose, chat_id = slot
    lang = await kol.langs.of_chat(chat_id)
    game = REGISTRY[session.game_id]
    menu = (
        render_levels(session.id, session.game_id, lang)
        if which == "levels"
        else render_settings(
            session.id, session.game_id, game.options_schema, session.options, session.timer, lang
        )
    )
    kol.io.show(session.id, purpose, chat_id, menu, session.version)


async def on_levels(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """ "Add computer" / "Play the computer": the level menu."""
    await _show_menu(kol, update, await _creator_session(kol, update, verb.session), "levels")
    return None


async def on_settings(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The settings menu."""
    await _show_menu(kol, update, await _creator_session(kol, update, verb.session), "settings")
    return None


async def on_option(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """A settings button: switch one option."""
    user = update.effective_user
    assert user is not None
    session = await _creator_session(kol, update, verb.session)
    name, text = verb.args
    schema = {o.name: o for o in REGISTRY[session.game_id].options_schema}
    if name not in schema:
        raise Refusal("bad_option", name)
    session = await kol.manager.set_option(
        session.id, user.id, name, decode_value(schema[name], text)
    )
    await _show_menu(kol, update, session, "settings")
    return None


async def on_timer(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The turn-timer settings button."""
    user = update.effective_user
    assert user is not None
    text = verb.args[0]
    seconds = None if text == "off" else int(text) if text.isdigit() else -1
    session = await kol.manager.set_timer(verb.session, user.id, seconds)
    await _show_menu(kol, update, session, "settings")
    return None


async def on_back(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """Back from a menu to the lobby."""
    await kol.presenter.refresh(await kol.manager.get(verb.session))
    return None


async def on_computer(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """A level picked: add a computer (a private duel fills up and starts)."""
    user = update.effective_user
    assert user is not None
    level = verb.args[0]
    session = await kol.manager.add_computer(verb.session, user.id, level)
    if session.kind == "private":
        needed = REGISTRY[session.game_id].min_players
        while len(session.seats) < needed:
            session = await kol.manager.add_computer(session.id, user.id, level)
        session = (await kol.manager.start(session.id, user.id)).session
    await kol.presenter.refresh(session)
    return None


async def on_start(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """Start: deal the first hand."""
    user = update.effective_user
    assert user is not None
    outcome = await kol.manager.start(verb.session, user.id)
    await kol.presenter.refresh(outcome.session)
    return None


async def on_cancel(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The Cancel button."""
    await cancel_session(kol, update, verb.session)
    return None


async def on_again(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """Play again: same seats and options, a new deal."""
    user = update.effective_user
    assert user is not None
    outcome = await kol.manager.rematch(verb.session, user.id)
    await kol.presenter.refresh(outcome.session)
    return None


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CommandHandler("new", cmd_new),
    CommandHandler("join", cmd_join),
    CommandHandler("leave", cmd_leave),
    CommandHandler("cancel", cmd_cancel),
]

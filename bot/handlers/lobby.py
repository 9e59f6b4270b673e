"""Opening tables, seating players, leaving, cancelling: /new /join /leave /cancel."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import Update, User
from telegram.error import TelegramError
from telegram.ext import CommandHandler

from bot.callback import (
    AddComputer,
    Again,
    Back,
    Cancel,
    Join,
    Leave,
    NewGame,
    Reclaim,
    Start,
)
from bot.context import Koloda, KolodaContext
from bot.handlers.common import (
    Handler,
    args_of,
    button,
    chat_lang,
    current_user,
    display_name,
    is_admin,
    is_private,
    popup,
    refusal_text,
    reply,
    topic,
    user_lang,
)
from bot.i18n import t
from bot.render.common import Button, Screen, game_name, screen
from bot.render.result import render_game_menu
from games import REGISTRY
from sessions import TABLE, Refusal, Session, hand_purpose

log = logging.getLogger(__name__)


def find_game(text: str) -> str | None:
    """A game id from what a user typed: its id (``king``, ``two-ten-jack`` …) or its
    name in either language (``кинг``, ``Мау-мау``)."""
    wanted = _simple(text)
    for game_id in REGISTRY:
        names = {game_id, *(game_name(game_id, lang) for lang in ("en", "ru"))}
        if wanted in {_simple(name) for name in names}:
            return game_id
    return None


class NoSuchGame(Exception):
    """A command named a game we do not know (its menu was sent instead)."""


def game_argument(
    kol: Koloda, context: KolodaContext, chat_id: int, lang: str,
    args: list[str] | None = None,
) -> str | None:
    """The game a command names (``/score king``; ``args``: the words that may name it,
    default all), None if it names none; if it names one we do not know, the game menu
    is sent and :class:`NoSuchGame` raised."""
    args = args_of(context) if args is None else args
    if not args:
        return None
    game_id = find_game(" ".join(args))
    if game_id is None:
        kol.presenter.reply(chat_id, render_game_menu(list(REGISTRY), lang, unknown=True))
        raise NoSuchGame(" ".join(args))
    return game_id


def _simple(text: str) -> str:
    return "".join(ch for ch in text.strip().lower().replace("ё", "е") if ch.isalnum())


# ---------------------------------------------------------------- opening


async def open_table(
    kol: Koloda, update: Update, game_id: str, menu_message_id: int | None = None
) -> None:
    """Create a lobby for ``game_id`` in this chat and show it."""
    chat, user = update.effective_chat, current_user(update)
    assert chat is not None
    kind = "private" if is_private(update) else "group"
    session = await kol.manager.create(
        chat.id, kind, user.id, display_name(user), game_id, topic(update)
    )
    if menu_message_id is not None:
        purpose = TABLE if kind == "group" else hand_purpose(0)
        await kol.messages.posted(session.id, purpose, chat.id, menu_message_id, 0)
    await kol.presenter.refresh(session)


async def cmd_new(update: Update, context: KolodaContext) -> None:
    """/new [game]: a game menu, or a lobby for the named game."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    args = args_of(context)
    if not args:
        kol.presenter.reply(chat.id, render_game_menu(list(REGISTRY), lang))
        return
    game_id = find_game(" ".join(args))
    if game_id is None:
        kol.presenter.reply(chat.id, render_game_menu(list(REGISTRY), lang, unknown=True))
        return
    try:
        await open_table(kol, update, game_id)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))


async def on_new(kol: Koloda, update: Update, press: NewGame) -> str | None:
    """A game picked from the /new menu: the menu message becomes the lobby."""
    game_id = find_game(press.game)
    if game_id is None:
        raise Refusal("unknown_game", press.game)
    query = update.callback_query
    message_id = query.message.message_id if query and query.message else None
    await open_table(kol, update, game_id, message_id)
    return None


# ---------------------------------------------------------------- seating


async def greet_private(kol: Koloda, user: User, session: Session) -> bool:
    """Tell a new player their hand will come privately; False if we cannot write to them."""
    lang = user_lang()
    game = t(lang, f"game-{session.game_id}")
    sent = await kol.presenter.reply_now(user.id, screen(t(lang, "joined-private", game=game)))
    if sent is not None:
        await kol.prefs.set_reachable(user.id, True)
    return sent is not None


async def seat_user(
    kol: Koloda, update: Update, session_id: int, then: Callable[[str | None], Awaitable[None]]
) -> None:
    """Join a lobby (or take back one's seat from the computer). Once that is committed
    the update is handled; the private greeting goes in the background and ``then`` gets
    a deep link to open if the user's private chat is closed (None if greeted)."""
    user = current_user(update)
    session = await kol.manager.get(session_id)
    if session.status == "running" and any(p.stands_in_for == user.id for p in session.seats):
        session = await kol.manager.reclaim(session_id, user.id)
    else:
        session = await kol.manager.join(session_id, user.id, display_name(user))
    await kol.presenter.refresh(session)
    kol.presenter.background(_greet(kol, user, session, then))


async def _greet(
    kol: Koloda, user: User, session: Session, then: Callable[[str | None], Awaitable[None]]
) -> None:
    try:
        greeted = await greet_private(kol, user, session)
    except TelegramError as error:  # lost or refused: the link does no harm
        log.warning("could not greet %s privately: %s", user.id, error)
        greeted = False
    await then(None if greeted else kol.presenter.hand_link(session))


async def on_join(kol: Koloda, update: Update, press: Join) -> str | None:
    """The Join button, on the lobby in its own group only (the button router refuses
    it anywhere else: ``check_own_chat``)."""
    return await _seat_by_button(kol, update, press.session)


async def on_reclaim(kol: Koloda, update: Update, press: Reclaim) -> str | None:
    """ "Take my seat back" on the table (or in the private chat that offers it)."""
    return await _seat_by_button(kol, update, press.session)


async def _seat_by_button(kol: Koloda, update: Update, session_id: int) -> str:
    """Seat the presser (answered once the greeting is sent: with a link if it could not be)."""
    query = update.callback_query
    assert query is not None

    async def answer(link: str | None) -> None:
        await popup(query, url=link)

    await seat_user(kol, update, session_id, answer)
    return ""


async def cmd_join(update: Update, context: KolodaContext) -> None:
    """/join: sit at this chat's table (or take your seat back from the computer)."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    session = await kol.manager.open_in_chat(chat.id, topic(update))
    if session is None:
        reply(kol, update, t(lang, "no-open-game"))
        return

    async def offer(link: str | None) -> None:
        if link is not None:
            kol.presenter.reply(chat.id, _link_screen(lang, link))

    try:
        await seat_user(kol, update, session.id, offer)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))


def _link_screen(lang: str, link: str) -> Screen:
    return screen(t(lang, "need-private"), [[Button(t(lang, "button-open-private"), url=link)]])


async def leave(kol: Koloda, update: Update, session_id: int) -> None:
    """Leave a table: a lobby frees the seat, a running game hands it to the computer."""
    outcome = await kol.manager.leave(session_id, current_user(update).id)
    await kol.presenter.on_outcome(outcome)


async def on_leave(kol: Koloda, update: Update, press: Leave) -> str | None:
    """The Leave button."""
    await leave(kol, update, press.session)
    return t(user_lang(), "left")


async def chat_session(kol: Koloda, update: Update) -> Session | None:
    """The session a command in this chat is about."""
    chat, user = update.effective_chat, current_user(update)
    assert chat is not None
    if not is_private(update):  # in a forum, the table of the topic it was sent in
        return await kol.manager.open_in_chat(chat.id, topic(update))
    mine = [s for s in await kol.manager.sessions_of_user(user.id) if s.kind == "private"]
    return mine[-1] if mine else None


async def cmd_leave(update: Update, context: KolodaContext) -> None:
    """/leave: leave this chat's table."""
    kol = context.koloda
    lang = chat_lang()
    session = await chat_session(kol, update)
    if session is None:
        reply(kol, update, t(lang, "no-open-game"))
        return
    try:
        await leave(kol, update, session.id)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))
        return
    reply(kol, update, t(lang, "left"))


async def cancel_session(kol: Koloda, update: Update, session_id: int) -> None:
    """Cancel a table (its creator, or a group admin)."""
    user = current_user(update)
    session = await kol.manager.get(session_id)
    admin = session.creator_id != user.id and await is_admin(
        update.get_bot(), session.chat_id if session.kind == "group" else None, user.id)
    cancelled = await kol.manager.cancel(session_id, user.id, is_admin=admin)
    kol.presenter.close_menu(cancelled)
    await kol.presenter.refresh(cancelled)


async def cmd_cancel(update: Update, context: KolodaContext) -> None:
    """/cancel: cancel this chat's table."""
    kol = context.koloda
    lang = chat_lang()
    session = await chat_session(kol, update)
    if session is None:
        reply(kol, update, t(lang, "no-open-game"))
        return
    try:
        await cancel_session(kol, update, session.id)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))


# ---------------------------------------------------------------- lobby buttons


async def on_back(kol: Koloda, update: Update, press: Back) -> str | None:
    """Back from a menu to the lobby (a running game: the button no longer applies)."""
    session = await kol.manager.get(press.session)
    if session.status != "lobby":
        raise Refusal("not_in_lobby", session.status)
    kol.presenter.close_menu(session)
    await kol.presenter.refresh(session)
    return None


async def on_computer(kol: Koloda, update: Update, press: AddComputer) -> str | None:
    """A level picked: add a computer (a private duel fills up and starts, in one step)."""
    user = current_user(update)
    session = await kol.manager.get(press.session)
    if session.kind == "private":
        outcome = await kol.manager.play_computer(press.session, user.id, press.level)
        await kol.presenter.refresh(outcome.session)
        return None
    session = await kol.manager.add_computer(press.session, user.id, press.level)
    await kol.presenter.refresh(session)
    return None


async def on_start(kol: Koloda, update: Update, press: Start) -> str | None:
    """Start: deal the first hand."""
    outcome = await kol.manager.start(press.session, current_user(update).id)
    kol.presenter.close_menu(outcome.session)
    await kol.presenter.refresh(outcome.session)
    return None


async def on_cancel(kol: Koloda, update: Update, press: Cancel) -> str | None:
    """The Cancel button."""
    await cancel_session(kol, update, press.session)
    return None


async def on_again(kol: Koloda, update: Update, press: Again) -> str | None:
    """Play again: same seats and options, a new deal (once: later presses lead to
    that rematch and say so)."""
    user = current_user(update)
    outcome = await kol.manager.rematch(press.session, user.id)
    await kol.presenter.refresh(outcome.session)
    if any(event["type"] == "rematch_exists" for event in outcome.events):
        return t(user_lang(), "rematch-exists")
    return None


HANDLERS: list[Handler] = [
    CommandHandler("new", cmd_new),
    CommandHandler("join", cmd_join),
    CommandHandler("leave", cmd_leave),
    CommandHandler("cancel", cmd_cancel),
    button(NewGame, on_new),
    button(Join, on_join),
    button(Reclaim, on_reclaim),
    button(AddComputer, on_computer),
    button(Back, on_back),
    button(Start, on_start),
    button(Cancel, on_cancel),
    button(Leave, on_leave),
    button(Again, on_again),
]

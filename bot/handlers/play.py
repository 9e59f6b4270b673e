"""Playing: move buttons, "My hand" (ephemeral), /hand and /table."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import suppress

from telegram import CallbackQuery, Update, User
from telegram.error import TelegramError
from telegram.ext import CommandHandler

from bot.callback import Move, ShowHand
from bot.context import Koloda, KolodaContext
from bot.handlers.common import (
    Handler,
    button,
    chat_lang,
    current_user,
    is_private,
    popup,
    reply,
    topic,
    user_lang,
)
from bot.handlers.start import show_hand
from bot.i18n import t
from bot.render.common import Button, screen
from sessions import Outcome, Refusal, Session

log = logging.getLogger(__name__)


async def play_move(
    kol: Koloda,
    session_id: int,
    user_id: int,
    version: int,
    action: str,
    behind: Callable[[Session], None] | None = None,
) -> Outcome:
    """Make a move as its button does (the chat's, or the Mini App's tap) and draw it.

    A press from a picture that is behind the table (``applied``: the move was made;
    ``stale``: others were) draws the table again, tells ``behind`` of it, and the
    refusal is raised on."""
    try:
        outcome = await kol.manager.act(session_id, user_id, version, action)
    except Refusal as refusal:
        if refusal.code in ("applied", "stale"):
            # a crash came before the last picture was delivered, or an edit was lost
            session = await kol.manager.get(session_id)
            await kol.presenter.refresh(session)
            if behind is not None:
                behind(session)
        raise
    await kol.presenter.on_outcome(outcome)
    return outcome


async def on_move(kol: Koloda, update: Update, move: Move) -> str | None:
    """A move button: act, then draw every message of the table (and the presser's
    hand again if their buttons were behind)."""
    user, query = current_user(update), update.callback_query

    def redraw(session: Session) -> None:
        if query is not None:
            from_private = query.message is not None and query.message.chat.id == user.id
            kol.presenter.redraw_pressed(session, user.id, user_lang(), from_private, query.id)

    await play_move(kol, move.session, user.id, move.version, move.action, redraw)
    return None


def _seat(session: Session, user_id: int) -> int:
    seat = session.seat_of(user_id)
    if seat is None:
        raise Refusal("not_a_player")
    if session.status != "running" or session.game is None:
        raise Refusal("not_running")
    return seat


async def on_hand(kol: Koloda, update: Update, press: ShowHand) -> str | None:
    """ "My hand" on the table: an ephemeral message only the presser sees.

    Nothing changes, so the press is handled at once: the message goes in the
    background (the group's flood pace must not hold the update's confirmation
    back), and the press is answered once it is sent.
    """
    query, user = update.callback_query, current_user(update)
    assert query is not None
    session = await kol.manager.get(press.session)
    seat = _seat(session, user.id)
    if session.chat_id is None or session.kind != "group":
        await show_hand(kol, user, session.id)
        return None
    sending = _send_hand(kol, query, user, session, seat)
    if not kol.presenter.background_once(("hand", session.id, user.id), sending):
        return None  # pressed again while it is on its way: that one answers
    return ""


async def _send_hand(
    kol: Koloda, query: CallbackQuery, user: User, session: Session, seat: int
) -> None:
    """Send the ephemeral hand and answer the press; if Telegram refuses it or the
    request is lost, the hand goes to the private chat and the answer opens that chat."""
    lang = user_lang()  # only this player sees it: their own language
    try:
        await kol.presenter.send_hand(session, seat, user.id, lang, query.id)
    except TelegramError as error:
        log.warning("ephemeral hand not sent (%s); using the private chat", error)
        with suppress(Refusal):  # the seat went to a computer meanwhile
            await show_hand(kol, user, session.id)
        await popup(query, url=kol.presenter.hand_link(session))
        return
    await popup(query)
    current = await kol.manager.get(session.id)
    if current.version != session.version and current.status == "running":
        # moves were made while it was on its way: show the hand as it is now
        kol.presenter.keep_hand(current, seat, lang)


async def cmd_hand(update: Update, context: KolodaContext) -> None:
    """/hand: in a private chat, post your hands again; in a group, a link to that chat."""
    kol = context.koloda
    lang = chat_lang()
    user, chat = current_user(update), update.effective_chat
    assert chat is not None
    if not is_private(update):
        session = await kol.manager.open_in_chat(chat.id, topic(update))
        if session is None or session.seat_of(user.id) is None:
            reply(kol, update, t(lang, "no-game-of-yours"))
            return
        if session.status == "lobby":
            reply(kol, update, t(lang, "hand-not-dealt"))
            return
        link = kol.presenter.hand_link(session)
        button_ = Button(t(lang, "button-private-hand"), url=link)
        kol.presenter.reply(chat.id, screen(t(lang, "hand-in-private"), [[button_]]))
        return
    if not await show_hands(kol, update):
        reply(kol, update, t(lang, "no-game-of-yours"))


async def show_hands(kol: Koloda, update: Update) -> bool:
    """Post every running hand of the user here; False if they sit at no table."""
    user = current_user(update)
    sessions = await kol.manager.sessions_of_user(user.id)
    for session in sessions:
        await show_hand(kol, user, session.id)
    return bool(sessions)


async def cmd_table(update: Update, context: KolodaContext) -> None:
    """/table: post the table message again (the new one is then kept current)."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    if is_private(update):
        mine = [s for s in await kol.manager.sessions_of_user(current_user(update).id)
                if s.kind == "private"]
        if mine:
            await show_hand(kol, current_user(update), mine[-1].id)
            return
        reply(kol, update, t(lang, "no-open-game"))
        return
    session = await kol.manager.open_in_chat(chat.id, topic(update))
    if session is None:
        reply(kol, update, t(lang, "no-open-game"))
        return
    await kol.presenter.repost(session)


HANDLERS: list[Handler] = [
    CommandHandler("hand", cmd_hand),
    CommandHandler("table", cmd_table),
    button(Move, on_move),
    button(ShowHand, on_hand),
]

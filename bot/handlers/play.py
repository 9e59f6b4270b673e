"""Playing: move buttons, "My hand" (ephemeral), /hand and /table."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import BaseHandler, CommandHandler, ContextTypes

from bot.callback import Move, Verb
from bot.handlers.common import (
    Koloda,
    is_private,
    lang_here,
    lang_of,
    parts,
    popup,
    reply,
)
from bot.handlers.start import show_hand
from bot.i18n import t
from bot.render.common import Button, screen
from bot.sessions import Refusal, Session

log = logging.getLogger(__name__)


async def on_move(kol: Koloda, update: Update, move: Move) -> str | None:
    """A move button: act, then re-render every message of the table."""
    user = update.effective_user
    assert user is not None
    try:
        outcome = await kol.manager.act(move.session, user.id, move.version, move.action)
    except Refusal as refusal:
        if refusal.code in ("applied", "stale"):
            # the presser's buttons are behind the table: a crash came before the last
            # picture was delivered, or an edit was lost; draw the table again
            await kol.presenter.refresh(await kol.manager.get(move.session))
        raise
    await kol.presenter.on_outcome(outcome)
    return None


def _seat(session: Session, user_id: int) -> int:
    seat = session.seat_of(user_id)
    if seat is None:
        raise Refusal("not_a_player")
    if session.status != "running" or session.game is None:
        raise Refusal("not_running")
    return seat


async def on_hand(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """ "My hand" on the table: an ephemeral message only the presser sees.

    Bot API 10.2 ``sendMessage`` with ``ephemeral_message_parameters``: PTB 22.8
    does not know the parameter, so it travels in ``api_kwargs`` (PTB refuses
    ``do_api_request`` for a method it wraps). If Telegram refuses it, the hand
    goes to the private chat and the pop-up opens that chat.
    """
    query, user, chat = update.callback_query, update.effective_user, update.effective_chat
    assert query is not None and user is not None
    session = await kol.manager.get(verb.session)
    seat = _seat(session, user.id)
    if chat is None or session.chat_id is None or session.kind != "group":
        await show_hand(kol, update, session.id)
        return None
    lang = await lang_of(kol, user)  # only this player sees it: their own language
    hand = kol.presenter.hand_screen(session, seat, lang, with_table=False)
    ephemeral = {"receiver_user_id": user.id, "callback_query_id": query.id}
    try:
        sent = await kol.io.bot.send_message(
            session.chat_id,
            hand.text,
            parse_mode=ParseMode.HTML,
            reply_markup=hand.markup(),
            api_kwargs={"ephemeral_message_parameters": ephemeral},
        )
    except BadRequest as error:
        log.info("ephemeral hand refused (%s); using the private chat", error.message)
        await popup(query, url=kol.presenter.link(f"h{session.id}"))
        return ""
    kol.io.track_ephemeral(session.id, seat, session.chat_id, user.id, sent.message_id, hand)
    return None


async def _group_session(kol: Koloda, update: Update) -> Session | None:
    chat = update.effective_chat
    assert chat is not None
    return await kol.manager.open_in_chat(chat.id)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/hand: in a private chat, post your hands again; in a group, a link to that chat."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if not is_private(update):
        session = await _group_session(kol, update)
        if session is None or session.seat_of(user.id) is None:
            await reply(update, t(lang, "no-game-of-yours"))
            return
        button = Button(t(lang, "button-private-hand"), url=kol.presenter.link(f"h{session.id}"))
        await kol.io.send(chat.id, screen(t(lang, "hand-in-private"), [[button]]))
        return
    sessions = [s for s in await kol.manager.sessions_of_user(user.id) if s.status == "running"]
    if not sessions:
        await reply(update, t(lang, "no-game-of-yours"))
    for session in sessions:
        await show_hand(kol, update, session.id)


async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/table: post the table message again (the new one is then kept current)."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    session = None if is_private(update) else await _group_session(kol, update)
    if session is None:
        await reply(update, t(lang, "no-open-game"))
        return
    await kol.presenter.refresh(session, repost_table=True)


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CommandHandler("hand", cmd_hand),
    CommandHandler("table", cmd_table),
]

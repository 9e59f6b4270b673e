"""Deep links and invitations: /start, "Invite a friend", private hand messages.

Payloads of ``t.me/<bot>?start=…``: ``h<session>`` shows your hand here,
``j<session>`` joins a group table, ``i<code>`` accepts a duel invitation.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import BaseHandler, CommandHandler, ContextTypes

from bot.callback import Verb
from bot.handlers.common import (
    Koloda,
    display_name,
    is_private,
    lang_here,
    lang_of,
    parts,
    refusal_text,
    reply,
)
from bot.i18n import t
from bot.present import hand_purpose
from bot.render.common import screen
from bot.sessions import Refusal
from games import REGISTRY


async def on_invite(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """Invite a friend: a single-use deep link to forward."""
    user = update.effective_user
    assert user is not None
    code = await kol.manager.create_invite(verb.session, user.id)
    lang = await lang_of(kol, user)
    await kol.io.send(user.id, screen(t(lang, "invite-text", link=kol.presenter.link(f"i{code}"))))
    return None


async def _accept(kol: Koloda, update: Update, code: str) -> None:
    user = update.effective_user
    assert user is not None
    session = await kol.manager.accept_invite(code, user.id, display_name(user))
    await kol.manager.set_reachable(user.id, True)
    if len(session.seats) >= REGISTRY[session.game_id].min_players:
        session = (await kol.manager.start(session.id, session.creator_id)).session
    await kol.presenter.refresh(session)


async def show_hand(kol: Koloda, update: Update, session_id: int) -> None:
    """Post the user's private hand message for a session afresh."""
    user = update.effective_user
    assert user is not None
    await kol.manager.set_reachable(user.id, True)
    session = await kol.manager.get(session_id)
    seat = session.seat_of(user.id)
    if seat is None:
        raise Refusal("not_a_player")
    lang = await lang_of(kol, user)
    if session.kind == "group" and session.status == "lobby":
        game = t(lang, f"game-{session.game_id}")
        await kol.io.send(user.id, screen(t(lang, "joined-private", game=game)))
        return
    kol.io.show(
        session.id,
        hand_purpose(seat),
        user.id,
        kol.presenter.private_screen(session, seat, lang),
        session.version,
        repost=True,
    )


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start [payload]: a welcome, or a deep link (h<session>, j<session>, i<invite>)."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    payload = context.args[0] if context.args else ""
    user = update.effective_user
    try:
        if is_private(update) and user is not None:
            await kol.manager.set_reachable(user.id, True)
        if payload[:1] == "i" and len(payload) > 1:
            await _accept(kol, update, payload[1:])
        elif payload[:1] in ("h", "j") and payload[1:].isdigit():
            session = await kol.manager.get(int(payload[1:]))
            if payload[0] == "j" and user is not None and session.seat_of(user.id) is None:
                session = await kol.manager.join(session.id, user.id, display_name(user))
                await kol.presenter.refresh(session)
            await show_hand(kol, update, session.id)
        else:
            await reply(update, t(lang, "welcome"))
    except Refusal as refusal:
        await reply(update, refusal_text(lang, refusal))


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CommandHandler("start", cmd_start),
]

"""Deep links and invitations: /start, "Invite a friend", private hand messages.

Payloads of ``t.me/<bot>?start=…``: ``h<link>`` shows your hand here (``j<link>``,
of older links, alike), ``i<code>`` accepts a duel invitation. ``<link>`` is the
session's unguessable token (:attr:`sessions.Session.link`), never its number,
and shows only the seat one already has: a seat is taken by the lobby's own
Join button (whose answer opens this chat by ``h<link>`` for a player who never
started the bot) or by a duel's single-use invite.
"""

from __future__ import annotations

import re

from telegram import Update, User
from telegram.ext import CommandHandler

from bot.callback import Invite
from bot.context import Koloda, KolodaContext
from bot.handlers.common import (
    Handler,
    args_of,
    button,
    chat_lang,
    current_user,
    display_name,
    is_private,
    refusal_text,
    reply,
    user_lang,
)
from bot.i18n import t
from bot.render.common import screen
from bot.render.daily import render_daily_menu
from games import REGISTRY
from sessions import Refusal

#: What a session's deep-link token may be made of (Telegram's start parameter).
LINK_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,63}")


async def on_invite(kol: Koloda, update: Update, press: Invite) -> str | None:
    """Invite a friend: a single-use deep link to forward."""
    user = current_user(update)
    code = await kol.manager.create_invite(press.session, user.id)
    lang = user_lang()
    link = kol.presenter.link(f"i{code}")
    kol.presenter.reply(user.id, screen(t(lang, "invite-text", link=link)))
    return None


async def _accept(kol: Koloda, user: User, code: str) -> None:
    outcome = await kol.manager.accept_invite(code, user.id, display_name(user))
    await kol.presenter.refresh(outcome.session)


async def show_hand(kol: Koloda, user: User, session_id: int) -> None:
    """Post the user's private message for a session afresh (their hand, the lobby, or
    the offer to take back the seat a computer plays for them)."""
    session = await kol.manager.get(session_id)
    await kol.presenter.post_private(session, user.id, user_lang())


async def cmd_start(update: Update, context: KolodaContext) -> None:
    """/start [payload]: a welcome (with the current hands), or a deep link
    (h<link>, j<link>, i<invite>, daily)."""
    kol = context.koloda
    lang = chat_lang()
    args = args_of(context)
    payload = args[0] if args else ""
    user = current_user(update)
    try:
        if is_private(update):
            await kol.prefs.set_reachable(user.id, True)
        if payload[:1] == "i" and len(payload) > 1:
            await _accept(kol, user, payload[1:])
        elif payload == "daily" and is_private(update):
            kol.presenter.reply(user.id, render_daily_menu(list(REGISTRY), lang))
        elif payload[:1] in ("h", "j") and LINK_TOKEN.fullmatch(payload[1:]):
            session = await kol.manager.by_link(payload[1:])
            await show_hand(kol, user, session.id)
        else:
            reply(kol, update, t(lang, "welcome"))
            if is_private(update):
                for session in await kol.manager.sessions_of_user(user.id):
                    await show_hand(kol, user, session.id)
    except Refusal as refusal:
        reply(kol, update, refusal_text(lang, refusal))


HANDLERS: list[Handler] = [
    CommandHandler("start", cmd_start),
    button(Invite, on_invite),
]

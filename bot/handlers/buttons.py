"""Every button press: decode the data, route it, and always answer the query."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import CallbackQuery, Update
from telegram.error import BadRequest
from telegram.ext import BaseHandler, CallbackQueryHandler, ContextTypes

from bot.callback import BadCallback, Move, Verb, unpack
from bot.handlers import admin, lobby, play, score, start
from bot.handlers.common import Koloda, lang_of, parts, popup, refusal_text
from bot.i18n import t
from bot.sessions import Refusal

log = logging.getLogger(__name__)

VerbHandler = Callable[[Koloda, Update, Verb], Awaitable[str | None]]

ROUTES: dict[str, VerbHandler] = {
    "new": lobby.on_new,
    "join": lobby.on_join,
    "comps": lobby.on_levels,
    "vs": lobby.on_levels,
    "comp": lobby.on_computer,
    "sets": lobby.on_settings,
    "opt": lobby.on_option,
    "timer": lobby.on_timer,
    "back": lobby.on_back,
    "start": lobby.on_start,
    "cancel": lobby.on_cancel,
    "leave": lobby.on_leave,
    "again": lobby.on_again,
    "invite": start.on_invite,
    "hand": play.on_hand,
    "score": score.on_score,
    "lang": admin.on_lang,
}


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Route a press; a forged, stale, foreign or out-of-turn one gets a pop-up."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    kol = parts(context)
    lang = await lang_of(kol, user)
    try:
        press = unpack(query.data)
        if isinstance(press, Move):
            note = await play.on_move(kol, update, press)
        else:
            note = await ROUTES[press.verb](kol, update, press)
    except BadCallback as error:
        log.info("bad callback data from %s: %s", user.id, error)
        note = t(lang, "bad-button")
    except Refusal as refusal:
        # "applied": the same press again (after a crash); it worked, so no pop-up
        note = None if refusal.code == "applied" else refusal_text(lang, refusal)
    if note == "":  # the handler answered already
        return
    # Answered in the background: the press counts as handled (bot/updates.py) once
    # its move is committed, without waiting for Telegram's answer to the answer.
    context.application.create_task(_answer(query, note), update=update)


async def _answer(query: CallbackQuery, note: str | None) -> None:
    try:
        await popup(query, note)
    except BadRequest as error:
        # answered too late, or already: a press delivered again after a restart
        log.info("could not answer a callback query: %s", error.message)


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CallbackQueryHandler(on_button),
]

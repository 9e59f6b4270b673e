"""Forum topics closed, reopened or deleted under a table.

Telegram tells the bot of a closed or reopened topic by a service message in it
(``forum_topic_closed``, ``forum_topic_reopened``); a deleted topic only shows
in the refusal of the next send or edit there ("message thread not found"), as
does a closed one whose service message the bot missed (``TOPIC_CLOSED``).
Delivery classifies those refusals (:meth:`bot.delivery.Delivery.subscribe_topics`)
and both paths end here: a closed topic makes its running table wait (the players
are told privately), a reopened one lets it go on, a deleted one cancels it with
its match kept in /history. Each change is logged once.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import MessageHandler, filters

from bot.context import Koloda, KolodaContext
from bot.handlers.common import Handler, topic
from bot.i18n import t
from bot.render.common import game_name, screen
from sessions import TABLE, Session, hand_purpose

log = logging.getLogger(__name__)


async def topic_changed(kol: Koloda, chat_id: int, thread: int, state: str) -> None:
    """What became of forum topic ``thread`` of ``chat_id`` (``closed``, ``open`` or
    ``gone``) does to the table in it, if there is one."""
    table = await kol.manager.open_in_chat(chat_id, thread)
    if table is None or table.kind != "group":
        return
    if state == "closed":
        waiting = await kol.manager.topic_closed(table.id)
        if waiting is not None:
            log.warning("topic %s/%s is closed: table %s waits for it", chat_id, thread,
                        table.id)
            await _tell_players(kol, waiting, "topic-closed-players")
    elif state == "open":
        kol.delivery.topic_reopened(chat_id, thread)
        going = await kol.manager.topic_reopened(table.id)
        if going is not None:
            log.info("topic %s/%s is open again: table %s goes on", chat_id, thread, table.id)
            await kol.presenter.refresh(going, only=_every_message(going))
            await _tell_players(kol, going, "topic-reopened-players")
    elif state == "gone":
        ended = await kol.manager.topic_gone(table.id)
        if ended is not None:
            log.warning("topic %s/%s is gone: table %s is cancelled", chat_id, thread,
                        table.id)
            await kol.presenter.table_gone(ended)
            await _tell_players(kol, ended, "topic-gone-players")


def _every_message(session: Session) -> list[str]:
    """The table and every human's hand: what a table that waited draws again."""
    return [TABLE, *(hand_purpose(seat) for seat, p in enumerate(session.seats)
                     if p.user_id is not None)]


async def _tell_players(kol: Koloda, session: Session, key: str) -> None:
    """A private word to each human at the table (those who opened a chat with the bot)."""
    for user_id in session.humans:
        if not await kol.prefs.reachable(user_id):
            continue
        lang = await kol.presenter.user_language(user_id)
        kol.presenter.reply(user_id, screen(t(lang, key, game=game_name(session.game_id, lang))),
                            thread=0)


async def on_topic_closed(update: Update, context: KolodaContext) -> None:
    """A ``forum_topic_closed`` service message: the table in that topic waits."""
    await _on_service(update, context, "closed")


async def on_topic_reopened(update: Update, context: KolodaContext) -> None:
    """A ``forum_topic_reopened`` service message: the table in that topic goes on."""
    await _on_service(update, context, "open")


async def _on_service(update: Update, context: KolodaContext, state: str) -> None:
    thread, chat = topic(update), update.effective_chat
    if thread and chat is not None:
        await topic_changed(context.koloda, chat.id, thread, state)


HANDLERS: list[Handler] = [
    MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CLOSED, on_topic_closed),
    MessageHandler(filters.StatusUpdate.FORUM_TOPIC_REOPENED, on_topic_reopened),
]

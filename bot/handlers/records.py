"""Records: 📜 Deal (a finished deal as played), 📄 Match record (a document), /history.

Both are rebuilt from the stored seed and move log (``SessionManager.deal_records``),
so they work for any finished match, also after a restart, and show only
finished deals.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from telegram import CallbackQuery, Update
from telegram.error import TelegramError
from telegram.ext import CommandHandler

from bot.callback import CompareButton, DealButton, MatchRecordButton, ReviewButton
from bot.context import Koloda, KolodaContext
from bot.handlers.common import Handler, button, chat_lang, current_user, popup, user_lang
from bot.i18n import t
from bot.render.common import MAX_CAPTION, Screen, esc, game_name, screen, seat_name
from bot.render.compare import compare_button, render_compare
from bot.render.record import (
    match_record,
    record_filename,
    render_deal,
    render_history,
    seed_lines,
)
from bot.render.review import render_review, review_button
from bot.render.text import fit
from sessions import Refusal, Session
from sessions.daily import revealed
from sessions.review import Job, Ticket, reviewing_seat

log = logging.getLogger(__name__)

#: Matches /history lists.
HISTORY = 10

Answer = TypeVar("Answer")


async def deal_screen(
    kol: Koloda, session_id: int, deal_no: int, lang: str, viewer: int | None = None
) -> tuple[Session, Screen]:
    """The session and the record of its finished deal ``deal_no`` (0 first), as the
    📜 Deal button shows it (also the Mini App's); ``Refusal`` if it is not finished.
    A ``viewer`` who played the deal gets the 📈 Review button under it, and beside it
    ⚖️ Compare once their daily play is over."""
    session, records = await kol.manager.deal_records(session_id, viewer)
    if not 0 <= deal_no < len(records):
        raise Refusal("deal_not_finished")
    seed = _seed(kol, session, session.status in ("finished", "cancelled"), lang)
    player = viewer is not None and reviewing_seat(session, viewer) is not None
    rows = [[review_button(session.id, deal_no, lang)]] if player else []
    if player and session.daily is not None and session.status == "finished":
        rows[0].append(compare_button(session.id, deal_no, lang))
    return session, render_deal(records[deal_no], session.game_id, session.seats, lang, seed, rows)


async def on_deal(kol: Koloda, update: Update, press: DealButton) -> str | None:
    """📜 Deal: the finished deal's record — ephemeral in a group (only the presser
    sees it), a message in a private chat."""
    query, user, chat = update.callback_query, current_user(update), update.effective_chat
    assert query is not None
    deal_no = press.deal
    session, shown = await deal_screen(kol, press.session, deal_no, user_lang(), user.id)
    if chat is not None and chat.id < 0:
        posting = _post_deal(kol, query, chat.id, user.id, shown)
        if not kol.presenter.background_once(("deal", session.id, deal_no, user.id), posting):
            return None  # pressed again while it is on its way
        return ""  # answered once it is sent
    kol.presenter.reply(user.id, shown)
    return None


async def _post_deal(
    kol: Koloda, query: CallbackQuery, chat_id: int, user_id: int, shown: Screen,
    thread: int | None = None,
) -> None:
    """The deal record as an ephemeral message (in the background, after the group's
    screens; in forum topic ``thread``, None: the asking one), else in the presser's
    private chat; the press answered once it is sent."""
    try:
        await kol.presenter.reply_ephemeral(chat_id, user_id, shown, query.id, thread)
    except TelegramError as error:
        log.warning("ephemeral deal record not sent (%s); using the private chat", error)
        kol.presenter.reply(user_id, shown)
    await popup(query)


async def on_review(kol: Koloda, update: Update, press: ReviewButton) -> str | None:
    """📈 Review: the strong computer's look at the presser's own decisions in the deal."""
    lang = user_lang()
    session = await kol.manager.get(press.session)
    # no await from the ticket on: a run reserved for the user is always started
    ticket = await kol.manager.review_deal(press.session, press.deal, current_user(update).id)
    return _answer(kol, update, session, press.deal, ticket, "review",
                   lambda review: render_review(review, session.seats, lang))


async def on_compare(kol: Koloda, update: Update, press: CompareButton) -> str | None:
    """⚖️ Compare: the presser's daily deal beside the day's best other player's and the
    strong computer's choices."""
    lang = user_lang()
    session = await kol.manager.get(press.session)
    # no await from the ticket on: a run reserved for the user is always started
    ticket = await kol.manager.compare_deal(press.session, press.deal, current_user(update).id)
    return _answer(kol, update, session, press.deal, ticket, "compare",
                   lambda comparison: render_compare(comparison, lang))


def _answer(
    kol: Koloda, update: Update, session: Session, deal_no: int, ticket: Ticket[Answer],
    job: Job, draw: Callable[[Answer], Screen],
) -> str | None:
    """Answer a press on 📈 Review or ⚖️ Compare (``job``, which names its texts) from
    its ticket. A kept answer is shown at once (in a group, once while it is on its way,
    as 📜 Deal: each post spends one of the group's sends); a new one runs in the
    computer players' pool at low priority (the press is answered "started" at once)
    and is shown when done — ephemeral in a group, in the private chat otherwise; a
    doubled press while it runs starts nothing."""
    query, user, chat = update.callback_query, current_user(update), update.effective_chat
    assert query is not None
    lang = user_lang()
    if ticket.running:
        return t(lang, f"{job}-running")
    # a press on the ephemeral record carries no chat: the table's group and topic it is
    where = chat.id if chat is not None else session.chat_id
    thread = None if chat is not None else session.thread
    group = where if where is not None and where < 0 else None
    if ticket.kept is not None:
        shown = draw(ticket.kept)
        if group is not None:
            posting = _post_deal(kol, query, group, user.id, shown, thread)
            if not kol.presenter.background_once((job, session.id, deal_no, user.id), posting):
                return None  # pressed again while it is on its way
            return ""  # answered once it is sent
        kol.presenter.reply(user.id, shown)
        return None
    run = ticket.run
    assert run is not None

    async def running() -> None:
        try:
            shown = draw(await run())
        except Exception:  # the computer failed: say so, never leave the user waiting
            log.exception("no %s of session %s deal %s", job, session.id, deal_no)
            kol.presenter.reply(user.id, screen(t(lang, f"{job}-failed")))
            return
        if group is None:
            kol.presenter.reply(user.id, shown)
            return
        try:
            await kol.presenter.reply_ephemeral(group, user.id, shown, query.id, thread)
        except TelegramError as error:
            log.warning("ephemeral %s not sent (%s); using the private chat", job, error)
            kol.presenter.reply(user.id, shown)

    kol.presenter.background(running())
    return t(lang, f"{job}-started", n=deal_no + 1)


async def on_match_record(kol: Koloda, update: Update, press: MatchRecordButton) -> str | None:
    """📄 Match record: ``koloda-<game>-<date>.txt`` with every deal and the final
    scores, in the chat's language, sent where the button was pressed."""
    chat = update.effective_chat
    session, records = await kol.manager.deal_records(press.session, current_user(update).id)
    if session.status != "finished" or session.result is None:
        raise Refusal("not_finished")
    chat_id = chat.id if chat is not None else current_user(update).id
    lang = chat_lang()
    seed = _seed(kol, session, True, lang)
    text = match_record(
        session.game_id, records, session.seats, session.result, session.created_at, lang, seed
    )
    caption = t(lang, "record-caption", game=esc(game_name(session.game_id, lang)))
    caption = fit(caption, MAX_CAPTION)
    kol.presenter.document(
        chat_id, record_filename(session.game_id, session.created_at), text.encode(), caption
    )
    return None


async def cmd_history(update: Update, context: KolodaContext) -> None:
    """/history: this chat's last ten finished matches, a record button for each."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    found = await kol.manager.finished_in_chat(chat.id, HISTORY)
    matches = [
        (
            s.id,
            s.game_id,
            s.created_at,
            [seat_name(s.seats[w], lang) for w in (s.result or {}).get("winners", [])],
        )
        for s in found
    ]
    kol.presenter.reply(chat.id, render_history(matches, lang))


def _seed(kol: Koloda, session: Session, over: bool, lang: str) -> list[str]:
    """The match's seed lines: its commitment, or, once it is ``over`` (and a daily
    deal's day is over too), the seed and the command that re-deals it."""
    shown = over and revealed(session, kol.manager.clock())
    return seed_lines(session.game_id, len(session.seats), session.options, session.seed,
                      shown, lang, daily=session.daily is not None)


HANDLERS: list[Handler] = [
    CommandHandler("history", cmd_history),
    button(DealButton, on_deal),
    button(MatchRecordButton, on_match_record),
    button(ReviewButton, on_review),
    button(CompareButton, on_compare),
]

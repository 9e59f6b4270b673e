"""Ratings: /top (a chat's leaderboard, or the overall one in private; /top season:
this month's) and /stats."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from bot.context import KolodaContext
from bot.handlers.common import (
    Handler,
    args_of,
    chat_lang,
    current_user,
    is_private,
    season_argument,
)
from bot.handlers.lobby import NoSuchGame, game_argument
from bot.i18n import t
from bot.render.common import screen
from bot.render.daily import streak_line
from bot.render.ratings import TOP_EACH_GAME, TOP_ONE_GAME, rating_lines, render_top
from bot.render.result import render_tally
from bot.render.seasons import month_text
from sessions import OVERALL


async def cmd_top(update: Update, context: KolodaContext) -> None:
    """/top [game]: in a group its leaderboard, in a private chat the overall one;
    /top season [game]: this month's."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    season, args = season_argument(args_of(context))
    try:
        game_id = game_argument(kol, context, chat.id, lang, args)
    except NoSuchGame:
        return
    scope = OVERALL if is_private(update) else chat.id
    most = TOP_ONE_GAME if game_id is not None else TOP_EACH_GAME
    if not season:
        rows = await kol.manager.leaderboard(scope, game_id, most)
        kol.presenter.reply(chat.id, render_top(rows, scope, game_id, lang))
        return
    rows = await kol.manager.seasons.board(scope, game_id, most)
    month = month_text(kol.manager.seasons.this_month(), lang)
    kol.presenter.reply(chat.id, render_top(rows, scope, game_id, lang, month))


async def cmd_stats(update: Update, context: KolodaContext) -> None:
    """/stats: my record per game across chats, my overall rating and rank in each, and
    my daily deal streak."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    user = current_user(update)
    record = await kol.manager.user_stats(user.id)
    tally = render_tally(t(lang, "stats-title"), record, lang, "game")
    ratings = rating_lines(await kol.manager.user_ratings(user.id, OVERALL), lang)
    streak = await kol.manager.daily.streak(user.id)
    lines = [tally.text, *ratings]
    if streak.best:
        lines += ["", streak_line(streak, lang)]
    kol.presenter.reply(chat.id, screen("\n".join(lines)))


HANDLERS: list[Handler] = [
    CommandHandler("top", cmd_top),
    CommandHandler("stats", cmd_stats),
]

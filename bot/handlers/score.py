"""The tally and the rules: /score (/score season: this month's), /rules, and the "Show
score" button (/stats: ratings)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from bot.callback import Rules, Score
from bot.context import Koloda, KolodaContext
from bot.handlers.common import (
    Handler,
    args_of,
    button,
    chat_lang,
    is_private,
    season_argument,
    topic,
)
from bot.handlers.lobby import NoSuchGame, find_game, game_argument
from bot.i18n import t
from bot.render.common import Screen, game_name
from bot.render.result import render_rules, render_rules_menu, render_tally
from bot.render.seasons import month_text
from games import REGISTRY
from sessions import Refusal, Session


async def cmd_score(update: Update, context: KolodaContext) -> None:
    """/score [game]: this chat's tally, best first; /score season [game]: this month's."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    season, args = season_argument(args_of(context))
    try:
        game_id = game_argument(kol, context, chat.id, lang, args)
    except NoSuchGame:
        return
    key = "tally-title-game" if game_id else "tally-title"
    game = game_name(game_id, lang) if game_id else ""
    if season:
        rows = await kol.manager.seasons.tally(chat.id, game_id)
        month = month_text(kol.manager.seasons.this_month(), lang)
        title = t(lang, key + "-season", game=game, month=month)
    else:
        rows = await kol.manager.chat_tally(chat.id, game_id)
        title = t(lang, key, game=game)
    kol.presenter.reply(chat.id, render_tally(title, rows, lang, "name" if game_id else "both"))


async def on_score(kol: Koloda, update: Update, press: Score) -> str | None:
    """The "Show score" button under a result."""
    session = await kol.manager.get(press.session)
    chat = update.effective_chat
    chat_id = chat.id if chat is not None else session.chat_id
    if chat_id is None:
        return None
    lang = await kol.presenter.chat_language(chat_id)
    tally_chat = session.chat_id if session.chat_id is not None else chat_id
    rows = await kol.manager.chat_tally(tally_chat, session.game_id)
    title = t(lang, "tally-title-game", game=game_name(session.game_id, lang))
    kol.presenter.reply(chat_id, render_tally(title, rows, lang, "name"))
    return None


def rules_screen(game_id: str, session: Session | None, lang: str) -> Screen:
    """The rules of a game, with the table's options if ``session`` is a table of it."""
    game = REGISTRY[game_id]
    same = session is not None and session.game_id == game_id
    options = session.options if same and session else game.validate_options(game.min_players, {})
    timer = session.timer if same and session else None
    most = game.players_allowed(options)
    players = str(game.min_players) if game.min_players == most else f"{game.min_players}–{most}"
    return render_rules(game_id, game.options_schema, options, timer, players, lang)


async def cmd_rules(update: Update, context: KolodaContext) -> None:
    """/rules [game]: the rules (by id or localized name), with this chat's table options;
    without a game and no table here, a menu of the games."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    session = None if is_private(update) else await kol.manager.open_in_chat(chat.id, topic(update))
    args = args_of(context)
    game_id = find_game(" ".join(args)) if args else None
    if game_id is None and session is not None and not args:
        game_id = session.game_id
    if game_id is None:
        kol.presenter.reply(chat.id, render_rules_menu(list(REGISTRY), lang, unknown=bool(args)))
        return
    kol.presenter.reply(chat.id, rules_screen(game_id, session, lang))


async def on_rules(kol: Koloda, update: Update, press: Rules) -> str | None:
    """A game picked from the /rules menu."""
    game_id = find_game(press.game)
    chat = update.effective_chat
    if game_id is None or chat is None:
        raise Refusal("unknown_game", press.game)
    lang = chat_lang()
    session = None if is_private(update) else await kol.manager.open_in_chat(chat.id, topic(update))
    kol.presenter.reply(chat.id, rules_screen(game_id, session, lang))
    return None


HANDLERS: list[Handler] = [
    CommandHandler("score", cmd_score),
    CommandHandler("rules", cmd_rules),
    button(Score, on_score),
    button(Rules, on_rules),
]

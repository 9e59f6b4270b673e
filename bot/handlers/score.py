"""The tally and the rules: /score, /stats, /rules, and the "Show score" button."""

from __future__ import annotations

from telegram import Update
from telegram.ext import BaseHandler, CommandHandler, ContextTypes

from bot.callback import Verb
from bot.handlers.common import Koloda, is_private, lang_here, parts, reply
from bot.handlers.lobby import find_game
from bot.i18n import t
from bot.render.common import game_name
from bot.render.result import render_rules, render_tally
from games import REGISTRY


async def show_tally(kol: Koloda, chat_id: int, game_id: str | None, lang: str) -> None:
    """Post the chat's score tally (for one game or all)."""
    rows = await kol.manager.chat_tally(chat_id, game_id)
    title = (
        t(lang, "tally-title-game", game=game_name(game_id, lang))
        if game_id
        else t(lang, "tally-title")
    )
    await kol.io.send(chat_id, render_tally(title, rows, lang, "name" if game_id else "both"))


async def cmd_score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/score [game]: this chat's tally, best first."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    game_id = find_game(context.args[0]) if context.args else None
    if context.args and game_id is None:
        await reply(update, t(lang, "unknown-game", games=", ".join(REGISTRY)))
        return
    await show_tally(kol, chat.id, game_id, lang)


async def on_score(kol: Koloda, update: Update, verb: Verb) -> str | None:
    """The "Show score" button under a result."""
    session = await kol.manager.get(verb.session)
    chat = update.effective_chat
    chat_id = chat.id if chat is not None else session.chat_id
    if chat_id is None:
        return None
    lang = await kol.langs.of_chat(chat_id)
    tally_chat = session.chat_id if session.chat_id is not None else chat_id
    rows = await kol.manager.chat_tally(tally_chat, session.game_id)
    title = t(lang, "tally-title-game", game=game_name(session.game_id, lang))
    await kol.io.send(chat_id, render_tally(title, rows, lang, "name"))
    return None


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stats: my record per game, across chats."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    rows = await kol.manager.user_stats(user.id)
    await kol.io.send(chat.id, render_tally(t(lang, "stats-title"), rows, lang, "game"))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules [game]: the rules, with this chat's table options if a table is open."""
    kol = parts(context)
    lang = await lang_here(kol, update)
    chat = update.effective_chat
    assert chat is not None
    session = None if is_private(update) else await kol.manager.open_in_chat(chat.id)
    game_id = find_game(context.args[0]) if context.args else None
    if game_id is None and session is not None and not context.args:
        game_id = session.game_id
    if game_id is None:
        await reply(update, t(lang, "unknown-game", games=", ".join(REGISTRY)))
        return
    game = REGISTRY[game_id]
    same = session is not None and session.game_id == game_id
    options = session.options if same and session else game.validate_options(game.min_players, {})
    timer = session.timer if same and session else None
    players = (
        str(game.min_players)
        if game.min_players == game.max_players
        else f"{game.min_players}–{game.max_players}"
    )
    await kol.io.send(
        chat.id, render_rules(game_id, game.options_schema, options, timer, players, lang)
    )


HANDLERS: list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]] = [
    CommandHandler("score", cmd_score),
    CommandHandler("stats", cmd_stats),
    CommandHandler("rules", cmd_rules),
]

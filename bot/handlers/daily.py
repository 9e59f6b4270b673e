"""The daily deal: /daily [game] in a private chat, /daily top [game] anywhere."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from bot.callback import DailyGame
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
from bot.handlers.lobby import find_game
from bot.i18n import t
from bot.render.common import Button, screen
from bot.render.daily import render_board, render_daily_menu, render_daily_start, render_standing
from games import REGISTRY
from games.verify import short_hash
from sessions import Refusal, Session

#: The word after /daily that asks for the board (either language).
TOP_WORDS = frozenset({"top", "топ"})


async def cmd_daily(update: Update, context: KolodaContext) -> None:
    """/daily [game]: play the day's deal (private chats); /daily top [game]: its board."""
    kol = context.koloda
    lang = chat_lang()
    chat = update.effective_chat
    assert chat is not None
    args = args_of(context)
    if args and args[0].lower() in TOP_WORDS:
        await send_board(kol, update, " ".join(args[1:]), lang)
        return
    if not is_private(update):
        go = Button(t(lang, "button-daily-private"), url=kol.presenter.link("daily"))
        kol.presenter.reply(chat.id, screen(t(lang, "daily-in-group"), [[go]]))
        return
    game_id = find_game(" ".join(args)) if args else None
    if game_id is None:
        kol.presenter.reply(chat.id, render_daily_menu(list(REGISTRY), lang))
        return
    await play_daily(kol, update, game_id, lang)


async def play_daily(kol: Koloda, update: Update, game_id: str, lang: str) -> None:
    """Deal the user today's deal of ``game_id``, or tell them their result if they
    have played it."""
    chat, user = update.effective_chat, current_user(update)
    assert chat is not None
    try:
        outcome = await kol.manager.daily.start(chat.id, user.id, display_name(user), game_id)
    except Refusal as refusal:
        if refusal.code == "daily_played":
            standing = await kol.manager.daily.standing(user.id, game_id)
            if standing is not None:
                again = render_standing(standing, lang, again=True, now=kol.manager.clock())
                kol.presenter.reply(chat.id, again)
                return
        reply(kol, update, refusal_text(lang, refusal))
        return
    kol.presenter.background(_deal(kol, outcome.session, chat.id, lang))


async def _deal(kol: Koloda, session: Session, chat_id: int, lang: str) -> None:
    """What the deal is and its seal first, then the table."""
    assert session.daily is not None and session.seed is not None
    start = render_daily_start(session.game_id, session.daily, short_hash(session.seed), lang)
    await kol.presenter.reply_now(chat_id, start)
    await kol.presenter.refresh(await kol.manager.get(session.id))


async def send_board(kol: Koloda, update: Update, game_text: str, lang: str) -> None:
    """Today's board: in a group its members', in a private chat everybody's; of the
    named game, else of every game (a group's: the games its members played)."""
    chat = update.effective_chat
    assert chat is not None
    group = not is_private(update)
    game_id = find_game(game_text) if game_text else None
    if game_id is not None:
        games = [game_id]
    elif group:
        games = await kol.manager.daily.games_played(chat.id)
    else:
        games = list(REGISTRY)
    scope = chat.id if group else None
    boards = [(game, await kol.manager.daily.board(game, scope)) for game in games]
    kol.presenter.reply(chat.id, render_board(kol.manager.daily.today(), boards, lang, group=group))


async def on_daily_game(kol: Koloda, update: Update, press: DailyGame) -> str | None:
    """A game picked from the /daily menu; pressed on a menu forwarded to a group, a
    pop-up saying where the daily deal is played."""
    if not is_private(update):
        return t(user_lang(), "daily-in-group")
    game_id = find_game(press.game)
    if game_id is None:
        raise Refusal("unknown_game", press.game)
    await play_daily(kol, update, game_id, chat_lang())
    return None


HANDLERS: list[Handler] = [
    CommandHandler("daily", cmd_daily),
    button(DailyGame, on_daily_game),
]

"""Wiring: the Application, its handlers, the session manager and start-up work.

``build_application`` is the only place where the bot is assembled; ``python
-m bot`` and the tests both use it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder

from bot.config import Settings
from bot.handlers import admin, buttons, lobby, play, score, start
from bot.handlers.common import KEY, Koloda
from bot.http import BotApiRequest
from bot.i18n import LANGUAGES, t
from bot.present import Languages, Presenter
from bot.sessions import Computer, SessionManager
from bot.telegram_io import Pacing, TelegramIO
from bot.updates import KolodaApplication, KolodaBot

log = logging.getLogger(__name__)

COMMANDS = (
    "new",
    "join",
    "leave",
    "hand",
    "table",
    "score",
    "stats",
    "rules",
    "settings",
    "cancel",
    "lang",
    "help",
)
#: Updates handled at once. Moves at different tables commit together (one
#: fsync for all of them), so more in flight costs less CPU per move: in the
#: load benchmark at G = 50, 16 → 64 took Eleven from about 390 to 465 moves/s.
#: One table's moves still go one at a time (its session's lock).
CONCURRENT_UPDATES = 64

PRIVATE_COMMANDS = ("start", "new", "hand", "stats", "rules", "settings", "lang", "help")

KolodaApp = Application[Any, Any, Any, Any, Any, Any]


class DatabaseUnavailable(Exception):
    """The store at DATABASE_URL cannot be opened (start-up stops)."""


def build_application(
    settings: Settings,
    computer: Computer,
    *,
    pacing: Pacing | None = None,
    rate_limiter: AIORateLimiter | None = None,
) -> KolodaApp:
    """The configured Application; the manager opens in ``startup``."""
    bot = KolodaBot(
        settings.token,
        base_url=settings.base_url,
        base_file_url=settings.base_file_url,
        request=BotApiRequest(),
        get_updates_request=BotApiRequest(connections=1),
        rate_limiter=rate_limiter or AIORateLimiter(max_retries=3),
    )
    builder = (
        ApplicationBuilder()
        .application_class(KolodaApplication)
        .bot(bot)
        .concurrent_updates(CONCURRENT_UPDATES)
        .post_init(startup)
        .post_stop(deliver_pending)
        .post_shutdown(shutdown)
    )
    app = builder.build()
    app.bot_data["settings"] = settings
    app.bot_data["computer"] = computer
    app.bot_data["pacing"] = pacing or Pacing()
    for module in (start, lobby, play, score, admin, buttons):
        app.add_handlers(module.HANDLERS)
    app.add_error_handler(admin.on_error)
    return app


async def startup(app: KolodaApp) -> None:
    """Open the store, subscribe to it, register commands, re-render open tables."""
    settings: Settings = app.bot_data["settings"]
    try:
        manager = await SessionManager.open(settings.database_url, app.bot_data["computer"])
    except (ValueError, OSError, sqlite3.Error) as error:
        raise DatabaseUnavailable(
            f"cannot open DATABASE_URL {settings.database_url}: {error}"
        ) from error
    langs = Languages(manager)
    io = TelegramIO(app.bot, manager, app.bot_data["pacing"])
    presenter = Presenter(manager, io, langs)
    presenter.username = app.bot.username
    kol = Koloda(manager, io, presenter, langs)
    io.on_chat_gone = lambda chat_id: admin.end_chat(kol, chat_id)
    app.bot_data[KEY] = kol
    manager.subscribe(presenter.on_outcome)
    await register_commands(app)
    restored = await presenter.restore()
    log.info("koloda is up as @%s; %d tables re-rendered", app.bot.username, restored)


async def deliver_pending(app: KolodaApp) -> None:
    """On the way down, while the Bot API client is still open: send what waits."""
    kol = app.bot_data.get(KEY)
    if isinstance(kol, Koloda):
        await kol.io.flush()


async def shutdown(app: KolodaApp) -> None:
    """Stop the deliveries and close the store."""
    kol = app.bot_data.get(KEY)
    if isinstance(kol, Koloda):
        await kol.io.close()
        await kol.manager.close()


def _commands(names: Sequence[str], lang: str) -> list[BotCommand]:
    return [BotCommand(name, t(lang, f"cmd-{name}")) for name in names]


async def register_commands(app: KolodaApp) -> None:
    """setMyCommands per scope (private, groups) and language (default English, ru)."""
    scopes = (
        (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
        (BotCommandScopeAllGroupChats(), COMMANDS),
        (BotCommandScopeDefault(), COMMANDS),
    )
    try:
        for scope, names in scopes:
            for lang in LANGUAGES:
                code = None if lang == "en" else lang
                await app.bot.set_my_commands(
                    _commands(names, lang), scope=scope, language_code=code
                )
    except TelegramError as error:
        log.warning("could not register the command list: %s", error)


def run(settings: Settings, computer: Computer) -> None:
    """Start polling until interrupted."""
    if settings.flood_limits:
        app = build_application(settings, computer)
    else:  # a fake Bot API without limits (the load benchmark): measure raw capacity
        unlimited = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
        app = build_application(
            settings, computer, pacing=Pacing(None, None, overall=None), rate_limiter=unlimited
        )
    loop = event_loop()
    asyncio.set_event_loop(loop)
    try:
        app.run_polling(allowed_updates=Update.ALL_TYPES, close_loop=False)
    finally:
        # a failed start-up skips PTB's shutdown: close the HTTP clients ourselves
        loop.run_until_complete(app.bot.shutdown())
        loop.close()


def event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop: uvloop's where it is installed (not on Windows).

    Same asyncio API; on loopback a Bot API call cost about a fifth to a third
    less CPU on it (measured over aiohttp, ``bench/README.md``).
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()

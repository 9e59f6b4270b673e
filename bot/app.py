"""Wiring: the Application, its handlers, the session layer and start-up work.

``build_application`` is the only place where the bot is assembled; ``python
-m bot`` and the tests both use it. The Application it builds holds its own
lifecycle hooks (``post_init``: :func:`startup`, ``post_stop``:
:func:`deliver_pending`, ``post_shutdown``: :func:`shutdown`) and knows nothing
of the transport: ``bot.__main__`` polls through its Updater or serves webhooks
(``bot.webhook``), and either runs the hooks PTB's way.
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
)
from telegram.error import TelegramError
from telegram.ext import ApplicationBuilder
from telegram.request import HTTPXRequest

from bot.cluster import Cluster, Pulse, newest_screens, turn_hands
from bot.config import Settings, masked_url
from bot.context import CONTEXT_TYPES, Koloda, KolodaApp
from bot.daily import DailyBoards
from bot.delivery import DEFER, Delivery
from bot.flood_limits import Limits
from bot.handlers import (
    admin,
    daily,
    hints,
    lobby,
    menus,
    play,
    ratings,
    records,
    score,
    start,
    topics,
)
from bot.handlers.common import chat_senders, requests, unknown_buttons
from bot.i18n import LANGUAGES, t
from bot.limiter import FloodLimiter
from bot.posts import Posts
from bot.present import Presenter
from bot.seasons import SeasonPosts
from bot.updates import KolodaApplication, KolodaBot, KolodaUpdater
from sessions import Computer, Messages, Preferences, SessionManager
from sessions.preferences import SHARED_TTL
from storage import DatabaseUnusable

log = logging.getLogger(__name__)

COMMANDS = (
    "new",
    "join",
    "leave",
    "hand",
    "table",
    "score",
    "stats",
    "top",
    "daily",
    "history",
    "rules",
    "settings",
    "cancel",
    "lang",
    "help",
)
PRIVATE_COMMANDS = (
    "start", "new", "daily", "hand", "stats", "top", "history", "rules", "settings", "lang",
    "help",
)
#: The handler modules, each exporting HANDLERS (a test checks every button kind has one).
HANDLER_MODULES = (
    start, lobby, menus, play, score, ratings, records, hints, admin, topics, daily,
)
#: Updates handled at once (one table's moves still go one at a time: its lock).
CONCURRENT_UPDATES = 64
#: Connections to the Bot API.
CONNECTIONS = 64


class DatabaseUnavailable(Exception):
    """The store at DATABASE_URL cannot be opened (start-up stops)."""


def build_application(
    settings: Settings,
    computer: Computer,
    *,
    limits: Limits | None = None,
    defer: float = DEFER,
) -> KolodaApp:
    """The configured Application; the session layer opens in ``startup``."""
    if limits is None:
        limits = Limits().scaled(settings.flood_scale) if settings.flood_limits else Limits.off()
    bot = KolodaBot(
        settings.token,
        base_url=settings.base_url,
        base_file_url=settings.base_file_url,
        request=HTTPXRequest(connection_pool_size=CONNECTIONS, read_timeout=10.0),
        get_updates_request=HTTPXRequest(connection_pool_size=2, read_timeout=30.0),
        rate_limiter=FloodLimiter(limits),
    )
    # typed loosely: PTB's builder changes its type parameters with every call
    builder: Any = (
        ApplicationBuilder()
        .application_class(KolodaApplication)
        .updater(KolodaUpdater(bot, asyncio.Queue()))  # used if the entry point polls
        .context_types(CONTEXT_TYPES)
        .concurrent_updates(CONCURRENT_UPDATES)
        .post_init(startup)
        .post_stop(deliver_pending)
        .post_shutdown(shutdown)
    )
    app: KolodaApp = builder.build()
    app.bot_data.settings = settings
    app.bot_data.computer = computer
    app.bot_data.defer = defer
    # PTB runs one handler per group: the request is noted first, then a message
    # from an anonymous admin or a channel is answered and stopped
    app.add_handler(requests(), group=-2)
    app.add_handler(chat_senders(), group=-1)
    for module in HANDLER_MODULES:
        app.add_handlers(module.HANDLERS)
    app.add_handler(unknown_buttons())
    app.add_error_handler(admin.on_error)
    return app


async def startup(app: KolodaApp) -> None:
    """Open the store, wire the parts, register commands, draw what is behind."""
    settings, computer = app.bot_data.settings, app.bot_data.computer
    assert settings is not None and computer is not None
    try:
        manager = await SessionManager.open(
            settings.database_url, computer, shared=settings.shared, lease=settings.lease_seconds
        )
    except (ValueError, OSError, sqlite3.Error, DatabaseUnusable) as error:
        raise DatabaseUnavailable(
            f"cannot open DATABASE_URL {masked_url(settings.database_url)}: {error}"
        ) from error
    prefs = Preferences(manager.store, ttl=SHARED_TTL if settings.shared else None)
    messages = Messages(manager.store)
    limiter = app.bot.rate_limiter
    assert isinstance(limiter, FloodLimiter)
    pulse = Pulse()  # this worker's own beats (shared: a slot it booked stays its own)
    if settings.shared:  # Telegram's budget is per token: every worker paces through one
        limiter.share(manager.reserve_send, pulse)
    delivery = Delivery(
        app.bot, limiter, messages, defer=app.bot_data.defer, shared=settings.shared,
        owner=manager.worker_id, lease=settings.lease_seconds,
    )
    presenter = Presenter(
        delivery, prefs, app.bot.username,
        miniapp_url=settings.miniapp_url, miniapp_name=settings.miniapp_name,
    )
    if settings.shared:  # a turn booked for a screen superseded meanwhile draws the
        # turn's hand if that is behind, else the newest screen
        delivery.draw_newest(newest_screens(manager, presenter), turn_hands(manager, presenter))
    kol = Koloda(manager, prefs, messages, delivery, presenter)
    if settings.miniapp_url is not None:
        await _start_miniapp(app, kol)

    async def closed(chat_id: int) -> None:
        """A chat refused us (403): a user's private chat is marked unreachable (the
        table then shows a deep-link button); a group's games end (the bot was removed)."""
        if chat_id > 0:
            await prefs.set_reachable(chat_id, False)
        else:
            await admin.end_chat(kol, chat_id)

    delivery.subscribe(closed)

    async def topic(chat_id: int, thread: int, state: str) -> None:
        """A table's forum topic was found closed or deleted, or open again."""
        await topics.topic_changed(kol, chat_id, thread, state)

    delivery.subscribe_topics(topic)
    app.bot_data.koloda = kol
    manager.subscribe(presenter.on_outcome)
    manager.start_tidying()
    boards = DailyBoards(manager, presenter)
    presenter.daily_finished = boards.finished
    seasons = SeasonPosts(manager, presenter)
    app.bot_data.posts = Posts([boards.close, seasons.close])
    app.bot_data.posts.start()
    await register_commands(app)
    drawn = await presenter.restore(manager)
    if settings.shared:  # other processes may leave work behind in the store
        app.bot_data.cluster = Cluster(
            manager, presenter, stuck=settings.lease_seconds, pulse=pulse
        )
        app.bot_data.cluster.start()
    log.info("koloda is up as @%s; %d tables were behind and are drawn", app.bot.username, drawn)


async def _start_miniapp(app: KolodaApp, kol: Koloda) -> None:
    """The Mini App's open pages, told of every change the presenter draws; a page
    server of its own when the bot polls (in webhook mode the webhook's serves it)."""
    from bot.miniapp import Pages
    from bot.miniapp.pace import UserPace
    from bot.miniapp.presence import Presence
    from bot.miniapp.server import catch_up, serve_beside

    settings = app.bot_data.settings
    assert settings is not None
    store = kol.manager.store
    if settings.shared:  # other workers commit and draw too
        pages = Pages(store.session_version,
                      presence=Presence(store, kol.manager.worker_id))
    else:
        pages = Pages()

    async def closed(session_id: int, user_id: int) -> None:
        await catch_up(kol, session_id, user_id)

    pages.on_closed = closed
    kol.presenter.pages = pages
    app.bot_data.pages = pages
    app.bot_data.pace = UserPace()
    if settings.webhook_url is None:
        app.bot_data.miniapp_runner = await serve_beside(app)


async def deliver_pending(app: KolodaApp) -> None:
    """On the way down, while the Bot API client is still open: stop the cluster
    duties and send what waits."""
    await _stop_cluster(app)
    kol = app.bot_data.koloda
    if kol is not None:
        await kol.delivery.flush()


async def shutdown(app: KolodaApp) -> None:
    """Stop the deliveries and close the store."""
    await _stop_cluster(app)  # PTB skips post_stop when the start failed
    runner, app.bot_data.miniapp_runner = app.bot_data.miniapp_runner, None
    if runner is not None:
        await runner.cleanup()
    if app.bot_data.pages is not None:
        await app.bot_data.pages.close()
    kol = app.bot_data.koloda
    if kol is not None:
        await kol.delivery.close()
        await kol.manager.close()


async def _stop_cluster(app: KolodaApp) -> None:
    posts, app.bot_data.posts = app.bot_data.posts, None
    if posts is not None:
        await posts.stop()
    cluster, app.bot_data.cluster = app.bot_data.cluster, None
    if cluster is not None:
        await cluster.stop()


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


"""Webhook mode: Telegram POSTs each update to the bot's own HTTP server (aiohttp).

Set by ``WEBHOOK_URL`` (the public HTTPS URL) and ``WEBHOOK_SECRET``. At start-up
the bot calls ``setWebhook`` with that URL, the secret as ``secret_token`` and
the update types it handles; Telegram then sends the secret back in the
``X-Telegram-Bot-Api-Secret-Token`` header of every request. This server
(PTB's ``examples/customwebhookbot`` shape: ``Application.process_update`` per
request) listens on ``PORT``:

- ``POST <path of WEBHOOK_URL>``: a request without the right secret gets 403
  and a WARNING line, and nothing is processed; otherwise the update is handled
  and answered 200 only once its change is committed (the handlers return after
  the commit; screens are delivered in the background). A worker that dies
  mid-update never answers, so Telegram delivers the update again — to any
  worker — and the store recognises a press already applied.
- ``GET /healthz``: 200 while the bot serves updates, 503 while it starts or
  stops (for a load balancer's health check).

On SIGTERM or SIGINT the server stops taking requests, lets those in flight
finish, delivers what waits and closes the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
from typing import Any

from aiohttp import web
from telegram import Update

from bot.cluster import Cluster
from bot.config import Settings
from bot.context import KolodaApp

log = logging.getLogger(__name__)

#: The header Telegram puts the webhook's ``secret_token`` in.
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
#: Seconds the requests in flight get to finish on the way down.
SHUTDOWN_GRACE = 30.0


class WebhookServer:
    """The aiohttp application that feeds Telegram's POSTs to a PTB Application."""

    def __init__(self, app: KolodaApp, path: str, secret: str) -> None:
        self.app = app
        self.path = path
        self._secret = secret.encode()
        #: True while updates are served (the health check says so)
        self.serving = False
        self.web = web.Application()
        self.web.router.add_post(path, self.receive)
        self.web.router.add_get(HEALTH_PATH, self.health)

    async def receive(self, request: web.Request) -> web.Response:
        """One update from Telegram: checked, handled, then 200."""
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            log.warning(
                "webhook request from %s with a %s secret token refused (403)",
                request.remote,
                "wrong" if given else "missing",
            )
            return web.Response(status=403)
        if not self.serving:
            return web.Response(status=503)  # Telegram tries again later
        try:
            data: Any = await request.json()
            update = Update.de_json(data, self.app.bot)
        except (ValueError, TypeError, KeyError) as error:
            log.warning("webhook request that is not an update refused (400): %s", error)
            return web.Response(status=400)
        await self.app.process_update(update)
        return web.Response()

    async def health(self, request: web.Request) -> web.Response:
        """200 while serving updates; 503 while starting or stopping."""
        if self.serving:
            return web.Response(text="ok\n")
        return web.Response(status=503, text="not serving\n")


async def serve(
    app: KolodaApp, settings: Settings, stop: asyncio.Event | None = None
) -> None:
    """Run the bot in webhook mode until SIGTERM or SIGINT, or ``stop`` is set (what
    ``run`` does with ``WEBHOOK_URL`` set). Start-up errors propagate as in polling
    mode."""
    from bot.app import deliver_pending, shutdown, startup  # bot.app imports this module

    assert settings.webhook_url is not None and settings.webhook_secret is not None
    server = WebhookServer(app, settings.webhook_path, settings.webhook_secret)
    runner = web.AppRunner(server.web, access_log=None, shutdown_timeout=SHUTDOWN_GRACE)
    cluster: Cluster | None = None
    await app.initialize()
    try:
        await startup(app)  # what post_init does in polling mode
        kol = app.bot_data.koloda
        assert kol is not None
        await runner.setup()
        site = web.TCPSite(runner, port=settings.port)
        await site.start()
        await app.bot.set_webhook(
            settings.webhook_url,
            secret_token=settings.webhook_secret,
            allowed_updates=Update.ALL_TYPES,
        )
        await app.start()
        if settings.shared:
            cluster = Cluster(kol, stuck=settings.lease_seconds)
            cluster.start()
        server.serving = True
        log.info("serving webhook updates at %s on port %d", settings.webhook_path, settings.port)
        await (stop.wait() if stop is not None else _until_signalled())
        server.serving = False
        log.info("stopping: finishing the updates in flight")
    finally:
        server.serving = False
        await runner.cleanup()  # stop accepting; requests in flight finish
        if cluster is not None:
            await cluster.stop()
        if app.running:
            await app.stop()
        await deliver_pending(app)
        await app.shutdown()
        await shutdown(app)


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()

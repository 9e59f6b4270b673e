"""Webhook mode: Telegram POSTs each update to the bot's own HTTP server (aiohttp).

Set by ``WEBHOOK_URL`` (the public HTTPS URL) and ``WEBHOOK_SECRET``. At start-up
the bot calls ``setWebhook`` with that URL, the secret as ``secret_token`` and
the update types it handles; Telegram then sends the secret back in the
``X-Telegram-Bot-Api-Secret-Token`` header of every request. This server
(PTB's ``examples/customwebhookbot`` shape: the Application handles each
request's update) listens on ``HOST`` (default all interfaces) and ``PORT``:

- ``POST <path of WEBHOOK_URL>``: a request without the right secret gets 403
  and a WARNING line, and nothing is processed; a body that is not an Update
  object gets 400 and a WARNING line; otherwise the update is handled and
  answered 200 only once its change is committed (the handlers return after the
  commit; screens are delivered in the background). If the store could not take
  it (bot/updates.py) the answer is 503 and Telegram sends it again; a bug is
  answered 200 on its third try (one ERROR line). A worker that dies mid-update
  never answers, so Telegram delivers the update again — to any worker — and the
  store recognises a press already applied.
- ``GET /healthz``: 200 while the bot serves updates and the database takes a
  write; 503 while it starts or stops, or the database is unavailable (for a
  load balancer's health check).

A connection gets :data:`READ_TIMEOUT` seconds to send its headers (and its
body), or it is dropped; beyond :data:`MAX_IN_FLIGHT` requests at once the
answer is 503.

On SIGTERM or SIGINT the server stops taking requests, lets those in flight
finish, delivers what waits and closes the store. :func:`serve` runs the
Application's lifecycle as PTB's ``run_webhook`` does — ``initialize``,
``post_init``, ``start``; ``stop``, ``post_stop``, ``shutdown``,
``post_shutdown`` — so what the bot does at start and stop is in the
Application's hooks (``bot.app``), not here.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from telegram import Update

from bot.config import Settings
from bot.context import KolodaApp
from bot.updates import KolodaApplication

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

log = logging.getLogger(__name__)

#: The header Telegram puts the webhook's ``secret_token`` in.
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
#: Seconds the requests in flight get to finish on the way down.
SHUTDOWN_GRACE = 30.0
#: Seconds a connection gets to send a request's headers (and an idle one stays
#: open), and a request to send its body: a slow client is dropped after that.
READ_TIMEOUT = 10.0
#: Requests handled at once; beyond that the answer is 503 (Telegram tries again).
MAX_IN_FLIGHT = 128
#: The largest body taken (an update is a few kilobytes).
MAX_BODY = 1 << 20
#: Seconds the health check gives the database to answer.
HEALTH_TIMEOUT = 3.0


class WebhookServer:
    """The aiohttp application that feeds Telegram's POSTs to a PTB Application."""

    def __init__(self, app: KolodaApp, path: str, secret: str) -> None:
        self.app = app
        self.path = path
        self._secret = secret.encode()
        #: True while updates are served (the health check says so)
        self.serving = False
        self.in_flight = 0
        #: the path of the Mini App's event streams: long-lived, so not counted in flight
        self.streams: str | None = None
        self.web = web.Application(
            middlewares=[self._bounded], client_max_size=MAX_BODY
        )
        self.web.router.add_post(path, self.receive)
        self.web.router.add_get(HEALTH_PATH, self.health)

    @web.middleware
    async def _bounded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """At most :data:`MAX_IN_FLIGHT` requests at once, each body read within
        :data:`READ_TIMEOUT`."""
        if self.streams is not None and request.path == self.streams:
            return await handler(request)
        if self.in_flight >= MAX_IN_FLIGHT:
            log.warning("webhook busy: %d requests in flight; answered 503", self.in_flight)
            return web.Response(status=503)
        self.in_flight += 1
        try:
            if request.can_read_body:
                try:
                    async with asyncio.timeout(READ_TIMEOUT):
                        await request.read()  # kept by aiohttp for the handler
                except TimeoutError:
                    log.warning("webhook request from %s too slow to send its body (408)",
                                request.remote)
                    return web.Response(status=408)
                except ConnectionError:  # the client hung up mid-body: nobody to answer
                    log.info("webhook request from %s dropped before its body", request.remote)
                    return web.Response(status=400)
            return await handler(request)
        finally:
            self.in_flight -= 1

    async def receive(self, request: web.Request) -> web.Response:
        """One update from Telegram: checked, handled, then 200 — or 503 if the store
        could not take it (Telegram sends it again)."""
        # a header that is not UTF-8 reaches here with surrogates: compare its bytes
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, self._secret):
            log.warning(
                "webhook request from %s with a %s secret token refused (403)",
                request.remote,
                "wrong" if given else "missing",
            )
            return web.Response(status=403)
        if not self.serving:
            return web.Response(status=503)  # Telegram tries again later
        update = await self._update(request)
        if update is None:
            return web.Response(status=400)
        app = self.app
        if isinstance(app, KolodaApplication):
            done = await app.handle(update)
        else:
            await app.process_update(update)
            done = True
        return web.Response() if done else web.Response(status=503)

    async def _update(self, request: web.Request) -> Update | None:
        """The request's Update, or None (with one WARNING line) if it is not one."""
        try:
            data: Any = json.loads(await request.read())
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, not an object")
            update = Update.de_json(data, self.app.bot)
            if update is None:
                raise ValueError("an empty object")
        except Exception as error:  # anything the decoder finds wrong with outside input
            text = " ".join(str(error).split())[:200] or type(error).__name__
            log.warning("webhook request that is not an update refused (400): %s", text)
            return None
        return update

    async def health(self, request: web.Request) -> web.Response:
        """200 while serving updates with a usable database; 503 while starting or
        stopping, or while the database cannot take a write."""
        if not self.serving:
            return web.Response(status=503, text="not serving\n")
        kol = self.app.bot_data.koloda
        if kol is not None:
            try:
                async with asyncio.timeout(HEALTH_TIMEOUT):
                    await kol.manager.store.ping(HEALTH_TIMEOUT)
            except Exception as error:
                text = " ".join(str(error).split()) or type(error).__name__
                log.warning("health check: the database is unavailable: %s", text)
                return web.Response(status=503, text="database unavailable\n")
        return web.Response(text="ok\n")


async def serve(
    app: KolodaApp, settings: Settings, stop: asyncio.Event | None = None
) -> None:
    """Run the bot in webhook mode until SIGTERM or SIGINT, or ``stop`` is set (what
    ``python -m bot`` does with ``WEBHOOK_URL`` set). Start-up errors propagate as in
    polling mode."""
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    server = WebhookServer(app, settings.webhook_path, settings.webhook_secret)
    if settings.miniapp_url is not None:  # the Mini App's page and API on the same server
        from bot.miniapp.server import MiniApp

        MiniApp(app, settings.miniapp_path).add_routes(server.web)
        server.streams = settings.miniapp_path + "api/stream"
    runner = web.AppRunner(
        server.web,
        access_log=None,
        shutdown_timeout=SHUTDOWN_GRACE,
        keepalive_timeout=READ_TIMEOUT,  # also drops a connection whose headers dawdle
    )
    await app.initialize()
    try:
        if app.post_init is not None:
            await app.post_init(app)
        await runner.setup()
        site = web.TCPSite(runner, host=settings.host, port=settings.port)
        await site.start()
        await app.bot.set_webhook(
            settings.webhook_url,
            secret_token=settings.webhook_secret,
            allowed_updates=Update.ALL_TYPES,
        )
        await app.start()
        server.serving = True
        log.info(
            "serving webhook updates at %s on %s port %d",
            settings.webhook_path, settings.host, settings.port,
        )
        await (stop.wait() if stop is not None else _until_signalled())
        server.serving = False
        log.info("stopping: finishing the updates in flight")
    finally:
        server.serving = False
        await runner.cleanup()  # stop accepting; requests in flight finish
        if app.running:
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()

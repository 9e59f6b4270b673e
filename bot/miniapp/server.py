"""The Mini App's routes on the bot's aiohttp server.

Under the path of ``MINIAPP_URL`` (``P``):

- ``GET P`` — the page; ``GET P static/<file>`` — its script, style and icon,
  all from this package (no CDN, no font from anywhere else).
- ``GET P api/view?t=<table>`` — the table as the user's seat sees it
  (:func:`bot.miniapp.payload.seat_view`; a spectator gets the public table).
- ``POST P api/move`` ``{"t", "version", "action"}`` — a move, applied
  exactly as its button in the chat would be (``SessionManager.act`` with the
  same version check and refusals, then drawn by the presenter); a refusal is
  answered ``{"ok": false, "text": <the pop-up the chat would show>}``. The
  actions ``hint`` and ``take-back`` are the chat's 💡 and ↩️ buttons,
  ``deal:<n>`` its 📜 Deal (the finished deal's record, answered as ``text``).
- ``GET P api/stream?t=<table>&auth=<initData>`` — server-sent events: the
  view at once, then again at every committed version (``EventSource`` cannot
  send headers, so the initData comes in the query).

Every request carries Telegram's initData (header ``X-Telegram-Init-Data``, or
``auth`` in the query for the stream), checked by :mod:`bot.miniapp.auth`;
without it, or with a forged or stale one, the answer is 401. Then, before
anything else is read, the user's pace (:mod:`bot.miniapp.pace`): past it the
answer is 429 with ``Retry-After``. ``<table>`` is
the session's unguessable link token (the same as its deep links'); a direct
link's ``startapp`` parameter carries it inside the signed initData.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

from aiohttp import web

from bot.context import Koloda, KolodaApp
from bot.handlers.common import refusal_text
from bot.handlers.play import play_move
from bot.handlers.records import deal_screen
from bot.i18n import language_from_code, t
from bot.miniapp.auth import MAX_AGE, AuthError, WebAppUser, validate
from bot.miniapp.live import Pages, TooManyPages
from bot.miniapp.pace import UserPace, retry_after
from bot.miniapp.payload import DEAL, seat_view
from bot.numbers import ascii_number
from bot.render.hints import hint_text
from bot.render.text import plain
from sessions import Refusal, Session, ephemeral_purpose, hand_purpose

log = logging.getLogger(__name__)

INIT_HEADER = "X-Telegram-Init-Data"
#: The page's files: name → content type.
STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
#: Seconds between keep-alive comments on an idle stream (proxies drop silent ones).
HEARTBEAT = 15.0
#: Seconds between checks that a stream's client is still there.
CHECK = 1.0
#: The longest table token taken (Session.link is 16 characters).
MAX_TOKEN = 64
#: What EventSource waits before it reconnects, in milliseconds.
RETRY_MS = 1000

Clock = Callable[[], float]
Part = TypeVar("Part")


def _files() -> dict[str, bytes]:
    folder = resources.files("bot.miniapp") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


class MiniApp:
    """The page and its API, over the running bot's parts."""

    def __init__(self, app: KolodaApp, path: str, clock: Clock = time.time) -> None:
        self.app = app
        self.path = path
        self.clock = clock
        self.files = _files()

    @property
    def pages(self) -> Pages:
        """The open pages (made at start-up, ``bot.app``)."""
        return _made(self.app.bot_data.pages)

    @property
    def pace(self) -> UserPace:
        """How fast each user may call the API (made at start-up, ``bot.app``)."""
        return _made(self.app.bot_data.pace)

    @property
    def kol(self) -> Koloda:
        """The bot's parts (503 before start-up finished)."""
        return _made(self.app.bot_data.koloda)

    def add_routes(self, web_app: web.Application) -> None:
        """Serve the page and its API on ``web_app`` under :attr:`path`."""
        router, path = web_app.router, self.path
        router.add_get(path, self.index)
        router.add_get(path + "static/{name}", self.static)
        router.add_get(path + "api/view", self.view)
        router.add_post(path + "api/move", self.move)
        router.add_get(path + "api/stream", self.stream)

    # ------------------------------------------------------------ files

    async def index(self, request: web.Request) -> web.Response:
        """The page."""
        return self._file("index.html")

    async def static(self, request: web.Request) -> web.Response:
        """One of the page's files."""
        name = request.match_info["name"]
        if name not in STATIC or name == "index.html":
            raise web.HTTPNotFound()
        return self._file(name)

    def _file(self, name: str) -> web.Response:
        return web.Response(
            body=self.files[name],
            headers={
                "Content-Type": STATIC[name],
                "Cache-Control": "no-cache",  # revalidated: a new release is seen at once
                "X-Content-Type-Options": "nosniff",
                "Content-Security-Policy": (
                    "default-src 'self'; script-src 'self' https://telegram.org;"
                    " style-src 'self'; img-src 'self' data:; connect-src 'self'"
                ),
            },
        )

    # ------------------------------------------------------------ who and where

    async def _user(self, request: web.Request, init_data: str) -> WebAppUser:
        """The user the initData proves (401 if none), within their pace (429 past it:
        checked before the store or the request's body is read, and answered only after
        :meth:`UserPace.hold_back`, so a script gets about one answer a second per connection)."""
        settings = self.app.bot_data.settings
        assert settings is not None
        try:
            user = validate(init_data, settings.token, self.clock())
        except AuthError as error:
            log.info("mini app request from %s refused: %s", request.remote, error)
            text = t(_asked_language(request), "miniapp-refused")
            raise _json_error(401, {"ok": False, "text": text}) from error
        wait = self.pace.take(user.id)
        if wait > 0:
            await self.pace.hold_back(user.id)
            if self.pace.refused % 100 == 1:  # a flood is logged, not each request of it
                log.info("mini app: user %s past the pace (%d refused so far)",
                         user.id, self.pace.refused)
            text = t(language_from_code(user.language_code), "miniapp-too-fast")
            raise _json_error(429, {"ok": False, "text": text},
                              {"Retry-After": retry_after(wait)})
        return user

    async def _language(self, user: WebAppUser) -> str:
        stored = await self.kol.prefs.language("user", user.id)
        return stored or language_from_code(user.language_code)

    async def _session(self, user: WebAppUser, token: str | None, lang: str) -> Session:
        token = token or user.start_param
        if not token or len(token) > MAX_TOKEN:
            raise _refused(400, lang, Refusal("no_session"))
        try:
            return await self.kol.manager.by_link(token)
        except Refusal as refusal:
            raise _refused(404, lang, refusal) from refusal

    def _payload(self, session: Session, user: WebAppUser, lang: str) -> dict[str, Any]:
        return seat_view(self.kol.presenter, session, session.seat_of(user.id), lang)

    # ------------------------------------------------------------ the API

    async def view(self, request: web.Request) -> web.Response:
        """The table as the user's seat sees it."""
        user = await self._user(request, request.headers.get(INIT_HEADER, ""))
        lang = await self._language(user)
        session = await self._session(user, request.query.get("t"), lang)
        return web.json_response(self._payload(session, user, lang))

    async def move(self, request: web.Request) -> web.Response:
        """A move (or 💡 / ↩️), as its button in the chat."""
        user = await self._user(request, request.headers.get(INIT_HEADER, ""))
        lang = await self._language(user)
        try:
            body = await request.json()
            token, version, action = body["t"], body["version"], body["action"]
            if not (isinstance(token, str) and isinstance(action, str)
                    and isinstance(version, int) and not isinstance(version, bool)
                    and 0 < len(action.encode()) <= 24 and version >= 0):
                raise ValueError("bad field")
        except (ValueError, TypeError, KeyError):
            return web.json_response({"ok": False, "text": t(lang, "bad-button")}, status=400)
        session = await self._session(user, token, lang)
        kol = self.kol
        try:
            if action == "hint":
                return await self._hint(session, user, lang)
            if action.startswith(DEAL):  # 📜 Deal: the record, shown on the page
                number = ascii_number(action.removeprefix(DEAL), 4)
                if number is None:
                    raise Refusal("deal_not_finished")
                _, shown = await deal_screen(kol, session.id, number, lang, user.id)
                return web.json_response({"ok": True, "text": plain(shown.text)})
            if action == "take-back":
                outcome = await kol.manager.take_back(session.id, user.id)
                await kol.presenter.on_outcome(outcome)
            else:
                outcome = await play_move(kol, session.id, user.id, version, action)
        except Refusal as refusal:
            if refusal.code == "applied":  # the same move again: it was made
                return web.json_response({"ok": True, "text": ""})
            return web.json_response({"ok": False, "text": refusal_text(lang, refusal)})
        return web.json_response({"ok": True, "version": outcome.session.version})

    async def _hint(self, session: Session, user: WebAppUser, lang: str) -> web.Response:
        """💡 as the chat's button answers it (a refusal is raised on)."""
        try:
            action = await self.kol.manager.hint(session.id, user.id)
        except Refusal:
            raise
        except Exception:  # the computer failed: say so, as the chat's pop-up does
            log.exception("no hint for session %s", session.id)
            return web.json_response({"ok": False, "text": t(lang, "hint-failed")})
        return web.json_response({"ok": True, "text": hint_text(action, lang)})

    async def stream(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: the view now and at every committed version (429 past the
        user's cap of open pages: ``PAGES_PER_USER``)."""
        user = await self._user(request, request.query.get("auth", ""))
        lang = await self._language(user)
        session = await self._session(user, request.query.get("t"), lang)
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx: pass each event on at once
            }
        )
        seated = session.seat_of(user.id) is not None
        try:
            # counted before the first await, so pages opened at once cannot all slip in
            with self.pages.watch(session.id, user.id, seated) as woken:
                await response.prepare(request)
                await self._follow(request, response, session, user, lang, woken)
        except TooManyPages as error:
            log.info("mini app stream refused: %s", error)
            text = t(lang, "miniapp-too-many-pages")
            raise _json_error(429, {"ok": False, "text": text}) from error
        return response

    async def _follow(
        self, request: web.Request, response: web.StreamResponse, session: Session,
        user: WebAppUser, lang: str, woken: asyncio.Event,
    ) -> None:
        """Write the view now and at every version ``woken`` tells of, until the page
        closes or its initData is too old to be taken (the page asks again and is
        refused: a leaked launch link stops working on an open page too)."""
        sent = -1
        quiet = 0.0
        expires = user.auth_date + MAX_AGE
        try:
            await response.write(f"retry: {RETRY_MS}\n\n".encode())
            while self.clock() < expires:
                if session.version != sent:
                    data = json.dumps(self._payload(session, user, lang), ensure_ascii=False)
                    await response.write(f"event: view\ndata: {data}\n\n".encode())
                    sent, quiet = session.version, 0.0
                try:
                    async with asyncio.timeout(CHECK):
                        await woken.wait()
                    woken.clear()
                    session = await self.kol.manager.get(session.id)
                except TimeoutError:
                    quiet += CHECK
                    transport = request.transport
                    if transport is None or transport.is_closing():
                        break
                    if quiet >= HEARTBEAT:
                        await response.write(b": ping\n\n")
                        quiet = 0.0
        except (ConnectionError, asyncio.CancelledError):
            pass  # the page closed


def _made(part: Part | None) -> Part:
    """A part start-up makes; 503 before it is made."""
    if part is None:
        raise web.HTTPServiceUnavailable()
    return part


def _asked_language(request: web.Request) -> str:
    """The language a refused request is answered in (nothing proven: the browser's)."""
    return language_from_code(request.headers.get("Accept-Language", "")[:8])


def _refused(status: int, lang: str, refusal: Refusal) -> web.HTTPException:
    return _json_error(status, {"ok": False, "text": refusal_text(lang, refusal)})


def _json_error(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> web.HTTPException:
    kinds: dict[int, type[web.HTTPException]] = {
        400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 404: web.HTTPNotFound,
        429: web.HTTPTooManyRequests,
    }
    return kinds[status](headers=headers, text=json.dumps(body, ensure_ascii=False),
                         content_type="application/json")


async def catch_up(kol: Koloda, session_id: int, user_id: int) -> None:
    """A user's last page of a session closed: draw the hand messages it held back."""
    with contextlib.suppress(Refusal):
        session = await kol.manager.get(session_id)
        seat = session.seat_of(user_id)
        if seat is not None:
            await kol.presenter.refresh(
                session, only={hand_purpose(seat), ephemeral_purpose(seat)}
            )


async def serve_beside(app: KolodaApp) -> web.AppRunner:
    """The page on its own server, for a bot that polls (``PORT``, ``HOST``); the runner,
    to clean up on the way down."""
    settings = app.bot_data.settings
    assert settings is not None and settings.miniapp_url is not None
    web_app = web.Application()
    MiniApp(app, settings.miniapp_path).add_routes(web_app)
    runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, host=settings.host, port=settings.port)
    await site.start()
    log.info("serving the Mini App at %s on %s port %d", settings.miniapp_path,
             settings.host, settings.port)
    return runner

"""The Mini App under test: the bot with ``MINIAPP_URL`` set, launch data signed as
Telegram signs it, and a client for the page's API.

``start_miniapp`` runs the real bot (polling the fake Bot API) with its page
server on a free port of 127.0.0.1; :func:`init_data` is what Telegram puts in
``tgWebAppData`` for a user; :class:`PageClient` calls the page's API as the
page's script does.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from bot.miniapp.auth import sign
from bot.miniapp.server import MiniApp
from sessions import Computer
from tests.support.fake_telegram import FakeTelegram, FakeUser
from tests.support.harness import Harness, start_harness
from tests.support.tables import Table, mover

#: The public address the bot is told the page has (the tests reach it on 127.0.0.1).
PUBLIC_URL = "https://koloda.example/app/"
PATH = "/app/"


def free_port() -> int:
    """A free TCP port of 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def start_miniapp(
    fake: FakeTelegram, database: Path, computer: Computer, **settings: Any
) -> tuple[Harness, str]:
    """The bot with its Mini App; and the page's local address (http://127.0.0.1:…/app/)."""
    port = free_port()
    harness = await start_harness(
        fake, database, computer, miniapp_url=PUBLIC_URL, host="127.0.0.1", port=port,
        **settings,
    )
    return harness, f"http://127.0.0.1:{port}{PATH}"


@asynccontextmanager
async def serving(page: MiniApp) -> AsyncIterator[str]:
    """``page`` (a Mini App built by the test, e.g. on its own clock) served on a free
    port of 127.0.0.1 while in the block; its local address."""
    web_app = web.Application()
    page.add_routes(web_app)
    runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, host="127.0.0.1", port=port).start()
    try:
        yield f"http://127.0.0.1:{port}{PATH}"
    finally:
        await runner.cleanup()


def init_data(
    user: FakeUser,
    token: str,
    auth_date: float | None = None,
    start_param: str | None = None,
) -> str:
    """initData as Telegram signs it for ``user`` (``auth_date``: now)."""
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(
            {"id": user.id, "first_name": user.first_name, "language_code": user.language_code},
            separators=(",", ":"),
        ),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    fields["hash"] = sign(fields, token)
    return urlencode(fields)


def launch_url(base: str, data: str, table: str | None = None, theme: dict[str, str] | None = None
               ) -> str:
    """The page's URL as Telegram opens it: the table in the query (a web_app button's
    URL) or none (a direct link: start_param in the data), launch data in the fragment."""
    fragment = {"tgWebAppData": data, "tgWebAppVersion": "8.0", "tgWebAppPlatform": "tdesktop"}
    if theme is not None:
        fragment["tgWebAppThemeParams"] = json.dumps(theme)
    query = f"?t={table}" if table else ""
    return f"{base}{query}#{urlencode(fragment)}"


LIGHT = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579",
         "link_color": "#3390ec", "button_color": "#3390ec", "button_text_color": "#ffffff",
         "secondary_bg_color": "#f4f4f5"}
DARK = {"bg_color": "#212121", "text_color": "#ffffff", "hint_color": "#aaaaaa",
        "link_color": "#8774e1", "button_color": "#8774e1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#181818"}


class PageClient:
    """The page's API calls, as one user's page makes them."""

    def __init__(self, http: aiohttp.ClientSession, base: str, data: str) -> None:
        self.http, self.base, self.data = http, base, data

    async def view(self, table: str) -> tuple[int, dict[str, Any]]:
        """GET api/view: status and body."""
        async with self.http.get(
            f"{self.base}api/view", params={"t": table},
            headers={"X-Telegram-Init-Data": self.data},
        ) as answer:
            return answer.status, await answer.json()

    async def move(self, table: str, version: int, action: str) -> tuple[int, dict[str, Any]]:
        """POST api/move: status and body."""
        async with self.http.post(
            f"{self.base}api/move", json={"t": table, "version": version, "action": action},
            headers={"X-Telegram-Init-Data": self.data},
        ) as answer:
            return answer.status, await answer.json()


async def next_view(stream: aiohttp.StreamReader, timeout: float = 5.0) -> dict[str, Any]:
    """The next ``view`` event of a server-sent event stream."""
    async with asyncio.timeout(timeout):
        event = ""
        while True:
            line = (await stream.readline()).decode()
            if line.startswith("event: "):
                event = line[7:].strip()
            elif line.startswith("data: ") and event == "view":
                data: dict[str, Any] = json.loads(line[6:])
                return data


async def play_one(harness: Harness, table: Table) -> None:
    """The player to move presses their first move button in their private chat."""
    first, _, version = await mover(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(first.id)
    assert seat is not None
    action = session.view(seat)["legal"][0]
    outcome = await harness.kol.manager.act(session.id, first.id, version, action)
    await harness.kol.presenter.on_outcome(outcome)
    await harness.settle()


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 10.0) -> None:
    """Wait until ``check()`` answers true (AssertionError after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"not {what} in {timeout} s"
        await asyncio.sleep(0.05)

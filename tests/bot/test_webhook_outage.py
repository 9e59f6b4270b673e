"""The webhook server under a database outage and against slow or malformed requests:
503 while the store cannot take an update (200 after), /healthz 503 meanwhile, slow
headers dropped, non-updates 400, odd secrets 403, a cap on requests in flight."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import ClientSession

from bot import webhook
from bot.app import build_application
from bot.config import ConfigError, load_settings
from bot.context import KolodaApp
from bot.flood_limits import Limits
from bot.render.common import Screen
from bot.webhook import HEALTH_PATH, SECRET_HEADER, serve
from storage import database
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import TOKEN, FakeTelegram
from tests.support.webhook import SECRET, free_port, webhook_env

UPDATE = {
    "update_id": 901,
    "message": {
        "message_id": 1, "date": 0, "chat": {"id": 5, "type": "private", "first_name": "A"},
        "from": {"id": 5, "is_bot": False, "first_name": "A"}, "text": "/help",
        "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
    },
}


class Served:
    """The running webhook bot: its update URL, health URL, port and database file."""

    def __init__(self, url: str, port: int, database: Path, app: KolodaApp) -> None:
        self.app = app
        self.url = url
        self.health = f"http://127.0.0.1:{port}{HEALTH_PATH}"
        self.port = port
        self.database = database


@pytest.fixture
async def served(
    fake: FakeTelegram, db_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Served]:
    """The bot in webhook mode bound to 127.0.0.1, with short lock waits and timeouts."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(webhook, "READ_TIMEOUT", 0.3)
    monkeypatch.setattr(webhook, "HEALTH_TIMEOUT", 0.3)
    port = free_port()
    path = db_dir / "hook.sqlite3"
    settings = load_settings({**webhook_env(fake, path, port), "HOST": "127.0.0.1"})
    app = build_application(settings, RandomComputer(), limits=Limits.off(), defer=0.0)
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(serve(app, settings, stop))
    await fake.wait_until(lambda: fake.webhook is not None, timeout=30)
    yield Served(f"http://127.0.0.1:{port}{settings.webhook_path}", port, path, app)
    stop.set()
    await asyncio.wait_for(task, 30)


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_an_update_is_answered_503_while_the_database_is_locked_and_200_after(
    fake: FakeTelegram, served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    alice = fake.user("Alice")
    group = fake.group("Outage")
    other = sqlite3.connect(served.database, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        fake.push_webhooks([served.url])
        update_id = fake.push_command(alice, group, "/new king")["update_id"]
        await fake.wait_until(
            lambda: sum(1 for u, _, s in fake.webhook_posts if u == update_id) >= 3, timeout=30
        )
        async with ClientSession() as client, client.get(served.health) as health:
            assert health.status == 503
        assert fake.confirmed < update_id
    finally:
        other.execute("ROLLBACK")
        other.close()
    await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=30)
    statuses = [s for u, _, s in fake.webhook_posts if u == update_id]
    assert set(statuses[:-1]) == {503} and statuses[-1] == 200
    await fake.wait_for(
        lambda c: c.method == "sendMessage" and c.chat_id == group.id
        and "went wrong" not in str(c.params.get("text"))
    )
    await asyncio.sleep(0.3)  # what a second lobby would have had time to do
    lobbies = [c for c in fake.calls_of("sendMessage", group.id) if c.ok and c.result]
    told = [c for c in lobbies if "went wrong" in str(c.params.get("text"))]
    assert len(told) == 1  # the polite error once, the lobby once
    assert len(lobbies) == 2
    async with ClientSession() as client, client.get(served.health) as health:
        assert health.status == 200
    assert not _errors(caplog)


async def test_a_bug_is_answered_200_on_its_third_try_with_one_error_line(
    fake: FakeTelegram, served: Served, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kol = served.app.bot_data.koloda
    assert kol is not None
    send = kol.delivery.send

    def broken(chat_id: int, screen: Screen, thread: int | None = None) -> None:
        if "/new" in screen.text:  # /help's answer (the error reply goes through)
            raise ZeroDivisionError("a bug in /help")
        send(chat_id, screen, thread)

    monkeypatch.setattr(kol.delivery, "send", broken)
    ann = fake.user("Ann")
    fake.push_webhooks([served.url])
    poison = fake.push_command(ann, fake.private(ann), "/help")["update_id"]
    await fake.wait_until(lambda: fake.confirmed >= poison, timeout=30)
    assert [s for u, _, s in fake.webhook_posts if u == poison] == [503, 503, 200]
    errors = _errors(caplog)
    assert len(errors) == 1 and errors[0].exc_info is not None


async def test_a_connection_that_sends_its_headers_slowly_is_dropped(served: Served) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"POST /tg/ HTTP/1.1\r\nHost: bot\r\nX-Telegram")  # and nothing more
    await writer.drain()
    async with asyncio.timeout(20):  # a guard: the server closes it after READ_TIMEOUT
        assert await reader.read() == b""
    writer.close()


async def test_a_request_whose_body_dawdles_is_answered_408(served: Served) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    path = served.url.split(str(served.port), 1)[1]
    writer.write(f"POST {path} HTTP/1.1\r\nHost: bot\r\nContent-Length: 500\r\n\r\n{{".encode())
    await writer.drain()
    async with asyncio.timeout(20):  # a guard: the server answers after READ_TIMEOUT
        answer = await reader.readline()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408")


NOT_UPDATES = (
    b"{not json", b"[1, 2]", b"42", b'"an update"', b"null", b"{}", b'{"no": "update_id"}',
    b'{"update_id": "x", "message": 7}', b"\xff\xfe\x00",
)


async def test_a_body_that_is_not_an_update_is_400_with_one_warning(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.webhook")
    async with ClientSession() as client:
        headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
        for body in NOT_UPDATES:
            caplog.clear()
            async with client.post(served.url, data=body, headers=headers) as answer:
                assert answer.status == 400, body
            refusals = [r for r in caplog.records if "refused (400)" in r.getMessage()]
            assert len(refusals) == 1 and refusals[0].levelno == logging.WARNING, body
            assert not _errors(caplog), body


async def test_a_secret_that_is_not_utf8_is_403(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    path = served.url.split(str(served.port), 1)[1]
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n".encode()
        + SECRET_HEADER.encode() + b": \xff\xfe" + SECRET.encode()
        + b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
    )
    await writer.drain()
    async with asyncio.timeout(20):
        answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 403")
    assert not _errors(caplog)


async def test_requests_beyond_the_cap_are_answered_503(
    served: Served, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(webhook, "MAX_IN_FLIGHT", 1)
    monkeypatch.setattr(webhook, "READ_TIMEOUT", 60.0)  # the first request's body dawdles
    _reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    path = served.url.split(str(served.port), 1)[1]
    writer.write(f"POST {path} HTTP/1.1\r\nHost: bot\r\nContent-Length: 500\r\n\r\n{{".encode())
    await writer.drain()
    async with ClientSession() as client:
        headers = {SECRET_HEADER: SECRET}
        for _ in range(200):  # until the first one is in flight
            async with client.post(served.url, json=UPDATE, headers=headers) as answer:
                if answer.status == 503:
                    break
            await asyncio.sleep(0.01)
        assert answer.status == 503
        writer.close()
        await asyncio.sleep(0.05)
        for _ in range(200):  # the slot is free again once the first one is gone
            async with client.get(served.health) as health:
                if health.status == 200:
                    break
            await asyncio.sleep(0.01)
        assert health.status == 200
    assert not _errors(caplog)


def test_host_is_read_and_checked() -> None:
    base = {"TELEGRAM_BOT_TOKEN": TOKEN}
    assert load_settings(base).host == "0.0.0.0"
    assert load_settings({**base, "HOST": "127.0.0.1"}).host == "127.0.0.1"
    with pytest.raises(ConfigError) as caught:
        load_settings({**base, "HOST": "a host"})
    assert "HOST must be" in str(caught.value) and "\n" not in str(caught.value)

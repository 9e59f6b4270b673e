"""Kept-alive Bot API connections (bot/keepalive.py) against real local servers.

A raw asyncio server answers with exactly the bytes each test gives it (to
check keep-alive, ``Connection: close``, chunked and close-delimited bodies,
garbage and silence); an aiohttp server with a certificate from trustme checks
TLS. Through :class:`bot.http.BotApiRequest` the same path carries PTB's calls.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import trustme
from aiohttp import web
from telegram import Bot
from telegram.error import NetworkError, TimedOut

from bot import keepalive
from bot.http import BotApiRequest, call_raw
from bot.keepalive import Origin

OK = b'{"ok":true,"result":true}'


def answer(body: bytes = OK, *headers: bytes) -> bytes:
    """An HTTP/1.1 answer with Content-Length (and extra header lines)."""
    lines = b"".join(h + b"\r\n" for h in headers)
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), lines, body)


class RawServer:
    """Reads each request whole, then writes ``reply(n)`` for the n-th request it got."""

    def __init__(self, reply: Callable[[int], bytes | None]) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self.connections = 0
        self.close_after = False  # close the connection after each answer
        self.port = 0
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._handlers:
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                data = self.reply(len(self.requests))
                if data is None:  # say nothing (the client must time out)
                    await asyncio.sleep(10)
                    return
                writer.write(data)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def raw() -> AsyncIterator[Callable[[Callable[[int], bytes | None]], Any]]:
    servers: list[RawServer] = []

    async def make(reply: Callable[[int], bytes | None]) -> tuple[RawServer, Origin]:
        server = RawServer(reply)
        url = await server.start()
        servers.append(server)
        return server, Origin(url, None)

    yield make
    for server in servers:
        await server.stop()


async def post(origin: Origin, body: bytes = b"{}", timeout: float | None = 2.0) -> Any:
    return await origin.request(
        "POST",
        "/bot1:x/sendMessage",
        b"Content-Type: application/json\r\n",
        body,
        connect_timeout=2.0,
        answer_timeout=timeout,
    )


async def test_the_request_is_plain_http_and_the_connection_is_reused(raw: Any) -> None:
    server, origin = await raw(lambda n: answer(b'{"n":%d}' % n))
    assert await post(origin, b'{"text":"\xd1\x85\xd0\xbe\xd0\xb4"}') == (200, b'{"n":1}')
    assert await post(origin) == (200, b'{"n":2}')
    assert server.connections == 1
    head, body = server.requests[0].split(b"\r\n\r\n")
    assert head.split(b"\r\n") == [
        b"POST /bot1:x/sendMessage HTTP/1.1",
        b"Host: 127.0.0.1:%d" % server.port,
        b"Content-Type: application/json",
        b"Content-Length: 17",
    ]
    assert body.decode() == '{"text":"ход"}'
    origin.close()


async def test_connection_close_is_honoured(raw: Any) -> None:
    server, origin = await raw(lambda n: answer(OK, b"Connection: close"))
    server.close_after = True
    for _ in range(3):
        assert await post(origin) == (200, OK)
    assert server.connections == 3


async def test_a_connection_the_server_closed_while_idle_is_not_reused(raw: Any) -> None:
    server, origin = await raw(lambda n: answer())
    server.close_after = True  # closes without saying so
    assert await post(origin) == (200, OK)
    await asyncio.sleep(0.05)  # the close reaches the client
    assert await post(origin) == (200, OK)
    assert server.connections == 2


async def test_an_old_idle_connection_is_replaced(
    raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, origin = await raw(lambda n: answer())
    monkeypatch.setattr(keepalive, "IDLE_SECONDS", 0.0)
    await post(origin)
    await post(origin)
    assert server.connections == 2


async def test_chunked_and_close_delimited_bodies(raw: Any) -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'5\r\n{"ok"\r\n8\r\n:false}\n\r\n0\r\n\r\n'
    )
    server, origin = await raw(lambda n: chunked)
    assert await post(origin) == (200, b'{"ok":false}\n')
    assert await post(origin) == (200, b'{"ok":false}\n')  # and the connection stays usable
    assert server.connections == 1

    server, origin = await raw(lambda n: b"HTTP/1.0 502 Bad Gateway\r\n\r\n<html>bad</html>")
    server.close_after = True
    assert await post(origin) == (502, b"<html>bad</html>")


async def test_garbage_is_a_network_error_and_the_connection_is_dropped(raw: Any) -> None:
    server, origin = await raw(lambda n: b"SSH-2.0-OpenSSH\r\n\r\n" if n == 1 else answer())
    with pytest.raises(NetworkError, match="Malformed"):
        await post(origin)
    assert await post(origin) == (200, OK)
    assert server.connections == 2


async def test_a_server_that_hangs_up_mid_answer_is_a_network_error(raw: Any) -> None:
    server, origin = await raw(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
    server.close_after = True
    with pytest.raises(NetworkError) as raised:
        await post(origin)
    assert not isinstance(raised.value, TimedOut)


async def test_silence_is_a_timeout_and_the_connection_is_not_reused(raw: Any) -> None:
    server, origin = await raw(lambda n: None if n == 1 else answer())
    with pytest.raises(TimedOut):
        await post(origin, timeout=0.2)
    # a late answer to the first request must not be taken for the second one's
    assert await post(origin) == (200, OK)
    assert server.connections == 2


async def test_a_cancelled_request_drops_its_connection(raw: Any) -> None:
    server, origin = await raw(lambda n: None if n == 1 else answer(b'{"n":%d}' % n))
    task = asyncio.create_task(post(origin))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await post(origin) == (200, b'{"n":2}')
    assert server.connections == 2


async def test_nothing_listening_is_a_network_error() -> None:
    origin = Origin("http://127.0.0.1:9", None)  # discard port: closed on loopback
    with pytest.raises(NetworkError) as raised:
        await post(origin)
    assert not isinstance(raised.value, TimedOut)


async def test_a_connection_busy_at_close_is_closed_when_its_answer_comes(raw: Any) -> None:
    server, origin = await raw(lambda n: answer())
    task = asyncio.create_task(post(origin))
    await asyncio.sleep(0)  # the request is under way
    origin.close()
    assert await task == (200, OK)
    assert await post(origin) == (200, OK)  # a new connection: the first was not kept
    assert server.connections == 2


# ---------------------------------------------------------------- TLS


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def tls_server(authority: trustme.CA) -> AsyncIterator[str]:
    async def handle(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "result": await request.json()})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(context)
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"https://localhost:{port}/bot"
    await runner.cleanup()


async def test_tls_with_a_trusted_certificate(tls_server: str, authority: trustme.CA) -> None:
    request = BotApiRequest()
    authority.configure_trust(request._tls)
    await request.initialize()
    try:
        bot = Bot("1:x", base_url=tls_server, request=request)
        for n in range(2):
            assert await call_raw(bot, "sendMessage", {"text": f"ход {n}"}) == {"text": f"ход {n}"}
        assert len(request._origins) == 1
    finally:
        await request.shutdown()


async def test_tls_with_an_untrusted_certificate_is_refused(tls_server: str) -> None:
    request = BotApiRequest()  # certifi's authorities only: trustme's CA is unknown
    await request.initialize()
    try:
        bot = Bot("1:x", base_url=tls_server, request=request)
        with pytest.raises(NetworkError, match="certificate"):
            await call_raw(bot, "sendMessage", {"text": "x"})
    finally:
        await request.shutdown()

"""HTTP/1.1 keep-alive connections to one origin, for the bot's JSON requests.

Almost all of the bot's traffic is small JSON POSTs to one host: edits,
messages and answers to button presses. Through aiohttp's client one such
request cost about 150–200 µs of CPU on loopback, besides PTB's share; written
straight to a kept-alive connection and read back with httptools (the llhttp
parser uvicorn uses) it costs 80–100 µs. :class:`Origin` is that path:
connections reused newest first, each carrying one request at a time. TLS
comes from :mod:`ssl` through asyncio. Everything else (proxies, uploads)
stays with aiohttp in :class:`bot.http.BotApiRequest`.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from urllib.parse import urlsplit

import httptools
from telegram.error import NetworkError, TimedOut

#: Seconds an idle connection is kept; older ones are closed instead of reused,
#: before the server's own keep-alive timeout can close one under a request.
IDLE_SECONDS = 30.0


class _Connection(asyncio.Protocol):
    """One connection; one request in flight at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.body: list[bytes] = []
        self.answer: asyncio.Future[tuple[int, bytes]] | None = None
        self.keep_alive = False
        self.delimited = False  # the answer's length is known (Content-Length or chunked)
        self.headers_done = False
        self.closed = False
        self.idle_since = 0.0

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(NetworkError(f"Malformed HTTP answer: {error}"))
            self.close()

    def eof_received(self) -> bool:
        if self.headers_done and not self.delimited:  # the body ends where the connection does
            self.on_message_complete()
            self.keep_alive = False
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(NetworkError(f"Connection closed before the answer: {exc or 'by the server'}"))

    # httptools callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() in (b"content-length", b"transfer-encoding"):
            self.delimited = True

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        status, self.keep_alive = self.parser.get_status_code(), self.parser.should_keep_alive()
        body, self.body = b"".join(self.body), []
        answer, self.answer = self.answer, None
        if answer is not None and not answer.done():
            answer.set_result((status, body))

    # ours

    def send(self, request: bytes) -> asyncio.Future[tuple[int, bytes]]:
        """Write one request; the future gets (status, body)."""
        assert self.transport is not None
        self.answer = asyncio.get_running_loop().create_future()
        self.keep_alive = self.delimited = self.headers_done = False
        self.transport.write(request)
        return self.answer

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, error: Exception) -> None:
        answer, self.answer = self.answer, None
        self.body = []
        if answer is not None and not answer.done():
            answer.set_exception(error)


class Origin:
    """Kept-alive connections to one ``scheme://host:port``.

    The caller bounds how many requests run at once (one per connection);
    idle connections are reused newest first.
    """

    def __init__(self, url: str, tls: ssl.SSLContext | None) -> None:
        parts = urlsplit(url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._tls = tls if self._https else None
        default = parts.port is None or parts.port == (443 if self._https else 80)
        host = self._host if default else f"{self._host}:{self._port}"
        self._host_header = host.encode("idna")
        self._idle: list[_Connection] = []
        self._closed = False

    async def request(
        self,
        method: str,
        target: str,
        headers: bytes,
        body: bytes,
        *,
        connect_timeout: float | None,
        answer_timeout: float | None,
    ) -> tuple[int, bytes]:
        """Send one request; (status, body) of the answer.

        ``target`` is the path with its query, ``headers`` further header lines
        (each ending in CRLF). A timeout raises :class:`TimedOut`, any other
        failure :class:`NetworkError`; the connection is then closed, since an
        answer may still be on its way.
        """
        connection = await self._connection(connect_timeout)
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n" % (
            method.encode(),
            target.encode(),
            self._host_header,
            headers,
            len(body),
        )
        try:
            async with asyncio.timeout(answer_timeout):
                status, answer = await connection.send(head + body)
        except TimeoutError as error:
            connection.close()
            raise TimedOut from error
        except BaseException:  # NetworkError, or cancelled mid-request
            connection.close()
            raise
        if connection.keep_alive and not connection.closed and not self._closed:
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            connection.close()
        return status, answer

    async def _connection(self, timeout: float | None) -> _Connection:
        """A live idle connection, or a new one."""
        now = time.monotonic()
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed and now - connection.idle_since < IDLE_SECONDS:
                return connection
            connection.close()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                _, protocol = await loop.create_connection(
                    _Connection,
                    self._host,
                    self._port,
                    ssl=self._tls,
                    server_hostname=self._host if self._tls else None,
                )
        except TimeoutError as error:
            raise TimedOut(f"Connecting to {self._host} timed out") from error
        except (OSError, ssl.SSLError) as error:
            raise NetworkError(f"Cannot connect to {self._host}: {error}") from error
        return protocol

    def close(self) -> None:
        """Close every idle connection, and each busy one when its request ends."""
        self._closed = True
        while self._idle:
            self._idle.pop().close()

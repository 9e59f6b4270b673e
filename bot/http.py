"""The bot's HTTP client for Bot API calls: PTB's request interface, made lean.

PTB ships an httpx-based request class. Measured on loopback, one
``editMessageText`` sent through PTB's ``BaseRequest.post`` costs about 2.1 ms
of CPU over httpx, 0.25–0.28 ms over aiohttp, and 0.12–0.14 ms written
straight to a kept-alive connection (:mod:`bot.keepalive`). A move sends
three to five Bot API requests, so the HTTP client decides how many moves a
second one core can carry (see ``bench/README.md``). :class:`BotApiRequest` implements PTB's
:class:`~telegram.request.BaseRequest`: JSON requests go over
:class:`bot.keepalive.Origin`, uploads (multipart) and anything sent through a
proxy over an :class:`aiohttp.ClientSession`. Everything above it (the Bot
methods, error decoding, the rate limiter) is PTB's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass
from typing import Any

import aiohttp
import certifi
import orjson
from aiohttp.helpers import get_env_proxy_for_url
from telegram import Bot
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData
from yarl import URL

from bot.keepalive import Origin

#: Connections to the Bot API (at most; opened as needed, kept alive). Each
#: carries one request at a time, so a slow answer holds one up: with 4, the
#: load benchmark waited on the pool (318 moves/s at G = 50); 32 carried 431.
#: PTB's own httpx client allows 256.
CONNECTIONS = 32

_JSON = {"Content-Type": "application/json", "User-Agent": BaseRequest.USER_AGENT}
_PLAIN = {"User-Agent": BaseRequest.USER_AGENT}


def _header_lines(headers: dict[str, str]) -> bytes:
    return b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in headers.items())


_JSON_LINES, _PLAIN_LINES = _header_lines(_JSON), _header_lines(_PLAIN)


@dataclass(frozen=True, slots=True)
class JsonBody:
    """A request body encoded as JSON once, as a whole.

    PTB's ``RequestData`` wraps every parameter in an object and encodes them
    one by one; for the edits that make up most of our traffic that cost more
    CPU than the HTTP request. :class:`BotApiRequest` accepts either.
    """

    json_payload: bytes
    multipart_data: None = None

    @classmethod
    def of(cls, params: dict[str, Any]) -> JsonBody:
        """The body for ``params`` (plain JSON values only), as compact UTF-8 JSON."""
        return cls(orjson.dumps(params))


class BotApiRequest(BaseRequest):
    """PTB's :class:`BaseRequest`: JSON over kept-alive connections, uploads and proxies
    over aiohttp.

    ``read_timeout`` and friends follow PTB's meaning (seconds, ``None`` for
    no limit); a timeout raises :class:`telegram.error.TimedOut` and any other
    transport failure :class:`telegram.error.NetworkError`, as PTB expects.
    """

    def __init__(
        self,
        connections: int = CONNECTIONS,
        *,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._connections = connections
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._origins: dict[str, Origin] = {}
        # Waiting for a free connection is unbounded and costs nothing per waiter;
        # aiohttp's own pool wait would count against the request's timeout.
        self._free = asyncio.Semaphore(connections)
        self._proxies: dict[str, tuple[URL | None, dict[str, str] | None]] = {}
        self._tls = _tls_context()

    def _proxy(self, url: str) -> tuple[URL | None, dict[str, str] | None]:
        """The proxy for ``url`` from HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as PTB's
        httpx client would use it; looked up once per origin (aiohttp's own
        ``trust_env`` looks it up on every request, in a thread)."""
        origin = url[: url.find("/", url.find("//") + 2)]
        found = self._proxies.get(origin)
        if found is None:
            proxy, proxy_headers = None, None
            with contextlib.suppress(LookupError):
                proxy, auth = get_env_proxy_for_url(URL(url))
                if auth is not None:
                    proxy_headers = {"Proxy-Authorization": auth.encode()}
            found = self._proxies[origin] = (proxy, proxy_headers)
        return found

    @staticmethod
    def parse_json_payload(payload: bytes) -> Any:
        """Telegram's JSON answer, parsed by orjson (several times faster than ``json``);
        PTB's own parser, with its error for a broken answer, when orjson refuses it."""
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            return BaseRequest.parse_json_payload(payload)

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout in seconds."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the connection pool (idempotent)."""
        if self._session is None or self._session.closed:
            self._origins = {}
            connector = aiohttp.TCPConnector(
                limit=self._connections, keepalive_timeout=30, ssl=self._tls
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                skip_auto_headers=("Accept-Encoding",),
                cookie_jar=aiohttp.DummyCookieJar(),  # the Bot API sets none; a jar costs CPU
            )

    async def shutdown(self) -> None:
        """Close the connection pool (idempotent)."""
        for origin in self._origins.values():
            origin.close()
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | JsonBody | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """One HTTP request; returns the status code and the raw body.

        ``pool_timeout`` is accepted for PTB's interface and not used: a request
        waits for a free connection as long as it takes.
        """
        if self._session is None or self._session.closed:
            raise RuntimeError("BotApiRequest is not initialized")
        files = request_data.multipart_data if request_data else None
        read = _pick(read_timeout, self._read_timeout)
        write = _pick(write_timeout, self._media_write_timeout if files else self._write_timeout)
        connect = _pick(connect_timeout, self._connect_timeout)
        proxy, proxy_headers = self._proxy(url)
        async with self._free:
            if files or proxy is not None:
                return await self._through_aiohttp(
                    url, method, request_data, files, (read, write, connect), proxy, proxy_headers
                )
            cut = url.find("/", url.find("//") + 2)
            origin = self._origins.get(url[:cut])
            if origin is None:
                origin = self._origins[url[:cut]] = Origin(url[:cut], self._tls)
            body = request_data.json_payload if request_data is not None else None
            return await origin.request(
                method,
                url[cut:],
                _PLAIN_LINES if body is None else _JSON_LINES,
                body or b"",
                connect_timeout=connect,
                # a JSON body is small: the transport takes it at once, so the
                # whole wait is for the answer, bounded by the read timeout
                answer_timeout=read,
            )

    async def _through_aiohttp(
        self,
        url: str,
        method: str,
        request_data: RequestData | JsonBody | None,
        files: dict[str, Any] | None,
        timeouts: tuple[float | None, float | None, float | None],
        proxy: URL | None,
        proxy_headers: dict[str, str] | None,
    ) -> tuple[int, bytes]:
        """An upload, or a request through a proxy."""
        assert self._session is not None
        read, write, connect = timeouts
        body: bytes | aiohttp.FormData | None = None
        headers = _PLAIN
        if files:
            body = _form(request_data, files)  # type: ignore[arg-type]  # files: a RequestData
        elif request_data is not None:
            body, headers = request_data.json_payload, _JSON
        # aiohttp has no separate write timeout: sending the body is bounded by the total
        timeout = aiohttp.ClientTimeout(
            total=_total(read, write), sock_connect=connect, sock_read=read
        )
        if proxy_headers and url.startswith("http:"):
            # a plain-HTTP request through a proxy carries the proxy's credentials
            # itself; aiohttp sends proxy_headers only when it opens an HTTPS tunnel
            headers = {**headers, **proxy_headers}
        try:
            async with self._session.request(
                method,
                url,
                data=body,
                headers=headers,
                timeout=timeout,
                proxy=proxy,
                proxy_headers=proxy_headers,
            ) as response:
                return response.status, await response.read()
        except TimeoutError as error:  # aiohttp's ServerTimeoutError is one too
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error


async def call_raw(bot: Bot, method: str, params: dict[str, Any]) -> Any:
    """Call Bot API ``method`` through ``bot``'s request object; the undecoded JSON result.

    The typed methods (``bot.edit_message_text`` …) build a ``RequestData`` of
    per-parameter objects on the way out and turn the returned message into
    PTB objects, inline keyboard included, on the way back: together several
    times the CPU of the HTTP request itself, for edits whose result nobody
    reads. This sends ``params`` as one :class:`JsonBody` through PTB's
    ``BaseRequest.post`` (so its error decoding into ``BadRequest`` /
    ``Forbidden`` / ``RetryAfter`` … still applies) and returns the plain
    result. It bypasses the bot's rate limiter: its callers are
    :class:`bot.telegram_io.TelegramIO`, which paces its chats itself, and the
    answers to button presses, which are not messages. ``bot.request`` must be
    a :class:`BotApiRequest`.
    """
    url = f"{bot.base_url}/{method}"
    return await bot.request.post(url, request_data=JsonBody.of(params))  # type: ignore[arg-type]


def _tls_context() -> ssl.SSLContext:
    """Certificate checks against certifi's CA bundle (what PTB's httpx client uses),
    so a slim container without system CA certificates still reaches api.telegram.org."""
    return ssl.create_default_context(cafile=certifi.where())


def _pick(given: ODVInput[float], default: float | None) -> float | None:
    return default if isinstance(given, DefaultValue) else given


def _total(read: float | None, write: float | None) -> float | None:
    if read is None or write is None:
        return None
    return read + write


def _form(request_data: RequestData, files: dict[str, tuple[str, object, str]]) -> aiohttp.FormData:
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in files.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form

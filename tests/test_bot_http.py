"""The Bot API client: PTB's request interface on aiohttp, and undecoded calls.

Against a tiny local aiohttp server that records what it receives, so the
bytes on the wire are checked, and PTB's own Bot methods run on top.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot, InputFile
from telegram.error import (
    BadRequest,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.http import BotApiRequest, call_raw
from bot.render.common import Button, screen

TOKEN = "123:abc"


class Recorder:
    """A Bot API stand-in: answers each method from ``replies``, records requests."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes]] = []  # method, content type, body
        self.proxy_auth: list[str | None] = []  # the Proxy-Authorization header of each
        self.replies: dict[str, tuple[int, dict[str, Any]]] = {}
        self.delay = 0.0

    async def handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.requests.append((method, request.content_type, await request.read()))
        self.proxy_auth.append(request.headers.get("Proxy-Authorization"))
        if self.delay:
            await asyncio.sleep(self.delay)
        status, body = self.replies.get(method, (200, {"ok": True, "result": True}))
        return web.json_response(body, status=status)


@pytest.fixture
async def server() -> AsyncIterator[tuple[Recorder, str]]:
    recorder = Recorder()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", recorder.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield recorder, f"http://127.0.0.1:{port}/bot"
    await runner.cleanup()


@pytest.fixture
async def bot(server: tuple[Recorder, str]) -> AsyncIterator[Bot]:
    _, base_url = server
    request = BotApiRequest(read_timeout=0.5)
    bot = Bot(TOKEN, base_url=base_url, request=request, get_updates_request=BotApiRequest())
    await request.initialize()
    yield bot
    await request.shutdown()


def _message(text: str) -> dict[str, Any]:
    return {
        "message_id": 7,
        "date": 0,
        "chat": {"id": -100, "type": "supergroup", "title": "t"},
        "text": text,
    }


async def test_a_typed_method_sends_json_and_decodes_the_answer(
    server: tuple[Recorder, str], bot: Bot
) -> None:
    recorder, _ = server
    recorder.replies["sendMessage"] = (200, {"ok": True, "result": _message("привет")})
    message = await bot.send_message(-100, "привет")
    assert message.message_id == 7 and message.text == "привет"
    method, content_type, body = recorder.requests[-1]
    assert (method, content_type) == ("sendMessage", "application/json")
    assert json.loads(body) == {"chat_id": "-100", "text": "привет"}  # PTB sends strings


async def test_call_raw_returns_the_undecoded_result(
    server: tuple[Recorder, str], bot: Bot
) -> None:
    recorder, _ = server
    recorder.replies["editMessageText"] = (200, {"ok": True, "result": _message("x")})
    shown = screen("x", [[Button("7♠", "m:1:2:7S"), Button("rules", url="https://t.me/b")]])
    params = {"chat_id": -100, "message_id": 7, "text": "x", "reply_markup": shown.markup_json()}
    result = await call_raw(bot, "editMessageText", {**params, "text": "ход: 7♠"})
    assert result == _message("x")  # a plain dict: nothing was decoded
    method, content_type, body = recorder.requests[-1]
    assert (method, content_type) == ("editMessageText", "application/json")
    assert "ход: 7♠".encode() in body  # one UTF-8 JSON body, not \\u escapes
    sent = json.loads(body)
    assert sent["reply_markup"] == shown.markup().to_dict()  # type: ignore[union-attr]
    assert sent["chat_id"] == -100 and sent["text"] == "ход: 7♠"


def test_markup_json_is_what_ptb_would_send() -> None:
    rows = [
        [Button("a", "x:1"), Button("b", "x:2")],
        [Button("link", url="https://t.me/b?start=1")],
    ]
    shown = screen("text", rows)
    assert shown.markup_json() == shown.markup().to_dict()  # type: ignore[union-attr]
    assert screen("no buttons").markup_json() is None


@pytest.mark.parametrize(
    ("status", "description", "parameters", "error"),
    [
        (400, "Bad Request: message is not modified", None, BadRequest),
        (403, "Forbidden: bot was blocked by the user", None, Forbidden),
        (429, "Too Many Requests: retry after 3", {"retry_after": 3}, RetryAfter),
    ],
)
async def test_telegram_errors_become_ptb_errors(
    server: tuple[Recorder, str],
    bot: Bot,
    status: int,
    description: str,
    parameters: dict[str, Any] | None,
    error: type[Exception],
) -> None:
    recorder, _ = server
    body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if parameters:
        body["parameters"] = parameters
    recorder.replies["editMessageText"] = (status, body)
    with pytest.raises(error):
        await call_raw(bot, "editMessageText", {"chat_id": 1, "message_id": 2, "text": "t"})


async def test_a_slow_answer_is_a_timeout(server: tuple[Recorder, str], bot: Bot) -> None:
    recorder, _ = server
    recorder.delay = 2.0  # longer than the 0.5 s read timeout
    with pytest.raises(TimedOut):
        await bot.send_message(-100, "late")


async def test_no_server_is_a_network_error() -> None:
    request = BotApiRequest()
    await request.initialize()
    try:
        # port 9 (discard) is closed on loopback: the connection is refused
        bot = Bot(TOKEN, base_url="http://127.0.0.1:9/bot", request=request)
        with pytest.raises(NetworkError) as raised:
            await bot.send_message(1, "hello")
        assert not isinstance(raised.value, TimedOut)
    finally:
        await request.shutdown()


async def test_an_upload_goes_as_multipart(server: tuple[Recorder, str], bot: Bot) -> None:
    recorder, _ = server
    recorder.replies["sendDocument"] = (200, {"ok": True, "result": _message("")})
    document = InputFile(io.BytesIO(b"score,1\n"), filename="score.csv")
    await bot.send_document(-100, document, caption="Счёт")
    method, content_type, body = recorder.requests[-1]
    assert (method, content_type) == ("sendDocument", "multipart/form-data")
    assert b"score,1" in body and "Счёт".encode() in body and b'filename="score.csv"' in body


async def test_requests_wait_for_a_free_connection_without_timing_out(
    server: tuple[Recorder, str],
) -> None:
    recorder, base_url = server
    recorder.delay = 0.2
    request = BotApiRequest(connections=1, read_timeout=0.5)
    await request.initialize()
    try:
        bot = Bot(TOKEN, base_url=base_url, request=request)
        # five requests through one connection take a second in all; each waits its turn
        # for the connection without that wait counting against its 0.5 s read timeout
        results = await asyncio.gather(
            *(call_raw(bot, "sendChatAction", {"chat_id": 1, "action": "typing"}) for _ in range(5))
        )
        assert results == [True] * 5
    finally:
        await request.shutdown()


async def test_used_before_initialize_is_refused() -> None:
    with pytest.raises(RuntimeError):
        await BotApiRequest().do_request("http://127.0.0.1:9/bot/getMe", "POST")


@pytest.mark.parametrize("credentials", ["", "koloda:s3cret@"])
async def test_a_proxy_from_the_environment_is_used(
    server: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch, credentials: str
) -> None:
    recorder, base_url = server
    proxy = base_url.removesuffix("/bot").replace("http://", f"http://{credentials}")
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, proxy)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    request = BotApiRequest()
    await request.initialize()
    try:
        # telegram.invalid does not resolve: only the proxy can answer
        bot = Bot(TOKEN, base_url="http://telegram.invalid/bot", request=request)
        for _ in range(2):  # the second request uses the remembered proxy
            assert await call_raw(bot, "sendChatAction", {"chat_id": 1, "action": "typing"})
        assert [r[0] for r in recorder.requests] == ["sendChatAction"] * 2
        expected = "Basic a29sb2RhOnMzY3JldA==" if credentials else None  # koloda:s3cret
        assert recorder.proxy_auth == [expected, expected]
    finally:
        await request.shutdown()


async def test_no_proxy_sends_the_request_directly(
    server: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, base_url = server
    monkeypatch.setenv("HTTP_PROXY", base_url.removesuffix("/bot"))
    monkeypatch.setenv("NO_PROXY", "telegram.invalid")
    request = BotApiRequest()
    await request.initialize()
    try:
        bot = Bot(TOKEN, base_url="http://telegram.invalid/bot", request=request)
        with pytest.raises(NetworkError):  # straight to a host that does not resolve
            await call_raw(bot, "sendChatAction", {"chat_id": 1, "action": "typing"})
        assert recorder.requests == []
    finally:
        await request.shutdown()


def test_answers_are_parsed_and_a_broken_one_is_a_telegram_error() -> None:
    parse = BotApiRequest.parse_json_payload
    assert parse('{"ok":true,"result":{"text":"ход"}}'.encode()) == {
        "ok": True,
        "result": {"text": "ход"},
    }
    # invalid UTF-8 inside a string: replaced, as PTB's own parser does
    assert parse(b'{"ok":true,"result":"a\xffb"}') == {"ok": True, "result": "a\ufffdb"}
    with pytest.raises(TelegramError, match="Invalid server response"):
        parse(b"<html>502 Bad Gateway</html>")

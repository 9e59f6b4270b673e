"""The Mini App through the real bot and the fake Bot API: who may look, what a tap
does, where the page opens, and what an open page saves of Telegram's budget."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest

from bot.config import ConfigError, load_settings
from bot.i18n import t
from bot.miniapp.auth import MAX_AGE, AuthError, sign, validate
from bot.miniapp.live import PAGES_PER_USER, Pages
from bot.miniapp.server import CHECK, MiniApp
from sessions import hand_purpose
from tests.support.fake_telegram import FakeUser, StoredMessage
from tests.support.harness import Harness
from tests.support.miniapp import (
    PATH,
    PUBLIC_URL,
    PageClient,
    init_data,
    next_view,
    play_one,
    serving,
)
from tests.support.tables import mover, open_table

TOKEN = "123456:" + "A" * 35
BASE_ENV = {"TELEGRAM_BOT_TOKEN": TOKEN}


PageOf = Callable[[FakeUser], PageClient]


@pytest.fixture
def page_of(mini: tuple[Harness, str], http: aiohttp.ClientSession) -> PageOf:
    """A user's page, its initData signed with the bot's token."""
    harness, base = mini
    return lambda user: PageClient(http, base, init_data(user, harness.fake.token))


# ---------------------------------------------------------------- initData


def fields_for(user_id: int, auth_date: int) -> dict[str, str]:
    return {"auth_date": str(auth_date), "query_id": "Q",
            "user": json.dumps({"id": user_id, "first_name": "Ann", "language_code": "ru"})}


def signed(fields: dict[str, str], token: str = TOKEN) -> str:
    from urllib.parse import urlencode

    return urlencode({**fields, "hash": sign(fields, token)})


def test_initdata_signed_with_the_token_names_its_user() -> None:
    now = 1_800_000_000
    user = validate(signed({**fields_for(42, now), "start_param": "abc"}), TOKEN, now + 5)
    assert (user.id, user.first_name, user.language_code, user.start_param) == (42, "Ann", "ru",
                                                                                "abc")


def test_the_secret_key_is_hmac_of_the_token_under_webappdata() -> None:
    import hashlib
    import hmac

    fields = fields_for(7, 1_800_000_000)
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    assert sign(fields, TOKEN) == hmac.new(key, check.encode(), hashlib.sha256).hexdigest()


@pytest.mark.parametrize(
    "forge",
    [
        lambda f: signed(f, "999:" + "B" * 35),  # another bot's token
        lambda f: signed(f).replace("Ann", "Eve"),  # a field changed after signing
        lambda f: signed(f) + "&hash=00",  # a second hash
        lambda f: signed(f).split("&hash=")[0],  # no hash
        lambda f: signed({**f, "auth_date": str(int(f["auth_date"]) - MAX_AGE - 1)}),  # stale
        lambda f: signed({**f, "auth_date": str(int(f["auth_date"]) + 3600)}),  # from the future
        lambda f: signed({k: v for k, v in f.items() if k != "user"}),  # no user
        lambda f: signed({**f, "user": '{"id": "42"}'}),  # an id that is not a number
        lambda f: "",
    ],
)
def test_forged_or_stale_initdata_is_refused(forge: Any) -> None:
    now = 1_800_000_000
    with pytest.raises(AuthError):
        validate(forge(fields_for(42, now)), TOKEN, now)


@pytest.mark.parametrize(
    ("name", "value"),
    [("MINIAPP_URL", "http://koloda.example/app/"), ("MINIAPP_URL", "koloda.example"),
     ("MINIAPP_URL", "https:///app"), ("MINIAPP_URL", "https://koloda.example/app/#x"),
     ("MINIAPP_NAME", "a b"), ("MINIAPP_NAME", "x")],
)
def test_a_bad_miniapp_setting_is_one_line(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings({**BASE_ENV, "MINIAPP_URL": "https://koloda.example/app", name: value})
    assert str(raised.value).startswith(name) and "\n" not in str(raised.value)


def test_miniapp_settings() -> None:
    assert load_settings(BASE_ENV).miniapp_url is None
    settings = load_settings({**BASE_ENV, "MINIAPP_URL": "https://koloda.example/app",
                              "MINIAPP_NAME": "cards"})
    assert (settings.miniapp_url, settings.miniapp_path, settings.miniapp_name) == (
        "https://koloda.example/app", "/app/", "cards")


# ---------------------------------------------------------------- the page and its API


async def test_the_page_and_its_files_come_from_the_bot(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    _, base = mini
    for path, kind in (("", "text/html"), ("static/app.js", "text/javascript"),
                       ("static/app.css", "text/css")):
        async with http.get(base + path) as answer:
            assert answer.status == 200 and answer.content_type == kind
            body = await answer.text()
            assert "fonts.googleapis" not in body and "cdn" not in body.lower()
    async with http.get(base + "static/../bot.py") as answer:
        assert answer.status == 404
    async with http.get(base + "static/secret.txt") as answer:
        assert answer.status == 404


async def test_a_player_sees_their_hand_and_a_spectator_the_public_table(
    mini: tuple[Harness, str], page_of: PageOf
) -> None:
    harness = mini[0]
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    status, alice = await page_of(table.alice).view(session.link)
    assert status == 200 and alice["seat"] == session.seat_of(table.alice.id)
    assert sorted(alice["view"]["hand"]) == sorted(session.view(alice["seat"])["hand"])
    carol = harness.fake.user("Carol")
    status, watching = await page_of(carol).view(session.link)
    assert status == 200 and watching["seat"] is None and watching["view"]["hand"] is None
    assert watching["moves"] == [] and watching["table"] == alice["table"]


async def test_forged_stale_or_missing_initdata_is_answered_401(
    mini: tuple[Harness, str], http: aiohttp.ClientSession, page_of: PageOf
) -> None:
    harness, base = mini
    table = await open_table(harness)
    link = (await harness.kol.manager.get(table.session_id)).link
    token = harness.fake.token
    for data in (init_data(table.alice, "1:" + "x" * 30),
                 init_data(table.alice, token, auth_date=time.time() - MAX_AGE - 60), ""):
        status, body = await PageClient(http, base, data).view(link)
        assert status == 401 and body["ok"] is False and body["text"]
        status, _ = await PageClient(http, base, data).move(link, 1, "QS")
        assert status == 401
        async with http.get(base + "api/stream", params={"t": link, "auth": data}) as answer:
            assert answer.status == 401
    status, body = await page_of(table.alice).view("nope")
    assert status == 404 and body["text"] == t("en", "refusal-no_session")


async def test_a_tap_is_a_button_press_and_the_group_table_changes(
    mini: tuple[Harness, str], page_of: PageOf
) -> None:
    harness = mini[0]
    table = await open_table(harness)
    first, other, version = await mover(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    page = page_of(first)
    _, view = await page.view(session.link)
    before = table.message.text
    card = view["moves"][0]["action"]
    status, body = await page.move(session.link, version, card)
    assert status == 200 and body == {"ok": True, "version": version + 1}
    await harness.settle()
    assert table.message.text != before  # the group's table shows the move
    # the other player, out of turn: the chat's own pop-up text, in their language
    _, after = await page_of(other).view(session.link)
    if after["moves"]:  # it is their turn now: ask the first player instead
        other, after = first, (await page.view(session.link))[1]
    status, body = await page_of(other).move(
        session.link, after["version"], "2C")
    assert status == 200 and body["ok"] is False and body["text"]
    # a tap on an old picture: refused as a stale button is
    status, body = await page.move(session.link, version - 1, card)
    assert body == {"ok": False, "text": t("en", "refusal-stale")}


async def test_a_refusal_is_in_the_players_language(
    mini: tuple[Harness, str], page_of: PageOf
) -> None:
    harness = mini[0]
    table = await open_table(harness)
    _, other, version = await mover(harness, table)
    await harness.kol.prefs.set_language("user", other.id, "ru")
    link = (await harness.kol.manager.get(table.session_id)).link
    page = page_of(other)
    _, view = await page.view(link)
    assert view["lang"] == "ru" and view["words"]["hand"] == t("ru", "miniapp-hand")
    status, body = await page.move(link, version, view["view"]["hand"][0])
    assert body == {"ok": False, "text": t("ru", "refusal-not_your_turn")}
    status, body = await page.move(link, version, "x" * 40)
    assert status == 400 and body["text"] == t("ru", "bad-button")


async def test_the_pages_hint_answers_as_the_chats_pop_up_and_a_failure_says_so(
    mini: tuple[Harness, str], page_of: PageOf, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = mini[0]
    fake = harness.fake
    vera = fake.user("Vera")
    await harness.command(vera, fake.private(vera).id, "/new eleven")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:easy")
    await harness.settle()
    [session] = await harness.kol.manager.sessions_of_user(vera.id)
    page = page_of(vera)
    _, view = await page.view(session.link)
    assert "hint" in [extra["action"] for extra in view["extras"]]
    status, body = await page.move(session.link, view["version"], "hint")
    prefix = t("en", "hint-card", move="")
    assert status == 200 and body["ok"] is True and body["text"].startswith(prefix)
    assert body["text"].removeprefix(prefix) in [m["label"] for m in view["moves"]]

    async def broken(session_id: int, user_id: int) -> str:
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr(harness.kol.manager, "hint", broken)
    status, body = await page.move(session.link, view["version"], "hint")
    assert status == 200 and body == {"ok": False, "text": t("en", "hint-failed")}
    assert (await harness.kol.manager.get(session.id)).version == view["version"]


# ---------------------------------------------------------------- where it opens


def app_buttons(message: StoredMessage) -> list[dict[str, Any]]:
    return [b for b in message.buttons() if "web_app" in b or "startapp=" in (b.get("url") or "")]


async def test_it_opens_from_the_private_hand_and_the_group_by_direct_link(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    harness, base = mini
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    hand = harness.fake.last_message(table.alice.id)
    assert hand is not None
    [private] = app_buttons(hand)
    assert private["web_app"] == {"url": f"{PUBLIC_URL}?t={session.link}"}
    [group] = app_buttons(table.message)
    assert "web_app" not in group
    assert group["url"] == f"https://t.me/{harness.app.bot.username}/play?startapp={session.link}"
    # a direct link carries the table in the signed start_param: no query needed
    data = init_data(table.bob, harness.fake.token, start_param=session.link)
    async with http.get(base + "api/view", headers={"X-Telegram-Init-Data": data}) as answer:
        assert answer.status == 200 and (await answer.json())["session"] == session.id


async def test_without_miniapp_url_no_message_changes(harness: Harness) -> None:
    table = await open_table(harness)
    hand = harness.fake.last_message(table.alice.id)
    assert hand is not None and not app_buttons(hand) and not app_buttons(table.message)
    assert harness.app.bot_data.pages is None and harness.app.bot_data.miniapp_runner is None


async def test_telegram_refuses_a_web_app_button_in_a_group(harness: Harness) -> None:
    group = harness.fake.group("Cards")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("x", web_app=WebAppInfo("https://a.b"))]])
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
        await harness.app.bot.send_message(group.id, "hi", reply_markup=markup)
    user = harness.fake.user("Ann")
    await harness.command(user, harness.fake.private(user).id, "/start")
    sent = await harness.app.bot.send_message(user.id, "hi", reply_markup=markup)
    assert sent.message_id


# ---------------------------------------------------------------- live, and the budget


async def test_an_open_page_follows_every_move_and_holds_the_hand_edits(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    harness, base = mini
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    alice = table.alice
    hand = harness.fake.last_message(alice.id)
    assert hand is not None
    pages = harness.app.bot_data.pages
    assert pages is not None
    data = init_data(alice, harness.fake.token)
    async with http.get(base + "api/stream", params={"t": session.link, "auth": data}) as answer:
        assert answer.content_type == "text/event-stream"
        first = await next_view(answer.content)
        assert first["version"] == session.version
        edits = hand.edits
        for _ in range(3):
            await play_one(harness, table)
            shown = await next_view(answer.content)
            current = await harness.kol.manager.get(table.session_id)
            assert shown["version"] == current.version
        assert hand.edits == edits  # the page showed the moves; the chat was not edited
        assert pages.is_open(session.id, alice.id)
    for _ in range(100):  # the stream's end is noticed within a second
        if not pages.is_open(session.id, alice.id):
            break
        await asyncio.sleep(0.05)
    await harness.settle()
    current = await harness.kol.manager.get(table.session_id)
    seat = current.seat_of(alice.id)
    assert seat is not None
    assert hand.edits > edits  # caught up once the page closed
    ref = await harness.kol.messages.stored(current.id, hand_purpose(seat))
    assert ref is not None and ref.shown >= ref.wanted


async def test_one_user_cannot_hold_open_pages_without_end(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    """Every open page costs a connection and a task: a user who opens them in a loop
    (a player or a spectator) is refused past the cap, in their language, while
    everybody else's pages still open; a closed page frees its place."""
    harness, base = mini
    table = await open_table(harness)
    link = (await harness.kol.manager.get(table.session_id)).link
    eve = harness.fake.user("Ева", language_code="ru")
    opened: list[aiohttp.ClientResponse] = []

    async def open_page(user: FakeUser) -> aiohttp.ClientResponse:
        data = init_data(user, harness.fake.token)
        return await http.get(base + "api/stream", params={"t": link, "auth": data})

    try:
        for user in (table.alice, eve):  # a player and a spectator
            for _ in range(PAGES_PER_USER):
                opened.append(await open_page(user))
                assert opened[-1].status == 200
                await next_view(opened[-1].content)
            more = await asyncio.gather(*(open_page(user) for _ in range(3)))
            opened += more
            assert [answer.status for answer in more] == [429] * 3
            body = await more[0].json()
            language = user.language_code
            assert body == {"ok": False, "text": t(language, "miniapp-too-many-pages")}
        bob = await open_page(table.bob)  # somebody else is not held back
        opened.append(bob)
        assert bob.status == 200
        opened[0].close()  # Alice closes one page: she may open one more
        for _ in range(100):
            again = await open_page(table.alice)
            opened.append(again)
            if again.status == 200:
                break
            await asyncio.sleep(0.05)
        assert again.status == 200
    finally:
        for answer in opened:
            answer.close()


async def test_an_open_page_ends_when_its_launch_data_expires(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    """initData is taken for a day so that a leaked launch link stops working: a page
    opened with it must not go on showing the hand after that day (the page then asks
    again and is refused)."""
    harness, _ = mini
    table = await open_table(harness)
    link = (await harness.kol.manager.get(table.session_id)).link
    now = [time.time()]
    async with serving(MiniApp(harness.app, PATH, clock=lambda: now[0])) as base:
        data = init_data(table.alice, harness.fake.token, auth_date=now[0])
        async with http.get(base + "api/stream", params={"t": link, "auth": data}) as answer:
            first = await next_view(answer.content)
            assert first["seat"] is not None and first["view"]["hand"]
            now[0] += MAX_AGE + 1  # a day later, the page still open
            async with asyncio.timeout(10 * CHECK):
                rest = await answer.content.read()
            assert b"event: view" not in rest  # ended, nothing more shown
        async with http.get(base + "api/stream", params={"t": link, "auth": data}) as again:
            assert again.status == 401


async def test_a_commit_of_another_worker_is_seen_by_the_version_poll() -> None:
    versions = {5: 1}

    async def version_of(session_id: int) -> int | None:
        return versions.get(session_id)

    pages = Pages(version_of, poll=0.05)
    with pages.watch(5, 77) as woken:
        await asyncio.sleep(0.12)  # the first poll learns version 1
        woken.clear()
        versions[5] = 2  # committed elsewhere: no presenter here saw it
        async with asyncio.timeout(1.0):
            await woken.wait()
    await pages.close()
    assert not pages.is_open(5, 77) and pages.watched == 0


async def test_a_closed_page_owes_a_catch_up_only_if_a_hand_was_held() -> None:
    from sessions import Player, Session

    closed: list[tuple[int, int]] = []

    async def on_closed(session_id: int, user_id: int) -> None:
        closed.append((session_id, user_id))

    pages = Pages()
    pages.on_closed = on_closed
    session = Session(id=3, chat_id=-1, kind="group", game_id="eleven", status="running",
                      creator_id=9, seats=[Player(9, "A", None)], options={}, timer=None,
                      version=4, deadline=None, game=None, result=None, created_at=0.0)
    assert await pages.held(session, {9}) == set()  # no page open: edit as usual
    with pages.watch(3, 9):
        assert await pages.held(session, {9, 10}) == {9}
    with pages.watch(3, 9):
        pass
    await asyncio.sleep(0)
    assert closed == [(3, 9)]


async def test_a_deal_not_yet_finished_is_refused_as_the_chat_refuses_it(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    harness, base = mini
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    page = PageClient(http, base, init_data(table.bob, harness.fake.token))
    for action in ("deal:0", "deal:9999", "deal:x", "deal:-1"):
        status, body = await page.move(session.link, session.version, action)
        assert (status, body) == (200, {"ok": False,
                                        "text": t("en", "refusal-deal_not_finished")})
    assert (await harness.kol.manager.get(table.session_id)).version == session.version

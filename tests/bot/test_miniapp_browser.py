"""The Mini App in a real headless browser (Debian's chromium, driven by Playwright),
against the real bot and the fake Bot API: the hand as pictures, a tap that moves the
group's table, refused launch data, a second page that follows live, 📜 Deal, and
screenshots of a trick game and of Rummy in both themes (tests/support/browser.py).

The page is opened as Telegram opens it, with the launch data in the URL fragment;
Telegram's WebApp script (and anything else not on 127.0.0.1) is refused, so these
tests also show the page works without it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from bot.i18n import t
from bot.miniapp.auth import MAX_AGE
from bot.miniapp.pace import UserPace
from games.cards import display
from sessions import Session
from tests.support.browser import Opened, artifacts, browser, open_page
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram, FakeUser
from tests.support.harness import Harness
from tests.support.miniapp import DARK, LIGHT, init_data, launch_url, start_miniapp, until
from tests.support.tables import Table, finish_first_deal, labels, mover, open_table

__all__ = ["browser"]  # the session's browser is a fixture of this module

# the browser is shared by the whole session, so these tests run on the session's loop
pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Milliseconds the page gets to show a change (it is there in a few tens).
SHOWN = 10_000


@pytest_asyncio.fixture(loop_scope="session")
async def mini(db_dir: Path) -> AsyncIterator[tuple[Harness, str]]:
    """The fake Bot API and the bot with its Mini App (on the session's loop)."""
    fake = FakeTelegram()
    await fake.start()
    harness, base = await start_miniapp(fake, db_dir / "koloda.sqlite3", RandomComputer())
    yield harness, base
    pace = harness.app.bot_data.pace
    await harness.stop()
    await fake.stop()
    # a real page's use, whatever the test did with it, never meets the API's pace
    assert pace is not None
    assert pace.refused == 0, f"{pace.refused} requests refused 429"


async def page_of(browser: Browser, harness: Harness, base: str, user: FakeUser,
                  session: Session, **launch: object) -> Opened:
    """``user``'s page of the table, opened as the hand message's web app button opens
    it; ``launch``: the theme (``theme=``, ``dark=``) or the launch data (``data=``)."""
    data = launch.get("data") or init_data(user, harness.fake.token)
    theme = launch.get("theme")
    url = launch_url(base, str(data), session.link, theme if isinstance(theme, dict) else None)
    locale = "ru-RU" if user.language_code == "ru" else "en-US"
    return await open_page(browser, url, locale=locale, dark=bool(launch.get("dark")))


async def hand_shown(page: Page, session: Session, seat: int) -> list[str]:
    """Wait for the seat's whole hand to be drawn; the cards' codes, in page order."""
    hand = session.view(seat)["hand"]
    await expect(page.locator("#hand .card svg")).to_have_count(len(hand), timeout=SHOWN)
    codes: list[str] = await page.locator("#hand .card").evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)"
    )
    return codes


@dataclass
class Turn:
    """A new table, and the page of its player to move, their hand drawn."""

    table: Table
    player: FakeUser
    version: int
    session: Session
    seat: int
    opened: Opened


async def turn_page(browser: Browser, harness: Harness, base: str) -> Turn:
    """A new table, and its player to move's page open, the hand drawn."""
    table = await open_table(harness)
    player, _, version = await mover(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(player.id)
    assert seat is not None
    opened = await page_of(browser, harness, base, player, session)
    await hand_shown(opened.page, session, seat)
    return Turn(table, player, version, session, seat, opened)


async def test_the_page_draws_the_hand_as_pictures(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    harness, base = mini
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(table.alice.id)
    assert seat is not None
    opened = await page_of(browser, harness, base, table.alice, session)
    try:
        page = opened.page
        codes = await hand_shown(page, session, seat)
        assert sorted(codes) == sorted(session.view(seat)["hand"])
        for code in codes:  # every card a picture named as the chat names it
            card = page.locator(f'#hand .card[data-card="{code}"]')
            label = await card.get_attribute("aria-label")
            assert label is not None and label.startswith(display(code, "en"))
            assert await card.locator("svg path").count() >= 2
        legal = set(session.view(seat)["legal"]) if session.to_move == seat else set()
        assert await page.locator("#hand button.card").count() == len(legal & set(codes))
        await expect(page.locator("#title")).to_have_text("Eleven")
        await expect(page.locator("#table")).not_to_be_empty()
        # Telegram's script was asked for and refused: nothing came from elsewhere
        assert opened.refused == ["https://telegram.org/js/telegram-web-app.js"]
        assert all(url.startswith(base) for url in opened.requests if url not in opened.refused)
    finally:
        await opened.close()


async def test_a_tap_on_a_legal_card_moves_the_page_and_the_group_table(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    harness, base = mini
    turn = await turn_page(browser, harness, base)
    table, session, seat, version, opened = (turn.table, turn.session, turn.seat,
                                             turn.version, turn.opened)
    try:
        page = opened.page
        await expect(page.locator("#status")).to_contain_text(t("en", "miniapp-your-turn"))
        before, edits = table.message.text, len(harness.fake.calls_of("editMessageText",
                                                                     table.group.id))
        card = page.locator("#hand button.card.legal").first
        code = await card.get_attribute("data-card")
        assert code is not None and code in session.view(seat)["legal"]
        await card.click()
        # the page: the card left the hand and lies on the table, the turn passed
        await expect(page.locator(f'#board .card[data-card="{code}"]')).to_be_visible(
            timeout=SHOWN)
        await expect(page.locator(f'#hand .card[data-card="{code}"]')).to_have_count(0)
        await expect(page.locator("#status")).not_to_contain_text(t("en", "miniapp-your-turn"))
        after = await harness.kol.manager.get(table.session_id)
        assert after.version == version + 1 and after.game is not None
        # the group's table message was edited to show the move
        await harness.settle()
        assert table.message.text != before
        assert len(harness.fake.calls_of("editMessageText", table.group.id)) > edits
        assert display(code, "en") in table.message.text
        # what the API's pace is sized for: 2 requests to open, 1 a tap (stream open)
        api = [url.removeprefix(base).split("?")[0] for url in opened.requests
               if url.startswith(base + "api/")]
        assert api == ["api/view", "api/stream", "api/move"]
    finally:
        await opened.close()


async def test_a_tap_past_the_pace_waits_tries_once_more_then_says_so(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    """The user's bucket is empty (a script of theirs flooded the API): a tap is refused,
    the page waits the Retry-After it was told and tries once more — refused again, it
    shows the text and the move is not made; let through on the second try, it is made
    once."""
    harness, base = mini
    turn = await turn_page(browser, harness, base)
    session, version, page = turn.session, turn.version, turn.opened.page
    normal = harness.app.bot_data.pace
    try:
        now = [0.0]
        pace = harness.app.bot_data.pace = UserPace(burst=1, rate=1.0, clock=lambda: now[0])
        assert pace.take(turn.player.id) == 0.0  # the one token: gone
        card = page.locator("#hand button.card.legal").first
        code = await card.get_attribute("data-card")
        await card.click()
        await expect(page.locator("#note")).to_have_text(t("en", "miniapp-too-fast"),
                                                         timeout=SHOWN)
        assert pace.refused == 2  # the tap and its one retry
        assert (await harness.kol.manager.get(session.id)).version == version
        await card.click()

        async def refused_once_more() -> bool:
            return pace.refused == 3

        await until(refused_once_more, "the tap refused")
        now[0] += 1.0  # a token before the page's retry, a second later
        await expect(page.locator(f'#board .card[data-card="{code}"]')).to_be_visible(
            timeout=SHOWN)
        await expect(page.locator("#note")).to_be_hidden()
        assert pace.refused == 3
        assert (await harness.kol.manager.get(session.id)).version == version + 1
    finally:
        harness.app.bot_data.pace = normal
        await turn.opened.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("how", ["forged", "stale"])
async def test_forged_or_stale_launch_data_is_refused_on_the_page(
    browser: Browser, mini: tuple[Harness, str], how: str, lang: str
) -> None:
    harness, base = mini
    table = await open_table(harness)
    session = await harness.kol.manager.get(table.session_id)
    alice = FakeUser(table.alice.id, table.alice.first_name, lang)
    if how == "forged":  # signed with another bot's token
        data = init_data(alice, "42:" + "x" * 35)
    else:
        data = init_data(alice, harness.fake.token, auth_date=time.time() - MAX_AGE - 60)
    opened = await page_of(browser, harness, base, alice, session, data=data)
    try:
        page = opened.page
        await expect(page.locator("#status")).to_have_text(t(lang, "miniapp-refused"),
                                                           timeout=SHOWN)
        await expect(page.locator("body")).to_have_attribute("data-refused", "1")
        assert await page.locator(".card").count() == 0
        assert await page.locator("#hand-box").is_hidden()
    finally:
        await opened.close()


async def test_the_other_players_page_follows_the_move_live(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    harness, base = mini
    table = await open_table(harness)
    first, other, version = await mover(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    seats = [session.seat_of(first.id), session.seat_of(other.id)]
    assert seats[0] is not None and seats[1] is not None
    mine = await page_of(browser, harness, base, first, session)
    theirs = await page_of(browser, harness, base, other, session)
    try:
        await hand_shown(mine.page, session, seats[0])
        await hand_shown(theirs.page, session, seats[1])
        waiting = t("en", "miniapp-wait", name=first.first_name)
        await expect(theirs.page.locator("#status")).to_contain_text(waiting)
        assert await theirs.page.locator("#board .card").count() == 0
        card = mine.page.locator("#hand button.card.legal").first
        code = await card.get_attribute("data-card")
        await card.click()
        # no reload: the stream brought the move to the other page
        await expect(theirs.page.locator(f'#board .card[data-card="{code}"]')).to_be_visible(
            timeout=SHOWN)
        await expect(theirs.page.locator("#status")).to_contain_text(
            t("en", "miniapp-your-turn"))
        assert await theirs.page.locator("#hand button.card.legal").count() > 0
        assert (await harness.kol.manager.get(table.session_id)).version == version + 1
    finally:
        await mine.close()
        await theirs.close()


def stand(legal: list[str]) -> str:
    """Fifteen: each player draws once and stands."""
    return "stand" if "stand" in legal else legal[0]


async def test_the_page_offers_the_last_deal_where_the_table_does(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    harness, base = mini
    table = await open_table(harness, "fifteen")
    session = await harness.kol.manager.get(table.session_id)
    deal = t("en", "button-deal")
    opened = await page_of(browser, harness, base, table.bob, session)
    try:
        page = opened.page
        await expect(page.locator("#title")).to_have_text("Fifteen", timeout=SHOWN)
        assert deal not in labels(table.message)
        await expect(page.get_by_role("button", name=deal)).to_have_count(0)
        await finish_first_deal(harness, table, stand, moves=20)
        assert deal in labels(table.message)  # the group's table offers it now
        button = page.get_by_role("button", name=deal)
        await expect(button).to_be_visible(timeout=SHOWN)
        await button.click()
        title = t("en", "record-deal-title", n=1, game="Fifteen")
        await expect(page.locator("#note")).to_contain_text(title, timeout=SHOWN)
    finally:
        await opened.close()


async def shoot(browser: Browser, harness: Harness, base: str, user: FakeUser,
                session: Session, name: str) -> list[Path]:
    """Screenshots of ``user``'s page in the light and the dark theme."""
    seat = session.seat_of(user.id)
    assert seat is not None
    shots = []
    for theme, colours in (("light", LIGHT), ("dark", DARK)):
        opened = await page_of(browser, harness, base, user, session, theme=colours,
                               dark=theme == "dark")
        try:
            await hand_shown(opened.page, session, seat)
            dark = await opened.page.evaluate(
                "document.documentElement.classList.contains('dark')")
            assert dark is (theme == "dark")
            path = artifacts() / f"miniapp-{name}-{theme}.png"
            await opened.page.screenshot(path=str(path), full_page=True)
            shots.append(path)
        finally:
            await opened.close()
    return shots


async def test_screenshots_of_a_trick_game_and_of_rummy(
    browser: Browser, mini: tuple[Harness, str]
) -> None:
    harness, base = mini
    trick = await open_table(harness, "eleven", title="Tricks")
    first, other, version = await mover(harness, trick)
    session = await harness.kol.manager.get(trick.session_id)
    seat = session.seat_of(first.id)
    assert seat is not None
    outcome = await harness.kol.manager.act(session.id, first.id, version,
                                            session.view(seat)["legal"][0])
    await harness.kol.presenter.on_outcome(outcome)  # a card on the table
    shots = await shoot(browser, harness, base, other, outcome.session, "eleven")
    rummy = await open_table(harness, "rummy", title="Rummy")
    session = await harness.kol.manager.get(rummy.session_id)
    first, _, _ = await mover(harness, rummy)
    shots += await shoot(browser, harness, base, first, session, "rummy")
    for path in shots:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000

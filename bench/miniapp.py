"""The Mini App in headless chromium: what opening it costs, and what it saves Telegram.

Runs the real bot in-process (``tests/support/harness.py``) against the fake Bot API,
with its page server on 127.0.0.1, and Debian's chromium driven by Playwright
(``tests/support/browser.py``: no browser download; Telegram's WebApp script and
anything else not on 127.0.0.1 refused, as in the tests). A four-human King table
in a group; printed:

- page weight: the bytes the page transferred on open (every request, headers
  included, as chromium's network log counts them; the event stream's first view
  as its framed text), per request and in all;
- open → hand: from navigation to the whole hand drawn as pictures, ``--opens``
  times (a new browser context each, so nothing is cached), median and worst;
- deliveries per move: the fake Bot API's ``sendMessage`` and ``editMessage*``
  calls per move, ``--moves`` moves with no page open (every player presses the
  first move button of their private hand) then ``--moves`` moves of the same table
  with all four players' pages open (the mover taps the page), and what the
  pages' closing owed (the held hand messages drawn once).

    .venv/bin/python bench/miniapp.py
    .venv/bin/python bench/miniapp.py --opens 20 --moves 40
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from playwright.async_api import Browser, CDPSession, async_playwright  # noqa: E402

from tests.support.browser import Opened, find_chromium, launch, open_page  # noqa: E402
from tests.support.computers import RandomComputer  # noqa: E402
from tests.support.fake_telegram import Call, FakeChat, FakeTelegram, FakeUser  # noqa: E402
from tests.support.harness import Harness  # noqa: E402
from tests.support.miniapp import LIGHT, init_data, launch_url, start_miniapp  # noqa: E402

MOVE = re.compile(r"^(\d+):(\d+):(.+)$")
#: The Bot API calls that deliver something: a new message or an edit of one.
DELIVERIES = ("sendMessage", "editMessage")
#: Seconds a page gets to show a new version.
SHOWN = 10.0


class Table:
    """A four-human King table in a group: its session and players."""

    def __init__(self, session_id: int, group: FakeChat, users: list[FakeUser]) -> None:
        self.session_id, self.group = session_id, group
        self.users = {u.id: u for u in users}


async def open_king(harness: Harness) -> Table:
    """Four players open a King table in a new group and deal."""
    fake = harness.fake
    users = [fake.user(name) for name in ("Ann", "Ben", "Cat", "Dan")]
    group, lobby = await harness.open_lobby("king", users, "King")
    session = await harness.kol.manager.open_in_chat(group.id)
    assert session is not None
    for user in users[1:]:
        await harness.press(user, lobby, f"join:{session.id}")
    await harness.press(users[0], lobby, f"start:{session.id}")
    return Table(session.id, group, users)


async def mover(harness: Harness, table: Table) -> tuple[FakeUser, int]:
    """The player to move and the current version."""
    session = await harness.kol.manager.get(table.session_id)
    seat = session.to_move
    assert session.status == "running" and seat is not None
    return table.users[session.seats[seat].user_id or 0], session.version


async def press_in_chat(harness: Harness, table: Table) -> None:
    """The mover presses the first current move button of their private hand."""
    user, version = await mover(harness, table)
    hand = harness.fake.last_message(user.id, containing="🃏")
    assert hand is not None
    current = [
        b["callback_data"] for b in hand.buttons()
        if (m := MOVE.match(b.get("callback_data") or "")) and int(m[2]) == version
    ]
    await harness.press(user, hand, current[0])


async def tap_in_page(harness: Harness, table: Table, pages: dict[int, Opened]) -> None:
    """The mover taps their first legal card (or move button) on their page."""
    user, version = await mover(harness, table)
    page = pages[user.id].page
    await page.wait_for_function(f"document.body.dataset.version === '{version}'",
                                 timeout=SHOWN * 1000)
    legal = page.locator("#hand button.card.legal, #moves button:not(.extra)").first
    await legal.click()
    for _ in range(int(SHOWN / 0.005)):
        if (await harness.kol.manager.get(table.session_id)).version != version:
            break
        await asyncio.sleep(0.005)
    await harness.settle()


class Deliveries:
    """Counts the deliveries the fake answers, by method, while in a ``with`` block."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.counted: Counter[str] = Counter()

    def listen(self, call: Call) -> None:
        """One Bot API call answered."""
        if call.ok and call.method.startswith(DELIVERIES):
            self.counted[call.method] += 1

    def __enter__(self) -> Deliveries:
        self.fake.listeners.append(self.listen)
        return self

    def __exit__(self, *_: object) -> None:
        self.fake.listeners.remove(self.listen)


async def network_log(cdp: CDPSession) -> dict[str, list[Any]]:
    """Per request id: [url, bytes so far, finished] from chromium's network events."""
    seen: dict[str, list[Any]] = {}

    def sent(event: dict[str, Any]) -> None:
        seen[event["requestId"]] = [event["request"]["url"], 0, False]

    def response(event: dict[str, Any]) -> None:
        if event["requestId"] in seen:
            seen[event["requestId"]][1] += event["response"].get("encodedDataLength", 0)

    def data(event: dict[str, Any]) -> None:
        if event["requestId"] in seen:
            seen[event["requestId"]][1] += event.get("encodedDataLength", 0)

    def finished(event: dict[str, Any]) -> None:
        if event["requestId"] in seen:  # the whole response, headers and body
            seen[event["requestId"]][1:] = [event["encodedDataLength"], True]

    def message(event: dict[str, Any]) -> None:  # an event of the stream, as framed
        if event["requestId"] in seen:
            framed = f"event: {event['eventName']}\ndata: {event['data']}\n\n"
            seen[event["requestId"]][1] += len(framed.encode())

    cdp.on("Network.eventSourceMessageReceived", message)
    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.responseReceived", response)
    cdp.on("Network.dataReceived", data)
    cdp.on("Network.loadingFinished", finished)
    await cdp.send("Network.enable")
    return seen


async def weigh(browser: Browser, url: str, hand: int) -> None:
    """The bytes one open transfers, per request."""
    context = await browser.new_context()
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    seen = await network_log(cdp)
    await context.route(re.compile(r"^https://telegram\.org/"), lambda route: route.abort())
    await page.goto(url)
    await page.locator("#hand .card svg").nth(hand - 1).wait_for(timeout=SHOWN * 1000)
    await asyncio.sleep(0.3)  # the stream's first view
    total = 0
    print("page weight on open (bytes on the wire, headers included):")
    for address, size, _ in seen.values():
        name = address.split("?")[0].split("/", 3)[-1] or "index.html"
        if "telegram.org" in address:  # refused here; in Telegram its clients cache it
            name, size = "telegram-web-app.js (refused)", 0
        print(f"  {name:<30} {size:>7}")
        total += size
    print(f"  {'all':<30} {total:>7}")
    await context.close()


async def time_opens(browser: Browser, url: str, hand: int, opens: int) -> None:
    """From navigation to the whole hand drawn, ``opens`` times in new contexts."""
    took = []
    for _ in range(opens):
        opened = await open_page(browser, url)
        await opened.page.locator("#hand .card svg").nth(hand - 1).wait_for(
            timeout=SHOWN * 1000)
        drawn = await opened.page.evaluate("performance.now()")
        took.append(float(drawn))
        await opened.close()
    print(f"open → whole hand drawn ({opens} opens, ms since navigation): "
          f"median {statistics.median(took):.0f}, worst {max(took):.0f}, best {min(took):.0f}")


async def main(opens: int, moves: int) -> None:
    """Weight, time to the hand, deliveries per move without and with pages."""
    binary = find_chromium()
    if binary is None:
        sys.exit("no chromium on PATH: apt-get install chromium")
    fake = FakeTelegram()
    await fake.start()
    with tempfile.TemporaryDirectory() as scratch:
        harness, base = await start_miniapp(fake, Path(scratch) / "mini.sqlite3",
                                            RandomComputer())
        try:
            async with async_playwright() as playwright:
                browser = await launch(playwright, binary)
                table = await open_king(harness)
                session = await harness.kol.manager.get(table.session_id)
                first = next(iter(table.users.values()))
                seat = session.seat_of(first.id)
                assert seat is not None
                hand = len(session.view(seat)["hand"])
                url = launch_url(base, init_data(first, fake.token), session.link, LIGHT)
                print(f"King, four humans, {hand} cards in hand; chromium {browser.version}")
                await weigh(browser, url, hand)
                await time_opens(browser, url, hand, opens)

                await asyncio.sleep(2.5)  # the timed pages' streams end: their catch-up
                await harness.settle()
                start = (await harness.kol.manager.get(table.session_id)).version
                with Deliveries(fake) as chat:
                    for _ in range(moves):
                        await press_in_chat(harness, table)
                made = (await harness.kol.manager.get(table.session_id)).version - start
                pages = {}
                for user in table.users.values():
                    link = launch_url(base, init_data(user, fake.token), session.link, LIGHT)
                    pages[user.id] = await open_page(browser, link)
                now = (await harness.kol.manager.get(table.session_id)).version
                for opened in pages.values():
                    await opened.page.wait_for_function(
                        f"document.body.dataset.version === '{now}'", timeout=SHOWN * 1000)
                with Deliveries(fake) as app:
                    for _ in range(moves):
                        await tap_in_page(harness, table, pages)
                tapped = (await harness.kol.manager.get(table.session_id)).version - now
                with Deliveries(fake) as closing:
                    for opened in pages.values():
                        await opened.close()
                    await asyncio.sleep(2.5)  # each stream's end is noticed within a second
                    await harness.settle()
                await browser.close()
            print(f"deliveries per move (sendMessage + editMessage*), {moves} moves each:")
            for name, part, made_here in (("no page open", chat, made),
                                          ("all 4 pages open", app, tapped)):
                total = sum(part.counted.values())
                kinds = ", ".join(f"{k} {v}" for k, v in sorted(part.counted.items()))
                print(f"  {name:<17} {total / max(made_here, 1):5.2f} per move"
                      f"  ({total} in {made_here} moves: {kinds})")
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(closing.counted.items()))
            print(f"  pages closed: {sum(closing.counted.values())} catch-up deliveries"
                  f" ({kinds})")
        finally:
            await harness.stop()
            await fake.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=10, help="page opens timed")
    parser.add_argument("--moves", type=int, default=24, help="moves per part")
    args = parser.parse_args()
    asyncio.run(main(args.opens, args.moves))

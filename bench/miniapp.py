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

``--workers 2`` measures only the deliveries per move, on two in-process workers
sharing one database of a throwaway PostgreSQL server (``tests/support/pg_server.py``,
as the tests start it; ``bench/miniapp_workers.py``): the chat's presses drawn by
worker B, the four pages opened through worker A with every tap drawn by B, then
opened again with the taps alternating A, B, A, … (each move made as soon as the
previous one is delivered: no think time).

    .venv/bin/python bench/miniapp.py
    .venv/bin/python bench/miniapp.py --opens 20 --moves 40
    .venv/bin/python bench/miniapp.py --workers 2 --moves 40
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import statistics
import sys
import tempfile
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from playwright.async_api import Browser, CDPSession, Page, async_playwright  # noqa: E402

from bench.miniapp_workers import NAMES, Workers, route_taps, start_workers  # noqa: E402
from tests.support.browser import Opened, find_chromium, launch, open_page  # noqa: E402
from tests.support.buttons import MOVE  # noqa: E402
from tests.support.fake_telegram import Call, FakeChat, FakeTelegram, FakeUser  # noqa: E402
from tests.support.harness import Harness  # noqa: E402
from tests.support.miniapp import (  # noqa: E402
    LIGHT,
    init_data,
    launch_url,
    until,
)

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


async def showing(page: Page, version: int) -> None:
    """Wait until the page shows ``version`` (a selector: the page's policy refuses
    the script a polled ``wait_for_function`` evaluates)."""
    await page.locator(f"body[data-version='{version}']").wait_for(
        state="attached", timeout=SHOWN * 1000)


async def tap_in_page(workers: Workers, table: Table, pages: dict[int, Opened]) -> None:
    """The mover taps their first legal card (or move button) on their page."""
    harness = workers.pages
    user, version = await mover(harness, table)
    page = pages[user.id].page
    await showing(page, version)
    legal = page.locator("#hand button.card.legal, #moves button:not(.extra)").first
    await legal.click()
    for _ in range(int(SHOWN / 0.005)):
        if (await harness.kol.manager.get(table.session_id)).version != version:
            break
        await asyncio.sleep(0.005)
    await workers.settle()


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


#: The pages' part: what it is called, and the workers that draw the taps, in turn.
ONE_WORKER = (("all 4 pages open", (0,)),)
TWO_WORKERS = (("all 4 pages open on A, taps drawn by B", (1,)),
               ("all 4 pages open on A, taps drawn by A, B in turn", (0, 1)))


class Part:
    """One part's deliveries and the moves it made."""

    def __init__(self, name: str, counted: Deliveries, made: int,
                 drawn: Counter[str] | None = None) -> None:
        self.name, self.counted, self.made = name, counted.counted, made
        self.drawn = drawn or Counter()

    def row(self, width: int) -> str:
        """Deliveries per move, by method, and the taps each worker drew."""
        total = sum(self.counted.values())
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.counted.items()))
        if self.drawn:
            kinds += "; taps drawn by " + ", ".join(
                f"{k} {v}" for k, v in sorted(self.drawn.items()))
        return (f"  {self.name:<{width}} {total / max(self.made, 1):5.2f} per move"
                f"  ({total} in {self.made} moves: {kinds})")


def closed_row(closing: Deliveries) -> str:
    """What the pages' closing owed."""
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(closing.counted.items()))
    return f"  pages closed: {sum(closing.counted.values())} catch-up deliveries ({kinds})"


async def version_of(workers: Workers, table: Table) -> int:
    """The table's stored version."""
    return (await workers.pages.kol.manager.get(table.session_id)).version


async def with_pages(workers: Workers, browser: Browser, table: Table, link: str,
                     moves: int, order: tuple[int, ...]
                     ) -> tuple[int, Deliveries, Deliveries, Counter[str]]:
    """``moves`` moves tapped on all four players' pages, opened through the first
    worker, each tap drawn by the worker next in ``order``; then the pages closed.
    The moves made, the deliveries while tapping, those the closing owed, and the
    taps each worker drew when they were sent elsewhere than the first."""
    fake = workers.pages.fake
    taps, drawn = itertools.cycle(order), Counter[str]()
    pages = {}
    for user in table.users.values():
        url = launch_url(workers.bases[0], init_data(user, fake.token), link, LIGHT)
        pages[user.id] = await open_page(browser, url)
        if order != (0,):
            await route_taps(pages[user.id], workers, taps, drawn)
    now = await version_of(workers, table)
    for opened in pages.values():
        await showing(opened.page, now)

    async def known() -> bool:
        return await workers.pages_known(table.session_id, list(table.users))

    await until(known, "the pages known to every worker")
    with Deliveries(fake) as tapping:
        for _ in range(moves):
            await tap_in_page(workers, table, pages)
    made = await version_of(workers, table) - now
    with Deliveries(fake) as closing:
        for opened in pages.values():
            await opened.close()
        await asyncio.sleep(2.5)  # each stream's end is noticed within a second

        async def forgotten() -> bool:
            return await workers.pages_known(table.session_id, [])

        await until(forgotten, "the pages forgotten by every worker")
        await workers.settle()
    return made, tapping, closing, drawn


async def count_deliveries(workers: Workers, browser: Browser, table: Table, link: str,
                           moves: int) -> None:
    """Deliveries per move: presses in the chat, then taps on the pages, in each of
    the pages' shapes for this many workers."""
    await asyncio.sleep(2.5)  # the timed pages' streams end: their catch-up
    await workers.settle()
    start = await version_of(workers, table)
    with Deliveries(workers.presses.fake) as chat:
        for _ in range(moves):
            await press_in_chat(workers.presses, table)
    parts = [Part("no page open", chat, await version_of(workers, table) - start)]
    closings = []
    for name, order in ONE_WORKER if len(workers.harnesses) == 1 else TWO_WORKERS:
        made, tapping, closing, drawn = await with_pages(workers, browser, table, link,
                                                         moves, order)
        parts.append(Part(name, tapping, made, drawn))
        closings.append(closing)
    width = max(17, *(len(part.name) for part in parts))
    print(f"deliveries per move (sendMessage + editMessage*), {moves} moves each:")
    print(parts[0].row(width))
    for part, closing in zip(parts[1:], closings, strict=True):
        print(part.row(width))
        print(closed_row(closing))


async def main(opens: int, moves: int, count: int) -> None:
    """Weight, time to the hand, deliveries per move without and with pages (only
    the deliveries with two workers)."""
    binary = find_chromium()
    if binary is None:
        sys.exit("no chromium on PATH: apt-get install chromium")
    fake = FakeTelegram()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            async with AsyncExitStack() as stack:
                workers = await start_workers(stack, fake, Path(scratch), count)
                playwright = await stack.enter_async_context(async_playwright())
                browser = await launch(playwright, binary)
                stack.push_async_callback(browser.close)
                table = await open_king(workers.presses)
                session = await workers.pages.kol.manager.get(table.session_id)
                first = next(iter(table.users.values()))
                seat = session.seat_of(first.id)
                assert seat is not None
                hand = len(session.view(seat)["hand"])
                print(f"King, four humans, {hand} cards in hand; chromium {browser.version}")
                if count == 1:
                    url = launch_url(workers.bases[0], init_data(first, fake.token),
                                     session.link, LIGHT)
                    await weigh(browser, url, hand)
                    await time_opens(browser, url, hand, opens)
                else:
                    print(f"{count} workers on one PostgreSQL database: the pages opened "
                          f"through {NAMES[0]}, the chat's presses drawn by {NAMES[-1]}")
                await count_deliveries(workers, browser, table, session.link, moves)
    finally:
        await fake.stop()

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=10, help="page opens timed")
    parser.add_argument("--moves", type=int, default=24, help="moves per part")
    parser.add_argument("--workers", type=int, choices=(1, 2), default=1,
                        help="2: the deliveries per move on two workers on PostgreSQL")
    args = parser.parse_args()
    asyncio.run(main(args.opens, args.moves, args.workers))

"""The Mini App with two workers on one PostgreSQL store: a page open on one worker
holds back the hand edits of the moves another worker draws, and the hand is drawn
once when the page closes; a dead worker's pages stop holding after their expiry."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack
from pathlib import Path

import aiohttp

from bot.miniapp.live import Pages
from bot.miniapp.presence import EXPIRY, Presence
from sessions import Player, Session, hand_purpose
from storage import Store
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import Call, FakeTelegram, FakeUser
from tests.support.harness import Harness
from tests.support.miniapp import (
    init_data,
    next_view,
    play_one,
    start_miniapp,
    until,
)
from tests.support.tables import Table, open_table

MOVES = 4
#: the calls that send or edit a message: what a move costs of Telegram's budget
SENDS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")


def sends(calls: list[Call], chat_id: int | None = None) -> list[Call]:
    """The calls that sent or edited a message (in ``chat_id``; None: anywhere)."""
    return [c for c in calls
            if c.ok and c.method in SENDS and chat_id in (None, c.chat_id)]


async def open_page(
    stack: AsyncExitStack, http: aiohttp.ClientSession, base: str, harness: Harness,
    table: Table, user: FakeUser,
) -> aiohttp.StreamReader:
    """Open ``user``'s page of the table on the worker serving ``base`` (closed when
    ``stack`` closes): its event stream, its first view read."""
    session = await harness.kol.manager.get(table.session_id)
    auth = init_data(user, harness.fake.token)
    answer = await stack.enter_async_context(
        http.get(base + "api/stream", params={"t": session.link, "auth": auth})
    )
    await next_view(answer.content)
    return answer.content


async def hand_current(harness: Harness, table: Table, user: FakeUser) -> bool:
    """Whether the user's hand message shows the session's stored version."""
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(user.id)
    assert seat is not None
    stored = await harness.kol.messages.stored(session.id, hand_purpose(seat))
    return stored is not None and stored.shown == session.version


async def test_a_page_open_on_one_worker_holds_the_hands_another_worker_draws(
    fake: FakeTelegram, db_dir: Path, pg_database: str
) -> None:
    first, base = await start_miniapp(fake, db_dir / "unused.sqlite3", RandomComputer(),
                                      database_url=pg_database)
    second: Harness | None = None
    try:
        table = await open_table(first)
        second, _ = await start_miniapp(fake, db_dir / "unused.sqlite3", RandomComputer(),
                                        database_url=pg_database)
        store = second.kol.manager.store
        players = (table.alice, table.bob)
        edits = {}
        for user in players:
            hand = fake.last_message(user.id)
            assert hand is not None
            edits[user.id] = (hand, hand.edits)
        async with aiohttp.ClientSession() as http:
            async with AsyncExitStack() as pages:  # both players' pages, on the first
                streams = [await open_page(pages, http, base, first, table, u) for u in players]

                async def known() -> bool:
                    users = await store.page_users(table.session_id, time.time())
                    return users == sorted(u.id for u in players)

                await until(known, "the pages known to the store")
                before = len(fake.calls)
                for _ in range(MOVES):  # drawn by the second worker
                    await play_one(second, table)
                    version = (await second.kol.manager.get(table.session_id)).version
                    for events in streams:  # the pages follow (the first's version poll)
                        while (await next_view(events))["version"] != version:
                            pass
                await second.settle()
                during = fake.calls[before:]
                for user in players:
                    assert sends(during, user.id) == []  # the pages showed the moves
                print(f"sends and edits per move, both pages open on the other worker: "
                      f"{len(sends(during)) / MOVES:.2f}")
            for user in players:  # closed on the first: it draws the hands the second held

                async def current(user: FakeUser = user) -> bool:
                    return await hand_current(first, table, user)

                await until(current, "the hand caught up")
            await first.settle()
            await second.settle()
            after = fake.calls[before:]
            for user in players:
                hand, edited = edits[user.id]
                assert len(sends(after, user.id)) == 1 and hand.edits == edited + 1  # once
                # the position now: what the chat's own hand shows at this version
                session = await first.kol.manager.get(table.session_id)
                seat = session.seat_of(user.id)
                assert seat is not None
                shown = first.kol.presenter.private_screen(session, seat, "en", None)
                assert hand.text == shown.text

            # opened and closed again with no move between: the catch-up costs no call
            closed = len(fake.calls)
            async with AsyncExitStack() as pages:
                await open_page(pages, http, base, first, table, table.alice)
                await until(lambda: known_one(store, table, table.alice), "the page known")
            await until(lambda: known_none(store, table), "the page forgotten")
            await asyncio.sleep(0.2)
            await first.settle()
            assert sends(fake.calls[closed:]) == []
    finally:
        if second is not None:
            await second.stop()
        await first.stop()


async def known_one(store: Store, table: Table, user: FakeUser) -> bool:
    """Whether the store knows ``user``'s page of the table (only theirs)."""
    return await store.page_users(table.session_id, time.time()) == [user.id]


async def known_none(store: Store, table: Table) -> bool:
    """Whether the store knows no page of the table."""
    return await store.page_users(table.session_id, time.time()) == []


def running(session_id: int, user_id: int) -> Session:
    """A running table of ``session_id`` where ``user_id`` sits."""
    return Session(id=session_id, chat_id=-1, kind="group", game_id="eleven",
                   status="running", creator_id=user_id, seats=[Player(user_id, "A", None)],
                   options={}, timer=None, version=4, deadline=None, game=None, result=None,
                   created_at=0.0)


async def test_a_dead_workers_page_stops_holding_after_its_expiry(store: Store) -> None:
    now = [1000.0]
    pages = Pages(presence=Presence(store, "alive", clock=lambda: now[0]))
    session = running(3, 9)
    await store.keep_pages("dead", [(3, 9)], now[0] + EXPIRY)  # its last refresh
    assert await pages.held(session, {9, 10}) == {9}  # open on the other worker
    now[0] += EXPIRY - 0.5
    assert await pages.held(session, {9}) == {9}
    now[0] += 0.5  # not refreshed since: it died
    assert await pages.held(session, {9}) == set()
    await pages.close()


async def test_an_open_page_is_refreshed_and_its_close_always_catches_up(store: Store) -> None:
    now = [1000.0]
    here = Pages(presence=Presence(store, "here", refresh=0.05, clock=lambda: now[0]))
    there = Pages(presence=Presence(store, "there", clock=lambda: now[0]))
    closed: list[tuple[int, int]] = []

    async def on_closed(session_id: int, user_id: int) -> None:
        closed.append((session_id, user_id))
        assert await there.held(session, {9}) == set()  # forgotten before the catch-up

    here.on_closed = on_closed
    session = running(3, 9)

    async def held_there() -> bool:
        return await there.held(session, {9}) == {9}

    with here.watch(3, 9):
        await until(held_there, "the page known to the other worker")
        now[0] += 2 * EXPIRY  # its first row has lapsed by now: the refreshes keep it
        await asyncio.sleep(0.2)
        assert await held_there()
    for _ in range(100):
        if closed:
            break
        await asyncio.sleep(0.01)
    assert closed == [(3, 9)]  # nothing was held here: another worker may have
    await here.close()
    await there.close()

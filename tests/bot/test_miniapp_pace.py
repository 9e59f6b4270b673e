"""One user cannot flood the Mini App's API: each user's requests are paced (a token
bucket, :mod:`bot.miniapp.pace`), a request past the pace is answered 429 before it is
looked at (a refused move is not made), and everybody else is served meanwhile."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from bot.i18n import t
from bot.miniapp.pace import UserPace, retry_after
from tests.support.harness import Harness
from tests.support.miniapp import PageClient, init_data, until
from tests.support.tables import mover, open_table


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------- the buckets


def test_a_burst_then_the_rate_and_a_refusal_takes_nothing() -> None:
    clock = Clock()
    pace = UserPace(burst=5, rate=2.0, clock=clock)
    assert [pace.take(1) for _ in range(5)] == [0.0] * 5
    assert pace.take(1) == pytest.approx(0.5)  # the next token in half a second
    assert pace.take(2) == 0.0  # another user has a bucket of their own
    clock.now += 0.25
    assert pace.take(1) == pytest.approx(0.25)  # refused asks took nothing
    clock.now += 0.25
    assert pace.take(1) == 0.0 and pace.take(1) > 0
    clock.now += 100  # a long pause refills no more than the burst
    assert [pace.take(1) for _ in range(6)].count(0.0) == 5
    assert pace.refused == 4


def test_retry_after_is_whole_seconds_of_at_least_one() -> None:
    assert [retry_after(w) for w in (0.01, 0.2, 1.0, 1.01)] == ["1", "1", "1", "2"]


def test_idle_users_are_forgotten_so_memory_stays_bounded() -> None:
    clock = Clock()
    pace = UserPace(burst=20, rate=5.0, clock=clock)
    for user in range(1, 50_001):  # fifty thousand users, a request each
        pace.take(user)
        clock.now += 0.00005
    assert pace.kept == 50_000  # 2.5 s, under the 4 s to fill: all still kept
    clock.now += 20 / 5.0  # the time an empty bucket takes to fill
    pace.take(7)
    assert pace.kept == 1
    for _ in range(25):  # a forgotten bucket is a full one: the burst again, no more
        pace.take(8)
    assert pace.refused == 5


# ---------------------------------------------------------------- through the bot


async def test_a_flood_is_refused_past_the_burst_and_nothing_applies_twice(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    """A user firing many requests at once: the burst is served (one move made, once),
    the rest answered 429 with Retry-After in their language; another user's requests at
    the same moment are all served; a move refused 429 was not made, and is made when
    asked again after the wait."""
    harness, base = mini
    clock = Clock()  # frozen: no token comes back during the flood
    pace = harness.app.bot_data.pace = UserPace(burst=20, rate=5.0, clock=clock)
    table = await open_table(harness)
    first, other, version = await mover(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    flooder = PageClient(http, base, init_data(first, harness.fake.token))
    bystander = PageClient(http, base, init_data(other, harness.fake.token))
    _, view = await flooder.view(session.link)  # one token
    card = view["moves"][0]["action"]

    async def move_answer() -> tuple[int, str | None, dict[str, object]]:
        async with http.post(
            f"{base}api/move", json={"t": session.link, "version": version, "action": card},
            headers={"X-Telegram-Init-Data": flooder.data},
        ) as answer:
            return answer.status, answer.headers.get("Retry-After"), await answer.json()

    flood, watching = await asyncio.gather(
        asyncio.gather(*(move_answer() for _ in range(60))),
        asyncio.gather(*(bystander.view(session.link) for _ in range(15))),
    )
    statuses = [status for status, _, _ in flood]
    assert statuses.count(200) == 19 and statuses.count(429) == 41
    refused = [(after, body) for status, after, body in flood if status == 429]
    language = first.language_code or "en"
    assert all(after == "1" and body == {"ok": False, "text": t(language, "miniapp-too-fast")}
               for after, body in refused)
    made = [body for status, _, body in flood if status == 200 and "version" in body]
    assert made == [{"ok": True, "version": version + 1}]  # the same tap, made once
    assert [status for status, _ in watching] == [200] * 15  # the other player served
    assert (await harness.kol.manager.get(session.id)).version == version + 1

    # the other player's move, refused past their pace: not made, then made after the wait
    _, now = await bystander.view(session.link)
    answer = now["moves"][0]["action"]
    for _ in range(pace.burst - 15 - 1):  # the rest of their burst
        assert (await bystander.view(session.link))[0] == 200
    status, body = await bystander.move(session.link, version + 1, answer)
    assert status == 429 and body["ok"] is False
    assert (await harness.kol.manager.get(session.id)).version == version + 1
    clock.now += 1 / pace.rate
    status, body = await bystander.move(session.link, version + 1, answer)
    assert status == 200 and body == {"ok": True, "version": version + 2}


async def test_the_pace_is_checked_before_the_body_or_the_store(
    mini: tuple[Harness, str], http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request past the pace costs no store read: not the language, not the table,
    however bad its body (and a stream, too, counts)."""
    harness, base = mini
    harness.app.bot_data.pace = UserPace(burst=1, rate=1.0, clock=Clock())
    table = await open_table(harness)
    data = init_data(table.alice, harness.fake.token)
    link = (await harness.kol.manager.get(table.session_id)).link
    status, _ = await PageClient(http, base, data).view(link)
    assert status == 200
    reads: list[str] = []

    async def counted(*args: object) -> None:
        reads.append("language")

    monkeypatch.setattr(harness.kol.prefs, "language", counted)
    async with http.post(f"{base}api/move", data=b"not json",
                         headers={"X-Telegram-Init-Data": data}) as answer:
        assert answer.status == 429
    async with http.get(f"{base}api/stream", params={"t": link, "auth": data}) as answer:
        assert answer.status == 429
    assert reads == []


async def test_a_refused_request_is_held_before_its_answer(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    """Past the pace each answer waits the hold, so a script asking again at once on one
    connection gets one answer a hold, not thousands a second."""
    harness, base = mini
    hold = 0.05
    pace = harness.app.bot_data.pace = UserPace(burst=1, rate=1.0, hold=hold, clock=Clock())
    table = await open_table(harness)
    page = PageClient(http, base, init_data(table.alice, harness.fake.token))
    link = (await harness.kol.manager.get(table.session_id)).link
    assert (await page.view(link))[0] == 200
    loop = asyncio.get_running_loop()
    started = loop.time()
    statuses = [(await page.view(link))[0] for _ in range(10)]
    assert statuses == [429] * 10 and pace.refused == 10
    assert loop.time() - started >= 10 * hold * 0.99  # never sooner: each one held


async def test_one_user_holds_no_more_than_a_few_refusals_at_once(
    mini: tuple[Harness, str], http: aiohttp.ClientSession
) -> None:
    """Each held refusal keeps a connection (and, with a webhook, a place among the
    requests in flight that Telegram's updates need): past the few one user may have
    held, the rest are answered at once."""
    harness, base = mini
    released = asyncio.Event()

    async def held(seconds: float) -> None:
        await released.wait()

    pace = harness.app.bot_data.pace = UserPace(burst=1, rate=1.0, clock=Clock(), sleep=held,
                                            held_per_user=2)
    table = await open_table(harness)
    page = PageClient(http, base, init_data(table.alice, harness.fake.token))
    link = (await harness.kol.manager.get(table.session_id)).link
    assert (await page.view(link))[0] == 200
    asks = [asyncio.create_task(page.view(link)) for _ in range(6)]

    async def four_answered() -> bool:
        return sum(ask.done() for ask in asks) == 4

    await until(four_answered, "four refusals answered at once")
    assert pace.refused == 6 and pace.holding(table.alice.id) == 2
    released.set()
    assert [status for status, _ in await asyncio.gather(*asks)] == [429] * 6
    assert pace.holding(table.alice.id) == 0

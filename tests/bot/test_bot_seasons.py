"""Seasons through the bot: a match counts in the month it finished (UTC), ``/top season``
and ``/score season`` show this month beside the unchanged all-time ones, daily deals
stay out, and each group with a rated match gets one champions' post when the month
ends — once across a restart, and once with two workers. Golden screens in both
languages (tests/bot/golden/bot_season_*.txt; regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_seasons.py``)."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.i18n import t
from bot.render.common import Screen
from bot.render.ratings import render_top
from bot.render.result import render_tally
from bot.render.seasons import month_text, render_champions
from bot.seasons import SeasonPosts
from sessions import OVERALL, Session, SessionManager
from sessions.months import month_of, month_start, year_and_month
from sessions.ratings import rated_match
from sessions.seasons import Champions
from storage import Rating, RatingRow, ResultRecord, SeatRecord, Store, TallyRow
from storage.records import SessionRecord
from tests.support.fake_telegram import FakeTelegram
from tests.support.golden_screens import GOLDEN, snapshot
from tests.support.harness import Harness
from tests.support.helpers_sessions import FakeClock, FirstLegal, duel, play_out
from tests.support.posts import RecordedPosts, posted_once_by_two_workers

GROUP, OTHER, QUIET = -1001, -1002, -1003
#: two minutes before November 2026 begins (UTC)
OCTOBER_LAST = datetime(2026, 10, 31, 23, 58, tzinfo=UTC).timestamp()
OCTOBER = month_of(OCTOBER_LAST)
DAY = 86400.0


def test_a_month_is_its_utc_calendar_month() -> None:
    assert year_and_month(OCTOBER) == (2026, 10)
    assert month_of(month_start(OCTOBER + 1) - 0.001) == OCTOBER
    assert month_of(month_start(OCTOBER + 1)) == OCTOBER + 1
    december = month_of(datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())
    assert year_and_month(december + 1) == (2027, 1)
    assert month_start(december + 1) == datetime(2027, 1, 1, tzinfo=UTC).timestamp()


# ---------------------------------------------------------------- the session layer


async def named(manager: SessionManager, *users: tuple[int, str]) -> None:
    """The names the bot would have remembered from the users' updates."""
    for user, name in users:
        await manager.store.remember_user(user, name)


async def match_in(manager: SessionManager, chat: int, users: tuple[int, int]) -> Session:
    """A one-point Eleven between two humans in group ``chat``, played to its end."""
    session = await duel(manager, chat, users)
    return await play_out(manager, session.id)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(OCTOBER_LAST)


async def test_a_match_counts_in_the_month_it_finished_and_all_time(
    tmp_path: Path, clock: FakeClock
) -> None:
    manager = await SessionManager.open(f"sqlite:///{tmp_path / 's.sqlite3'}", FirstLegal(),
                                        clock)
    try:
        await named(manager, (1, "Ann"), (2, "Bob"))
        await match_in(manager, GROUP, (1, 2))  # 31 October, 23:58 and a bit
        assert manager.seasons.this_month() == OCTOBER
        october = await manager.seasons.board(GROUP, "eleven")
        assert sorted(r.rating.played for r in october) == [1, 1]
        clock.advance(3 * 60)  # 1 November, 00:01
        assert manager.seasons.this_month() == OCTOBER + 1
        assert await manager.seasons.board(GROUP) == []  # a new season: empty
        assert await manager.seasons.tally(GROUP) == []
        second = await match_in(manager, GROUP, (1, 2))
        november = await manager.seasons.board(GROUP, "eleven")
        assert sorted(r.rating.played for r in november) == [1, 1]
        all_time = await manager.leaderboard(GROUP, "eleven")
        assert sorted(r.rating.played for r in all_time) == [2, 2]
        # the all-time rating goes on from October's; the season's starts afresh
        changes = await manager.store.rating_changes(second.id)
        before = {c.user_id: c.before.played for c in changes if c.scope == GROUP}
        assert before == {1: 1, 2: 1}
        assert [r.played for r in await manager.seasons.tally(GROUP, "eleven")] == [1, 1]
        assert [r.played for r in await manager.chat_tally(GROUP, "eleven")] == [2, 2]
        still = await manager.store.season_leaderboard(OCTOBER, GROUP, "eleven")
        assert still == october
    finally:
        await manager.close()


async def play_alone(manager: SessionManager, session_id: int, user: int) -> None:
    """The user's first legal move each turn, against the computers, to the table's end."""
    for _ in range(5000):
        await manager.idle()
        session = await manager.get(session_id)
        if session.status != "running":
            return
        seat = session.seat_of(user)
        if session.to_move == seat and seat is not None:
            action = session.view(seat)["legal"][0]
            await manager.act(session.id, user, session.version, action)
    raise AssertionError("the table never ended")


async def test_daily_deals_stay_out_of_the_seasons(tmp_path: Path, clock: FakeClock) -> None:
    manager = await SessionManager.open(f"sqlite:///{tmp_path / 'd.sqlite3'}", FirstLegal(),
                                        clock)
    try:
        daily = (await manager.daily.start(1, 1, "Ann", "eleven")).session
        await play_alone(manager, daily.id, 1)
        assert (await manager.daily.standing(1, "eleven")) is not None  # it was played
        assert await manager.seasons.board(OVERALL) == []
        assert await manager.seasons.tally(1) == []
        clock.advance(DAY)
        assert await manager.seasons.to_post(OCTOBER) == []
    finally:
        await manager.close()


# ---------------------------------------------------------------- /top season, /score season


async def rated_last_month(store: Store, chat: int, users: tuple[int, int], now: float) -> None:
    """A group match of ``users`` (the first won) rated at the end of last month."""
    at = month_start(month_of(now)) - 60
    seats = [SeatRecord(user, f"P{user}", None) for user in users]
    record = SessionRecord(0, chat, "group", "eleven", "running", users[0], {}, None, None,
                           1, 0, None, None, None, at, seats)
    session = await store.create_session(record)
    result = {"scores": [1, 0], "winners": [0]}
    match = rated_match(session, "eleven", "group", chat, result,
                        [(user, None) for user in users], users, at)
    await store.save_session(
        replace(record, id=session, version=2, status="finished", result=result), 1,
        results=[ResultRecord(user, n, n == 0, float(1 - n), at) for n, user in enumerate(users)],
        rated=match,
    )


async def test_top_season_and_score_season(harness: Harness, fake: FakeTelegram) -> None:
    ann, bob = fake.user("Ann"), fake.user("Bob")
    group = fake.group("Friends")
    for user in (ann, bob):
        await harness.command(user, fake.private(user).id, "/start")
    manager = harness.kol.manager
    await rated_last_month(manager.store, group.id, (ann.id, bob.id), manager.clock())
    await match_in(manager, group.id, (ann.id, bob.id))
    month = month_text(manager.seasons.this_month(), "en")

    await harness.command(ann, group.id, "/top season")
    season = fake.last_message(group.id)
    assert season is not None and f"Season {month} in this chat" in season.text
    assert season.text.count(" · 1 match · ") == 2 and "2 matches" not in season.text
    await harness.command(ann, group.id, "/top")
    all_time = fake.last_message(group.id)
    assert all_time is not None and all_time.text.count("2 matches") == 2

    await harness.command(bob, group.id, "/top сезон eleven")  # the word in Russian too
    one_game = fake.last_message(group.id)
    assert one_game is not None and f"Season {month} in this chat: Eleven" in one_game.text
    await harness.command(ann, fake.private(ann).id, "/top season")
    overall = fake.last_message(fake.private(ann).id)
    assert overall is not None and f"Season {month} of all chats" in overall.text

    await harness.command(ann, group.id, "/score season")
    tally = fake.last_message(group.id)
    assert tally is not None and f"season {month}" in tally.text
    assert tally.text.count(" of 1 ·") == 2 and " of 2 ·" not in tally.text
    await harness.command(ann, group.id, "/score")
    tally = fake.last_message(group.id)
    assert tally is not None and tally.text.count(" of 2 ·") == 2

    await harness.command(ann, group.id, "/top season nonsense")  # bad input: the menu
    menu = fake.last_message(group.id)
    assert menu is not None and "I don't know that game" in menu.text


# ---------------------------------------------------------------- the champions' post


def seasons(manager: SessionManager, posts: RecordedPosts) -> SeasonPosts:
    return SeasonPosts(manager, posts)


async def a_month_played(manager: SessionManager) -> None:
    """Ann and Bob play in GROUP, Ann and Cy in OTHER; QUIET's members only a private
    duel (rated overall, not in a group)."""
    await named(manager, (1, "Ann"), (2, "Bob"), (3, "Cy"), (4, "Di"), (5, "Ed"))
    await match_in(manager, GROUP, (1, 2))
    await match_in(manager, OTHER, (1, 3))
    await match_in(manager, GROUP, (1, 2))
    duel_ = await manager.create(4, "private", 4, "Di", "eleven")
    await manager.add_computer(duel_.id, 4, "easy")
    await manager.set_option(duel_.id, 4, "target", 1)
    await manager.start(duel_.id, 4)
    await play_alone(manager, duel_.id, 4)


async def test_the_champions_are_posted_once_across_a_restart(
    tmp_path: Path, clock: FakeClock
) -> None:
    url = f"sqlite:///{tmp_path / 'seasons.sqlite3'}"
    manager = await SessionManager.open(url, FirstLegal(), clock)
    posts = RecordedPosts()
    await a_month_played(manager)
    assert await seasons(manager, posts).close() == 0  # the month is not over
    assert await manager.seasons.to_post(OCTOBER) == []  # nor asked for while it runs
    clock.advance(5 * 60)  # November
    assert await seasons(manager, posts).close() == 2
    assert await seasons(manager, posts).close() == 0
    await manager.close()
    manager = await SessionManager.open(url, FirstLegal(), clock)  # a restart
    assert await seasons(manager, posts).close() == 0
    clock.advance(31 * DAY)  # December: October's champions are not posted again
    assert await seasons(manager, posts).close() == 0
    await manager.close()
    assert sorted(chat for chat, _ in posts.sent) == sorted([GROUP, OTHER])
    text = dict(posts.sent)[GROUP].text
    assert "Season October 2026</b> is over" in text and "Eleven: 🥇 " in text
    assert "(2 players)" in text and "/top season" in text


async def test_the_champions_are_posted_once_with_two_workers(
    pg_database: str, clock: FakeClock
) -> None:
    chats = await posted_once_by_two_workers(pg_database, clock, a_month_played, 5 * 60, seasons)
    assert chats == sorted([GROUP, OTHER])


# ---------------------------------------------------------------- golden screens

ROWS = [
    RatingRow(12, "Bob & <Co>", "king", Rating(31.0, 5.5, 6, 4), 1, 3),
    RatingRow(11, "Алиса", "king", Rating(27.9, 7.9, 2, 1), 2, 3),
    RatingRow(11, "Алиса", "mau_mau", Rating(26.0, 7.0, 1, 1), 1, 1),
]
TALLY = [TallyRow(12, "Bob & <Co>", "king", 6, 4, 310), TallyRow(11, "Алиса", "king", 2, 1, 40)]
CHAMPIONS = [
    Champions("king", (ROWS[0],), 3),
    Champions("oh_hell", (replace(ROWS[1], game_id="oh_hell", rank=1),
                          replace(ROWS[0], game_id="oh_hell")), 2),
]


def screens(lang: str) -> dict[str, Screen]:
    """The seasons' screens of a made-up chat in December 2026."""
    month = month_text(OCTOBER + 2, lang)
    tally_title = t(lang, "tally-title-season", month=month)
    return {
        "season_top": render_top(ROWS, GROUP, None, lang, month),
        "season_top_game": render_top(ROWS[:2], OVERALL, "king", lang, month),
        "season_top_empty": render_top([], GROUP, None, lang, month),
        "season_tally": render_tally(tally_title, TALLY, lang, "both"),
        "season_post": render_champions(OCTOBER + 1, CHAMPIONS, lang),
    }


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", sorted(screens("en")))
def test_golden_season_screen(name: str, lang: str) -> None:
    text = snapshot(screens(lang)[name])
    path = GOLDEN / f"bot_{name}_{lang}.txt"
    if os.environ.get("KOLODA_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")

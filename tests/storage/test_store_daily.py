"""The daily deal's rows on both backends: seeds, one play a day, places and ties,
group boards of members only, and a group's post taken once."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from storage import (
    DailyPlay,
    DailyPlayed,
    DailyScore,
    ResultRecord,
    SeatRecord,
    Store,
)
from tests.support.store_records import CHAT, T0, lobby

DAY = 20_000
OTHER_CHAT = -1_009_999_999_999


async def play(store: Store, user: int, points: float | None, game: str = "eleven",
               day: int = DAY) -> int:
    """A user's daily table with its play row, finished with ``points`` (None: not)."""
    record = lobby(user, kind="private", status="running", creator=user, game=game,
                   seats=[SeatRecord(user, f"P{user}", None), SeatRecord(None, "C", "strong")],
                   daily=day)
    session = await store.create_session(record, daily=DailyPlay(day, game, user, T0))
    if points is not None:
        finished = replace(record, id=session, status="finished", version=2)
        await store.save_session(finished, 1, daily=DailyScore(day, game, user, points,
                                                               points, T0 + user))
    return session


async def member(store: Store, chat: int, *users: int) -> None:
    """Finish a group match in ``chat`` with ``users`` seated: they are its members."""
    seats = [SeatRecord(u, f"P{u}", None) for u in users]
    record = lobby(chat, status="running", seats=seats, creator=users[0])
    session = await store.create_session(record)
    await store.save_session(
        replace(record, id=session, status="finished", version=2), 1,
        results=[ResultRecord(u, seat, seat == 0, 1.0, T0) for seat, u in enumerate(users)],
    )


async def test_the_first_seed_stands(store: Store) -> None:
    first = await store.daily_seed(DAY, "eleven", 111)
    again = await store.daily_seed(DAY, "eleven", 222)
    other = await store.daily_seed(DAY, "king", 333)
    assert (first, again, other) == (111, 111, 333)


async def test_racing_seeds_agree(store: Store) -> None:
    seeds = await asyncio.gather(*(store.daily_seed(DAY, "rummy", s) for s in range(1, 9)))
    assert len(set(seeds)) == 1


async def test_one_play_a_day(store: Store) -> None:
    await play(store, 1, None)
    with pytest.raises(DailyPlayed):
        await play(store, 1, None)
    await play(store, 1, None, game="king")  # another game's deal
    await play(store, 1, None, day=DAY + 1)  # the next day's
    result = await store.daily_result(DAY, "eleven", 1)
    assert result is not None and result.points is None and result.standing is None
    assert [r.game for r in await store.daily_results(DAY, 1)] == ["eleven", "king"]


async def test_places_share_ties(store: Store) -> None:
    for user, points in ((1, 3.0), (2, 1.0), (3, 3.0), (4, 0.0), (5, 1.0)):
        await play(store, user, points)
    await play(store, 6, None)  # not finished: not on the board
    assert await store.daily_place(DAY, "eleven", 3.0) == (1, 5)
    assert await store.daily_place(DAY, "eleven", 1.0) == (3, 5)
    assert await store.daily_place(DAY, "eleven", 0.0) == (5, 5)
    board = await store.daily_board(DAY, "eleven")
    assert [(r.user_id, r.place) for r in board] == [(1, 1), (3, 1), (2, 3), (5, 3), (4, 5)]
    assert board[0].name == "P1" and board[0].points == 3.0
    assert await store.daily_board(DAY + 1, "eleven") == []


async def test_a_group_board_lists_its_members_only(store: Store) -> None:
    await member(store, CHAT, 1, 2)
    await member(store, OTHER_CHAT, 2, 3)
    for user, points in ((1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0)):
        await play(store, user, points)
    group = await store.daily_board(DAY, "eleven", CHAT)
    assert [(r.user_id, r.place) for r in group] == [(2, 1), (1, 2)]
    assert [r.user_id for r in await store.daily_board(DAY, "eleven", OTHER_CHAT)] == [3, 2]
    assert await store.daily_place(DAY, "eleven", 1.0, CHAT) == (2, 2)
    assert await store.daily_place(DAY, "eleven", 1.0) == (4, 4)
    assert await store.daily_groups(2) == sorted([CHAT, OTHER_CHAT])
    assert await store.daily_groups(4) == []
    assert await store.daily_games(DAY, CHAT) == ["eleven"]
    assert await store.daily_games(DAY + 1, CHAT) == []


async def test_a_post_is_taken_once(store: Store) -> None:
    await member(store, CHAT, 1)
    await member(store, OTHER_CHAT, 2)
    await play(store, 1, 1.0)
    await play(store, 3, 1.0)  # a member of no group
    assert await store.open_daily_posts(DAY) == [CHAT]
    assert await store.open_daily_posts(DAY) == [CHAT]  # made once
    takes = await asyncio.gather(*(store.take_daily_post(DAY, CHAT, f"w{i}", T0)
                                   for i in range(4)))
    assert sorted(takes) == [False, False, False, True]
    assert await store.open_daily_posts(DAY) == []
    assert not await store.take_daily_post(DAY, CHAT, "w9", T0)


async def test_streak_days(store: Store) -> None:
    for day in (DAY - 3, DAY - 1, DAY):
        await play(store, 1, 1.0, day=day)
    await play(store, 1, None, game="king", day=DAY - 2)  # unfinished: not a day played
    assert await store.daily_days(1) == [DAY, DAY - 1, DAY - 3]

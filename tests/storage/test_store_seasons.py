"""The seasons part of the ``Store`` contract, on SQLite and PostgreSQL alike.

A rated match also rates its humans in its season (its month), every player
starting each month afresh, in the transaction of its results; the all-time
ratings are what they would be without seasons; a season's tally is the chat's
results of that month; each group's champions' post of a month is taken once;
``rerate`` rebuilds the seasons too.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

from sessions.months import month_of, month_start
from sessions.ratings import START, RatedMatch, rate, rated_match, rebuild
from storage import OVERALL, RatingRow, ResultRecord, SeatRecord, Store
from storage.sql import Sql
from storage.store import SqlStore
from tests.support.store_records import ANN, BOB, CHAT, created, lobby

OCTOBER = month_of(datetime(2026, 10, 15, tzinfo=UTC).timestamp())
START_OF = month_start(OCTOBER)
END_OF = month_start(OCTOBER + 1)
SEATS = [SeatRecord(ANN, "Ann", None), SeatRecord(None, "Robot", "easy"),
         SeatRecord(BOB, "Bob", None)]
OTHER = -1_009


async def finish(
    store: Store, at: float, scores: list[int], winners: list[int], *, chat_id: int = CHAT,
    game: str = "eleven",
) -> RatedMatch:
    """A group match finished at ``at``: its results and ratings in one save."""
    record = await created(store, lobby(chat_id, seats=SEATS, game=game))
    result = {"scores": scores, "winners": winners}
    results = [ResultRecord(seat.user_id, n, n in winners, scores[n], at)
               for n, seat in enumerate(SEATS) if seat.user_id is not None]
    match = rated_match(record.id, game, "group", chat_id, result,
                        [(s.user_id, s.level) for s in SEATS], [ANN, BOB], at)
    assert match is not None
    await store.save_session(replace(record, version=2, status="finished", result=result), 1,
                             results=results, rated=match)
    return match


async def test_the_last_second_of_a_month_counts_in_it_the_next_in_the_next(
    store: Store,
) -> None:
    last = await finish(store, END_OF - 1, [5, 0, 1], [0])
    first = await finish(store, END_OF, [0, 0, 5], [2])
    assert (last.month, first.month) == (OCTOBER, OCTOBER + 1)
    october = await store.season_leaderboard(OCTOBER, CHAT, "eleven")
    november = await store.season_leaderboard(OCTOBER + 1, CHAT, "eleven")
    assert [(r.user_id, r.rating.played, r.rating.wins) for r in october] == [
        (ANN, 1, 1), (BOB, 1, 0)
    ]
    assert [(r.user_id, r.rating.played, r.rating.wins, r.of) for r in november] == [
        (BOB, 1, 1, 2), (ANN, 1, 0, 2)
    ]
    # a month starts afresh: November's numbers are the second match rated from scratch
    assert {r.user_id: r.rating for r in november} == {
        c.user_id: c.after for c in rate(first, CHAT, {})
    }
    assert await store.season_leaderboard(OCTOBER + 1, OVERALL, "eleven") != []
    assert await store.season_leaderboard(OCTOBER + 2, CHAT) == []


async def test_the_all_time_ratings_are_what_they_were_without_seasons(store: Store) -> None:
    first = await finish(store, END_OF - 1, [5, 0, 1], [0])
    second = await finish(store, END_OF, [0, 0, 5], [2])
    after_first = {c.user_id: c.after for c in rate(first, CHAT, {})}
    expected = {c.user_id: c.after for c in rate(second, CHAT, after_first)}
    board = await store.leaderboard(CHAT, "eleven")
    assert {r.user_id: r.rating for r in board} == expected
    assert all(r.rating.played == 2 for r in board)
    changes = await store.rating_changes(second.session)
    assert {c.month for c in changes} == {None}  # the result screen's changes: all-time
    assert {c.user_id: c.before for c in changes if c.scope == CHAT} == after_first


async def test_a_season_tally_counts_the_month_only(store: Store) -> None:
    await finish(store, START_OF - 1, [5, 0, 1], [0])
    await finish(store, START_OF, [5, 0, 1], [0])
    await finish(store, END_OF - 0.5, [0, 0, 5], [2], game="king")
    await finish(store, END_OF, [5, 0, 1], [0])
    month = await store.chat_tally(CHAT, None, (START_OF, END_OF))
    assert sorted((r.user_id, r.game_id, r.played) for r in month) == [
        (ANN, "eleven", 1), (ANN, "king", 1), (BOB, "eleven", 1), (BOB, "king", 1)
    ]
    king = await store.chat_tally(CHAT, "king", (START_OF, END_OF))
    assert [(r.user_id, r.wins) for r in king] == [(BOB, 1), (ANN, 0)]
    assert sum(r.played for r in await store.chat_tally(CHAT)) == 8  # all-time: all four


async def test_each_groups_season_post_is_taken_once(store: Store) -> None:
    await finish(store, START_OF + 10, [5, 0, 1], [0])
    await finish(store, START_OF + 20, [5, 0, 1], [0], chat_id=OTHER)
    assert await store.open_season_posts(OCTOBER) == sorted([CHAT, OTHER])
    assert await store.open_season_posts(OCTOBER) == sorted([CHAT, OTHER])  # made once
    assert await store.open_season_posts(OCTOBER + 1) == []  # nobody played then
    taken = await asyncio.gather(*(store.take_season_post(OCTOBER, CHAT, f"w{n}", END_OF)
                                   for n in range(4)))
    assert taken.count(True) == 1
    assert not await store.take_season_post(OCTOBER, CHAT, "late", END_OF + 60)
    assert await store.open_season_posts(OCTOBER) == [OTHER]


async def test_rerate_rebuilds_the_seasons(store: Store) -> None:
    await finish(store, START_OF + 5, [5, 0, 1], [0])
    await finish(store, END_OF - 1, [0, 0, 5], [2], chat_id=OTHER)
    await finish(store, END_OF + 5, [1, 0, 5], [2])

    async def seasons() -> list[list[RatingRow]]:
        return [await store.season_leaderboard(month, scope)
                for month in (OCTOBER, OCTOBER + 1) for scope in (CHAT, OTHER, OVERALL)]

    before = await seasons()
    all_time = await store.leaderboard(OVERALL)
    assert isinstance(store, SqlStore)
    await store.backend.execute(Sql("UPDATE season_ratings SET mu = 0, played = 9"))  # damaged
    assert await seasons() != before
    assert await store.rerate(rebuild) == 3
    assert await seasons() == before
    assert await store.leaderboard(OVERALL) == all_time
    assert before[2][0].rating != START  # there is something to rebuild

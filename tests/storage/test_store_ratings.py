"""The ratings part of the ``Store`` contract, on SQLite and PostgreSQL alike.

A finished match's ratings are written in the transaction of its results, in
each of its scopes (the group chat and overall); ``rerate`` rebuilds exactly
the same numbers from the stored results.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from sessions.ratings import (
    COMPUTER_RATINGS,
    START,
    RatedMatch,
    display,
    rate,
    rated_match,
    rebuild,
    shown,
)
from storage import (
    OVERALL,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    StaleVersion,
    Store,
    open_store,
)
from tests.support.store_records import ANN, BOB, CHAT, CY, T0, created, lobby

SEATS = [SeatRecord(ANN, "Ann", None), SeatRecord(None, "Robot", "strong"),
         SeatRecord(BOB, "Bob", None)]


async def finish(
    store: Store,
    scores: list[int],
    winners: list[int],
    *,
    game: str = "eleven",
    chat_id: int | None = CHAT,
    kind: str = "group",
    seats: list[SeatRecord] = SEATS,
    at: float = T0,
) -> tuple[int, RatedMatch]:
    """A match created, then finished with ``scores``, results and ratings in one save."""
    record = await created(store, lobby(chat_id, kind=kind, seats=seats, game=game))
    result = {"scores": scores, "winners": winners}
    done = replace(record, version=2, status="finished", result=result)
    results = [ResultRecord(seat.user_id, n, n in winners, scores[n], at)
               for n, seat in enumerate(seats) if seat.user_id is not None]
    match = rated_match(record.id, game, kind, chat_id, result,
                        [(s.user_id, s.level) for s in seats], [r.user_id for r in results], at)
    assert match is not None
    await store.save_session(done, 1, results=results, rated=match)
    return record.id, match


async def everything(store: Store) -> tuple[object, ...]:
    """Every rating and rating change the store keeps for these tests."""
    boards = [await store.leaderboard(scope) for scope in (CHAT, -77, OVERALL)]
    changes = [await store.rating_changes(n) for n in range(1, 12)]
    return (boards, changes)


async def test_a_finished_match_rates_its_humans_in_the_chat_and_overall(store: Store) -> None:
    session, match = await finish(store, [3, 5, 1], [1])  # the strong computer won
    changes = await store.rating_changes(session)
    assert {(c.scope, c.user_id) for c in changes} == {
        (CHAT, ANN), (CHAT, BOB), (OVERALL, ANN), (OVERALL, BOB)
    }
    assert changes == sorted(rate(match, CHAT, {}) + rate(match, OVERALL, {}),
                             key=lambda c: (c.scope, c.user_id))
    ann = next(c for c in changes if c.user_id == ANN and c.scope == CHAT)
    bob = next(c for c in changes if c.user_id == BOB and c.scope == CHAT)
    assert ann.before == START and ann.after.played == 1 and ann.after.wins == 0
    assert ann.after.mu > bob.after.mu  # second beats third
    board = await store.leaderboard(CHAT)
    assert [(r.name, r.game_id, r.rank, r.of) for r in board] == [
        ("Ann", "eleven", 1, 2), ("Bob", "eleven", 2, 2)
    ]
    assert board[0].rating == ann.after
    assert [r.rank for r in await store.user_ratings(BOB, OVERALL)] == [2]
    assert await store.leaderboard(CHAT, "king") == []
    assert await store.user_ratings(CY, OVERALL) == []


async def test_a_private_duel_rates_overall_only(store: Store) -> None:
    seats = [SeatRecord(ANN, "Ann", None), SeatRecord(None, "Robot", "easy")]
    session, _ = await finish(store, [5, 2], [0], chat_id=ANN, kind="private", seats=seats)
    assert [(c.scope, c.user_id, c.after.wins) for c in await store.rating_changes(session)] == [
        (OVERALL, ANN, 1)
    ]
    assert await store.leaderboard(ANN) == []


async def test_a_second_match_starts_from_the_first_and_rerate_gives_the_same(
    store: Store,
) -> None:
    await finish(store, [3, 5, 1], [1], at=T0)
    await finish(store, [7, 2, 9], [2], at=T0 + 10)
    await finish(store, [0, 1], [0], game="mau_mau", at=T0 + 20,
                 seats=[SeatRecord(BOB, "Bob", None), SeatRecord(ANN, "Ann", None)])
    await finish(store, [4, 4, 1], [0, 1], chat_id=-77, at=T0 + 30)
    eleven = next(r for r in await store.user_ratings(BOB, OVERALL) if r.game_id == "eleven")
    assert (eleven.rating.played, eleven.rating.wins) == (3, 1)
    second = await store.rating_changes(2)
    first = await store.rating_changes(1)
    assert {c.user_id: c.before for c in second if c.scope == CHAT} == {
        c.user_id: c.after for c in first if c.scope == CHAT
    }
    # Mau-Mau: the lowest total wins, so Ann (1 penalty point) is behind Bob (0)
    mau = await store.leaderboard(OVERALL, "mau_mau")
    assert [(r.name, r.rank) for r in mau] == [("Bob", 1), ("Ann", 2)]
    before = await everything(store)
    assert await store.rerate(rebuild) == 4
    assert await everything(store) == before


async def test_rerate_rebuilds_lost_ratings(store: Store, store_url: str) -> None:
    await finish(store, [3, 5, 1], [1], at=T0)
    await finish(store, [9, 2, 1], [0], at=T0 + 10)
    before = await everything(store)
    other = await open_store(store_url)  # wipe the ratings behind the store's back
    try:
        await other.rerate(rebuild)
    finally:
        await other.close()
    assert await everything(store) == before


async def test_a_stale_save_rates_nothing(store: Store) -> None:
    record = await created(store, lobby(seats=SEATS))
    await store.save_session(replace(record, version=2), 1)
    result = {"scores": [1, 2, 3], "winners": [2]}
    match = rated_match(record.id, "eleven", "group", CHAT, result,
                        [(s.user_id, s.level) for s in SEATS], [ANN, BOB], T0)
    with pytest.raises(StaleVersion):
        await store.save_session(replace(record, version=3, status="finished", result=result),
                                 1, results=[ResultRecord(ANN, 0, False, 1)], rated=match)
    assert await store.rating_changes(record.id) == []
    assert await store.leaderboard(OVERALL) == []


async def test_matches_finishing_at_once_both_count(store: Store) -> None:
    async def one(n: int) -> None:
        await finish(store, [n, 0, 5], [2], chat_id=-500 - n, at=T0 + n)

    await asyncio.gather(*(one(n) for n in range(6)))
    [ann] = await store.user_ratings(ANN, OVERALL)
    assert ann.rating.played == 6
    before = await store.leaderboard(OVERALL)
    await store.rerate(rebuild)
    assert await store.leaderboard(OVERALL) == before


def test_ties_rate_as_ties_and_computers_keep_their_ratings() -> None:
    match = rated_match(1, "oh_hell", "group", CHAT, {"scores": [20, 20, 5], "winners": [0, 1]},
                        [(ANN, None), (BOB, None), (None, "normal")], [ANN, BOB], T0)
    assert match is not None
    assert [s.place for s in match.seats] == [0, 0, 2]
    ann, bob = rate(match, OVERALL, {})
    assert ann.after == bob.after and ann.after.wins == 1
    assert display(*COMPUTER_RATINGS["strong"]) > display(*COMPUTER_RATINGS["easy"])
    assert shown(START) == 1500


async def test_python_m_sessions_rerate(store: Store, store_url: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from sessions.rerate import main

    await finish(store, [3, 5, 1], [1])
    before = await everything(store)
    # the command opens the database itself (beside the running store, as beside the bot)
    assert await asyncio.to_thread(main, [store_url]) == 0
    assert capsys.readouterr().out == "rated 1 matches\n"
    assert main([]) == 2 and "usage" in capsys.readouterr().err
    assert await everything(store) == before


# ---------------------------------------------------------------- hints


async def test_hints_setting_and_counts(store: Store) -> None:
    record = await created(store, lobby(seats=SEATS, hints=True))
    assert record.hints is True
    await store.save_session(replace(record, version=2, hints=False), 1)
    stored = await store.load_session(record.id)
    assert stored is not None and stored.hints is False and stored.version == 2
    assert await store.hint_uses(record.id) == {}
    assert [await store.use_hint(record.id, 2) for _ in range(3)] == [1, 2, 3]
    assert await store.use_hint(record.id, 0) == 1
    assert await store.hint_uses(record.id) == {0: 1, 2: 3}
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.version == 2
    plain = await created(store, lobby(chat_id=-77))
    assert plain.hints is None


async def test_rerate_leaves_a_match_with_a_take_back_unrated(store: Store) -> None:
    await finish(store, [3, 5, 1], [1], at=T0)
    record = await created(store, lobby(CHAT, seats=SEATS))
    moved = replace(record, version=2, moves=1)
    await store.save_session(moved, 1, move=MoveRecord(1, 0, "takeback:1", False, T0, 1))
    result = {"scores": [9, 0, 0], "winners": [0]}
    done = replace(moved, version=3, status="finished", result=result)
    results = [ResultRecord(ANN, 0, True, 9, T0 + 5), ResultRecord(BOB, 2, False, 0, T0 + 5)]
    await store.save_session(done, 2, results=results)  # as the bot saves it: not rated
    before = await everything(store)
    assert await store.rerate(rebuild) == 1  # the first match only
    assert await everything(store) == before
    assert await store.rating_changes(record.id) == []

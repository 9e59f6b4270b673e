"""The daily deal in the session layer: the same cards for everybody on one day and
other cards the next, one play a day, one deal scored on the board, never rated,
ties sharing places, streaks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from games import REGISTRY
from sessions import Refusal, Session, SessionManager
from sessions.daily import DAY, day_of, revealed, streak_of
from tests.support.helpers_sessions import FakeClock, FirstLegal, open_manager

ANN, BOB = 101, 202


@pytest.fixture
def clock() -> FakeClock:
    """Mid-morning of a UTC day."""
    return FakeClock(day_of(1_800_000_000.0) * DAY + 36_000.0)


@pytest.fixture
async def manager(tmp_path: Path, clock: FakeClock) -> AsyncIterator[SessionManager]:
    """A manager on a real SQLite file, computers playing their first legal move."""
    opened = await open_manager(tmp_path / "daily.sqlite3", FirstLegal(), clock)
    yield opened
    await opened.close()


async def played_out(manager: SessionManager, session: Session, user: int) -> Session:
    """Play the human's first legal move until the daily table is over."""
    for _ in range(5000):
        await manager.idle()
        session = await manager.get(session.id)
        if session.status != "running":
            return session
        seat = session.seat_of(user)
        assert seat is not None
        if session.to_move == seat:
            action = session.view(seat)["legal"][0]
            await manager.act(session.id, user, session.version, action)
    raise AssertionError("the daily deal never ended")


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
async def test_same_cards_for_everybody_other_cards_tomorrow(
    manager: SessionManager, clock: FakeClock, game_id: str
) -> None:
    ann = (await manager.daily.start(ANN, ANN, "Ann", game_id)).session
    bob = (await manager.daily.start(BOB, BOB, "Bob", game_id)).session
    assert ann.chat_id != bob.chat_id
    assert ann.seed == bob.seed and ann.seed is not None
    assert ann.game is not None and bob.game is not None
    assert ann.game.to_dict() == bob.game.to_dict()  # every hand, the stock, the dealer
    assert [p.level for p in ann.seats[1:]] == ["strong"] * (len(ann.seats) - 1)
    assert ann.daily == manager.daily.today() and not ann.hints_on
    clock.advance(DAY)
    tomorrow = (await manager.daily.start(ANN, ANN, "Ann", game_id)).session
    assert tomorrow.seed != ann.seed
    assert tomorrow.game is not None and tomorrow.game.to_dict() != ann.game.to_dict()


async def test_one_play_a_day(manager: SessionManager, clock: FakeClock) -> None:
    await manager.daily.start(ANN, ANN, "Ann", "eleven")
    with pytest.raises(Refusal) as refused:
        await manager.daily.start(ANN, ANN, "Ann", "eleven")
    assert refused.value.code == "daily_played" and refused.value.detail == "eleven"
    await manager.daily.start(ANN, ANN, "Ann", "king")  # another game's deal is its own
    clock.advance(DAY)
    await manager.daily.start(ANN, ANN, "Ann", "eleven")


async def test_unknown_game_is_refused(manager: SessionManager) -> None:
    with pytest.raises(Refusal) as refused:
        await manager.daily.start(ANN, ANN, "Ann", "poker")
    assert refused.value.code == "unknown_game"


@pytest.mark.parametrize("game_id", ["eleven", "mau_mau", "king"])
async def test_one_deal_is_scored_and_never_rated(manager: SessionManager, game_id: str) -> None:
    started = (await manager.daily.start(ANN, ANN, "Ann", game_id)).session
    over = await played_out(manager, started, ANN)
    assert over.status == "finished" and over.result is not None
    assert over.game is not None
    # one deal, whatever its seed: the match goes on into deal 2, unless that deal
    # alone reached the match's target
    assert over.game.deal_no == (0 if over.game.finished else 1)
    standing = await manager.daily.standing(ANN, game_id)
    assert standing is not None
    assert standing.points == over.result["scores"][0]
    assert (standing.place, standing.of) == (1, 1)
    assert standing.best is not None and standing.best.user_id == ANN
    assert over.ratings == ()
    assert await manager.user_stats(ANN) == []  # not in the tally either
    assert await manager.leaderboard(0, game_id) == []


async def test_fifteen_is_a_short_match(manager: SessionManager) -> None:
    started = (await manager.daily.start(ANN, ANN, "Ann", "fifteen")).session
    assert started.options["deals"] == 5
    over = await played_out(manager, started, ANN)
    assert over.game is not None and over.game.finished


async def test_ties_share_a_place(manager: SessionManager) -> None:
    # FirstLegal everywhere: the same cards and the same moves make the same score
    for user, name in ((ANN, "Ann"), (BOB, "Bob")):
        started = (await manager.daily.start(user, user, name, "eleven")).session
        await played_out(manager, started, user)
    ann = await manager.daily.standing(ANN, "eleven")
    bob = await manager.daily.standing(BOB, "eleven")
    assert ann is not None and bob is not None and ann.points == bob.points
    assert (ann.place, ann.of) == (bob.place, bob.of) == (1, 2)
    board = await manager.daily.board("eleven")
    assert [(row.name, row.place) for row in board] == [("Ann", 1), ("Bob", 1)]


async def test_finished_after_its_day_is_not_scored(
    manager: SessionManager, clock: FakeClock
) -> None:
    started = (await manager.daily.start(ANN, ANN, "Ann", "eleven")).session
    clock.advance(DAY)
    await played_out(manager, started, ANN)
    standing = await manager.daily.standing(ANN, "eleven", day=started.daily)
    assert standing is not None and standing.points is None


async def test_no_take_back_and_the_seed_stays_sealed_today(
    manager: SessionManager, clock: FakeClock
) -> None:
    started = (await manager.daily.start(ANN, ANN, "Ann", "eleven")).session
    with pytest.raises(Refusal) as refused:
        await manager.take_back(started.id, ANN)
    assert refused.value.code == "takeback_off"
    assert not revealed(started, clock())
    assert revealed(started, clock() + DAY)


async def test_streaks(manager: SessionManager, clock: FakeClock) -> None:
    for _ in range(3):
        started = (await manager.daily.start(ANN, ANN, "Ann", "eleven")).session
        await played_out(manager, started, ANN)
        clock.advance(DAY)
    streak = await manager.daily.streak(ANN)
    assert (streak.current, streak.best) == (3, 3)  # today's may still come
    clock.advance(DAY)
    assert (await manager.daily.streak(ANN)).current == 0


def test_streak_of_runs() -> None:
    run = streak_of([10, 9, 7, 6, 5], 10)
    assert (run.current, run.best) == (2, 3)
    assert streak_of([9, 8], 10).current == 2
    assert streak_of([8, 7], 10).current == 0
    assert streak_of([], 10).best == 0

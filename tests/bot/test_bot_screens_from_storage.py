"""Drawing is a pure function of what is stored: a restart draws the same screens.

For every game: play humans through a whole deal into the next one (so the
table shows the last deal's points), draw the group table and each hand, then
open the same database in a new manager (a restart: empty caches, nothing in
memory) and draw again — the screens must be identical.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.cluster import newest_screens, turn_hands
from bot.present import Presenter
from bot.render.common import Screen
from games import REGISTRY
from sessions import TABLE, Preferences, Session, SessionManager, ephemeral_purpose, hand_purpose
from tests.support.helpers_sessions import FakeClock, FirstLegal, open_manager


class _NoDelivery:
    """The presenter is only asked to draw here, never to deliver."""

    def has_ephemeral(self, session_id: int, purpose: str) -> bool:
        return False


def _screens(presenter: Presenter, session: Session) -> list[Screen]:
    screens = [presenter.table_screen(session, lang) for lang in ("en", "ru")]
    for seat in range(len(session.seats)):
        screens += [presenter.private_screen(session, seat, lang) for lang in ("en", "ru")]
    return screens


async def _into_second_deal(manager: SessionManager, game_id: str) -> Session:
    game = REGISTRY[game_id]
    players = game.min_players
    session = await manager.create(-100, "group", 1, "user1", game_id)
    for user in range(2, players + 1):
        session = await manager.join(session.id, user, f"user{user}")
    for option in game.options_schema:
        if option.name in ("target", "limit") and option.high is not None:
            session = await manager.set_option(session.id, 1, option.name, option.high)
    session = (await manager.start(session.id, 1)).session
    rng = random.Random(5)
    moves = 0
    # Fifteen has no points per deal to show: a few moves into the match will do
    while session.last_deal is None and (game_id != "fifteen" or moves < 6):
        moves += 1
        assert session.status == "running", "the match ended before a second deal"
        seat = session.to_move
        assert seat is not None and session.game is not None
        action = rng.choice(session.game.legal_actions(seat))
        mover = session.seats[seat].user_id
        assert mover is not None
        session = (await manager.act(session.id, mover, session.version, action)).session
    return session


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
async def test_a_restart_draws_exactly_the_screens_drawn_before_it(
    tmp_path: Path, game_id: str
) -> None:
    path = tmp_path / f"{game_id}.sqlite3"
    clock = FakeClock()
    manager = await open_manager(path, FirstLegal(), clock)
    try:
        session = await _into_second_deal(manager, game_id)
        presenter = Presenter(_NoDelivery(), Preferences(manager.store), "koloda_bot")  # type: ignore[arg-type]
        before = _screens(presenter, session)
        if game_id != "fifteen":
            assert "last_deal_scores" in session.view(None)  # the table shows the deal before
    finally:
        await manager.close()
    manager = await open_manager(path, FirstLegal(), clock)
    try:
        stored = await manager.get(session.id)
        assert stored.last_deal == session.last_deal
        presenter = Presenter(_NoDelivery(), Preferences(manager.store), "koloda_bot")  # type: ignore[arg-type]
        assert _screens(presenter, stored) == before
    finally:
        await manager.close()


async def test_a_turn_taken_for_a_superseded_screen_draws_the_stored_newest(
    tmp_path: Path,
) -> None:
    """What a worker draws in a chat's turn booked for a screen that another worker's
    commit superseded (``bot.cluster.newest_screens``): each message's screen of the
    session as stored now, at its version — nothing for a seat or session that is not
    there; or the turn (``bot.cluster.turn_hands``): the ephemeral hand of the player
    to move, with her turn's buttons."""
    clock = FakeClock()
    manager = await open_manager(tmp_path / "newest.sqlite3", FirstLegal(), clock)
    try:
        session = await _into_second_deal(manager, "king")
        presenter = Presenter(_NoDelivery(), Preferences(manager.store), "koloda_bot")  # type: ignore[arg-type]
        newest, turn = newest_screens(manager, presenter), turn_hands(manager, presenter)
        seat = session.to_move
        assert seat is not None
        assert await newest(session.id, TABLE) == (
            presenter.table_screen(session, "en"), session.version
        )
        assert await newest(session.id, hand_purpose(seat)) == (
            presenter.private_screen(session, seat, "en"), session.version
        )
        assert await newest(session.id, ephemeral_purpose(seat)) == (
            presenter.hand_screen(session, seat, "en", False), session.version
        )
        assert await newest(session.id, ephemeral_purpose(9)) is None
        assert await newest(session.id + 1, TABLE) is None
        assert await turn(session.id) == (
            ephemeral_purpose(seat), presenter.hand_screen(session, seat, "en", False),
            session.version,
        )
        assert await turn(session.id + 1) is None
    finally:
        await manager.close()


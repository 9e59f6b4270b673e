"""↩️ Take-backs: logged, never rewriting history; only against computers."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions import Refusal, SessionManager
from sessions.replay import replay
from tests.support.helpers_sessions import FirstLegal, duel, open_manager


async def replayed(manager: SessionManager, session_id: int) -> object:
    session = await manager.get(session_id)
    assert session.seed is not None
    log = await manager.replay_log(session_id)
    return replay(session.game_id, len(session.seats), session.options, session.seed,
                  [(m.seat, m.action) for m in log])


async def test_a_take_back_undoes_my_move_and_the_computers_replies(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "t.sqlite3", FirstLegal())
    try:
        lobby = await manager.create(7, "private", 7, "Vera", "oh_hell")
        await manager.add_computer(lobby.id, 7, "easy")
        await manager.add_computer(lobby.id, 7, "easy")
        session = (await manager.start(lobby.id, 7)).session
        await manager.idle()
        with pytest.raises(Refusal) as refused:
            await manager.take_back(session.id, 7)
        assert refused.value.code == "nothing_to_take_back"
        before = await manager.get(session.id)
        assert before.to_move == 0 and before.game is not None
        action = before.view(0)["legal"][-1]
        await manager.act(session.id, 7, before.version, action)
        await manager.idle()  # the computers reply
        replied = await manager.get(session.id)
        assert replied.moves > before.moves + 1
        outcome = await manager.take_back(session.id, 7)
        back = outcome.session
        assert back.game == before.game and back.to_move == 0
        assert back.version == replied.version + 1
        log = await manager.replay_log(session.id)
        assert [m.action for m in log][: before.moves + 1] == [
            *[m.action for m in log][: before.moves], action
        ]
        assert log[-1].action == f"takeback:{replied.moves - before.moves}"
        assert len(log) == back.moves == replied.moves + 1  # appended, nothing rewritten
        assert await replayed(manager, session.id) == back.game
        manager._cache.clear()  # and after a restart it is the same state
        assert (await manager.get(session.id)).game == back.game
    finally:
        await manager.close()


async def test_no_take_backs_between_two_humans(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "h.sqlite3")
    try:
        session = await duel(manager)
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        await manager.act(session.id, user, session.version, session.view(seat)["legal"][0])
        with pytest.raises(Refusal) as refused:
            await manager.take_back(session.id, user)
        assert refused.value.code == "takeback_off"
    finally:
        await manager.close()

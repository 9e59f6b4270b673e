"""Hints (#19) in the session layer: the strong computer on the player's own view."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_sessions import FakeClock, FirstLegal, open_manager, play_out

from sessions import Refusal


async def test_a_hint_asks_the_strong_computer_for_the_seat_and_is_counted(
    tmp_path: Path,
) -> None:
    computer, clock = FirstLegal(), FakeClock()
    manager = await open_manager(tmp_path / "h.sqlite3", computer, clock)
    try:
        lobby = await manager.create(-5, "group", 1, "Ann", "eleven")
        await manager.join(lobby.id, 2, "Bob")
        with pytest.raises(Refusal) as refused:
            await manager.set_hints(lobby.id, 2, True)
        assert refused.value.code == "not_creator"
        assert not (await manager.get(lobby.id)).hints_on  # two humans: off by default
        await manager.set_option(lobby.id, 1, "target", 1)
        await manager.set_timer(lobby.id, 1, 60)
        assert (await manager.set_hints(lobby.id, 1, True)).hints_on
        session = (await manager.start(lobby.id, 1)).session
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        other = 3 - user
        with pytest.raises(Refusal) as refused:
            await manager.hint(session.id, other)
        assert refused.value.code == "not_your_turn"
        computer.calls.clear()
        hint = await manager.hint(session.id, user)
        assert hint == session.view(seat)["legal"][0]
        assert computer.calls == [("eleven", "strong", seat)]  # that seat's view, strong
        after = await manager.get(session.id)
        # a hint changes nothing at the table: same version, the turn timer keeps running
        assert after.version == session.version and after.deadline == session.deadline
        await manager.hint(session.id, user)
        finished = await play_out(manager, session.id)
        assert finished.hints_used == tuple(2 if s == seat else 0 for s in range(2))
        manager._cache.clear()
        assert (await manager.get(session.id)).hints_used == finished.hints_used
        with pytest.raises(Refusal) as refused:
            await manager.hint(session.id, user)
        assert refused.value.code == "not_running"
    finally:
        await manager.close()


async def test_hints_are_on_by_default_against_computers_and_can_be_turned_off(
    tmp_path: Path,
) -> None:
    manager = await open_manager(tmp_path / "d.sqlite3")
    try:
        lobby = await manager.create(7, "private", 7, "Vera", "fifteen")
        assert lobby.hints_on  # every other seat will be a computer
        await manager.set_hints(lobby.id, 7, False)
        session = (await manager.play_computer(lobby.id, 7, "strong")).session
        assert not session.hints_on
        if session.to_move == 0:
            with pytest.raises(Refusal) as refused:
                await manager.hint(session.id, 7)
            assert refused.value.code == "hints_off"
        lobby = await manager.create(-9, "group", 1, "Ann", "king")
        assert not lobby.hints_on  # a group table: off until only computers sit with Ann
        for _ in range(3):
            await manager.add_computer(lobby.id, 1, "easy")
        assert (await manager.get(lobby.id)).hints_on
    finally:
        await manager.close()

"""Hints in the session layer: the strong computer on the player's own view."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sessions import Refusal
from tests.support.helpers_sessions import FakeClock, FirstLegal, open_manager, play_out


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
        assert finished.hints_used == tuple(1 if s == seat else 0 for s in range(2))  # one version
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


class HeldStrong(FirstLegal):
    """The first legal action; a strong search (a hint) waits until ``go`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        if level == "strong":
            await self.go.wait()
        return await super().choose(game_id, view, level, seed)


async def test_ten_presses_of_a_hint_are_one_search_and_one_hint_used(tmp_path: Path) -> None:
    computer = HeldStrong()
    manager = await open_manager(tmp_path / "t.sqlite3", computer)
    try:
        lobby = await manager.create(7, "private", 7, "Vera", "eleven")
        session = (await manager.play_computer(lobby.id, 7, "easy")).session
        await manager.idle()
        session = await manager.get(session.id)
        assert session.to_move == 0

        def strong() -> list[tuple[str, str, int]]:
            return [c for c in computer.calls if c[1] == "strong"]

        pressed = [asyncio.create_task(manager.hint(session.id, 7)) for _ in range(10)]
        await asyncio.sleep(0)
        computer.go.set()
        answers = await asyncio.gather(*pressed)
        answers += [await manager.hint(session.id, 7) for _ in range(10)]  # same version
        assert len(set(answers)) == 1 and len(strong()) == 1

        # a move, the computer's reply: a new version, whose hint is a new search…
        computer.go.clear()
        await manager.act(session.id, 7, session.version, answers[0])
        await manager.idle()
        session = await manager.get(session.id)
        assert session.status == "running" and session.to_move == 0
        waiting = asyncio.create_task(manager.hint(session.id, 7))
        await asyncio.sleep(0)
        # …while it runs, one more search for her is refused, not started
        await manager.act(session.id, 7, session.version,
                          str(session.view(0)["legal"][0]))
        await manager.idle()
        later = await manager.get(session.id)
        assert later.status == "running" and later.to_move == 0
        with pytest.raises(Refusal) as refused:
            await manager.hint(later.id, 7)
        assert refused.value.code == "hint_busy"
        computer.go.set()
        await waiting
        assert len(strong()) == 2
        while later.status == "running":
            await manager.act(later.id, 7, later.version, str(later.view(0)["legal"][0]))
            await manager.idle()
            later = await manager.get(later.id)
        assert later.hints_used[0] == 2
    finally:
        await manager.close()

"""Presses apply once (``sessions.presses``): the key is recorded with the change it made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sessions import Refusal, SessionManager
from sessions.presses import PRESS_TTL, pressing
from tests.support.helpers_sessions import FakeClock, FirstLegal, db_url, open_manager


async def test_a_repeated_press_is_refused_as_applied_and_changes_nothing(
    tmp_path: Path,
) -> None:
    manager = await open_manager(tmp_path / "p.sqlite3")
    try:
        lobby = await manager.create(-100, "group", 1, "Ann", "king")
        with pressing("cq:1"):
            added = await manager.add_computer(lobby.id, 1, "easy")
        with pressing("cq:1"), pytest.raises(Refusal) as caught:
            await manager.add_computer(lobby.id, 1, "easy")
        assert caught.value.code == "applied"
        assert await manager.get(lobby.id) == added
        with pressing("cq:2"):  # a new press
            assert len((await manager.add_computer(lobby.id, 1, "easy")).seats) == 3
    finally:
        await manager.close()


class _OvertakenOnce:
    """A store whose first save is overtaken by another worker's commit."""

    def __init__(self, store: Any, other: SessionManager, session_id: int) -> None:
        self._store, self._other, self._session_id = store, other, session_id
        self.overtaken = False

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name != "save_session" or self.overtaken:
            return found

        async def save(*args: Any, **kwargs: Any) -> Any:
            self.overtaken = True
            await self._other.join(self._session_id, 2, "Bob")
            return await found(*args, **kwargs)

        return save


async def test_a_press_made_again_on_a_stale_version_is_recorded_once(tmp_path: Path) -> None:
    """Two workers: the press's first try is stale (rolled back, no key), the second
    applies and records it; delivered again it changes nothing."""
    url = db_url(tmp_path / "w.sqlite3")
    one = await SessionManager.open(url, FirstLegal(), FakeClock(), shared=True)
    two = await SessionManager.open(url, FirstLegal(), FakeClock(), shared=True)
    try:
        lobby = await one.create(-100, "group", 1, "Ann", "king")
        store = one.store
        overtaking = _OvertakenOnce(store, two, lobby.id)
        one.store = overtaking
        with pressing("cq:7"):
            added = await one.add_computer(lobby.id, 1, "easy")
        assert overtaking.overtaken
        assert [p.name for p in added.seats] == ["Ann", "Bob", "Computer (easy)"]
        with pressing("cq:7"), pytest.raises(Refusal) as caught:
            await one.add_computer(lobby.id, 1, "easy")
        assert caught.value.code == "applied"
        assert len((await two.get(lobby.id)).seats) == 3
        one.store = store
    finally:
        await one.close()
        await two.close()


async def test_presses_older_than_a_day_are_forgotten(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "f.sqlite3", clock=clock)
    try:
        lobby = await manager.create(-100, "group", 1, "Ann", "king")
        with pressing("cq:old"):
            await manager.add_computer(lobby.id, 1, "easy")
        await manager.idle()
        clock.advance(PRESS_TTL + 1)
        assert await manager.pressed("cq:old")
        with pressing("cq:new"):
            await manager.add_computer(lobby.id, 1, "easy")
        await manager.idle()
        assert not await manager.pressed("cq:old")
        assert await manager.pressed("cq:new")
    finally:
        await manager.close()

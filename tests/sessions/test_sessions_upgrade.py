"""Starting on a store upgraded past revision 0004 fills its seasons, once.

Revision 0004 adds the season tables empty; the matches finished before the
upgrade are rated into their seasons when the session layer opens the store
(the rebuild of ``python -m sessions.rerate``), on SQLite and PostgreSQL alike.
A store whose seasons are rated is left as it is, and a fresh one says nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from sessions.manager import SessionManager
from sessions.months import month_of
from sessions.ratings import rebuild
from storage import RatingRow, open_store
from storage.ratings import RatingChange, StoredMatch
from storage.sql import Sql
from storage.store import SqlStore
from tests.support.helpers_sessions import FakeClock, FirstLegal, duel, play_out

CHAT = -100
FILLED = "filled the seasons of"


async def _open(url: str) -> SessionManager:
    return await SessionManager.open(url, FirstLegal(), FakeClock())


def _filled(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(FILLED)]


async def _before_the_upgrade(url: str) -> list[RatingRow]:
    """Two matches played and rated, then the seasons emptied as revision 0004 leaves
    them; the season board the matches made."""
    manager = await _open(url)
    try:
        for seed in range(2):
            session = await duel(manager, CHAT)
            await play_out(manager, session.id, seed)
        board = await manager.seasons.board(CHAT)
        assert isinstance(manager.store, SqlStore)
        await manager.store.backend.execute(Sql("DELETE FROM season_ratings"))
        assert await manager.seasons.board(CHAT) == []
    finally:
        await manager.close()
    return board


async def test_an_upgraded_store_fills_its_seasons_once(
    store_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    board = await _before_the_upgrade(store_url)
    assert len(board) == 2
    caplog.set_level(logging.INFO)
    manager = await _open(store_url)
    try:
        assert await manager.seasons.board(CHAT) == board
    finally:
        await manager.close()
    assert _filled(caplog) == [
        "filled the seasons of 2 matches finished before the upgrade"
    ]
    caplog.clear()
    # the second start finds the seasons rated: nothing is done, nothing said
    manager = await _open(store_url)
    try:
        assert isinstance(manager.store, SqlStore)
        await manager.store.backend.execute(Sql("UPDATE season_ratings SET played = 9"))
        await manager.close()
        manager = await _open(store_url)
        assert {row.rating.played for row in await manager.seasons.board(CHAT)} == {9}
    finally:
        await manager.close()
    assert _filled(caplog) == []


def _never(matches: Sequence[StoredMatch]) -> list[RatingChange]:
    raise AssertionError("rebuilt the ratings of a store with no results")


async def test_a_fresh_store_fills_nothing(
    store_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    manager = await _open(store_url)
    try:
        assert await manager.store.fill_seasons(_never) == 0  # no results: no rebuild
        assert await manager.seasons.board(CHAT) == []
    finally:
        await manager.close()
    assert _filled(caplog) == []


async def test_workers_starting_at_once_fill_once(store_url: str) -> None:
    board = await _before_the_upgrade(store_url)
    workers = [await open_store(store_url)]
    # SQLite: one process holds the file, so two starts at once are two calls on one store
    workers.append(workers[0] if store_url.startswith("sqlite") else await open_store(store_url))
    try:
        counts = await asyncio.gather(*(worker.fill_seasons(rebuild) for worker in workers))
        assert sorted(counts) == [0, 2]
        assert await workers[1].season_leaderboard(month_of(FakeClock()()), CHAT) == board
    finally:
        for worker in {id(worker): worker for worker in workers}.values():
            await worker.close()

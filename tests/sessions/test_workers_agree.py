"""Several workers on one store agree: preferences another worker changed are seen
within the cache's time to live, and no race between a press and the session
cache's background pass can fail the press."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from sessions import Preferences, Session, SessionManager
from sessions.preferences import SHARED_TTL
from storage import Store, open_store
from tests.support.helpers_sessions import FakeClock, FirstLegal

ANN, BOB = 1, 2


@pytest.fixture(params=["sqlite", "postgres"])
def shared_url(request: pytest.FixtureRequest, db_dir: Path) -> str:
    """One database two workers share (SQLite: two stores of one process on one file)."""
    if request.param == "sqlite":
        return f"sqlite:///{db_dir / 'shared.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    return url


@pytest.fixture
async def two_stores(shared_url: str) -> AsyncIterator[tuple[Store, Store]]:
    """Each worker's own store on the shared database."""
    first, second = await open_store(shared_url), await open_store(shared_url)
    yield first, second
    await first.close()
    await second.close()


async def test_a_worker_sees_another_workers_unblock_within_the_ttl(
    two_stores: tuple[Store, Store],
) -> None:
    clock = FakeClock()
    worker_a = Preferences(two_stores[0], ttl=SHARED_TTL, clock=clock)
    worker_b = Preferences(two_stores[1], ttl=SHARED_TTL, clock=clock)
    await worker_b.set_reachable(ANN, False)  # B's send got a 403: Ann blocked the bot
    assert not await worker_b.reachable(ANN)
    await worker_a.set_reachable(ANN, True)  # Ann unblocks the bot; A hears of it
    clock.advance(SHARED_TTL)
    assert await worker_b.reachable(ANN)  # B sends her hands again


async def test_a_worker_sees_another_workers_language_within_the_ttl(
    two_stores: tuple[Store, Store],
) -> None:
    clock = FakeClock()
    worker_a = Preferences(two_stores[0], ttl=SHARED_TTL, clock=clock)
    worker_b = Preferences(two_stores[1], ttl=SHARED_TTL, clock=clock)
    assert await worker_b.language("user", ANN) is None
    await worker_a.set_language("user", ANN, "ru")
    clock.advance(SHARED_TTL / 2)
    assert await worker_b.language("user", ANN) is None  # still cached: within the TTL
    clock.advance(SHARED_TTL / 2)
    assert await worker_b.language("user", ANN) == "ru"


async def test_one_worker_alone_keeps_its_cache(two_stores: tuple[Store, Store]) -> None:
    reads = 0
    store = two_stores[0]
    real = store.reachable

    async def counted(user_id: int) -> bool:
        nonlocal reads
        reads += 1
        return await real(user_id)

    store.reachable = counted  # type: ignore[method-assign]
    clock = FakeClock()
    alone = Preferences(store, clock=clock)
    await alone.reachable(ANN)
    clock.advance(3600)
    await alone.reachable(ANN)
    assert reads == 1


# ---------------------------------------------------------------- the session cache


class Gate:
    """Holds the first call of a store method until released (an interleaving by hand)."""

    def __init__(self, store: Store, name: str) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.armed = False
        real = getattr(store, name)

        async def held(*args: Any) -> Any:
            if self.armed:
                self.armed = False
                self.entered.set()
                await self.release.wait()
            return await real(*args)

        setattr(store, name, held)


async def running_duel(manager: SessionManager, chat: int, timer: int | None = None) -> Session:
    """Ann and Bob at Eleven in group ``chat``, dealt."""
    lobby = await manager.create(chat, "group", ANN, "Ann", "eleven")
    await manager.join(lobby.id, BOB, "Bob")
    if timer is not None:
        await manager.set_timer(lobby.id, ANN, timer)
    return (await manager.start(lobby.id, ANN)).session


@pytest.fixture
async def shared_manager(db_dir: Path) -> AsyncIterator[tuple[SessionManager, FakeClock]]:
    """A worker of a cluster (``shared``: every cached session checked by its version)."""
    clock = FakeClock()
    manager = await SessionManager.open(
        f"sqlite:///{db_dir / 'race.sqlite3'}", FirstLegal(), clock, shared=True
    )
    yield manager, clock
    await manager.close()


async def test_the_background_pass_dropping_a_session_mid_check_fails_no_lookup(
    shared_manager: tuple[SessionManager, FakeClock],
) -> None:
    manager, clock = shared_manager
    session = await running_duel(manager, -100, timer=60)
    version_check = Gate(manager.store, "session_version")
    reload = Gate(manager.store, "load_session")
    version_check.armed = True
    looking = asyncio.create_task(manager.get(session.id))  # a press reads the table
    await version_check.entered.wait()
    clock.advance(61)  # the turn is due: the background pass drops and reloads it
    reload.armed = True
    background = asyncio.create_task(manager.run_due_work())
    await reload.entered.wait()  # dropped from the cache, not loaded again yet
    version_check.release.set()
    found = await looking
    reload.release.set()
    await background
    assert found.id == session.id and found.version == session.version


async def test_a_press_whose_session_is_evicted_mid_check_is_played(db_dir: Path) -> None:
    clock = FakeClock()
    manager = await SessionManager.open(
        f"sqlite:///{db_dir / 'evict.sqlite3'}", FirstLegal(), clock, cache_size=1, shared=True
    )
    try:
        other = await running_duel(manager, -200)
        session = await running_duel(manager, -100)  # the one cached now
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        gate = Gate(manager.store, "session_version")
        gate.armed = True
        press = asyncio.create_task(
            manager.act(session.id, user, session.version, session.view(seat)["legal"][0])
        )
        await gate.entered.wait()
        await manager.get(other.id)  # another table's press evicts this one meanwhile
        gate.release.set()
        outcome = await press
        assert outcome.session.version == session.version + 1
    finally:
        await manager.close()

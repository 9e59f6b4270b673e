"""Several workers on one PostgreSQL database: one SessionManager each (``shared=True``).

Two presses on one version from two workers make one move; every turn timer
fires once and every computer turn is played once in the whole cluster, also
when the worker that took it dies; a cache never serves an older state than the
database holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from sessions import Computer, Refusal, Session, SessionManager
from tests.support.helpers_sessions import FakeClock, FirstLegal, Stuck

LEASE = 5.0


@pytest.fixture
def clock() -> FakeClock:
    """One wall clock for the whole cluster."""
    return FakeClock()


async def worker(url: str, clock: FakeClock, computer: Computer | None = None) -> SessionManager:
    """A worker's session layer on the shared database."""
    return await SessionManager.open(
        url, computer or FirstLegal(), clock, shared=True, lease=LEASE
    )


@pytest.fixture
async def pair(pg_database: str, clock: FakeClock) -> AsyncIterator[list[SessionManager]]:
    """Two workers on one PostgreSQL database."""
    managers = [await worker(pg_database, clock), await worker(pg_database, clock)]
    yield managers
    for manager in managers:
        await manager.close()


async def duel(manager: SessionManager, timer: int | None = None) -> Session:
    """Two humans (users 1 and 2) at Eleven, running."""
    lobby = await manager.create(-100, "group", 1, "Ann", "eleven")
    await manager.join(lobby.id, 2, "Bob")
    if timer is not None:
        await manager.set_timer(lobby.id, 1, timer)
    return (await manager.start(lobby.id, 1)).session


async def test_two_presses_on_one_version_at_two_workers_make_one_move(
    pair: list[SessionManager],
) -> None:
    first, second = pair
    session = await duel(first)
    await second.get(session.id)  # both have it cached
    seat = session.to_move
    assert seat is not None
    user = session.seats[seat].user_id
    assert user is not None
    legal = session.view(seat)["legal"]
    results = await asyncio.gather(
        first.act(session.id, user, session.version, legal[0]),
        second.act(session.id, user, session.version, legal[-1]),
        return_exceptions=True,
    )
    refusals = [r for r in results if isinstance(r, Refusal)]
    assert len(refusals) == 1 and refusals[0].code == "stale"
    assert len(await first.replay_log(session.id)) == 1
    # neither cache is older than the database now
    assert (await first.get(session.id)).version == (await second.get(session.id)).version


async def test_a_cache_never_serves_an_older_state_than_the_database(
    pair: list[SessionManager],
) -> None:
    first, second = pair
    session = await duel(first)
    cached = await second.get(session.id)
    seat = session.to_move
    assert seat is not None and cached.version == session.version
    user = session.seats[seat].user_id
    assert user is not None
    moved = await first.act(session.id, user, session.version, session.view(seat)["legal"][0])
    assert (await second.get(session.id)).version == moved.session.version


async def test_a_turn_timer_fires_once_in_the_cluster(
    pair: list[SessionManager], clock: FakeClock
) -> None:
    first, second = pair
    session = await duel(first, timer=60)
    await second.run_due_work()  # not due yet: nothing taken up
    await second.restore()  # the second worker arms the same timer
    clock.advance(61)
    fired = first.fire_due_timers() + second.fire_due_timers()
    assert fired == 2  # both timers went off …
    await asyncio.gather(first.idle(), second.idle())
    await asyncio.gather(first.run_due_work(), second.run_due_work())
    await asyncio.gather(first.idle(), second.idle())
    moves = await first.replay_log(session.id)
    assert len(moves) == 1 and moves[0].by_computer  # … and the turn expired once
    assert (await second.get(session.id)).seats[moves[0].seat].timeouts == 1


async def test_a_computer_turn_left_by_a_dead_worker_is_played_once_by_another(
    pg_database: str, clock: FakeClock
) -> None:
    stuck = Stuck()
    dying = await worker(pg_database, clock, stuck)
    survivor = await worker(pg_database, clock)
    try:
        lobby = await dying.create(-100, "group", 1, "Ann", "eleven")
        await dying.add_computer(lobby.id, 1, "easy")
        started = (await dying.start(lobby.id, 1)).session
        if started.to_move == 0:  # the human leads: play so that the computer is to move
            user = 1
            started = (await dying.act(started.id, user, started.version,
                                       started.view(0)["legal"][0])).session
        assert started.to_move == 1
        await asyncio.wait_for(stuck.asked.wait(), 10)  # the dying worker holds the lease
        await survivor.run_due_work()
        await survivor.idle()
        assert (await survivor.get(started.id)).version == started.version  # not before expiry
        clock.advance(LEASE + 1)  # the dying worker is gone: its lease runs out
        await survivor.run_due_work()
        await survivor.idle()
        after = await survivor.get(started.id)
        assert after.version > started.version
        computer_moves = [m for m in await survivor.replay_log(started.id) if m.by_computer]
        versions = [m.version for m in computer_moves]
        assert computer_moves and len(set(versions)) == len(versions)
    finally:
        await dying.close()
        await survivor.close()


async def test_computers_move_at_once_on_the_worker_that_committed_the_human_move(
    pair: list[SessionManager],
) -> None:
    first, second = pair
    lobby = await first.create(-100, "group", 1, "Ann", "king")
    await first.join(lobby.id, 2, "Bob")
    await first.add_computer(lobby.id, 1, "easy")
    await first.add_computer(lobby.id, 1, "easy")
    session = (await first.start(lobby.id, 1)).session
    for _ in range(12):
        await asyncio.gather(first.idle(), second.idle())
        session = await second.get(session.id)
        seat = session.to_move
        assert seat is not None and session.seats[seat].user_id is not None, (
            "a computer seat was left waiting without run_due_work"
        )
        user = session.seats[seat].user_id
        assert user is not None
        await second.act(session.id, user, session.version, session.view(seat)["legal"][0])


async def test_joins_racing_at_two_workers_both_sit(pair: list[SessionManager]) -> None:
    first, second = pair
    lobby = await first.create(-100, "group", 1, "Ann", "king")
    await second.get(lobby.id)
    await asyncio.gather(first.join(lobby.id, 2, "Bob"), second.join(lobby.id, 3, "Cy"))
    seated = {p.user_id for p in (await first.get(lobby.id)).seats}
    assert seated == {1, 2, 3}

"""Turn timers: expiry, three timeouts, old versions, restarts."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from sessions import Outcome, Player, Session, SessionManager
from sessions.timers import TurnTimers
from tests.support.helpers_sessions import FakeClock, FirstLegal, open_manager, play_one


async def timed_duel(manager: SessionManager, seconds: int = 60) -> Session:
    """Two humans, Eleven to 1 point, a turn timer of ``seconds``."""
    lobby = await manager.create(-100, "group", 1, "Ann", "eleven")
    await manager.join(lobby.id, 2, "Bob")
    await manager.set_option(lobby.id, 1, "target", 1)
    await manager.set_timer(lobby.id, 1, seconds)
    return (await manager.start(lobby.id, 1)).session


async def test_an_expired_turn_is_played_by_the_computer(tmp_path: Path) -> None:
    clock = FakeClock()
    computer = FirstLegal()
    manager = await open_manager(tmp_path / "t.sqlite3", computer, clock)
    seen: list[Outcome] = []

    async def watch(outcome: Outcome) -> None:
        seen.append(outcome)

    manager.subscribe(watch)
    try:
        session = await timed_duel(manager)
        seat = session.to_move
        assert seat is not None and session.deadline == clock.now + 60
        clock.advance(59)
        assert manager.fire_due_timers() == 0
        clock.advance(1)
        assert manager.fire_due_timers() == 1
        await manager.idle()
        after = await manager.get(session.id)
        assert after.moves == 1 and after.seats[seat].timeouts == 1
        assert after.deadline == clock.now + 60 and after.to_move is not None
        (outcome,) = seen
        assert outcome.by_computer and outcome.actor == seat
        assert outcome.events[0] == {"type": "timeout", "seat": seat}
        assert computer.calls == [("eleven", "normal", seat)]
        (move,) = await manager.replay_log(session.id)
        assert move.by_computer and move.seat == seat
    finally:
        await manager.close()


async def test_three_timeouts_in_a_row_hand_the_seat_over(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "h.sqlite3", FirstLegal(), clock)
    try:
        session = await timed_duel(manager)
        history: list[list[int]] = []
        while all(not p.is_computer for p in session.seats) and session.status == "running":
            clock.advance(60)
            manager.fire_due_timers()
            await manager.idle()
            session = await manager.get(session.id)
            history.append([p.timeouts for p in session.seats])
        (gone,) = [i for i, p in enumerate(session.seats) if p.is_computer]
        assert session.seats[gone] == Player(
            None, "Ann" if gone == 0 else "Bob", "normal", stands_in_for=gone + 1
        )
        assert history[-2][gone] == 2, "handed over on the third timeout, not earlier"
        assert session.seat_of(1 if gone == 0 else 2) is None
        await manager.idle()
        session = await manager.get(session.id)
        assert session.to_move != gone, "the computer now moves for the seat by itself"
    finally:
        await manager.close()


async def test_moving_in_time_resets_the_timeout_count(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "r.sqlite3", FirstLegal(), clock)
    try:
        session = await timed_duel(manager)
        late = session.to_move
        assert late is not None
        clock.advance(60)
        manager.fire_due_timers()
        await manager.idle()
        session = await manager.get(session.id)
        assert session.seats[late].timeouts == 1
        rng = random.Random(0)
        while session.to_move != late:
            session = await play_one(manager, session.id, rng)
        session = await play_one(manager, session.id, rng)
        assert session.seats[late].timeouts == 0
    finally:
        await manager.close()


async def test_a_timer_for_an_old_version_does_nothing(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "o.sqlite3", FirstLegal(), clock)
    try:
        session = await timed_duel(manager)
        old = session.version
        session = await play_one(manager, session.id, random.Random(0))
        clock.advance(3600)
        assert await manager.expire(session.id, old) is None
        assert await manager.get(session.id) == session
        assert await manager.expire(session.id, session.version) is not None
    finally:
        await manager.close()


async def test_a_deadline_not_yet_reached_does_nothing(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "e.sqlite3", FirstLegal(), clock)
    try:
        session = await timed_duel(manager)
        assert await manager.expire(session.id, session.version) is None
        assert (await manager.get(session.id)).moves == 0
    finally:
        await manager.close()


async def test_a_deadline_passed_while_down_fires_after_restart(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "down.sqlite3"
    manager = await open_manager(path, FirstLegal(), clock)
    session = await timed_duel(manager, seconds=300)
    await manager.close()
    clock.advance(301)
    manager = await open_manager(path, FirstLegal(), clock)
    try:
        await manager.idle()
        after = await manager.get(session.id)
        assert after.moves == 1 and after.seats[session.to_move or 0].timeouts == 1
        (move,) = await manager.replay_log(session.id)
        assert move.by_computer
    finally:
        await manager.close()


async def test_a_pending_deadline_is_rearmed_after_restart(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "up.sqlite3"
    manager = await open_manager(path, FirstLegal(), clock)
    session = await timed_duel(manager, seconds=86400)
    await manager.close()
    clock.advance(3600)
    manager = await open_manager(path, FirstLegal(), clock)
    try:
        await manager.idle()
        assert (await manager.get(session.id)).moves == 0
        clock.advance(86400 - 3600)
        assert manager.fire_due_timers() == 1
        await manager.idle()
        assert (await manager.get(session.id)).moves == 1
    finally:
        await manager.close()


async def test_turn_timers_fire_on_the_event_loop_in_real_time() -> None:
    fired: list[tuple[int, int]] = []
    timers = TurnTimers(time.time, lambda sid, version: fired.append((sid, version)))
    timers.arm(1, 5, time.time() + 0.05)
    timers.arm(2, 1, time.time() + 0.05)
    timers.arm(2, 2, time.time() + 0.05)
    timers.arm(3, 1, time.time() + 60)
    timers.disarm(3)
    timers.arm(4, 1, time.time() - 1)
    assert fired == [(4, 1)]
    await asyncio.sleep(0.2)
    assert sorted(fired) == [(1, 5), (2, 2), (4, 1)]
    assert timers.deadline(1) is None
    timers.close()

"""A worker's cluster duty on a fake clock: due work every second, and a message left
behind by a dead worker drawn again — at once when the worker is found dead (it stopped
beating), else once it has stayed behind for ``stuck`` seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bot.cluster import Cluster
from storage import Beat, MessageRef
from tests.support.fake_clock import FakeClock


@dataclass
class Session:
    """What the duty reads of a session: its id."""

    id: int


@dataclass
class Manager:
    """The session layer's side of the duty: due work run, messages behind."""

    behind_refs: list[MessageRef]
    due_runs: int = 0
    #: the other workers' last beats (wall clock); this one's beats, in order
    beats: dict[str, float] = field(default_factory=dict)
    mine: list[float] = field(default_factory=list)

    async def run_due_work(self) -> None:
        """Count a look for due work."""
        self.due_runs += 1

    async def beat(self, now: float, silent: float) -> Beat:
        """Note this worker's beat; forget and return the workers silent too long."""
        self.mine.append(now)
        dead = sorted(w for w, at in self.beats.items() if at < now - silent)
        for worker in dead:
            del self.beats[worker]
        return Beat(len(self.mine) > 1, tuple(dead))

    async def behind(self) -> AsyncIterator[tuple[Session, list[MessageRef]]]:
        """One session, with the messages it has."""
        yield Session(7), list(self.behind_refs)


@dataclass
class Presenter:
    """Records what the duty draws again."""

    drawn: list[tuple[int, set[str]]] = field(default_factory=list)

    async def refresh(self, session: Session, *, only: set[str], **_: Any) -> None:
        """Note a redraw."""
        self.drawn.append((session.id, only))


def table_behind(shown: int = 3, wanted: int = 4) -> MessageRef:
    return MessageRef("table", -100, 10, None, shown, wanted)


async def test_a_message_stuck_behind_is_drawn_after_stuck_seconds_not_before() -> None:
    clock = FakeClock()
    manager, presenter = Manager([table_behind()]), Presenter()
    duty = Cluster(manager, presenter, every=1.0, stuck=10.0, clock=clock)
    duty.start()
    try:
        await clock.sleepers()
        await clock.advance(9.5)
        assert manager.due_runs == 9 and presenter.drawn == []
        await clock.advance(1.0)  # the first look for stuck messages: seen behind once
        assert presenter.drawn == []
        await clock.advance(10.0)  # the same versions behind at the next look
        assert presenter.drawn == [(7, {"table"})]
        assert manager.due_runs == 20
    finally:
        await duty.stop()


async def test_a_message_that_moved_on_between_looks_is_left_to_its_owner() -> None:
    clock = FakeClock()
    manager, presenter = Manager([table_behind(3, 4)]), Presenter()
    duty = Cluster(manager, presenter, every=1.0, stuck=10.0, clock=clock)
    duty.start()
    try:
        await clock.sleepers()
        await clock.advance(10.5)
        manager.behind_refs = [table_behind(4, 5)]  # a worker alive delivered and moved on
        await clock.advance(10.0)
        assert presenter.drawn == []
    finally:
        await duty.stop()


async def test_a_message_behind_is_drawn_as_soon_as_a_beat_finds_its_worker_dead() -> None:
    """Another worker beat last at 2 s and committed a move whose table it never drew:
    this worker beats every half second, finds it silent for 2.5 s at the beat at 5 s
    (the look's own schedule would come later), and draws the table then, once."""
    clock = FakeClock()
    manager, presenter = Manager([table_behind()]), Presenter()
    duty = Cluster(manager, presenter, stuck=100.0, clock=clock)
    start = clock.wall()
    manager.beats["other"] = start + 2.0
    duty.start()
    try:
        await clock.sleepers()
        await clock.advance(4.75)
        assert presenter.drawn == []  # silent 2.25 s at the beat at 4.5 s: not yet
        await clock.advance(0.5)
        assert presenter.drawn == [(7, {"table"})]
        await clock.advance(3.0)  # found once: not drawn again at every look
        assert presenter.drawn == [(7, {"table"})]
        assert manager.mine == [start + n * 0.5 for n in range(17)]
    finally:
        await duty.stop()


async def test_a_slow_look_never_holds_a_beat_back() -> None:
    """This worker's look for due work hangs for 10 s (a slow store query): it still
    beats every half second, so the others never take it for dead meanwhile."""
    clock = FakeClock()
    manager, presenter = Manager([]), Presenter()

    async def slow_due_work() -> None:
        manager.due_runs += 1
        await clock.sleep(10.0)

    manager.run_due_work = slow_due_work  # type: ignore[method-assign]
    duty = Cluster(manager, presenter, clock=clock)
    start = clock.wall()
    duty.start()
    try:
        await clock.sleepers()
        await clock.advance(6.25)
        assert manager.due_runs == 1
        assert manager.mine == [start + n * 0.5 for n in range(13)]
    finally:
        await duty.stop()


async def test_a_worker_that_keeps_beating_is_never_taken_for_dead() -> None:
    """The other worker beats every second: its message behind is left to it (a beat
    missed here and there is not a death)."""
    clock = FakeClock()
    manager, presenter = Manager([table_behind()]), Presenter()
    duty = Cluster(manager, presenter, every=1.0, stuck=100.0, clock=clock, silent=4.0)
    duty.start()
    try:
        await clock.sleepers()
        for _ in range(12):
            manager.beats["other"] = clock.wall()
            await clock.advance(1.0)
        assert presenter.drawn == [] and "other" in manager.beats
    finally:
        await duty.stop()


async def test_a_slot_is_this_workers_own_only_while_its_beats_stand() -> None:
    """A slot opening 2.5 s or more after this worker's latest stored beat, or booked
    before a beat that found it forgotten (taken for dead), may have been given back:
    the worker does not send in it. The beats the duty makes are what the pulse knows."""
    clock = FakeClock()
    manager, presenter = Manager([]), Presenter()
    duty = Cluster(manager, presenter, clock=clock)
    pulse, start = duty.pulse, clock.wall()
    before = pulse.mark()
    assert pulse.holds(before, start + 100.0)  # it never beat: no one can find it dead
    duty.start()
    try:
        await clock.sleepers()
        assert pulse.holds(before, start + 2.4) and not pulse.holds(before, start + 2.5)
        await clock.advance(2.0)  # it beats on
        assert pulse.holds(before, start + 4.4) and not pulse.holds(before, start + 4.5)
    finally:
        await duty.stop()
    pulse.beaten(start + 10.0, known=False)  # it stalled; the store had forgotten it
    assert not pulse.holds(before, start + 10.5)
    assert pulse.holds(pulse.mark(), start + 10.5)  # a slot booked since is its own

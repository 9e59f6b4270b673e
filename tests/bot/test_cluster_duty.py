"""A worker's cluster duty on a fake clock: due work every second, and a message left
behind by a dead worker drawn again once it has stayed behind for ``stuck`` seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bot.cluster import Cluster
from storage import MessageRef
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

    async def run_due_work(self) -> None:
        """Count a look for due work."""
        self.due_runs += 1

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

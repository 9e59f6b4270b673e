"""A worker's send slot in the budget several workers share (PostgreSQL), when the
worker dies: the slot it booked and never used goes to the survivor's next send, and
a worker only taken for dead (its beats stalled) never sends in a slot it lost.

A group's pace here is one request every 6 s, the workers beat every half second and
one silent for 2.5 s is dead; everything runs on one fake clock, and between two steps
of it the test waits until every worker sleeps on it again (the store has answered).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.cluster import Cluster, Pulse
from bot.delivery import Delivery
from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.render.common import screen
from sessions import Messages, ephemeral_purpose
from storage import Beat, MessageRef, Store, open_store
from tests.support.fake_clock import FakeClock
from tests.support.store_records import ANN, lobby

GROUP = -100
INTERVAL = 6.0  # seconds between two requests to the group
HAND = ephemeral_purpose(0)
LEASE = 30.0


@pytest.fixture
async def store(pg_database: str) -> AsyncIterator[Store]:
    opened = await open_store(pg_database)
    yield opened
    await opened.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


class Telegram:
    """The Bot API of the survivor: each edit of an ephemeral message, with the fake
    clock's time it arrived at."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.edits: list[tuple[float, str]] = []

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any], **_: Any) -> bool:
        """Note an ``editEphemeralMessage…`` call."""
        self.edits.append((self.clock.now(), api_kwargs.get("text", "")))
        return True


@dataclass
class Session:
    """What the duty reads of a session: its id."""

    id: int


@dataclass
class Manager:
    """The survivor's session layer as the cluster duty uses it, over the real store."""

    store: Store
    session: int
    name: str = "b"
    beats: list[Beat] = field(default_factory=list)

    async def run_due_work(self) -> None:
        """No background work in these tests."""

    async def beat(self, now: float, silent: float) -> Beat:
        """This worker's beat in the store."""
        beat = await self.store.beat(self.name, now, silent)
        self.beats.append(beat)
        return beat

    async def behind(self) -> AsyncIterator[tuple[Session, list[MessageRef]]]:
        """The one session, with its stored messages."""
        yield Session(self.session), await self.store.messages_of(self.session)


@dataclass
class Presenter:
    """Draws the player's hand (the newest version) into the survivor's delivery."""

    delivery: Delivery

    async def refresh(self, session: Session, *, only: set[str], **_: Any) -> None:
        """Show each message behind at version 4."""
        for purpose in sorted(only):
            self.delivery.show_ephemeral(session.id, purpose, screen("hand v4"), 4)


def limiter(store: Store, name: str, clock: FakeClock, pulse: Pulse | None) -> FloodLimiter:
    """A worker's limiter: the group's pace only, through the shared budget as ``name``."""
    paced = FloodLimiter(
        Limits(group=Pace(1, INTERVAL, margin=1.0), private=None, overall=None), clock=clock
    )
    paced.share(lambda key, interval, now: store.reserve_send(key, interval, now, name), pulse)
    return paced


async def a_session(store: Store) -> int:
    """A running group match at version 4 (worker a committed it)."""
    return await store.create_session(lobby(GROUP, status="running", version=4, moves=3))


async def step(clock: FakeClock, seconds: float, sleepers: int) -> None:
    """Move the clock ``seconds`` on, half a second at a time, each time once
    ``sleepers`` sleep on it (the store has answered everyone)."""
    for _ in range(round(seconds / 0.5)):
        await asyncio.wait_for(clock.sleepers(sleepers), 5)
        await clock.advance(0.5)
    await asyncio.wait_for(clock.sleepers(sleepers), 5)


async def test_a_dead_workers_hand_edit_goes_out_in_the_slot_it_booked(
    store: Store, clock: FakeClock
) -> None:
    """Worker a edited the table in the group's slot at 0 s, booked the slot at 6 s for
    its player's hand (version 4) and was killed. The survivor b finds it dead at the
    beat at 3 s and draws the hand: the edit goes out at 6 s, in a's slot, one interval
    after a's last request — not at 12 s, the slot after it."""
    session = await a_session(store)
    await store.set_message(session, MessageRef(HAND, GROUP, 900, shown=3, wanted=4,
                                                receiver=ANN))
    start = clock.wall()
    await store.beat("a", start, 2.5)
    assert await store.reserve_send(GROUP, INTERVAL, start, "a") == start  # the table
    assert await store.reserve_send(GROUP, INTERVAL, start, "a") == start + INTERVAL
    telegram, pulse = Telegram(clock), Pulse()
    delivery = Delivery(
        telegram,  # type: ignore[arg-type]  # an ExtBot's do_api_request only: all it calls
        limiter(store, "b", clock, pulse), Messages(store), defer=0.0, shared=True,
        owner="b", lease=LEASE, clock=clock,
    )
    manager = Manager(store, session)
    duty = Cluster(manager, Presenter(delivery), stuck=100.0, clock=clock, pulse=pulse)
    duty.start()
    try:
        await step(clock, 3.0, sleepers=2)  # b beats and looks
        assert [beat.dead for beat in manager.beats][-1] == ("a",)
        await step(clock, 0.0, sleepers=3)  # and its hand's edit waits for the slot
        assert telegram.edits == []
        await step(clock, 2.5, sleepers=3)
        assert telegram.edits == []  # at 5.5 s: not yet an interval after a's table
        await clock.advance(0.5)  # the clock stands at 6 s while the edit goes
        await asyncio.wait_for(delivery.flush(), 5)
        assert telegram.edits == [(clock.now(), "hand v4")]
        assert clock.wall() == start + INTERVAL
        assert (await store.messages_of(session))[0].shown == 4
    finally:
        await duty.stop()
        await delivery.close()


async def test_a_worker_taken_for_dead_books_again_rather_than_send_in_a_lost_slot(
    store: Store, clock: FakeClock
) -> None:
    """Worker a's beats stall after 0 s (it is alive): it sends at 0 s and books the
    slot at 6 s; b finds it dead at 3 s, which gives that slot back, and b's next
    request takes it. When a's slot opens a sees its beats did not stand: it books
    again once it beats again (and learns it was taken for dead), and sends at 12 s,
    so the group never gets two requests closer than 6 s."""
    start = clock.wall()
    pulse = Pulse()

    async def beat() -> None:
        pulse.beaten(clock.wall(), (await store.beat("a", clock.wall(), 2.5)).known)

    await beat()
    stalled = limiter(store, "a", clock, pulse)
    survivor = limiter(store, "b", clock, None)
    sent: list[tuple[str, float]] = []

    async def request(worker: str, paced: FloodLimiter) -> None:
        await paced.wait_turn(GROUP)
        sent.append((worker, clock.wall() - start))

    await request("a", stalled)  # goes at once
    late = asyncio.ensure_future(request("a", stalled))
    await asyncio.wait_for(clock.sleepers(1), 5)  # a sleeps until its slot at 6 s
    await clock.advance(3.0)
    assert (await store.beat("b", clock.wall(), 2.5)).dead == ("a",)
    on_time = asyncio.ensure_future(request("b", survivor))
    await asyncio.wait_for(clock.sleepers(2), 5)
    await clock.advance(3.0)
    await asyncio.wait_for(on_time, 5)
    assert sent == [("a", 0.0), ("b", INTERVAL)]  # a's slot opened: it waits for a beat
    for _ in range(12):  # a's beats go on from 6 s
        await beat()
        await asyncio.wait_for(clock.sleepers(1), 5)
        await clock.advance(0.5)
    await asyncio.wait_for(late, 5)
    assert sent == [("a", 0.0), ("b", INTERVAL), ("a", 2 * INTERVAL)]
    await stalled.shutdown()
    await survivor.shutdown()

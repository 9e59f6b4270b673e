"""Two workers delivering the same messages over one PostgreSQL database.

Each worker has its own :class:`~bot.delivery.Delivery` in shared mode; the
delivery lease on each message (``Store.lease_message``) lets one worker at a
time send or edit it, so an older screen never lands over a newer one and a
brand-new message is posted once. The workers poll and their leases expire on
one fake clock: no test waits for time to pass.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.delivery import LEASE_POLL, Delivery
from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.queueing import URGENT
from bot.render.common import Screen, screen
from sessions import Messages, ephemeral_purpose, hand_purpose
from storage import MessageRef, SeatRecord, SessionRecord, Store, open_store
from tests.support.fake_clock import FakeClock

GROUP, ANN, BEN = -100, 1001, 1002
TABLE = "table"
#: Ann's and Ben's ephemeral hands in the group (seats 0 and 1)
ANNS, BENS = ephemeral_purpose(0), ephemeral_purpose(1)


class _Sent:
    def __init__(self, message_id: int) -> None:
        self.message_id = message_id
        self.api_kwargs: dict[str, Any] = {}


class Telegram:
    """Both workers' Bot API, in the order requests arrive; ``gate`` holds one
    worker's requests on their way (a slow network) until it is set."""

    def __init__(self) -> None:
        self.arrived: list[tuple[str, str, int, str]] = []  # (worker, method, chat, text)
        self.texts: dict[tuple[int, int], str] = {}
        self.next_id = 500

    def bot(self, worker: str, gate: asyncio.Event | None = None) -> Any:
        telegram = self

        class Bot:
            in_flight = asyncio.Event()

            async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> _Sent:
                self.in_flight.set()
                if gate is not None:
                    await gate.wait()
                telegram.arrived.append((worker, "send", chat_id, text))
                telegram.next_id += 1
                telegram.texts[(chat_id, telegram.next_id)] = text
                sent = _Sent(telegram.next_id)
                if "ephemeral_message_parameters" in (kwargs.get("api_kwargs") or {}):
                    sent.message_id, sent.api_kwargs["ephemeral_message_id"] = 0, telegram.next_id
                return sent

            async def do_api_request(self, method: str, api_kwargs: dict[str, Any],
                                     **_: Any) -> bool:
                chat_id, text = api_kwargs["chat_id"], api_kwargs.get("text", "")
                telegram.arrived.append((worker, method, chat_id, text))
                telegram.texts[(chat_id, api_kwargs["ephemeral_message_id"])] = text
                return True

            async def edit_message_text(
                self, text: str, *, chat_id: int, message_id: int, **_: Any
            ) -> bool:
                self.in_flight.set()
                if gate is not None:
                    await gate.wait()
                telegram.arrived.append((worker, "edit", chat_id, text))
                telegram.texts[(chat_id, message_id)] = text
                return True

        return Bot()


@pytest.fixture
async def store(pg_database: str) -> AsyncIterator[Store]:
    opened = await open_store(pg_database)
    yield opened
    await opened.close()


LEASE = 30.0  # seconds a delivery lease stands


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def worker(store: Store, bot: Any, name: str, clock: FakeClock) -> Delivery:
    """One worker's delivery, with the limits off and its own lease owner name."""
    limiter = FloodLimiter(Limits.off(), clock=clock)
    return Delivery(
        bot, limiter, Messages(store), defer=0.0, shared=True, owner=name, lease=LEASE,
        clock=clock,
    )


async def a_session(store: Store) -> int:
    return await store.create_session(
        SessionRecord(
            id=0, chat_id=GROUP, kind="group", game="eleven", status="lobby", creator=ANN,
            options={}, timer=None, seed=1, version=1, moves=0, state=None, deadline=None,
            result=None, created=1.0, seats=[SeatRecord(ANN, "Ann", None)],
        )
    )


async def test_an_older_screen_never_lands_over_a_newer_one(
    store: Store, clock: FakeClock
) -> None:
    session = await a_session(store)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=1, wanted=1))
    telegram, slow = Telegram(), asyncio.Event()
    bot_a = telegram.bot("a", gate=slow)
    first = worker(store, bot_a, "a", clock)
    second = worker(store, telegram.bot("b"), "b", clock)
    first.show(session, TABLE, GROUP, screen("table v2"), 2)
    await asyncio.wait_for(bot_a.in_flight.wait(), 5)  # worker a's edit is on its way
    second.show(session, TABLE, GROUP, screen("table v3"), 3)
    await asyncio.wait_for(clock.sleepers(1), 5)  # b found the lease taken: it waits
    for _ in range(3):  # and looks again, and again: a is editing the message right now
        await clock.advance(LEASE_POLL)
        await asyncio.wait_for(clock.sleepers(1), 5)
    assert telegram.arrived == []
    slow.set()
    await asyncio.wait_for(clock.run(asyncio.gather(first.flush(), second.flush())), 5)
    arrived = [(w, text) for w, _, _, text in telegram.arrived]
    assert arrived == [("a", "table v2"), ("b", "table v3")]
    assert telegram.texts[(GROUP, 7)] == "table v3"
    [ref] = await store.messages_of(session)
    assert ref.shown == 3


async def test_a_new_message_is_posted_once_by_two_workers(
    store: Store, clock: FakeClock
) -> None:
    session = await a_session(store)
    telegram, slow = Telegram(), asyncio.Event()
    bot_a = telegram.bot("a", gate=slow)
    first = worker(store, bot_a, "a", clock)
    second = worker(store, telegram.bot("b"), "b", clock)
    hand = hand_purpose(0)
    first.show(session, hand, ANN, screen("your cards"), 2)
    await asyncio.wait_for(bot_a.in_flight.wait(), 5)
    second.show(session, hand, ANN, screen("your cards"), 2)  # b draws the same version
    await asyncio.wait_for(clock.sleepers(1), 5)  # b waits for a's lease
    slow.set()
    await asyncio.wait_for(clock.run(asyncio.gather(first.flush(), second.flush())), 5)
    assert [(w, method) for w, method, _, _ in telegram.arrived] == [("a", "send")]
    assert await store.messages_of(session) == [MessageRef(hand, ANN, 501, shown=2, wanted=2)]
    # the next version b draws edits that message: it does not post another
    second.show(session, hand, ANN, screen("your cards, one fewer"), 3)
    await asyncio.wait_for(clock.run(second.flush()), 5)
    assert telegram.arrived[-1] == ("b", "edit", ANN, "your cards, one fewer")
    assert telegram.texts[(ANN, 501)] == "your cards, one fewer"


async def test_a_screen_another_worker_superseded_is_not_sent(
    store: Store, clock: FakeClock
) -> None:
    session = await a_session(store)
    # another worker committed version 4 for the table and is delivering it
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=1, wanted=4))
    telegram = Telegram()
    late = worker(store, telegram.bot("a"), "a", clock)
    late.show(session, TABLE, GROUP, screen("table v3"), 3)
    await asyncio.wait_for(late.flush(), 5)
    assert telegram.arrived == []


async def test_a_failed_post_leaves_no_placeholder_and_frees_the_message(
    store: Store, clock: FakeClock
) -> None:
    session = await a_session(store)
    telegram = Telegram()
    failing = telegram.bot("a")

    async def refused(chat_id: int, text: str, **_: Any) -> _Sent:
        from telegram.error import BadRequest

        raise BadRequest("Bad Request: chat not found")

    failing.send_message = refused
    first = worker(store, failing, "a", clock)
    first.show(session, hand_purpose(0), ANN, screen("your cards"), 2)
    await asyncio.wait_for(first.flush(), 5)
    assert await store.messages_of(session) == []
    second = worker(store, telegram.bot("b"), "b", clock)
    second.show(session, hand_purpose(0), ANN, screen("your cards"), 2)
    await asyncio.wait_for(second.flush(), 5)
    assert [(w, method) for w, method, _, _ in telegram.arrived] == [("b", "send")]


async def test_an_ephemeral_hand_sent_by_one_worker_is_kept_current_by_another(
    store: Store, clock: FakeClock
) -> None:
    session = await a_session(store)
    telegram = Telegram()
    first = worker(store, telegram.bot("a"), "a", clock)
    second = worker(store, telegram.bot("b"), "b", clock)
    purpose = ephemeral_purpose(0)
    await first.send_ephemeral(session, purpose, GROUP, ANN, screen("your cards v2"), 2)
    [ref] = await store.messages_of(session)
    assert (ref.purpose, ref.chat_id, ref.receiver, ref.shown) == (purpose, GROUP, ANN, 2)
    assert ref.message_id is not None
    # the next move is committed at the other worker, which never saw that message
    second.show_ephemeral(session, purpose, screen("your cards v3"), 3)
    await asyncio.wait_for(second.flush(), 5)
    assert telegram.arrived[-1] == ("b", "editEphemeralMessageText", GROUP, "your cards v3")
    assert telegram.texts[(GROUP, ref.message_id)] == "your cards v3"
    assert (await store.messages_of(session))[0].shown == 3
    # a seat with no ephemeral hand costs no request
    second.show_ephemeral(session, ephemeral_purpose(1), screen("nobody's"), 3)
    await asyncio.wait_for(second.flush(), 5)
    assert len(telegram.arrived) == 2


async def test_a_lease_left_by_a_worker_killed_mid_send_passes_on_when_it_expires(
    store: Store, clock: FakeClock
) -> None:
    """Worker a dies while its edit is on the way (it never gives the lease back): b
    waits for the lease as long as it stands, not a moment longer, then delivers."""
    session = await a_session(store)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=1, wanted=1))
    telegram, never = Telegram(), asyncio.Event()
    bot_a = telegram.bot("a", gate=never)
    first = worker(store, bot_a, "a", clock)
    second = worker(store, telegram.bot("b"), "b", clock)
    try:
        leased_at = clock.now()
        first.show(session, TABLE, GROUP, screen("table v2"), 2)
        await asyncio.wait_for(bot_a.in_flight.wait(), 5)
        second.show(session, TABLE, GROUP, screen("table v3"), 3)
        await asyncio.wait_for(clock.sleepers(1), 5)
        await clock.advance(LEASE - 1.0)
        await asyncio.wait_for(clock.sleepers(1), 5)
        assert telegram.arrived == []  # the lease still stands
        await asyncio.wait_for(clock.run(second.flush()), 5)
        assert telegram.arrived == [("b", "edit", GROUP, "table v3")]
        assert LEASE <= round(clock.now() - leased_at, 6) < LEASE + 2 * LEASE_POLL
        [ref] = await store.messages_of(session)
        assert ref.shown == 3
    finally:
        await first.close()
        await second.close()


def slot_opens_later(delivery: Delivery) -> tuple[asyncio.Event, asyncio.Event]:
    """Make ``delivery``'s chat turns wait: the first event is set once a turn is booked,
    and the turn opens when the test sets the second."""
    booked, opens = asyncio.Event(), asyncio.Event()

    async def take(ticket: object) -> None:
        booked.set()
        await opens.wait()

    delivery.limiter.take = take  # type: ignore[method-assign]
    return booked, opens


async def test_a_turn_booked_for_a_screen_superseded_meanwhile_draws_the_newest(
    store: Store, clock: FakeClock
) -> None:
    """Worker a waits for the group's turn with the table's version 3; meanwhile worker
    b commits version 4 (and will wait for a turn of its own). A booked turn cannot be
    handed back, so a sends the newest table in it rather than nothing; b's own turn
    then finds it shown and sends nothing."""
    session = await a_session(store)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=2, wanted=3))
    telegram = Telegram()
    first = worker(store, telegram.bot("a"), "a", clock)
    booked, opens = slot_opens_later(first)
    drawn: list[tuple[int, str]] = []

    async def newest(session_id: int, purpose: str) -> tuple[Screen, int] | None:
        drawn.append((session_id, purpose))
        return screen("table v4"), 4

    first.draw_newest(newest)
    first.show(session, TABLE, GROUP, screen("table v3"), 3)
    await asyncio.wait_for(booked.wait(), 5)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=2, wanted=4))  # b's commit
    opens.set()
    await asyncio.wait_for(first.flush(), 5)
    assert telegram.arrived == [("a", "edit", GROUP, "table v4")]
    assert drawn == [(session, TABLE)]
    assert (await store.messages_of(session))[0].shown == 4
    second = worker(store, telegram.bot("b"), "b", clock)
    second.show(session, TABLE, GROUP, screen("table v4"), 4)
    await asyncio.wait_for(second.flush(), 5)
    assert len(telegram.arrived) == 1


async def test_a_turn_booked_for_a_screen_already_shown_sends_nothing(
    store: Store, clock: FakeClock
) -> None:
    """The newest is drawn only into a message still behind: one that another worker
    brought up to date while a waited costs no request."""
    session = await a_session(store)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=2, wanted=3))
    telegram = Telegram()
    first = worker(store, telegram.bot("a"), "a", clock)
    booked, opens = slot_opens_later(first)

    async def newest(session_id: int, purpose: str) -> tuple[Screen, int] | None:
        raise AssertionError("nothing is behind: nothing to draw")

    first.draw_newest(newest)
    first.show(session, TABLE, GROUP, screen("table v3"), 3)
    await asyncio.wait_for(booked.wait(), 5)
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=4, wanted=4))  # b drew it
    opens.set()
    await asyncio.wait_for(first.flush(), 5)
    assert telegram.arrived == []


async def test_a_turn_whose_screen_another_worker_drew_goes_to_the_next_request(
    store: Store, clock: FakeClock
) -> None:
    """Worker b waits for the group's next slot (3 s on) with the table and its player's
    hand, both of the move it committed. Worker a draws that table meanwhile (the
    newest, in a turn of its own): b's table needs nothing when the slot opens, so the
    hand goes in that slot, not in the next one 3 s later."""
    session = await a_session(store)
    telegram = Telegram()
    limiter = FloodLimiter(Limits(group=Pace(1, 3.0, margin=1.0), private=None, overall=None),
                           clock=clock)
    limiter.share(lambda key, interval, now: store.reserve_send(key, interval, now, "b"))
    late = Delivery(
        telegram.bot("b"), limiter, Messages(store), defer=0.0, shared=True, owner="b",
        lease=LEASE, clock=clock,
    )
    hand = ephemeral_purpose(0)
    await late.send_ephemeral(session, hand, GROUP, ANN, screen("hand v3"), 3)
    await limiter.wait_turn(GROUP, URGENT)  # a send takes the group's slot at 0 s
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=3, wanted=4))
    late.show(session, TABLE, GROUP, screen("table v4"), 4, urgent=True)
    late.show_ephemeral(session, hand, screen("hand v4"), 4)  # after the (urgent) table
    await asyncio.wait_for(both_wait(limiter), 5)  # for the slot at 3 s
    await store.set_message(session, MessageRef(TABLE, GROUP, 7, shown=4, wanted=4))  # a drew it
    await asyncio.wait_for(clock.advance(3.5), 5)
    await asyncio.wait_for(late.flush(), 5)  # the clock stands at 3.5 s: no later slot
    assert [(w, method, text) for w, method, _, text in telegram.arrived] == [
        ("b", "send", "hand v3"), ("b", "editEphemeralMessageText", "hand v4"),
    ]


async def both_wait(limiter: FloodLimiter) -> None:
    """Until two requests wait for the group's next slot."""
    while limiter.waiting(GROUP) < 2:
        await asyncio.sleep(0.001)


class Superseded:
    """Worker a waits for the group's turn with one message of a session whose other
    messages are stored as given; the test then commits as worker b (writes the stored
    rows) and opens the turn. a draws what the store says in it: the message's newest
    screen (``"<purpose> v<version>"``), or Ben's turn (``"Ben's turn v<version>"``)."""

    def __init__(self, store: Store, clock: FakeClock) -> None:
        self.store = store
        self.telegram = Telegram()
        self.first = worker(store, self.telegram.bot("a"), "a", clock)
        self.booked, self.opens = slot_opens_later(self.first)
        self.session = 0
        self.newest_drawn: list[str] = []

    async def stored(self, *refs: MessageRef) -> None:
        """The session (made on the first call) with these messages as stored."""
        if not self.session:
            self.session = await a_session(self.store)
        for ref in refs:
            await self.store.set_message(self.session, ref)

    async def waits(self, purpose: str, version: int) -> None:
        """a asks for the group's turn for ``purpose`` at ``version`` and waits for it;
        the session is at ``version + 1`` when it opens, with Ben to move."""

        async def newest(session_id: int, drawn: str) -> tuple[Screen, int] | None:
            self.newest_drawn.append(drawn)
            return screen(f"{drawn} v{version + 1}"), version + 1

        async def turn(session_id: int) -> tuple[str, Screen, int] | None:
            return BENS, screen(f"Ben's turn v{version + 1}"), version + 1

        self.first.draw_newest(newest, turn)
        if purpose == TABLE:
            self.first.show(self.session, TABLE, GROUP, screen(f"table v{version}"), version,
                            table=True)
        else:
            self.first.show_ephemeral(self.session, purpose, screen(f"{purpose} v{version}"),
                                      version, urgent=True)
        await asyncio.wait_for(self.booked.wait(), 5)

    async def opened(self) -> list[tuple[str, str, int, str]]:
        """Open a's turn: what arrived at Telegram."""
        self.opens.set()
        await asyncio.wait_for(self.first.flush(), 5)
        return self.telegram.arrived

    async def shown(self) -> dict[str, int]:
        """What each stored message shows."""
        return {ref.purpose: ref.shown for ref in await self.store.messages_of(self.session)}


def hand(purpose: str, user: int, shown: int, wanted: int) -> MessageRef:
    """An ephemeral hand in the group as stored."""
    return MessageRef(purpose, GROUP, 900 + user % 10, shown=shown, wanted=wanted, receiver=user)


async def test_a_turn_booked_for_a_hand_another_worker_drew_goes_to_the_next_turn(
    store: Store, clock: FakeClock
) -> None:
    """Worker a waits for the group's turn with Ann's ephemeral hand carrying her turn's
    buttons (version 3). Meanwhile worker b draws it in a turn of its own, and Ann
    plays through b (version 4: Ben's turn). When a's turn opens, Ann's hand has only
    the card she played to show, which may wait; Ben's buttons go in that turn instead,
    not in b's own turn a slot later."""
    race = Superseded(store, clock)
    await race.stored(hand(ANNS, ANN, 2, 3), hand(BENS, BEN, 2, 2))
    await race.waits(ANNS, 3)
    await race.stored(hand(ANNS, ANN, 3, 4), hand(BENS, BEN, 2, 4))  # b drew, then committed
    assert await race.opened() == [("a", "editEphemeralMessageText", GROUP, "Ben's turn v4")]
    assert await race.shown() == {ANNS: 3, BENS: 4}
    for purpose in (ANNS, BENS):  # a gave both leases back
        wall = clock.wall()
        assert await store.lease_message(race.session, purpose, GROUP, "c", wall, wall + 1)


async def test_a_turn_for_a_superseded_hand_draws_its_newest_if_the_turn_is_shown(
    store: Store, clock: FakeClock
) -> None:
    """As before, but b drew Ben's turn too: a's turn then draws the newest screen of
    the hand it was taken for (the turn is not drawn twice)."""
    race = Superseded(store, clock)
    await race.stored(hand(ANNS, ANN, 2, 3), hand(BENS, BEN, 4, 4))
    await race.waits(ANNS, 3)
    await race.stored(hand(ANNS, ANN, 3, 4))
    assert await race.opened() == [("a", "editEphemeralMessageText", GROUP, f"{ANNS} v4")]


async def test_a_turn_booked_for_a_superseded_table_draws_the_newest_table(
    store: Store, clock: FakeClock
) -> None:
    """A turn taken for the table draws the newest table even while the turn's hand is
    behind: in a busy group the hands take every other turn, and the table would go
    only when a worker's own turn for it comes."""
    race = Superseded(store, clock)
    await race.stored(MessageRef(TABLE, GROUP, 7, shown=2, wanted=3), hand(BENS, BEN, 2, 2))
    await race.waits(TABLE, 3)
    await race.stored(MessageRef(TABLE, GROUP, 7, shown=2, wanted=4), hand(BENS, BEN, 2, 4))
    assert await race.opened() == [("a", "edit", GROUP, "table v4")]


async def test_a_turn_booked_for_a_table_another_worker_drew_goes_to_the_turn(
    store: Store, clock: FakeClock
) -> None:
    """Worker a waits for the group's turn with the table's version 3; worker b commits
    version 4 (Ben's turn) and draws that table in a turn of its own, while Ben's hand
    waits for b's next one. a's turn, with no table to draw, draws Ben's buttons rather
    than go out empty."""
    race = Superseded(store, clock)
    await race.stored(MessageRef(TABLE, GROUP, 7, shown=2, wanted=3), hand(BENS, BEN, 2, 2))
    await race.waits(TABLE, 3)
    await race.stored(MessageRef(TABLE, GROUP, 7, shown=4, wanted=4), hand(BENS, BEN, 2, 4))
    assert await race.opened() == [("a", "editEphemeralMessageText", GROUP, "Ben's turn v4")]
    assert await race.shown() == {TABLE: 4, BENS: 4}
    assert race.newest_drawn == []  # the table shows the newest: nothing of it drawn

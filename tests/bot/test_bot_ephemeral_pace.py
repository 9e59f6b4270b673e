"""A turn's buttons reach a player's ephemeral hand first, the table's edit one slot later.

Alice and Bob play Eleven in a group from their "🃏 My hand" messages (ephemeral:
each sees only her own), with the group's flood limit on, so every screen of a move
waits for one of the group's slots. After Alice's move the group needs the table,
Bob's hand with his turn's buttons and Alice's hand without the card she played:
Bob's goes first, the table right after it (it shows the move one slot later), and
Alice's waits (it may go with her next turn).

The fake Bot API enforces a limit on a compressed clock and the bot paces itself
to the same clock, with room to spare (a send a busy machine makes late is no 429);
what is asserted is the order in which the edits reach the fake.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.delivery import MAX_SLOTS, Delivery
from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.present import Presenter
from sessions import TABLE, Messages, Preferences, Session, SessionManager, ephemeral_purpose
from storage import MessageRef
from tests.support.fake_clock import FakeClock
from tests.support.fake_telegram import Call, FakeTelegram, FakeUser
from tests.support.flood import paced, refused
from tests.support.harness import start_harness
from tests.support.helpers_sessions import FirstLegal, db_url, duel
from tests.support.tables import ephemeral_hand, moves

SCALE = 30.0  # the fake's clock runs this many times faster than Telegram's
GROUP = Pace(20, 60.0)  # a group's pace on the fake clock (Telegram's)


def ephemeral_edit_for(call: Call, user: FakeUser) -> bool:
    """True if ``call`` edited ``user``'s ephemeral hand."""
    return (call.ok and call.method.startswith("editEphemeral")
            and int(call.params.get("receiver_user_id", 0)) == user.id)


async def test_the_turns_ephemeral_hand_goes_before_the_table(db_dir: Path) -> None:
    flood, limits = paced(SCALE, group_per_minute=6)  # the fake refuses beyond 9
    fake = FakeTelegram(flood=flood)
    await fake.start()
    harness = await start_harness(fake, db_dir / "pace.sqlite3", FirstLegal(), limits)
    try:
        alice, bob = fake.user("Alice"), fake.user("Bob")
        group, table = await harness.open_lobby("eleven", [alice, bob], "Pace")
        await harness.press(bob, table, "join:1")
        await harness.press(alice, table, "start:1")
        for user in (alice, bob):
            await harness.press(user, table, "hand:1")
        manager, checked = harness.kol.manager, 0
        for _ in range(12):  # whoever is to move plays from her ephemeral hand
            session = await manager.get(1)
            assert session.to_move is not None
            mover = fake.users[session.seats[session.to_move].user_id or 0]
            other = bob if mover is alice else alice
            before = len(fake.calls)
            await harness.press(mover, table, moves(ephemeral_hand(fake, group.id, mover))[0])
            session = await manager.get(1)
            if session.status != "running" or session.seats[session.to_move or 0].user_id \
                    != other.id:
                continue  # the mover leads again: no turn passes to the other
            calls = [c for c in fake.calls[before:] if c.ok and c.chat_id == group.id
                     and c.method != "answerCallbackQuery"]
            table_at = next(i for i, c in enumerate(calls) if c.method == "editMessageText")
            turn_at = next(i for i, c in enumerate(calls) if ephemeral_edit_for(c, other))
            assert table_at == turn_at + 1, [c.method for c in calls]
            assert moves(ephemeral_hand(fake, group.id, other)), "the turn has no buttons"
            mine = [i for i, c in enumerate(calls) if ephemeral_edit_for(c, mover)]
            assert all(i > table_at for i in mine), [c.method for c in calls]
            checked += 1
        assert checked >= 3
        assert refused(fake) == []
    finally:
        await harness.stop()
        await fake.stop()


class _Group:
    """Stands in for PTB's Bot: records each edit that reaches the group, in order, as
    (method, the ephemeral message's receiver or None for the table)."""

    def __init__(self) -> None:
        self.edits: list[tuple[str, int | None]] = []

    async def edit_message_text(self, **_: Any) -> bool:
        self.edits.append(("editMessageText", None))
        return True

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any], **_: Any) -> bool:
        self.edits.append((method, api_kwargs["receiver_user_id"]))
        return True


class SlowReads(Messages):
    """The message store over a slow link: each read of a stored message takes 20 ms."""

    async def stored(self, session_id: int, purpose: str) -> MessageRef | None:
        """The stored message of ``purpose``, read slowly (real time, not the clock's)."""
        await asyncio.sleep(0.02)
        return await super().stored(session_id, purpose)


@dataclass
class Group:
    """A two-player Eleven in group -100 (users 1 and 2) and the worker that draws it: the
    group's pace on a fake clock, the edits that reach the group recorded in order."""

    manager: SessionManager
    messages: Messages
    session: Session
    shared: bool  # one of several workers (PostgreSQL)
    clock: FakeClock = field(default_factory=FakeClock)
    bot: _Group = field(default_factory=_Group)
    delivery: Delivery | None = None

    def started(self, max_slots: int = MAX_SLOTS) -> Presenter:
        """This worker's delivery, nothing in memory yet (a restart), and its presenter;
        with several workers (PostgreSQL) each message is delivered under its lease and
        the group's budget is booked in the store."""
        shared = self.shared
        limiter = FloodLimiter(Limits(group=GROUP, private=None, overall=None),
                               clock=self.clock)
        if shared:
            limiter.share(self.manager.reserve_send)
        self.delivery = Delivery(
            self.bot, limiter, self.messages, defer=0.0, clock=self.clock,  # type: ignore[arg-type]
            shared=shared, owner=self.manager.worker_id, max_slots=max_slots,
        )
        return Presenter(self.delivery, Preferences(self.manager.store), "koloda_bot")

    async def hands_shown(self, presenter: Presenter, *, stored: bool) -> None:
        """Both players pressed 🃏 My hand: their ephemeral hands are kept current (and
        ``stored``, as every worker's are)."""
        assert self.delivery is not None
        session = self.session
        for seat, player in enumerate(session.seats):
            assert player.user_id is not None
            purpose, hand = ephemeral_purpose(seat), presenter.hand_screen(session, seat, "en",
                                                                          False)
            self.delivery.track_ephemeral(session.id, purpose, -100, player.user_id, 60 + seat,
                                          hand, session.version)
            if stored:
                await self.messages.posted(session.id, purpose, -100, 60 + seat,
                                           session.version, receiver=player.user_id)

    async def dealt(self, presenter: Presenter) -> None:
        """The deal shown on the table; nothing of it recorded."""
        assert self.delivery is not None
        self.delivery.show(self.session.id, TABLE, -100,
                           presenter.table_screen(self.session, "en"), self.session.version,
                           table=True)
        await self.clock.run(self.delivery.flush())
        del self.bot.edits[:]

    async def lead(self, presenter: Presenter) -> tuple[int, int]:
        """The player to move thinks a minute (the group's budget is all there again),
        then leads and the turn passes: (her user id, the other's)."""
        await self.clock.advance(60.0)
        session = self.session
        mover = session.to_move
        assert mover is not None and session.game is not None
        mover_id, other_id = session.seats[mover].user_id, session.seats[1 - mover].user_id
        assert mover_id is not None and other_id is not None
        lead = session.game.legal_actions(mover)[0]
        outcome = await self.manager.act(session.id, mover_id, session.version, lead)
        assert outcome.session.to_move == 1 - mover  # the turn passes to him
        await presenter.on_outcome(outcome)
        return mover_id, other_id

    async def arrived(self, count: int) -> list[tuple[str, int | None]]:
        """The first ``count`` edits to reach the group, waited for in real time (the
        store's reads take real time; the clock stands meanwhile)."""
        while len(self.bot.edits) < count:
            await asyncio.sleep(0.001)
        return self.bot.edits[:count]


@asynccontextmanager
async def a_group(database: str, messages: type[Messages] = Messages) -> AsyncIterator[Group]:
    """A group's duel on ``database`` (PostgreSQL: one of several workers), whose players
    play in the group only (no private chat with the bot)."""
    shared = database.startswith("postgres")
    manager = await SessionManager.open(database, FirstLegal(), shared=shared)
    group: Group | None = None
    try:
        prefs = Preferences(manager.store)
        for user in (1, 2):
            await prefs.set_reachable(user, False)
        session = await duel(manager, chat_id=-100, users=(1, 2))
        stored = messages(manager.store)
        await stored.posted(session.id, TABLE, -100, 50, session.version)
        group = Group(manager, stored, session, shared)
        yield group
    finally:
        if group is not None and group.delivery is not None:
            await group.delivery.close()
        await manager.close()


async def test_a_move_made_when_the_groups_slot_is_free_sends_the_turns_hand_first(
    db_dir: Path,
) -> None:
    """The mover thought longer than the group's interval, so its next slot is free when
    her move comes: the first screen to ask takes it. That is the other player's
    ephemeral hand with his turn's buttons; the table follows a slot later, and the
    mover's own hand (the card she played gone) after it."""
    async with a_group(db_url(db_dir / "free.sqlite3")) as group:
        presenter = group.started()
        await group.hands_shown(presenter, stored=False)
        await group.dealt(presenter)
        mover_id, other_id = await group.lead(presenter)
        assert group.delivery is not None
        await group.clock.run(group.delivery.flush())
        assert group.bot.edits == [
            ("editEphemeralMessageText", other_id),
            ("editMessageText", None),
            ("editEphemeralMessageText", mover_id),
        ]


@pytest.fixture(params=["one worker", "several workers"])
def database(request: pytest.FixtureRequest, db_dir: Path) -> str:
    """One worker on SQLite, or one of several on PostgreSQL."""
    if request.param == "one worker":
        return db_url(db_dir / "kept.sqlite3")
    url: str = request.getfixturevalue("pg_database")
    return url


@pytest.mark.parametrize("forgotten", ["evicted", "restarted"])
async def test_the_turns_hand_goes_first_also_when_its_message_is_read_from_the_store(
    database: str, forgotten: str
) -> None:
    """As above, but the hands' slots are not in memory when the move comes: forgotten
    as idle slots are (the table shown since is kept), or never held (the bot restarted
    after the hands were sent; it drew the table since). The hand of the player to move
    is read from the store before it can be edited, the table is not (or, with several
    workers, once less) — still her buttons take the group's free slot, and the table
    follows a slot later."""
    async with a_group(database, SlowReads) as group:
        presenter = group.started(max_slots=1 if forgotten == "evicted" else MAX_SLOTS)
        await group.hands_shown(presenter, stored=True)
        if forgotten == "restarted":
            assert group.delivery is not None
            await group.delivery.close()
            presenter = group.started()
        await group.dealt(presenter)
        assert group.delivery is not None
        for seat in range(2):
            assert group.delivery.message_id(group.session.id, ephemeral_purpose(seat)) is None
        mover_id, other_id = await group.lead(presenter)
        # the group's slot is free: the first edit goes while the clock stands
        first = await asyncio.wait_for(group.arrived(1), 5)
        assert first == [("editEphemeralMessageText", other_id)], group.bot.edits
        for count in (2, 3):  # then one in each of the group's next slots
            await group.clock.advance(GROUP.interval + 0.1)
            await asyncio.wait_for(group.arrived(count), 5)
        await group.clock.run(group.delivery.flush())
        assert group.bot.edits == [
            ("editEphemeralMessageText", other_id),
            ("editMessageText", None),
            ("editEphemeralMessageText", mover_id),
        ]


async def test_a_hand_looked_for_and_not_found_holds_the_table_up_no_slot(
    database: str,
) -> None:
    """Nobody opened 🃏 My hand (none is stored) and the bot restarted: after the move the
    turn's hand asks for the group's free slot before its message is looked for, finds
    none and gives the slot up — the table takes it at once, not an interval later."""
    async with a_group(database, SlowReads) as group:
        presenter = group.started()
        await group.dealt(presenter)
        await group.lead(presenter)
        assert await asyncio.wait_for(group.arrived(1), 5) == [("editMessageText", None)]
        assert group.delivery is not None
        await group.clock.run(group.delivery.flush())
        assert group.bot.edits == [("editMessageText", None)]

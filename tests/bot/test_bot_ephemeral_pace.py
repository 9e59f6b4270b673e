"""A turn's buttons reach a player's ephemeral hand first, the table's edit one slot later.

Alice and Bob play Eleven in a group from their "🃏 My hand" messages (ephemeral:
each sees only her own), with the group's flood limit on, so every screen of a move
waits for one of the group's slots. After Alice's move the group needs the table,
Bob's hand with his turn's buttons and Alice's hand without the card she played:
Bob's goes first, the table right after it (it shows the move one slot later), and
Alice's waits (it may go with her next turn).

The fake Bot API enforces the limit on a compressed clock and the bot paces itself
to the same clock; what is asserted is the order in which the edits reach the fake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.delivery import Delivery
from bot.limiter import FloodLimiter, Limits, Pace
from bot.present import Presenter
from sessions import TABLE, Messages, Preferences, ephemeral_purpose
from tests.support.fake_clock import FakeClock
from tests.support.fake_telegram import Call, FakeTelegram, FakeUser, FloodLimits
from tests.support.harness import start_harness
from tests.support.helpers_sessions import FirstLegal, duel, open_manager
from tests.support.tables import ephemeral_hand, moves

SCALE = 30.0  # the fake's clock runs this many times faster than Telegram's


def ephemeral_edit_for(call: Call, user: FakeUser) -> bool:
    """True if ``call`` edited ``user``'s ephemeral hand."""
    return (call.ok and call.method.startswith("editEphemeral")
            and int(call.params.get("receiver_user_id", 0)) == user.id)


async def test_the_turns_ephemeral_hand_goes_before_the_table(db_dir: Path) -> None:
    flood = FloodLimits(group_per_minute=6, private_per_second=1, scale=SCALE)
    limits = Limits(group=Pace(6, 60.0 / SCALE), private=Pace(1, 1.0 / SCALE), overall=None)
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


async def test_a_move_made_when_the_groups_slot_is_free_sends_the_turns_hand_first(
    db_dir: Path,
) -> None:
    """The mover thought longer than the group's interval, so its next slot is free when
    her move comes: the first screen to ask takes it. That is the other player's
    ephemeral hand with his turn's buttons; the table follows a slot later, and the
    mover's own hand (the card she played gone) after it."""
    clock = FakeClock()
    manager = await open_manager(db_dir / "free.sqlite3", FirstLegal())
    try:
        group = _Group()
        limiter = FloodLimiter(Limits(group=Pace(20, 60.0), private=None, overall=None),
                               clock=clock)
        messages = Messages(manager.store)
        delivery = Delivery(group, limiter, messages, defer=0.0, clock=clock)  # type: ignore[arg-type]
        presenter = Presenter(delivery, Preferences(manager.store), "koloda_bot")
        session = await duel(manager, chat_id=-100, users=(1, 2))
        await messages.posted(session.id, TABLE, -100, 50, session.version)
        for seat, player in enumerate(session.seats):  # both pressed 🃏 My hand
            assert player.user_id is not None
            delivery.track_ephemeral(
                session.id, ephemeral_purpose(seat), -100, player.user_id, 60 + seat,
                presenter.hand_screen(session, seat, "en", False), session.version,
            )
        delivery.show(session.id, TABLE, -100, presenter.table_screen(session, "en"),
                      session.version, table=True)  # the deal, on the table
        await clock.run(delivery.flush())
        del group.edits[:]
        await clock.advance(60.0)  # she thinks: the group's budget is all there again
        mover = session.to_move
        assert mover is not None and session.game is not None
        mover_id, other_id = session.seats[mover].user_id, session.seats[1 - mover].user_id
        assert mover_id is not None
        lead = session.game.legal_actions(mover)[0]
        outcome = await manager.act(session.id, mover_id, session.version, lead)
        assert outcome.session.to_move == 1 - mover  # the turn passes to him
        await presenter.on_outcome(outcome)
        await clock.run(delivery.flush())
        assert group.edits == [
            ("editEphemeralMessageText", other_id),
            ("editMessageText", None),
            ("editEphemeralMessageText", mover_id),
        ]
    finally:
        await manager.close()

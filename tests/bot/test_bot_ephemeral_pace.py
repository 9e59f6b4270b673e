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

from bot.limiter import Limits, Pace
from tests.support.fake_telegram import Call, FakeTelegram, FakeUser, FloodLimits
from tests.support.harness import start_harness
from tests.support.helpers_sessions import FirstLegal
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

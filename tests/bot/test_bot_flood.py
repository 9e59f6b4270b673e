"""Flood limits: a busy group gets few, coalesced edits and never a 429.

The bot paces itself to 6 sends a (compressed) minute in a group; the fake Bot API
refuses only beyond 9 (:mod:`tests.support.flood`), so a send a busy machine makes
late is no 429, while a bot that does not pace the group, or paces it at 12, is refused.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram
from tests.support.flood import paced, refused
from tests.support.harness import start_harness

SCALE = 30.0  # two real seconds are one Telegram minute


async def test_busy_group_stays_under_the_flood_limit(db_dir: Path) -> None:
    flood, limits = paced(SCALE, group_per_minute=6)
    fake = FakeTelegram(flood=flood)
    await fake.start()
    harness = await start_harness(fake, db_dir / "flood.sqlite3", RandomComputer(), limits)
    try:
        alice = fake.user("Alice")
        group = fake.group("Busy")
        await harness.command(alice, fake.private(alice).id, "/start")
        await harness.command(alice, group.id, "/new oh_hell")
        table = fake.last_message(group.id)
        assert table is not None
        for _ in range(4):
            await harness.press(alice, table, "comps:1")
            await harness.press(alice, table, "comp:1:easy")
        started = len(fake.calls)
        await harness.press(alice, table, "start:1")
        for _ in range(8):
            session = await harness.kol.manager.get(1)
            if session.status != "running":
                break
            hand = fake.last_message(alice.id, containing="🃏")
            assert hand is not None
            moves = [
                b["callback_data"]
                for b in hand.buttons()
                if b.get("callback_data", "").startswith("1:")
            ]
            await harness.press(alice, hand, moves[0])
        session = await harness.kol.manager.get(1)
        group_calls = [
            c
            for c in fake.calls
            if c.chat_id == group.id and c.method in ("sendMessage", "editMessageText")
        ]
        assert all(c.ok for c in group_calls), [c.error for c in group_calls if not c.ok]
        assert refused(fake) == []
        # every move re-renders the table, but only the newest render is sent
        edits_in_play = [c for c in fake.calls[started:] if c in group_calls]
        assert len(edits_in_play) < session.moves, (session.moves, len(edits_in_play))
        # and the table shows the final state
        lang = await harness.kol.presenter.chat_language(group.id)
        assert table.text == harness.kol.presenter.table_screen(session, lang).text
    finally:
        await harness.stop()
        await fake.stop()


async def test_command_replies_and_table_edits_share_one_budget(db_dir: Path) -> None:
    """A group flooded with /score (by eight members) while its game moves: the replies
    (sendMessage) and the table's edits come out of one budget — no 429 from a fake
    that counts every call the bot makes to that group (on two budgets of 6 a minute
    the bot would send up to 12)."""
    flood, limits = paced(SCALE, group_per_minute=6)
    fake = FakeTelegram(flood=flood)
    await fake.start()
    harness = await start_harness(fake, db_dir / "shared.sqlite3", RandomComputer(), limits)
    try:
        alice = fake.user("Alice")
        group = fake.group("Busy")
        await harness.command(alice, fake.private(alice).id, "/start")
        await harness.command(alice, group.id, "/new eleven")
        table = fake.last_message(group.id)
        assert table is not None
        await harness.kol.manager.add_computer(1, alice.id, "easy")
        await harness.press(alice, table, "start:1")
        first = len(fake.calls)
        fans = [fake.user(f"Fan{n}") for n in range(8)]  # one user's repeats get one answer
        for fan in fans:  # a burst of commands and moves in the same moments
            fake.push_command(fan, group, "/score")
            session = await harness.kol.manager.get(1)
            hand = fake.last_message(alice.id, containing="🃏")
            if session.status == "running" and session.to_move == 0 and hand is not None:
                moves = [
                    b["callback_data"]
                    for b in hand.buttons()
                    if b.get("callback_data", "").startswith("1:")
                ]
                if moves:
                    chat = fake.private(alice)
                    fake.push_callback(alice, chat, hand.message_id, moves[0])
            await harness.settle()
        to_group = [c for c in fake.calls[first:] if c.chat_id == group.id]
        replies = [c for c in to_group if c.method == "sendMessage"]
        edits = [c for c in to_group if c.method == "editMessageText"]
        assert len(replies) == 8 and edits, (len(replies), len(edits))  # both kinds came
        assert all(c.ok for c in to_group), [c.error for c in to_group if not c.ok]
        assert refused(fake) == []
    finally:
        await harness.stop()
        await fake.stop()

"""Ephemeral hands are stored like other messages: a restarted worker keeps them current.

Alice opens her "🃏 My hand" in the group (an ephemeral message only she sees);
the bot is stopped and started again on the same database; when her turn comes
again, her ephemeral hand shows the new turn's buttons — edited by a process
that never sent it. And a turn committed by a worker that died before its
ephemeral edit went out (the private hands it did deliver) is drawn into the
ephemeral hand by the next start: the store knows the ephemeral hand is behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessions import Messages, ephemeral_purpose, hand_purpose
from sessions.manager import SessionManager
from tests.support.buttons import version_of
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness, start_harness
from tests.support.tables import ephemeral_hand, moves


class FirstLegal:
    """The computer players (none sit here): the first legal action."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        return str(view["legal"][0])


async def play_until_turn_of(harness: Harness, session_id: int, user: FakeUser,
                             after: int) -> int:
    """Whoever is to move plays their first move (from the private hand) until it is
    ``user``'s turn at a version newer than ``after``; that version."""
    fake, manager = harness.fake, harness.kol.manager
    for _ in range(20):
        session = await manager.get(session_id)
        seat = session.to_move
        assert seat is not None
        mover = session.seats[seat].user_id
        if mover == user.id and session.version > after:
            return session.version
        hand = fake.last_message(mover or 0, containing="🃏")
        assert hand is not None
        await harness.press(fake.users[mover or 0], hand, moves(hand)[0])
    raise AssertionError("the turn never came back")


async def alice_to_move(harness: Harness, alice: FakeUser, bob: FakeUser,
                        group: FakeChat) -> tuple[StoredMessage, int]:
    """Alice and Bob start an Eleven match in ``group``, played until Alice's turn: the
    table and that turn's version."""
    fake = harness.fake
    for user in (alice, bob):
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(alice, group.id, "/new eleven")
    table = fake.last_message(group.id)
    assert table is not None
    await harness.press(bob, table, "join:1")
    await harness.press(alice, table, "start:1")
    return table, await play_until_turn_of(harness, 1, alice, 0)


async def test_a_restarted_bot_keeps_an_ephemeral_hand_current(
    fake: FakeTelegram, db_dir: Path
) -> None:
    path = db_dir / "koloda.sqlite3"
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("Friends")
    harness = await start_harness(fake, path, FirstLegal())
    try:
        table, version = await alice_to_move(harness, alice, bob, group)
        await harness.press(alice, table, "hand:1")
        shown = ephemeral_hand(fake, group.id, alice)
        assert moves(shown) and all(version_of(b) == version
                                    for b in moves(shown))
    finally:
        await harness.stop()

    harness = await start_harness(fake, path, FirstLegal())  # the restarted worker
    try:
        now = await play_until_turn_of(harness, 1, alice, version)
        await harness.settle()
        hand = ephemeral_hand(fake, group.id, alice)
        assert hand is shown  # the same message, edited: not a new one
        assert moves(hand), hand.text
        assert all(version_of(b) == now for b in moves(hand))
    finally:
        await harness.stop()


async def test_a_turn_whose_ephemeral_edit_died_with_its_worker_is_drawn_at_start(
    fake: FakeTelegram, db_dir: Path
) -> None:
    path = db_dir / "koloda.sqlite3"
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("Friends")
    harness = await start_harness(fake, path, FirstLegal())
    try:
        table, version = await alice_to_move(harness, alice, bob, group)
        for user in (alice, bob):
            await harness.press(user, table, "hand:1")
        shown = {user.id: ephemeral_hand(fake, group.id, user) for user in (alice, bob)}
    finally:
        await harness.stop()

    # a worker commits Alice's move, draws the table and the private hands, and dies
    # before the group's budget lets its ephemeral edits out
    manager = await SessionManager.open(f"sqlite:///{path}", FirstLegal())
    try:
        hand = fake.last_message(alice.id, containing="🃏")
        assert hand is not None
        _, _, action = moves(hand)[0].partition(f"1:{version}:")
        outcome = await manager.act(1, alice.id, version, action)
        now = outcome.session.version
        messages = Messages(manager.store)
        for ref in await messages.of(1):
            if not ref.purpose.startswith("eph:"):
                await messages.shown(1, ref.purpose, now)
        seat = outcome.session.to_move  # Bob, or Alice again if she took a trick
        assert seat is not None and hand_purpose(seat) in outcome.session.changed
        mover = outcome.session.seats[seat].user_id
        assert mover is not None
    finally:
        await manager.close()

    harness = await start_harness(fake, path, FirstLegal())  # the next worker to start
    try:
        await harness.settle()
        hand = ephemeral_hand(fake, group.id, fake.users[mover])
        assert hand is shown[mover], ephemeral_purpose(seat)
        assert moves(hand) and all(
            version_of(b) == now for b in moves(hand)
        ), hand.text
    finally:
        await harness.stop()

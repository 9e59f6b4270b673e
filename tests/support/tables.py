"""Helpers for tables played through the harness: open one, find the mover, press.

A group table (``open_table``), whose move buttons carry ``session:version:action``;
a duel played out to the end (``play_out``); the labels and data of buttons.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.support.buttons import MOVE
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness


@dataclass
class Table:
    """A running two-player group table."""

    alice: FakeUser
    bob: FakeUser
    group: FakeChat
    message: StoredMessage
    session_id: int


async def open_table(
    harness: Harness, game: str = "eleven", started: bool = True, title: str = "Friends"
) -> Table:
    """Alice opens ``game`` in a new group, Bob joins (both have started the bot)."""
    fake = harness.fake
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group(title, admins=(alice,))
    for user in (alice, bob):
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(alice, group.id, f"/new {game}")
    message = fake.last_message(group.id)
    assert message is not None
    session = await harness.kol.manager.open_in_chat(group.id)
    assert session is not None
    await harness.press(bob, message, f"join:{session.id}")
    if started:
        await harness.press(alice, message, f"start:{session.id}")
    await harness.settle()
    return Table(alice, bob, group, message, session.id)


async def mover(harness: Harness, table: Table) -> tuple[FakeUser, FakeUser, int]:
    """(player to move, the other player, current version)."""
    session = await harness.kol.manager.get(table.session_id)
    seat = session.to_move
    assert seat is not None
    first = table.alice if session.seats[seat].user_id == table.alice.id else table.bob
    other = table.bob if first is table.alice else table.alice
    return first, other, session.version


async def finish_first_deal(
    harness: Harness, table: Table, choose: Callable[[list[str]], str], moves: int = 5000
) -> None:
    """The player to move makes the move ``choose`` picks of their legal ones, as their
    press would (drawn), until the table's first deal is over."""
    manager = harness.kol.manager
    for _ in range(moves):
        session = await manager.get(table.session_id)
        if session.game is not None and session.game.deal_no >= 1:
            return
        player, _, version = await mover(harness, table)
        seat = session.seat_of(player.id)
        assert seat is not None
        action = choose(session.view(seat)["legal"])
        await harness.kol.presenter.on_outcome(
            await manager.act(session.id, player.id, version, action))
        await harness.settle()
    raise AssertionError(f"the first deal did not end in {moves} moves")


def move_data(message: StoredMessage) -> list[str]:
    """Callback data of every move button on a message."""
    return [
        b["callback_data"] for b in message.buttons() if MOVE.match(b.get("callback_data") or "")
    ]


async def pop_up(
    harness: Harness, user: FakeUser, chat: FakeChat, message_id: int | None, data: str
) -> str:
    """Press (possibly forged) data and return the pop-up text."""
    query = harness.fake.push_callback(user, chat, message_id, data)
    answer = await harness.fake.answer(query)
    await harness.settle()
    return str(answer.params.get("text") or "")


async def duel_with_computer(
    harness: Harness, user: FakeUser, game: str, option: str
) -> StoredMessage:
    """``user`` opens ``game`` in her private chat as the bot's first table (session
    1), sets ``option`` (``name:value``) and deals against the easy computer; the
    lobby message."""
    fake = harness.fake
    await harness.command(user, fake.private(user).id, f"/new {game}")
    lobby = fake.last_message(user.id)
    assert lobby is not None
    await pop_up(harness, user, fake.private(user), lobby.message_id, f"opt:1:{option}")
    await harness.press(user, lobby, "back:1")
    await harness.press(user, lobby, "vs:1")
    await harness.press(user, lobby, "comp:1:easy")
    await harness.settle()
    return lobby


async def forged_everywhere(
    harness: Harness, user: FakeUser, group: FakeChat, data: list[str]
) -> list[str]:
    """``user`` presses each of ``data`` (forged) on a message in her private chat, on
    one in ``group`` (the bot's answer to her /help there) and on an ephemeral message
    (no chat); the pop-ups."""
    fake = harness.fake
    await harness.command(user, group.id, "/help")
    places = [(fake.private(user), fake.last_message(user.id)),
              (group, fake.last_message(group.id)), (group, None)]
    texts = []
    for chat, message in places:
        for forged in data:
            texts.append(await pop_up(
                harness, user, chat, message.message_id if message else None, forged))
    return texts


async def finish_fifteen(harness: Harness, table: Table) -> None:
    """Play a one-deal Fifteen table to the end."""
    for _ in range(60):
        session = await harness.kol.manager.get(table.session_id)
        if session.status != "running":
            return
        first, _, _ = await mover(harness, table)
        hand = harness.fake.last_message(first.id, containing="🃏")
        assert hand is not None
        data = move_data(hand)
        stand = [d for d in data if d.endswith(":stand")]
        await harness.press(first, hand, (stand or data)[0])
        await harness.settle()
    raise AssertionError("Fifteen did not end")


def moves(message: StoredMessage) -> list[str]:
    """Callback data of the move buttons."""
    return [
        b["callback_data"] for b in message.buttons() if MOVE.match(b.get("callback_data") or "")
    ]


def ephemeral_hand(fake: FakeTelegram, chat_id: int, user: FakeUser) -> StoredMessage:
    """The newest ephemeral message ``user`` sees in the group ``chat_id``."""
    mine = [m for m in fake.chat_messages(chat_id, ephemeral=True) if m.ephemeral_for == user.id]
    assert mine, "no ephemeral hand"
    return mine[-1]


async def play_out(harness: Harness, session_id: int, users: dict[int, FakeUser]) -> None:
    """Press the first legal button of whoever is to move until the match ends."""
    for _ in range(2000):
        session = await harness.kol.manager.get(session_id)
        if session.status != "running":
            return
        seat = session.to_move
        assert seat is not None
        user = users[session.seats[seat].user_id or 0]
        hand = harness.fake.last_message(user.id, containing="🃏")
        assert hand is not None
        await harness.press(user, hand, moves(hand)[0])
        await harness.settle()
    raise AssertionError("the match did not end")


def labels(message: StoredMessage) -> list[str]:
    """The labels of every button on a message."""
    return [b["text"] for b in message.buttons()]


def move_actions(message: StoredMessage) -> list[str]:
    """The actions of the move buttons on a message."""
    found = []
    for button in message.buttons():
        match = MOVE.match(button.get("callback_data") or "")
        if match:
            found.append(match[3])
    return found


def button_for(message: StoredMessage, action: str) -> str:
    """The callback data of the move button for ``action``."""
    for button in message.buttons():
        match = MOVE.match(button.get("callback_data") or "")
        if match and match[3] == action:
            return match[0]
    raise AssertionError(f"no button for {action} in {message.buttons()}")

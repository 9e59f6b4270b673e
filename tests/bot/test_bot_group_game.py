"""A group King table: 2 humans + 2 computers, played to the end through the fake Bot API."""

from __future__ import annotations

from tests.support.buttons import MOVE, version_of
from tests.support.fake_telegram import FakeUser, StoredMessage
from tests.support.harness import Harness


def move_buttons(message: StoredMessage) -> list[str]:
    """The callback data of every move button on a message."""
    return [
        b["callback_data"] for b in message.buttons() if MOVE.match(b.get("callback_data") or "")
    ]


def private_hand(harness: Harness, user: FakeUser) -> StoredMessage:
    """The user's current hand message in their private chat."""
    message = harness.fake.last_message(user.id, containing="🃏")
    assert message is not None, f"no hand message for {user.first_name}"
    return message


async def test_king_two_humans_two_computers_to_the_end(harness: Harness) -> None:
    fake = harness.fake
    alice, bob = fake.user("Alice"), fake.user("Bob <b>")
    group = fake.group("Friends")
    await harness.command(alice, fake.private(alice).id, "/start")
    await harness.command(alice, group.id, "/new king")
    lobby = fake.last_message(group.id)
    assert lobby is not None and "King" in lobby.text

    # Bob never opened a private chat: Join answers with a deep link, not an error.
    answer = await harness.press(bob, lobby, "join:1")
    link = await harness.hand_link(1)
    assert answer.params.get("url") == link
    await harness.command(bob, fake.private(bob).id, "/start " + link.split("start=")[1])
    await harness.settle()
    assert "Bob &lt;b&gt;" in lobby.text  # names are escaped
    welcome = fake.last_message(bob.id)
    assert welcome is not None and "Your hand will appear here" in welcome.text

    for _ in range(2):
        await harness.press(alice, lobby, "comps:1")
        await harness.settle()
        await harness.press(alice, lobby, "comp:1:easy")
        await harness.settle()
    assert lobby.text.count("Computer") == 2
    # a shorter programme for the test: the lottery instead of four trump deals
    await harness.press(alice, lobby, "sets:1")
    await harness.settle()
    # the settings menu is a message only Alice sees; the lobby stays for everyone
    (menu,) = fake.chat_messages(group.id, ephemeral=True)
    assert menu.ephemeral_for == alice.id and "Settings of King" in menu.text
    assert "Settings of King" not in lobby.text
    answer = await fake.answer(fake.push_callback(bob, group, 0, "opt:1:positive:lottery"))
    assert answer.params["text"] == "Only the creator of the table can do that."
    await harness.press(alice, menu, "opt:1:positive:lottery")
    await harness.settle()
    assert "Positive part: <b>lottery</b>" in lobby.text
    assert "Positive part: lottery" in str(menu.buttons())
    await harness.press(alice, lobby, "back:1")
    await harness.settle()
    await harness.press(alice, lobby, "start:1")
    await harness.settle()
    assert "deal 1" in lobby.text  # the lobby message became the table message

    users = {alice.id: alice, bob.id: bob}
    presses = 0
    seen_last_deal = False
    while True:
        session = await harness.kol.manager.get(1)
        if session.status != "running":
            break
        seat = session.to_move
        assert seat is not None
        player = session.seats[seat]
        assert player.user_id in users
        hand = private_hand(harness, users[player.user_id])
        buttons = move_buttons(hand)
        assert buttons, hand.text
        assert all(version_of(b) == session.version for b in buttons)
        answer = await harness.press(users[player.user_id], hand, buttons[0])
        assert answer.params.get("text") in (None, ""), answer.params
        await harness.settle()
        presses += 1
        seen_last_deal = seen_last_deal or "Last deal: Alice" in lobby.text
    assert session.status == "finished"
    assert presses > 50
    assert seen_last_deal  # every deal's points are shown during the next one
    group_messages = fake.chat_messages(group.id)
    assert len(group_messages) == 1, [m.text[:40] for m in group_messages]
    assert "game over" in lobby.text and "🏆" in lobby.text
    assert any(b.get("callback_data") == "again:1" for b in lobby.buttons())
    assert harness.kol.delivery.slots == 0  # nothing of a finished match is kept in memory
    # the tally counts the match for both humans
    rows = await harness.kol.manager.chat_tally(group.id, "king")
    assert {r.user_id for r in rows} >= {alice.id, bob.id}

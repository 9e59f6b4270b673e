"""Private duels: an invite link to a friend, or a game against the computer."""

from __future__ import annotations

import re

from tests.support.harness import Harness
from tests.support.tables import play_out


async def test_duel_by_invite_link(harness: Harness) -> None:
    fake = harness.fake
    anna, boris = fake.user("Anna", "ru"), fake.user("Boris")
    anna_chat = fake.private(anna)
    await harness.command(anna, anna_chat.id, "/new eleven")
    lobby = fake.last_message(anna.id)
    assert lobby is not None and "Одиннадцать" in lobby.text  # Anna's Telegram speaks Russian
    await harness.press(anna, lobby, "invite:1")
    await harness.settle()
    invite = fake.last_message(anna.id, containing="t.me/")
    assert invite is not None
    link = re.search(r"https://t\.me/\S+\?start=(i[\w-]+)", invite.text)
    assert link is not None
    payload = link.group(1)

    # Anna cannot accept her own invitation
    await harness.command(anna, anna_chat.id, f"/start {payload}")
    assert "это ваше собственное приглашение" in (fake.last_message(anna.id) or lobby).text.lower()

    boris_chat = fake.private(boris)
    await harness.command(boris, boris_chat.id, f"/start {payload}")
    session = await harness.kol.manager.get(1)
    assert session.status == "running"
    # both see their own table + hand in their private chat; Anna's lobby became her table
    boris_hand = fake.last_message(boris.id, containing="🃏")
    assert boris_hand is not None and "Your hand:" in boris_hand.text
    assert "Ваши карты:" in lobby.text
    # the link is single-use
    carl = fake.user("Carl")
    await harness.command(carl, fake.private(carl).id, f"/start {payload}")
    assert "not valid" in (fake.last_message(carl.id) or lobby).text

    await play_out(harness, 1, {anna.id: anna, boris.id: boris})
    session = await harness.kol.manager.get(1)
    assert session.status == "finished"
    assert "игра окончена" in lobby.text
    assert "game over" in boris_hand.text


async def test_duel_against_the_computer(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Vera")
    await harness.command(vera, fake.private(vera).id, "/new fifteen")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "vs:1")
    await harness.settle()
    assert "which level" in lobby.text
    await harness.press(vera, lobby, "comp:1:easy")
    await harness.settle()
    session = await harness.kol.manager.get(1)
    assert session.status == "running" and len(session.seats) == 2
    assert session.seats[1].level == "easy"
    await play_out(harness, 1, {vera.id: vera})
    assert "game over" in lobby.text

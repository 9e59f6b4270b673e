"""Commands that only talk: /help /rules /settings /stats /lang, and rematches."""

from __future__ import annotations

from tests.support.harness import Harness
from tests.support.tables import finish_fifteen, open_table, pop_up


async def test_help_in_both_languages(harness: Harness) -> None:
    fake = harness.fake
    pavel, jane = fake.user("Павел", "ru-RU"), fake.user("Jane", "en-GB")
    await harness.command(pavel, fake.private(pavel).id, "/help")
    await harness.command(jane, fake.private(jane).id, "/help")
    russian, english = fake.last_message(pavel.id), fake.last_message(jane.id)
    assert russian is not None and english is not None
    assert "/score [игра] — счёт этого чата" in russian.text
    assert "/score [game] — this chat's score" in english.text


async def test_rules_show_the_tables_options(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "king", started=False)
    await pop_up(
        harness,
        table.alice,
        table.group,
        table.message.message_id,
        f"opt:{table.session_id}:positive:lottery",
    )
    await harness.command(table.bob, table.group.id, "/rules")
    rules = fake.last_message(table.group.id, containing="📖")
    assert rules is not None
    assert "King" in rules.text and "players: 3–4" in rules.text
    assert "Positive part: <b>lottery</b>" in rules.text
    await harness.command(table.bob, table.group.id, "/rules mau-mau")
    mau = fake.last_message(table.group.id, containing="📖")
    assert mau is not None and "Mau-Mau" in mau.text and "jacks are wild" in mau.text
    await harness.command(table.bob, table.group.id, "/rules chess")
    assert fake.last_message(table.group.id, containing="I don't know that game") is not None


async def test_commands_are_registered_per_scope_and_language(harness: Harness) -> None:
    calls = harness.fake.calls_of("setMyCommands")
    seen = {(c.params["scope"]["type"], c.params.get("language_code")) for c in calls}
    assert {
        ("all_private_chats", None),
        ("all_private_chats", "ru"),
        ("all_group_chats", None),
        ("all_group_chats", "ru"),
    } <= seen
    russian = next(
        c
        for c in calls
        if c.params["scope"]["type"] == "all_group_chats" and c.params.get("language_code") == "ru"
    )
    assert {"command": "score", "description": "Счёт чата"} in russian.params["commands"]


async def test_settings_and_stats(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "oh_hell", started=False)
    await harness.command(table.alice, table.group.id, "/settings")
    assert fake.last_message(table.group.id, containing="Language: English") is not None
    # the creator's menu is a message only she sees; the lobby stays for everyone
    (menu,) = fake.chat_messages(table.group.id, ephemeral=True)
    assert menu.ephemeral_for == table.alice.id and "Settings of Oh Hell" in menu.text
    assert "Press <b>Join</b>" in table.message.text
    await harness.command(table.alice, fake.private(table.alice).id, "/stats")
    stats = fake.last_message(table.alice.id, containing="Your games")
    assert stats is not None and "No finished games yet." in stats.text


async def test_play_again_opens_a_new_table(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "fifteen", started=False)
    sid = table.session_id
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deals:1")
    await harness.press(table.alice, table.message, f"back:{sid}")
    await harness.press(table.alice, table.message, f"start:{sid}")
    await finish_fifteen(harness, table)
    await harness.press(table.bob, table.message, f"again:{sid}")
    tables = fake.chat_messages(table.group.id)
    assert len(tables) == 2 and "game over" in tables[0].text
    assert "Turn:" in tables[1].text
    again = await harness.kol.manager.open_in_chat(table.group.id)
    assert again is not None and again.status == "running" and again.id != sid
    assert again.options["deals"] == 1


async def test_hand_command_links_in_a_group_and_reposts_in_private(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    await harness.command(table.bob, table.group.id, "/hand")
    note = fake.last_message(table.group.id, containing="private chat")
    assert note is not None
    assert [b.get("url") for b in note.buttons()] == [
        await harness.hand_link(table.session_id)
    ]
    hands_before = [m for m in fake.chat_messages(table.bob.id) if "🃏" in m.text]
    await harness.command(table.bob, fake.private(table.bob).id, "/hand")
    hands_after = [m for m in fake.chat_messages(table.bob.id) if "🃏" in m.text]
    assert len(hands_after) == len(hands_before) + 1
    refs = {r.purpose: r for r in await harness.kol.messages.of(table.session_id)}
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(table.bob.id)
    assert refs[f"hand:{seat}"].message_id == hands_after[-1].message_id


async def test_join_command_and_leaving_a_running_game(harness: Harness) -> None:
    fake = harness.fake
    alice, carl = fake.user("Alice"), fake.user("Carl")
    group = fake.group()
    for user in (alice, carl):
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(alice, group.id, "/new two_ten_jack")
    await harness.command(carl, group.id, "/join")
    table = fake.last_message(group.id)
    assert table is not None and "Carl" in table.text
    await pop_up(harness, alice, group, table.message_id, "timer:1:300")
    await harness.press(alice, table, "back:1")
    await harness.press(alice, table, "start:1")
    assert "⏰ 5 min per move" in table.text
    await harness.command(carl, group.id, "/leave")
    session = await harness.kol.manager.get(1)
    assert session.status == "running"
    assert session.seats[1].user_id is None  # a computer took Carl's seat
    assert "🤖 for Carl" in table.text.split("\n\n")[1]
    assert fake.last_message(group.id, containing="You left the table.") is not None


async def test_ephemeral_hand_speaks_the_players_language(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    ivan = table.bob  # the group speaks English, Bob switches to Russian in private
    await harness.command(ivan, fake.private(ivan).id, "/lang")
    menu = fake.last_message(ivan.id, containing="Choose a language")
    assert menu is not None
    await harness.press(ivan, menu, "lang:0:ru")
    await harness.press(ivan, table.message, "🃏 My hand")
    ephemeral = fake.chat_messages(table.group.id, ephemeral=True)
    assert ephemeral and "Ваши карты:" in ephemeral[-1].text
    assert "Turn:" in table.message.text  # the group's table stays in English

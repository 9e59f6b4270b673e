"""Group flows through the fake Bot API: ephemeral hands, refusals, errors, tally, language."""

from __future__ import annotations

import logging

import pytest

from bot import delivery
from bot.delivery import Retries
from tests.support.buttons import version_of
from tests.support.fake_telegram import NOT_MODIFIED, FakeUser
from tests.support.harness import Harness
from tests.support.tables import Table, finish_fifteen, move_data, mover, open_table, pop_up

# ---------------------------------------------------------------- ephemeral hands


async def test_my_hand_is_an_ephemeral_message_with_move_buttons(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    query = fake.push_press(first, table.message, "🃏 My hand")
    await fake.answer(query)
    await harness.settle()
    sent = fake.calls_of("sendMessage", table.group.id)[-1]
    assert sent.params["ephemeral_message_parameters"] == {
        "receiver_user_id": first.id,
        "callback_query_id": query,
    }
    ephemeral = fake.chat_messages(table.group.id, ephemeral=True)
    assert len(ephemeral) == 1 and ephemeral[0].ephemeral_for == first.id
    buttons = move_data(ephemeral[0])
    assert buttons and all(version_of(b) == version for b in buttons)
    # a move pressed on the ephemeral message is played, and the message follows the game
    assert await pop_up(harness, first, table.group, ephemeral[0].message_id, buttons[0]) == ""
    session = await harness.kol.manager.get(table.session_id)
    assert session.version == version + 1
    assert fake.calls_of("editEphemeralMessageText")
    assert move_data(ephemeral[0]) == []  # no longer this player's turn: no buttons
    assert len(fake.chat_messages(table.group.id)) == 1  # nothing new posted in the group


async def test_without_ephemeral_support_the_hand_opens_the_private_chat(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.ephemeral = False
    table = await open_table(harness)
    query = fake.push_press(table.alice, table.message, "🃏 My hand")
    answer = await fake.answer(query)
    assert answer.params["url"] == await harness.hand_link(table.session_id)
    assert not fake.chat_messages(table.group.id, ephemeral=True)


async def test_a_player_who_never_started_the_bot_gets_a_deep_link(harness: Harness) -> None:
    fake = harness.fake
    alice, dan = fake.user("Alice"), fake.user("Dan")
    group = fake.group()
    await harness.command(alice, fake.private(alice).id, "/start")
    await harness.command(alice, group.id, "/new eleven")
    lobby = fake.last_message(group.id)
    assert lobby is not None
    answer = await harness.press(dan, lobby, "join:1")
    link = await harness.hand_link(1)
    assert answer.params["url"] == link
    assert not await harness.kol.prefs.reachable(dan.id)
    await harness.press(alice, lobby, "start:1")
    await harness.settle()
    # no hand was forced on Dan; the table carries the deep-link button
    assert fake.last_message(dan.id) is None
    urls = [b.get("url") for b in lobby.buttons() if b.get("url")]
    assert urls == [link]
    # following the link opens the chat and shows the hand there
    await harness.command(dan, fake.private(dan).id, "/start " + link.split("start=")[1])
    hand = fake.last_message(dan.id, containing="🃏")
    assert hand is not None and "Your hand:" in hand.text
    assert await harness.kol.prefs.reachable(dan.id)


# ---------------------------------------------------------------- refusals


async def test_every_refusal_is_a_pop_up_and_changes_nothing(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    sid, group, msg = table.session_id, table.group, table.message.message_id
    carl = fake.user("Carl")
    alice, bob = table.alice, table.bob

    async def says(user: FakeUser, data: str) -> str:
        return await pop_up(harness, user, group, msg, data)

    assert await says(alice, f"join:{sid}") == "You already sit at this table."
    assert await says(carl, f"join:{sid}") == "The table is full."
    assert await says(bob, f"start:{sid}") == "Only the creator of the table can do that."
    assert await says(bob, f"sets:{sid}") == "Only the creator of the table can do that."
    assert await says(alice, f"opt:{sid}:target:999") == "That setting is not allowed here."
    assert await says(alice, f"comp:{sid}:genius") == "Unknown computer level."
    assert await says(alice, "new:0:chess") == "Unknown game."
    assert await says(alice, "join:999") == "This game does not exist any more."
    assert await says(alice, "total nonsense") == "This button is not valid any more."
    assert await says(alice, f"{sid}:1:QS") == "The game is not running."
    assert await says(alice, f"hand:{sid}") == "The game is not running."
    await harness.press(bob, table.message, f"leave:{sid}")
    assert await says(alice, f"start:{sid}") == "Not enough players yet."
    await harness.press(bob, table.message, f"join:{sid}")
    await harness.press(alice, table.message, f"start:{sid}")
    await harness.settle()
    assert await says(carl, f"join:{sid}") == "The game has already started."

    first, other, version = await mover(harness, table)
    before = (await harness.kol.manager.get(sid)).version
    session = await harness.kol.manager.get(sid)
    seat = session.seat_of(first.id)
    assert seat is not None
    held = session.view(seat)["hand"]
    legal = session.view(seat)["legal"]
    assert await says(carl, f"{sid}:{version}:{legal[0]}") == "You are not playing at this table."
    assert await says(other, f"{sid}:{version}:{legal[0]}") == "It is not your turn."
    assert await says(first, f"{sid}:{version - 1}:{legal[0]}") == (
        "That button is out of date — look at the new message."
    )
    missing = next(c for c in ("AS", "AH", "AD", "AC", "KS", "KH", "KD") if c not in held)
    assert await says(first, f"{sid}:{version}:{missing}") == "You do not hold that card."
    assert await says(first, f"{sid}:{version}:bid:3") == "Unknown move."
    assert (await harness.kol.manager.get(sid)).version == before  # nothing changed

    await harness.command(alice, group.id, "/new king")
    assert fake.last_message(group.id, containing="already has a table") is not None


async def test_refusals_speak_the_pressers_language(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    ivan = fake.user("Иван", "ru")
    text = await pop_up(
        harness, ivan, table.group, table.message.message_id, f"{table.session_id}:1:QS"
    )
    assert text == "Вы не играете за этим столом."


# ---------------------------------------------------------------- Telegram errors


async def test_not_modified_is_success_and_a_deleted_table_is_posted_again(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, _ = await mover(harness, table)
    fake.fail_next(
        "editMessageText", 400, NOT_MODIFIED, when=lambda p: p.get("chat_id") == table.group.id
    )
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    await harness.press(first, hand, move_data(hand)[0])
    await harness.settle()
    assert len(fake.chat_messages(table.group.id)) == 1  # not re-posted

    table.message.deleted = True  # somebody deleted the table message
    first, _, _ = await mover(harness, table)
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    await harness.press(first, hand, move_data(hand)[0])
    await harness.settle()
    live = fake.chat_messages(table.group.id)
    assert len(live) == 1 and live[0].message_id != table.message.message_id
    refs = {r.purpose: r for r in await harness.kol.messages.of(table.session_id)}
    assert refs["table"].message_id == live[0].message_id


async def move_losing_table_edits(
    harness: Harness, caplog: pytest.LogCaptureFixture, lost: int
) -> tuple[Table, int, str]:
    """A move whose next ``lost`` table edits are dropped on the way; (table, the version
    it was made at, the table's text before it)."""
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    in_group = lambda p: p.get("chat_id") == table.group.id  # noqa: E731
    harness.fake.drop_next("editMessageText", when=in_group, times=lost)
    hand = harness.fake.last_message(first.id, containing="🃏")
    assert hand is not None
    before = table.message.text
    with caplog.at_level(logging.INFO):
        await harness.press(first, hand, move_data(hand)[0])
        await harness.settle()
    return table, version, before


async def test_an_edit_lost_on_the_way_is_made_again(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table, version, before = await move_losing_table_edits(harness, caplog, lost=2)
    edits = fake.calls_of("editMessageText", table.group.id)
    assert [c.ok for c in edits[-3:]] == [False, False, True]
    session = await harness.kol.manager.get(table.session_id)
    assert session.version == version + 1
    assert table.message.text != before and table.message.text == edits[-1].params["text"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.fixture
def quick_retries(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Delivery's back-off, the same number of tries, in hundredths of a second."""
    quick = Retries(pause=0.001, first=0.001, cap=0.01)
    monkeypatch.setattr(harness.kol.delivery, "retries", quick)


@pytest.mark.usefixtures("quick_retries")
async def test_an_edit_lost_every_time_is_tried_with_back_off_then_the_next_move_shows(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table, _, before = await move_losing_table_edits(harness, caplog, lost=99)
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == delivery.RETRY_TRIES + 1  # each pause, and giving up
    assert warned[-1].getMessage().startswith(f"delivering {table.session_id}/table failed: ")
    assert all(r.exc_info is None for r in warned)  # one line each, no traceback
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    lost = [c for c in fake.calls_of("editMessageText", table.group.id) if not c.ok]
    # every try, then it waits for the next picture
    assert len(lost) == (delivery.RETRY_TRIES + 1) * delivery.EDIT_TRIES
    assert table.message.text == before
    fake._injected.clear()
    second, _, _ = await mover(harness, table)
    hand = fake.last_message(second.id, containing="🃏")
    assert hand is not None
    await harness.press(second, hand, move_data(hand)[0])
    await harness.settle()
    edits = fake.calls_of("editMessageText", table.group.id)
    assert edits[-1].ok and table.message.text == edits[-1].params["text"] != before


@pytest.mark.usefixtures("quick_retries")
async def test_pressing_again_after_lost_edits_draws_the_table_again(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    fake.drop_next("editMessageText", times=999)  # the move's every edit is lost
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    data = move_data(hand)[0]
    before = table.message.text
    await harness.press(first, hand, data)
    await harness.settle()
    assert (await harness.kol.manager.get(table.session_id)).version == version + 1
    assert table.message.text == before and data in move_data(hand)  # nobody sees the move
    fake._injected.clear()
    answer = await harness.press(first, hand, data)  # the player tries again
    await harness.settle()
    assert not answer.params.get("text")  # it counted already: no pop-up, nothing changes
    assert (await harness.kol.manager.get(table.session_id)).version == version + 1
    assert table.message.text != before and data not in move_data(hand)


async def test_a_restart_draws_only_tables_behind_what_is_stored(harness: Harness) -> None:
    table = await open_table(harness)
    await mover(harness, table)
    manager, presenter = harness.kol.manager, harness.kol.presenter
    assert await presenter.restore(manager) == 0  # everything shown is current
    # cancelled, and the bot gone before drawing it: the table still shows the game
    await manager.cancel(table.session_id, table.alice.id)
    before = table.message.text
    manager._cache.clear()
    assert await presenter.restore(manager) == 1
    assert manager.cached == 0  # drawn, not kept in memory
    await harness.settle()
    assert table.message.text != before and "cancel" in table.message.text.lower()
    # once drawn, a restart leaves it alone
    assert await presenter.restore(manager) == 0


async def test_429_is_retried_after_the_pause(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    fake.fail_next(
        "editMessageText",
        429,
        "Too Many Requests: retry after 1",
        retry_after=1,
        when=lambda p: p.get("chat_id") == table.group.id,
    )
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    await harness.press(first, hand, move_data(hand)[0])
    await harness.settle()
    edits = fake.calls_of("editMessageText", table.group.id)
    assert [c.ok for c in edits[-2:]] == [False, True]
    assert edits[-1].at - edits[-2].at >= 0.9
    session = await harness.kol.manager.get(table.session_id)
    assert session.version == version + 1


async def test_403_in_a_private_chat_marks_the_player_unreachable(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    fake.started.discard(table.bob.id)  # Bob blocked the bot
    await harness.press(table.alice, table.message, f"start:{table.session_id}")
    await harness.settle()
    assert not await harness.kol.prefs.reachable(table.bob.id)
    assert await harness.kol.prefs.reachable(table.alice.id)
    forbidden = [c for c in fake.calls_of("sendMessage", table.bob.id) if not c.ok]
    assert len(forbidden) == 1
    await harness.command(table.alice, table.group.id, "/table")  # more renders: no more tries
    assert len([c for c in fake.calls_of("sendMessage", table.bob.id) if not c.ok]) == 1


async def test_bot_removed_from_the_group_ends_its_games(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    before = len(fake.calls)
    fake.push_removed(table.group, table.alice)
    await fake.wait_for(
        lambda c: c.chat_id == table.alice.id and "cancelled" in str(c.params.get("text")),
        after=before,
    )
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "cancelled"
    assert not [c for c in fake.calls[before:] if c.chat_id == table.group.id]


async def test_403_from_the_group_ends_its_games(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    fake.fail_next(
        "editMessageText",
        403,
        "Forbidden: bot was kicked from the supergroup chat",
        when=lambda p: p.get("chat_id") == table.group.id,
    )
    await harness.command(table.alice, table.group.id, "/lang")  # any render of the table
    first, _, _ = await mover(harness, table)
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    await harness.press(first, hand, move_data(hand)[0])
    await harness.settle()
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "cancelled"


# ---------------------------------------------------------------- tally and language


async def test_score_after_matches_in_two_chats(harness: Harness) -> None:
    fake = harness.fake
    tables = []
    for title in ("One", "Two"):
        table = await open_table(harness, "fifteen", started=False, title=title)
        sid = table.session_id
        await pop_up(
            harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deals:1"
        )
        await harness.press(table.alice, table.message, f"back:{sid}")
        await harness.press(table.alice, table.message, f"start:{sid}")
        await harness.settle()
        await finish_fifteen(harness, table)
        tables.append(table)
    one, two = tables
    assert "game over" in one.message.text
    await harness.press(one.alice, one.message, f"score:{one.session_id}")
    await harness.settle()
    tally = fake.last_message(one.group.id, containing="Score in this chat")
    assert tally is not None and "Fifteen" in tally.text
    assert "Alice" in tally.text and "of 1" in tally.text
    await harness.command(two.alice, two.group.id, "/score")
    tally_two = fake.last_message(two.group.id, containing="Score in this chat")
    assert tally_two is not None
    names = {n for n in ("Alice", "Bob") if n in tally_two.text}
    assert names == {"Alice", "Bob"}
    # different people in each chat: chat two does not count chat one's match
    assert tally_two.text.count("of 1") == 2
    await harness.command(one.alice, fake.private(one.alice).id, "/stats")
    stats = fake.last_message(one.alice.id, containing="Your games")
    assert stats is not None and "Fifteen" in stats.text


async def test_language_switch_rerenders_the_table_in_russian(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    assert "Your turn" not in table.message.text and "Turn:" in table.message.text
    await harness.command(table.alice, table.group.id, "/lang")
    menu = fake.last_message(table.group.id, containing="Choose a language")
    assert menu is not None
    await harness.press(table.alice, menu, "lang:0:ru")
    await harness.settle()
    assert "Ход:" in table.message.text and "Одиннадцать" in table.message.text
    assert fake.last_message(table.group.id, containing="Язык: русский") is not None


async def test_cancel_by_a_group_admin_and_not_by_others(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    private_before = len(fake.chat_messages(table.bob.id))
    text = await pop_up(
        harness, table.bob, table.group, table.message.message_id, f"cancel:{table.session_id}"
    )
    assert text == "Only the creator of the table can do that."
    admin = fake.user("Admin")
    fake.admins[table.group.id].add(admin.id)
    await harness.command(admin, table.group.id, "/cancel")
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "cancelled"
    assert "cancelled" in table.message.text and table.message.buttons() == []
    # a lobby that never dealt leaves the players' private chats alone
    assert len(fake.chat_messages(table.bob.id)) == private_before
    assert await harness.kol.manager.open_in_chat(table.group.id) is None

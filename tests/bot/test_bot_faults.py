"""Telegram failing under the bot: 5xx answers, dropped connections, a blocked player.

Each fault ends in at most a WARNING line (no traceback), the player gets what
they asked for or the documented fallback, and nothing is lost or repeated.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.i18n import t
from tests.support.harness import Harness
from tests.support.tables import Table, move_data, mover, open_table, pop_up


def _ephemeral(params: dict[str, Any]) -> bool:
    return "ephemeral_message_parameters" in params


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """ERROR lines, and any line that carries a traceback."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def _warned(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(r.levelno == logging.WARNING and text in r.getMessage() for r in caplog.records)


async def _press_my_hand(harness: Harness, table: Table) -> dict[str, Any]:
    first, _, _ = await mover(harness, table)
    query = harness.fake.push_press(first, table.message, "🃏 My hand")
    answer = await harness.fake.answer(query)
    await harness.settle()
    return dict(answer.params)


# ---------------------------------------------------------------- "🃏 My hand"


async def test_my_hand_answered_with_a_5xx_is_sent_again(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    fake.fail_next("sendMessage", 500, "Internal Server Error", when=_ephemeral)
    answer = await _press_my_hand(harness, table)
    assert not answer.get("url") and not answer.get("text")  # a plain answer: it is shown
    tries = [c for c in fake.calls_of("sendMessage", table.group.id) if _ephemeral(c.params)]
    assert [c.ok for c in tries] == [False, True]
    first, _, _ = await mover(harness, table)
    shown = fake.chat_messages(table.group.id, ephemeral=True)
    assert len(shown) == 1 and shown[0].ephemeral_for == first.id and move_data(shown[0])
    assert not _errors(caplog)


async def test_my_hand_lost_on_the_way_is_not_sent_twice_and_goes_private(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, _ = await mover(harness, table)
    posted = len(fake.calls_of("sendMessage", first.id))
    fake.drop_next("sendMessage", when=_ephemeral)
    answer = await _press_my_hand(harness, table)
    # the pop-up opens the private chat, where the hand was posted afresh
    assert answer.get("url") == await harness.hand_link(table.session_id)
    assert not answer.get("text")
    tries = [c for c in fake.calls_of("sendMessage", table.group.id) if _ephemeral(c.params)]
    assert len(tries) == 1  # it may have arrived: never repeated
    sent = fake.calls_of("sendMessage", first.id)[posted:]
    assert [c.ok for c in sent] == [True]
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None and move_data(hand)
    assert _warned(caplog, "ephemeral hand not sent")
    assert not _errors(caplog)
    assert not fake.last_message(table.group.id, containing="went wrong")


async def test_my_hand_refused_every_time_goes_private(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    fake.fail_next("sendMessage", 502, "Bad Gateway", when=_ephemeral, times=5)
    answer = await _press_my_hand(harness, table)
    assert answer.get("url") == await harness.hand_link(table.session_id)
    tries = [c for c in fake.calls_of("sendMessage", table.group.id) if _ephemeral(c.params)]
    assert [c.ok for c in tries] == [False, False, False]  # EDIT_TRIES, then the fallback
    assert _warned(caplog, "ephemeral hand not sent")
    assert not _errors(caplog)


async def test_an_ephemeral_edit_lost_on_the_way_is_made_again(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    await _press_my_hand(harness, table)
    shown = fake.chat_messages(table.group.id, ephemeral=True)[0]
    fake.drop_next("editEphemeralMessageText")
    assert await pop_up(harness, first, table.group, shown.message_id, move_data(shown)[0]) == ""
    edits = fake.calls_of("editEphemeralMessageText")
    assert [c.ok for c in edits] == [False, True]
    assert move_data(shown) == []  # it follows the game: no longer this player's turn
    assert (await harness.kol.manager.get(table.session_id)).version == version + 1
    assert not _errors(caplog)


# ---------------------------------------------------------------- answers and polling


@pytest.mark.parametrize("fault", ["5xx", "drop"])
async def test_a_lost_button_answer_is_a_warning_and_the_move_counts(
    harness: Harness, caplog: pytest.LogCaptureFixture, fault: str
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, version = await mover(harness, table)
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    if fault == "5xx":
        fake.fail_next("answerCallbackQuery", 500, "Internal Server Error")
    else:
        fake.drop_next("answerCallbackQuery")
    query = fake.push_callback(first, fake.private(first), hand.message_id, move_data(hand)[0])
    assert not (await fake.answer(query)).ok
    await harness.settle()
    session = await harness.kol.manager.get(table.session_id)
    assert session.version == version + 1 and session.moves == 1
    assert _warned(caplog, "could not answer a callback query")
    assert not _errors(caplog)


@pytest.mark.parametrize("fault", ["5xx", "drop"])
async def test_a_failed_get_updates_is_a_warning_and_polling_goes_on(
    harness: Harness, caplog: pytest.LogCaptureFixture, fault: str
) -> None:
    fake = harness.fake
    user = fake.user("Ann")
    if fault == "5xx":
        fake.fail_next("getUpdates", 502, "Bad Gateway")
    else:
        fake.drop_next("getUpdates")
    fake.push_command(user, fake.private(user), "/help")
    await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == user.id)
    assert [c.ok for c in fake.calls_of("getUpdates")][:1] in ([False], [True])
    assert any(not c.ok for c in fake.calls_of("getUpdates"))
    assert _warned(caplog, "polling for updates failed")
    assert not _errors(caplog)


# ---------------------------------------------------------------- buttons that no longer apply


async def test_back_pressed_during_a_game_gets_the_usual_pop_up(harness: Harness) -> None:
    table = await open_table(harness)
    before = await harness.kol.manager.get(table.session_id)
    text = await pop_up(
        harness, table.alice, table.group, table.message.message_id, f"back:{table.session_id}"
    )
    assert text == t("en", "refusal-not_in_lobby")
    assert await harness.kol.manager.get(table.session_id) == before


# ---------------------------------------------------------------- a player blocks the bot


async def test_a_player_who_blocks_the_bot_mid_game_plays_on_through_the_group(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, other, version = await mover(harness, table)
    fake.started.discard(other.id)  # the player who waits blocks the bot
    hand = fake.last_message(first.id, containing="🃏")
    assert hand is not None
    assert await pop_up(harness, first, fake.private(first), hand.message_id,
                        move_data(hand)[0]) == ""
    # the edit of their private hand was refused: they are marked unreachable
    refused = [c for c in fake.calls_of("editMessageText", other.id) if not c.ok]
    assert [c.error for c in refused] == ["Forbidden: bot was blocked by the user"]
    assert not await harness.kol.prefs.reachable(other.id)
    # the table carries the link that opens the private chat again
    urls = [b.get("url") for b in table.message.buttons() if b.get("url")]
    assert urls == [await harness.hand_link(table.session_id)]
    # their turn is played through the group's ephemeral hand
    session = await harness.kol.manager.get(table.session_id)
    assert session.seats[session.to_move or 0].user_id == other.id
    query = fake.push_press(other, table.message, "🃏 My hand")
    assert not (await fake.answer(query)).params.get("url")
    await harness.settle()
    shown = fake.chat_messages(table.group.id, ephemeral=True)
    assert len(shown) == 1 and shown[0].ephemeral_for == other.id
    assert await pop_up(harness, other, table.group, shown[0].message_id,
                        move_data(shown[0])[0]) == ""
    assert (await harness.kol.manager.get(table.session_id)).version == version + 2
    # and the bot does not keep writing to the blocked chat
    assert len(fake.calls_of("editMessageText", other.id)) == 1
    assert not [c for c in fake.calls_of("sendMessage", other.id) if c.at > refused[0].at]
    assert not _errors(caplog)


@pytest.mark.parametrize("fault", ["5xx", "drop"])
async def test_a_lost_admin_check_changes_nothing_and_asking_again_works(
    harness: Harness, caplog: pytest.LogCaptureFixture, fault: str
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    admin = fake.user("Admin")
    fake.admins[table.group.id].add(admin.id)
    if fault == "5xx":
        fake.fail_next("getChatMember", 500, "Internal Server Error")
    else:
        fake.drop_next("getChatMember")
    await harness.command(admin, table.group.id, "/cancel")
    assert (await harness.kol.manager.get(table.session_id)).status == "running"
    assert fake.last_message(table.group.id, containing=t("en", "error-generic"))
    assert _warned(caplog, "could not be reached")
    assert not _errors(caplog)
    await harness.command(admin, table.group.id, "/cancel")  # Telegram is back
    assert (await harness.kol.manager.get(table.session_id)).status == "cancelled"

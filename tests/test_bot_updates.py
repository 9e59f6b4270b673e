"""Updates are confirmed to Telegram only once handled, and decoded without the
pressed message's keyboard (bot/updates.py)."""

from __future__ import annotations

import asyncio
import copy
import logging
import re

import pytest

from bot.updates import Inbox, KolodaBot, trim
from tests.fake_telegram import FakeTelegram, StoredMessage
from tests.fakeapi.harness import Harness


def _bot(harness: Harness) -> KolodaBot:
    bot = harness.app.bot
    assert isinstance(bot, KolodaBot)
    return bot


def _moves(message: StoredMessage) -> list[str]:
    """The data of the move buttons on a message (session 1)."""
    return [
        data
        for button in message.buttons()
        if re.match(r"^1:\d+:", data := button.get("callback_data") or "")
    ]


def _last_update_id(fake: FakeTelegram) -> int:
    return int(fake._updates[-1]["update_id"])


async def test_an_update_is_confirmed_only_after_it_was_handled(harness: Harness) -> None:
    fake = harness.fake
    user = fake.user("Ann")
    chat = fake.private(user)
    gate = fake.gates["sendMessage"] = asyncio.Event()  # Telegram is slow: /help's reply hangs
    try:
        fake.push_command(user, chat, "/help")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.undelivered() == 0)  # the bot fetched it
        await asyncio.sleep(0.3)  # it would poll again at once, but must not confirm it yet
        assert fake.confirmed < update_id
        assert _bot(harness).inbox.open == 1
    finally:
        gate.set()
    await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == user.id)
    await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
    assert _bot(harness).inbox.given_up == 0


async def test_a_press_is_confirmed_without_waiting_for_its_answer(harness: Harness) -> None:
    fake = harness.fake
    user = fake.user("Dan")
    gate = fake.gates["answerCallbackQuery"] = asyncio.Event()  # the answer hangs
    try:
        query = fake.push_callback(user, fake.private(user), None, "forged:data")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
        assert _bot(harness).inbox.given_up == 0  # handled: only the answer is outstanding
    finally:
        gate.set()
    assert (await fake.answer(query)).params.get("text")  # the forged press got its pop-up


async def test_a_stuck_handler_does_not_stall_everyone(harness: Harness) -> None:
    fake = harness.fake
    bot = _bot(harness)
    bot.inbox.wait = 0.2
    user = fake.user("Ben")
    chat = fake.private(user)
    gate = fake.gates["sendMessage"] = asyncio.Event()
    try:
        fake.push_command(user, chat, "/help")
        update_id = _last_update_id(fake)
        # after its wait the bot gives up waiting and fetches (so confirms) anyway
        await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
        assert bot.inbox.given_up == 1
        # and the next update is handled while the first is still stuck
        query = fake.push_callback(user, chat, None, "forged:data")
        assert (await fake.answer(query)).params.get("text")
    finally:
        gate.set()


def test_inbox_settles_when_every_update_of_the_batch_is_handled() -> None:
    async def scenario() -> None:
        inbox = Inbox(wait=0.01)
        assert await inbox.settled()  # nothing fetched yet
        inbox.received([5, 6])
        inbox.handled(5)
        assert not await inbox.settled()  # 6 is still running: given up
        assert inbox.given_up == 1 and inbox.open == 0
        inbox.received([7])
        inbox.wait = 5
        waiter = asyncio.ensure_future(inbox.settled())
        await asyncio.sleep(0)
        assert not waiter.done()
        inbox.handled(99)  # not of this batch: changes nothing
        await asyncio.sleep(0)
        assert not waiter.done()
        inbox.handled(7)
        assert await waiter

    asyncio.run(scenario())


def test_trim_drops_only_the_pressed_messages_keyboard_and_entities() -> None:
    update = {
        "update_id": 3,
        "callback_query": {
            "id": "9",
            "data": "1:2:QS",
            "message": {
                "message_id": 4,
                "chat": {"id": 5, "type": "private"},
                "text": "hand",
                "entities": [{"type": "bold", "offset": 0, "length": 4}],
                "reply_markup": {"inline_keyboard": [[{"text": "Q♠", "callback_data": "1:2:QS"}]]},
            },
        },
    }
    trimmed = trim(copy.deepcopy(update))
    assert trimmed["callback_query"]["message"] == {
        "message_id": 4,
        "chat": {"id": 5, "type": "private"},
        "text": "hand",
    }
    assert trimmed["callback_query"]["data"] == "1:2:QS"
    message_update = {"update_id": 4, "message": copy.deepcopy(update["callback_query"]["message"])}
    assert trim(copy.deepcopy(message_update)) == message_update  # other updates stay whole


async def test_a_press_delivered_again_is_answered_once_and_changes_nothing(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    ann, ben = fake.user("Ann"), fake.user("Ben")
    group, lobby = await harness.open_lobby("eleven", (ann, ben), "Again")
    query = fake.push_callback(ben, group, lobby.message_id, "join:1")
    await fake.answer(query)
    await harness.settle()
    session = await harness.kol.manager.get(1)
    assert session.seat_of(ben.id) is not None
    shown = lobby.text
    caplog.clear()
    fake.push_again(query)  # the bot crashed before confirming it: Telegram sends it again
    await harness.settle()
    assert (await harness.kol.manager.get(1)).version == session.version
    assert lobby.text == shown
    answers = [
        call.ok
        for call in fake.calls_of("answerCallbackQuery")
        if str(call.params["callback_query_id"]) == query
    ]
    assert answers == [True, False]  # the second answer was refused by Telegram, quietly
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_move_delivered_again_is_answered_without_a_pop_up(harness: Harness) -> None:
    fake = harness.fake
    ann, ben = fake.user("Ann"), fake.user("Ben")
    _, lobby = await harness.open_lobby("eleven", (ann, ben), "Twice")
    await harness.press(ben, lobby, "join:1")
    await harness.press(ann, lobby, "start:1")
    session = await harness.kol.manager.get(1)
    seat = session.to_move
    assert seat is not None
    mover = ann if session.seats[seat].user_id == ann.id else ben
    hand, data = next(
        (message, move) for message in fake.chat_messages(mover.id) for move in _moves(message)
    )
    query = fake.push_callback(mover, fake.private(mover), hand.message_id, data)
    assert not (await fake.answer(query)).params.get("text")
    await harness.settle()
    moved = await harness.kol.manager.get(1)
    assert moved.moves == 1
    fake.push_again(query)  # delivered again after a crash
    await harness.settle()
    again = [
        call
        for call in fake.calls_of("answerCallbackQuery")
        if call.params["callback_query_id"] == query
    ]
    assert len(again) == 2 and not again[1].params.get("text")  # no "out of date" pop-up
    assert await harness.kol.manager.get(1) == moved

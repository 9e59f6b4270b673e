"""Updates are confirmed to Telegram only once handled, and decoded without the
pressed message's keyboard (bot/updates.py)."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from bot.updates import Inbox, KolodaBot
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.harness import Harness
from tests.support.tables import open_table


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


async def test_an_update_is_confirmed_only_once_its_change_is_committed(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    fake.admins[table.group.id].add(table.bob.id)
    gate = fake.gates["getChatMember"] = asyncio.Event()  # the admin check hangs
    try:
        fake.push_command(table.bob, table.group, "/cancel")  # an admin cancels
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.undelivered() == 0)  # the bot fetched it
        await asyncio.sleep(0.3)  # it would poll again at once, but must not confirm it yet
        assert fake.confirmed < update_id
        assert _bot(harness).inbox.open == 1
    finally:
        gate.set()
    await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "cancelled"


async def test_a_slow_reply_does_not_hold_the_confirmation_back(harness: Harness) -> None:
    fake = harness.fake
    user = fake.user("Ann")
    chat = fake.private(user)
    gate = fake.gates["sendMessage"] = asyncio.Event()  # Telegram is slow: /help's reply hangs
    try:
        fake.push_command(user, chat, "/help")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
        assert not fake.calls_of("sendMessage", user.id)
    finally:
        gate.set()
    await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == user.id)


async def test_a_press_is_confirmed_without_waiting_for_its_answer(harness: Harness) -> None:
    fake = harness.fake
    user = fake.user("Dan")
    gate = fake.gates["answerCallbackQuery"] = asyncio.Event()  # the answer hangs
    try:
        query = fake.push_callback(user, fake.private(user), None, "forged:data")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
    finally:
        gate.set()
    assert (await fake.answer(query)).params.get("text")  # the forged press got its pop-up


def test_inbox_settles_when_every_update_of_the_batch_is_handled() -> None:
    async def scenario() -> None:
        inbox = Inbox(bound=3600.0)
        await inbox.settled()  # nothing fetched yet
        inbox.received([5, 6])
        inbox.handled(5)
        waiter = asyncio.ensure_future(inbox.settled())
        await asyncio.sleep(0.05)
        assert not waiter.done()  # 6 is still running, within the bound
        inbox.handled(99)  # not of this batch: changes nothing
        await asyncio.sleep(0.05)
        assert not waiter.done()
        inbox.handled(6)
        await asyncio.wait_for(waiter, 1)
        assert inbox.open == 0

    asyncio.run(scenario())


def test_a_slow_update_lets_the_fetch_go_and_a_failing_one_holds_it() -> None:
    async def scenario() -> None:
        inbox = Inbox(bound=0.05)
        inbox.received([7, 8])
        inbox.failing(8)  # the store could not take it: it is being retried
        waiter = asyncio.ensure_future(inbox.settled())
        await asyncio.sleep(0.3)  # 7 has run past the bound; 8 still fails
        assert not waiter.done()
        assert inbox.offset(9) == 8  # a fetch now would not confirm 8
        inbox.handled(8)
        await asyncio.wait_for(waiter, 1)  # 7, still running, no longer holds it
        assert inbox.open == 1 and inbox.offset(9) == 9
        inbox.failing(7)
        inbox.stop()  # polling stops: 7 stays unconfirmed, and holds nothing
        await asyncio.wait_for(inbox.settled(), 1)
        assert inbox.offset(9) == 7

    asyncio.run(scenario())


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


async def test_a_join_is_confirmed_while_its_private_greeting_waits(harness: Harness) -> None:
    fake = harness.fake
    ann, ben = fake.user("Ann"), fake.user("Ben")
    group, lobby = await harness.open_lobby("eleven", (ann, ben), "Greeting")
    gate = fake.gates["sendMessage"] = asyncio.Event()  # Ben's private chat is slow
    try:
        query = fake.push_callback(ben, group, lobby.message_id, "join:1")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
        assert (await harness.kol.manager.get(1)).seat_of(ben.id) is not None  # committed
        assert fake.answer_of(query) is None  # answered once the greeting is out
    finally:
        gate.set()
    answer = await fake.answer(query)
    assert not answer.params.get("url")  # greeted: no link to open
    assert fake.last_message(ben.id) is not None


async def test_a_press_whose_commit_is_pending_is_not_confirmed(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = harness.fake
    ann, ben = fake.user("Ann"), fake.user("Ben")
    group, lobby = await harness.open_lobby("eleven", (ann, ben), "Pending")
    store = harness.kol.manager.store
    save, held = store.save_session, asyncio.Event()

    async def slow_save(*args: Any, **kwargs: Any) -> None:  # save_session's, passed on
        await held.wait()  # the disk is slow: the commit has not happened yet
        await save(*args, **kwargs)

    monkeypatch.setattr(store, "save_session", slow_save)
    try:
        fake.push_callback(ben, group, lobby.message_id, "join:1")
        update_id = _last_update_id(fake)
        await fake.wait_until(lambda: fake.undelivered() == 0)
        await asyncio.sleep(0.3)  # it would poll again at once, but must not confirm it yet
        assert fake.confirmed < update_id
    finally:
        held.set()
    await fake.wait_until(lambda: fake.confirmed >= update_id, timeout=5)
    assert (await harness.kol.manager.get(1)).seat_of(ben.id) is not None


async def test_a_handler_still_running_past_the_bound_does_not_hold_the_next_fetch(
    harness: Harness,
) -> None:
    fake = harness.fake
    _bot(harness).inbox.bound = 0.2  # HOLD_BOUND, shortened
    table = await open_table(harness, started=False)
    fake.admins[table.group.id].add(table.bob.id)
    gate = fake.gates["getChatMember"] = asyncio.Event()  # the admin check hangs
    try:
        fake.push_command(table.bob, table.group, "/cancel")
        stuck = _last_update_id(fake)
        await fake.wait_until(lambda: fake.undelivered() == 0)
        dan = fake.user("Dan")
        fake.push_command(dan, fake.private(dan), "/help")  # another chat
        await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == dan.id)
        assert _bot(harness).inbox.open >= 1  # /cancel is still being handled
    finally:
        gate.set()
    await harness.settle()
    assert fake.confirmed >= stuck  # fetched past it meanwhile; it still committed
    assert (await harness.kol.manager.get(table.session_id)).status == "cancelled"

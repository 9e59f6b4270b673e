"""Tables in forum topics, end to end through the fake Bot API: each table lives in the
topic it was opened in, one per topic; closed topics pause, deleted ones cancel."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from telegram.error import BadRequest

from bot.delivery import Delivery
from bot.flood_limits import Limits
from bot.limiter import FloodLimiter
from bot.render.common import screen
from sessions import TABLE
from tests.support.fake_clock import FakeClock
from tests.support.fake_telegram import THREAD_NOT_FOUND, TOPIC_CLOSED
from tests.support.harness import Harness
from tests.support.tables import moves, open_table, play_out, pop_up
from tests.support.topics import command_in, mover_hand, players, posts_in, topic_table


def _threads(harness: Harness, chat_id: int) -> set[object]:
    return {c.params.get("message_thread_id") for c in posts_in(harness, chat_id)}


async def test_a_table_opened_in_a_topic_is_posted_and_edited_only_there(
    harness: Harness,
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards", admins=(alice,))
    thread = fake.create_topic(forum, "Fifteen", by=alice)
    table = await topic_table(harness, forum, thread, alice, bob)
    await play_out(harness, table.session_id, table.users)
    await command_in(harness, alice, forum, thread, "/history")
    record = fake.last_message(forum.id, containing="📜")
    assert record is not None
    await harness.press(alice, record, record.buttons()[0]["callback_data"])

    assert posts_in(harness, forum.id), "nothing was posted"
    assert _threads(harness, forum.id) == {thread}  # every post, the document too
    assert fake.documents and fake.documents[-1].chat_id == forum.id
    edited = {
        c.params["message_id"] for c in fake.calls
        if c.method == "editMessageText" and c.chat_id == forum.id
    }
    assert edited
    assert all(fake.messages[(forum.id, m)].thread == thread for m in edited)
    assert {m.thread for m in fake.chat_messages(forum.id)} == {thread}
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "finished" and session.thread == thread


async def test_the_general_topic_and_plain_groups_never_get_a_thread_id(
    harness: Harness,
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards")
    fake.create_topic(forum, "Other", by=alice)
    general = await topic_table(harness, forum, 0, alice, bob)
    await play_out(harness, general.session_id, general.users)
    plain = await open_table(harness, "fifteen")
    await play_out(harness, plain.session_id, {plain.alice.id: plain.alice,
                                               plain.bob.id: plain.bob})
    for chat in (forum.id, plain.group.id):
        assert posts_in(harness, chat)
        assert _threads(harness, chat) == {None}
    assert all(not c.error for c in posts_in(harness, forum.id))


async def test_two_topics_play_two_tables_to_the_end_at_once(harness: Harness) -> None:
    fake = harness.fake
    alice, bob, carol, dan = await players(harness, "Alice", "Bob", "Carol", "Dan")
    forum = fake.forum("Cards")
    one, two = fake.create_topic(forum, "One", by=alice), fake.create_topic(forum, "Two",
                                                                            by=carol)
    first = await topic_table(harness, forum, one, alice, bob)
    second = await topic_table(harness, forum, two, carol, dan, game="eleven")
    # /new again in a busy topic is refused; the other topic's table is untouched
    await command_in(harness, bob, forum, one, "/new king")
    refusal = fake.last_message(forum.id)
    assert refusal is not None and refusal.thread == one and "already has a table" in refusal.text
    # the two tables take turns, move by move, until both are over
    tables = [first, second]
    for _ in range(3000):
        running = [
            (t, s) for t in tables
            if (s := await harness.kol.manager.get(t.session_id)).status == "running"
        ]
        if not running:
            break
        for table, session in running:
            user, hand = mover_hand(harness, table, session)
            fake.push_press(user, hand, moves(hand)[0])
        await harness.settle()
    for table in tables:
        session = await harness.kol.manager.get(table.session_id)
        assert session.status == "finished"
        shown = fake.messages[(forum.id, table.message.message_id)]
        assert shown.thread == table.thread
    by_thread = {
        c.params.get("message_thread_id") for c in posts_in(harness, forum.id)
    }
    assert by_thread == {one, two}


async def test_leave_in_one_topic_leaves_the_other_topics_table_alone(
    harness: Harness,
) -> None:
    fake = harness.fake
    alice, bob, carol = await players(harness, "Alice", "Bob", "Carol")
    forum = fake.forum("Cards")
    one, two = fake.create_topic(forum, "One"), fake.create_topic(forum, "Two")
    first = await topic_table(harness, forum, one, alice, bob, started=False)
    second = await topic_table(harness, forum, two, carol, bob, started=False)
    await command_in(harness, bob, forum, one, "/leave")
    assert (await harness.kol.manager.get(first.session_id)).seat_of(bob.id) is None
    assert (await harness.kol.manager.get(second.session_id)).seat_of(bob.id) == 1
    # /cancel in topic two cancels that table only
    await command_in(harness, carol, forum, two, "/cancel")
    assert (await harness.kol.manager.get(second.session_id)).status == "cancelled"
    assert (await harness.kol.manager.get(first.session_id)).status == "lobby"
    # and /join in topic one seats at topic one's table
    await command_in(harness, carol, forum, one, "/join")
    assert (await harness.kol.manager.get(first.session_id)).seat_of(carol.id) == 1


async def test_a_closed_topic_pauses_its_table_and_a_reopened_one_resumes_it(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards", admins=(alice,))
    thread = fake.create_topic(forum, "Eleven", by=alice)
    table = await topic_table(harness, forum, thread, alice, bob, game="eleven")
    with caplog.at_level(logging.WARNING):
        fake.close_topic(forum, thread, by=alice)
        await harness.settle()
    session = await harness.kol.manager.get(table.session_id)
    assert session.paused and session.deadline is None
    warned = [r for r in caplog.records if "closed" in r.getMessage()]
    assert len(warned) == 1
    for user in (alice, bob):
        told = fake.last_message(user.id, containing="waits")
        assert told is not None and told.thread is None
    # a move while the table waits is refused and changes nothing
    mover, hand = mover_hand(harness, table, session)
    text = await pop_up(harness, mover, fake.private(mover), hand.message_id, moves(hand)[0])
    assert "closed" in text
    assert (await harness.kol.manager.get(table.session_id)).version == session.version
    # reopened: the table goes on, and the move is taken
    fake.reopen_topic(forum, thread, by=alice)
    await harness.settle()
    going = await harness.kol.manager.get(table.session_id)
    assert not going.paused
    assert fake.last_message(bob.id, containing="goes on") is not None
    reopened = fake.last_message(mover.id, containing="🃏")
    assert reopened is not None
    assert await pop_up(harness, mover, fake.private(mover), reopened.message_id,
                        moves(reopened)[0]) == ""
    assert (await harness.kol.manager.get(table.session_id)).version > going.version


async def test_a_topic_closed_unseen_pauses_on_the_refusal_and_a_send_resumes_it(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards", admins=(alice,))
    thread = fake.create_topic(forum, "Eleven")
    table = await topic_table(harness, forum, thread, alice, bob, game="eleven")
    fake.topics[(forum.id, thread)].closed = True  # its service message never came
    session = await harness.kol.manager.get(table.session_id)
    mover, hand = mover_hand(harness, table, session)
    with caplog.at_level(logging.WARNING):
        await pop_up(harness, mover, fake.private(mover), hand.message_id, moves(hand)[0])
    refused = [c for c in fake.calls if c.error == TOPIC_CLOSED]
    assert refused and not any(c.method == "sendMessage" and c.error for c in refused[1:])
    assert (await harness.kol.manager.get(table.session_id)).paused
    assert len([r for r in caplog.records if "closed" in r.getMessage()]) == 1
    # the topic opens again (unseen too); the table's next send goes through and resumes
    fake.topics[(forum.id, thread)].closed = False
    await command_in(harness, alice, forum, thread, "/table")
    assert not (await harness.kol.manager.get(table.session_id)).paused


async def test_a_deleted_topic_cancels_its_table_and_keeps_the_match(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards", admins=(alice,))
    thread = fake.create_topic(forum, "Eleven")
    table = await topic_table(harness, forum, thread, alice, bob, game="eleven")
    fake.delete_topic(forum, thread)
    session = await harness.kol.manager.get(table.session_id)
    mover, hand = mover_hand(harness, table, session)
    with caplog.at_level(logging.WARNING):
        await pop_up(harness, mover, fake.private(mover), hand.message_id, moves(hand)[0])
    ended = await harness.kol.manager.get(table.session_id)
    assert ended.status == "cancelled" and ended.topic_state == "gone"
    assert any(c.error == THREAD_NOT_FOUND for c in fake.calls)
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1
    assert fake.last_message(alice.id, containing="deleted") is not None
    # the group may open a table again in General, and /history keeps the match
    await command_in(harness, alice, forum, 0, "/history")
    history = fake.last_message(forum.id, containing="📜")
    assert history is not None and history.thread is None
    assert any(b.get("callback_data", "").endswith(str(table.session_id))
               for b in history.buttons())


class _DeletedTopic:
    """Stands in for PTB's Bot in a forum whose topic was deleted: every send there is
    refused as Telegram refuses it."""

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Any:
        raise BadRequest(THREAD_NOT_FOUND)


class _NoMessages:
    """A message store that holds no message yet (the table is posted anew)."""

    async def stored(self, session_id: int, purpose: str) -> None:
        return None


async def test_delivery_is_flushed_only_once_a_deleted_topic_has_been_told_of() -> None:
    """The send that finds a topic deleted lets its message go at once, but what the
    bot does about it (cancelling the table, telling its players) still runs: flushing
    delivery (a test's settling, the bot going down) waits until that is done too."""
    clock = FakeClock()
    limiter = FloodLimiter(Limits.off(), clock=clock)
    delivery = Delivery(_DeletedTopic(), limiter, _NoMessages(), clock=clock)  # type: ignore[arg-type]
    told: list[tuple[int, int, str]] = []

    async def cancel_the_table(chat_id: int, thread: int, state: str) -> None:
        await clock.sleep(5.0)  # its commit, on a loaded machine
        told.append((chat_id, thread, state))

    delivery.subscribe_topics(cancel_the_table)
    delivery.show(1, TABLE, -100, screen("the table"), 3, thread=7, table=True)
    await clock.run(delivery.flush())
    assert told == [(-100, 7, "gone")]
    assert delivery.slots == 0  # the message is let go


async def test_score_top_and_history_answer_in_the_topic_they_were_asked_in(
    harness: Harness,
) -> None:
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards")
    one, two = fake.create_topic(forum, "One"), fake.create_topic(forum, "Two")
    table = await topic_table(harness, forum, one, alice, bob)
    await play_out(harness, table.session_id, table.users)
    for command in ("/score", "/top", "/history"):
        await command_in(harness, bob, forum, two, command)
        answer = posts_in(harness, forum.id)[-1]
        assert answer.params.get("message_thread_id") == two, command
        assert "Alice" in str(answer.result["text"]) or "Bob" in str(answer.result["text"])


async def test_the_fake_refuses_sends_telegram_refuses(harness: Harness) -> None:
    fake, bot = harness.fake, harness.app.bot
    plain, forum = fake.group(), fake.forum()
    thread = (await bot.create_forum_topic(forum.id, "T")).message_thread_id
    for chat_id, bad in ((forum.id, 1), (plain.id, thread), (forum.id, thread + 99)):
        with pytest.raises(BadRequest, match="thread not found"):
            await bot.send_message(chat_id, "x", message_thread_id=bad)
    sent = await bot.send_message(forum.id, "in the topic", message_thread_id=thread)
    assert sent.is_topic_message and sent.message_thread_id == thread
    assert sent.chat.is_forum
    general = await bot.send_message(forum.id, "in General")
    assert general.message_thread_id is None and not general.is_topic_message
    await bot.close_forum_topic(forum.id, thread)
    with pytest.raises(BadRequest, match="Topic_closed"):
        await bot.send_message(forum.id, "x", message_thread_id=thread)
    with pytest.raises(BadRequest, match="Topic_closed"):
        await bot.edit_message_text("y", forum.id, sent.message_id)
    await bot.reopen_forum_topic(forum.id, thread)
    await bot.delete_forum_topic(forum.id, thread)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("y", forum.id, sent.message_id)
    with pytest.raises(BadRequest, match="not a forum"):
        await bot.create_forum_topic(plain.id, "T")

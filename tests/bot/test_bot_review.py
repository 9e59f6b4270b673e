"""📈 Review after a deal through the bot: the button on a player's 📜 record, players
only, one review per user at a time, a doubled press starting nothing, the answer
kept for the next press (no new search), English and Russian."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import updates
from games.cards import display
from sessions import Session
from tests.support.computers import Reviewing
from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness, start_harness
from tests.support.tables import Table, duel_with_computer, labels, moves, open_table, pop_up
from tests.support.topics import players, topic_table

CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


@pytest.fixture
async def reviewing(fake: FakeTelegram, db_dir: Path) -> AsyncIterator[tuple[Harness, Reviewing]]:
    """The bot with the counting reviewer."""
    computer = Reviewing()
    running = await start_harness(fake, db_dir / "koloda.sqlite3", computer)
    yield running, computer
    computer.gate.set()  # a failed test must not leave a review held
    await running.stop()


async def play_deals(harness: Harness, session_id: int, users: list[FakeUser], deals: int) -> None:
    """Press the first move of whoever is to move until ``deals`` deals are over."""
    for _ in range(400):
        session = await harness.kol.manager.get(session_id)
        if session.status != "running" or session.view(None)["deal_no"] >= deals:
            return
        seat = session.to_move
        assert seat is not None
        [user] = [u for u in users if u.id == session.seats[seat].user_id]
        hand = harness.fake.last_message(user.id, containing="🃏")
        assert hand is not None
        await harness.press(user, hand, moves(hand)[0])
    raise AssertionError("the deals did not end")


def ephemerals(harness: Harness, table: Table, user: FakeUser, containing: str) -> list[
    StoredMessage
]:
    return [m for m in harness.fake.chat_messages(table.group.id, ephemeral=True)
            if m.ephemeral_for == user.id and containing in m.text]


async def test_review_in_a_group_players_only_one_at_a_time_and_kept(
    reviewing: tuple[Harness, Reviewing],
) -> None:
    harness, computer = reviewing
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)
    sid = table.session_id
    # to 10 points: a deal brings at most 5, so the match has two deals at least
    await pop_up(harness, table.alice, table.group, table.message.message_id,
                 f"opt:{sid}:target:10")
    await harness.press(table.alice, table.message, f"back:{sid}")
    await harness.press(table.alice, table.message, f"start:{sid}")
    await harness.settle()
    assert (await harness.kol.manager.get(sid)).options["target"] == 10
    await play_deals(harness, sid, [table.alice, table.bob], 2)
    carol = fake.user("Carol")
    message_id = table.message.message_id

    # a non-player sees the record without the button, and a forged press is refused
    await harness.press(carol, table.message, "📜 Deal")
    [foreign] = ephemerals(harness, table, carol, "📜 Deal")
    assert "📈 Review" not in labels(foreign)
    text = await pop_up(harness, carol, table.group, message_id, f"review:{sid}:0")
    assert text == "📈 Only the players of that deal can review it."
    for forged in (f"review:{sid}:5", f"review:{sid}:x"):
        text = await pop_up(harness, table.bob, table.group, message_id, forged)
        assert text == "That deal is not finished yet."
    assert computer.calls == 0

    await harness.press(table.bob, table.message, "📜 Deal")  # the last finished deal's
    [record] = ephemerals(harness, table, table.bob, "📜 Deal")
    assert "📈 Review" in labels(record)
    [data] = [b["callback_data"] for b in record.buttons() if b["text"] == "📈 Review"]
    assert len(data.encode()) <= 64
    deal = int(data.rsplit(":", 1)[1])
    _, finished = await harness.kol.manager.deal_records(sid, None)
    other = next(n for n in range(len(finished)) if n != deal)  # another finished deal

    computer.gate.clear()  # the review runs until the gate opens
    answer = await fake.answer(fake.push_press(table.bob, record, "📈 Review"))
    assert answer.params["text"].startswith(f"📈 Reviewing your decisions in deal {deal + 1}")
    await computer.calls_reach(1)
    # pressed again: nothing new starts
    answer = await fake.answer(fake.push_press(table.bob, record, "📈 Review"))
    assert answer.params["text"] == "📈 Still reviewing that deal — a moment, please."
    # another deal of his while this one runs: refused
    query = fake.push_callback(table.bob, table.group, message_id, f"review:{sid}:{other}")
    text = (await fake.answer(query)).params["text"]
    assert text == "📈 Already reviewing another deal of yours — wait for that one first."
    await asyncio.sleep(0.05)
    assert computer.calls == 1  # held at the gate: one review, one step so far
    computer.gate.set()
    await harness.settle()
    [shown] = ephemerals(harness, table, table.bob, "📈 Review of deal")
    assert f"📈 Review of deal {deal + 1} — Eleven, Bob" in shown.text
    decided = re.search(r"(\d+) decisions? looked at from your own view", shown.text)
    assert decided is not None and computer.calls == int(decided[1])
    assert "A mistake costs at least 0.5 points, a blunder 1.5" in shown.text
    # it names none of the others' cards: only cards Bob held (dealt or drawn; in Eleven
    # every card he held, he played), as the record shows them
    session, records = await harness.kol.manager.deal_records(sid, None)
    bob = session.seat_of(table.bob.id)
    assert bob is not None
    held = [*records[deal].hands[bob], *(t.action for t in records[deal].turns if t.seat == bob)]
    own = {display(card, "en") for card in held}
    assert set(CARD.findall(shown.text)) <= own

    # pressed again once done: the kept answer, no new search
    calls = computer.calls
    await harness.press(table.bob, record, "📈 Review")
    again = ephemerals(harness, table, table.bob, "📈 Review of deal")
    assert len(again) == 2 and again[1].text == shown.text
    assert computer.calls == calls
    # now the other deal may be reviewed (and Alice reviews her own seat)
    await pop_up(harness, table.bob, table.group, message_id, f"review:{sid}:{other}")
    await harness.settle()
    assert len(ephemerals(harness, table, table.bob, "📈 Review of deal")) == 3
    await pop_up(harness, table.alice, table.group, message_id, f"review:{sid}:{deal}")
    await harness.settle()
    [hers] = ephemerals(harness, table, table.alice, "📈 Review of deal")
    assert "Eleven, Alice" in hers.text


async def test_a_russian_duel_reviews_in_the_private_chat(
    reviewing: tuple[Harness, Reviewing],
) -> None:
    harness, _ = reviewing
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    await duel_with_computer(harness, vera, "eleven", "target:10")
    assert (await harness.kol.manager.get(1)).options["target"] == 10
    await play_deals(harness, 1, [vera], 1)
    hand = fake.last_message(vera.id, containing="🃏")
    assert hand is not None and "📜 Сдача" in labels(hand)
    await harness.press(vera, hand, "📜 Сдача")
    record = fake.last_message(vera.id, containing="📜 Сдача 1 — Одиннадцать")
    assert record is not None and "📈 Разбор" in labels(record)
    answer = await harness.press(vera, record, "📈 Разбор")
    assert answer.params["text"].startswith("📈 Разбираю ваши решения в сдаче 1")
    shown = fake.last_message(vera.id, containing="📈 Разбор сдачи 1 — Одиннадцать, Вера")
    assert shown is not None
    assert "Ошибка стоит не меньше 0,5 очков, грубая — 1,5" in shown.text
    assert re.search(r"Просмотрено \d+ решени", shown.text) or "Разбирать нечего" in shown.text
    session, records = await harness.kol.manager.deal_records(1, vera.id)
    seat = session.seat_of(vera.id)
    assert seat is not None
    held = [*records[0].hands[seat], *(t.action for t in records[0].turns if t.seat == seat)]
    own = {display(card, "ru") for card in held}
    assert set(re.findall(r"(?:10|[2-9ВДКТ])[♠♥♦♣]", shown.text)) <= own


async def test_a_kept_review_pressed_many_times_at_once_posts_once(
    reviewing: tuple[Harness, Reviewing],
) -> None:
    """Every ephemeral answer in a group spends one of the group's sends (about 20 a
    minute, shared with the table): a player hammering 📈 Review on a kept review must
    not queue a post per press, any more than 📜 Deal does."""
    harness, _ = reviewing
    fake = harness.fake
    table = await open_table(harness, "eleven")
    sid = table.session_id
    await play_deals(harness, sid, [table.alice, table.bob], 1)
    message_id = table.message.message_id
    await pop_up(harness, table.bob, table.group, message_id, f"review:{sid}:0")
    await harness.settle()
    assert len(ephemerals(harness, table, table.bob, "📈 Review of deal")) == 1

    held = fake.gates["sendMessage"] = asyncio.Event()  # the group's sends wait
    queries = [fake.push_callback(table.bob, table.group, message_id, f"review:{sid}:0")
               for _ in range(20)]
    with contextlib.suppress(TimeoutError):  # a press answered only once posted: counted below
        await fake.wait_until(
            lambda: sum(fake.answer_of(q) is not None for q in queries) >= 19, timeout=5.0)
    held.set()
    await harness.settle()
    assert all(fake.answer_of(q) is not None for q in queries)  # every press answered
    assert len(ephemerals(harness, table, table.bob, "📈 Review of deal")) == 2


async def test_a_store_outage_during_a_review_press_does_not_hold_the_user_for_good(
    reviewing: tuple[Harness, Reviewing], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails once while a 📈 Review press is handled: the press is handled
    again once the store is back and the review comes — the user is not left
    "still reviewing" (and every other review of theirs refused) until a restart."""
    harness, computer = reviewing
    monkeypatch.setattr(updates, "RETRY_FIRST", 0.05)
    table = await open_table(harness, "eleven")
    sid = table.session_id
    await play_deals(harness, sid, [table.alice, table.bob], 1)
    manager = harness.kol.manager
    load = manager.get
    calls: list[int] = []
    failures = [sqlite3.OperationalError("database is locked")]

    async def flaky(session_id: int) -> Session:
        calls.append(session_id)
        if len(calls) == 2 and failures:  # the press's second look at the table
            raise failures.pop()
        return await load(session_id)

    monkeypatch.setattr(manager, "get", flaky)
    harness.fake.push_callback(table.bob, table.group, table.message.message_id,
                               f"review:{sid}:0")
    await harness.settle()
    assert not failures  # the store did fail once
    assert ephemerals(harness, table, table.bob, "📈 Review of deal")
    assert computer.calls > 0


async def test_a_review_asked_in_a_forum_topic_is_answered_in_that_topic(
    reviewing: tuple[Harness, Reviewing],
) -> None:
    """📈 Review pressed on the ephemeral 📜 record in a forum topic (a press on an
    ephemeral message carries no chat) is answered in the table's topic, where it was
    asked — not in the General topic, where the player does not look."""
    harness, _ = reviewing
    fake = harness.fake
    alice, bob = await players(harness, "Alice", "Bob")
    forum = fake.forum("Cards", admins=(alice,))
    thread = fake.create_topic(forum, "Eleven", by=alice)
    table = await topic_table(harness, forum, thread, alice, bob, game="eleven")
    await play_deals(harness, table.session_id, [alice, bob], 1)
    shown = fake.messages[(forum.id, table.message.message_id)]
    await harness.press(bob, shown, "📜 Deal")
    [record] = [m for m in fake.chat_messages(forum.id, ephemeral=True)
                if m.ephemeral_for == bob.id and "📜 Deal" in m.text]
    assert record.thread == thread
    for _ in range(2):  # a new review, then the kept one
        await harness.press(bob, record, "📈 Review")
    answers = [m for m in fake.chat_messages(forum.id, ephemeral=True)
               if m.ephemeral_for == bob.id and "📈 Review of deal" in m.text]
    assert [m.thread for m in answers] == [thread, thread]

"""⚖️ Compare a daily deal through the bot: the button beside 📈 Review on the player's
📜 record once their daily play is over, the comparison with the day's best other
player and the computer in the private chat, a doubled press running once, a review
refused while it runs, the kept review reused, a non-player refused, no card the
viewer has not seen, English and Russian."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from games.ai.review import decision_points
from games.cards import display
from sessions import Session
from tests.support.computers import Reviewing
from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness, start_harness
from tests.support.tables import labels, pop_up

CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")
#: The day's seed: fixed, so the deal is the same on every run.
SEED = 7


@pytest.fixture
async def reviewing(fake: FakeTelegram, db_dir: Path) -> AsyncIterator[tuple[Harness, Reviewing]]:
    """The bot with the counting reviewer, today's Eleven deal dealt from :data:`SEED`."""
    computer = Reviewing()
    running = await start_harness(fake, db_dir / "koloda.sqlite3", computer)
    manager = running.kol.manager
    await manager.store.daily_seed(manager.daily.today(), "eleven", SEED)
    yield running, computer
    computer.gate.set()  # a failed test must not leave a compare held
    await running.stop()


async def play_daily(harness: Harness, user: FakeUser, different_at: int = 0) -> Session:
    """``user`` plays today's Eleven deal in their private chat: the first legal move at
    each decision, the last one at decision ``different_at``; each move drawn as the
    move button's handler does."""
    manager, private = harness.kol.manager, harness.fake.private(user).id
    await harness.command(user, private, "/start")
    await harness.command(user, private, "/daily eleven")
    (session,) = await manager.sessions_of_user(user.id)
    decided = 0
    for _ in range(2000):
        await manager.idle()
        session = await manager.get(session.id)
        if session.status != "running":
            await harness.settle()
            return session
        seat = session.seat_of(user.id)
        if session.to_move == seat and seat is not None:
            legal = session.view(seat)["legal"]
            decided += len(legal) > 1
            action = legal[-1] if len(legal) > 1 and decided == different_at else legal[0]
            outcome = await manager.act(session.id, user.id, session.version, action)
            await harness.kol.presenter.on_outcome(outcome)
    raise AssertionError("the daily deal never ended")


async def open_record(harness: Harness, user: FakeUser, containing: str) -> StoredMessage:
    """Press 📜 Deal on the finished daily table and return the record."""
    fake = harness.fake
    table = next(m for m in reversed(fake.chat_messages(fake.private(user).id))
                 if any(b.get("callback_data", "").startswith("deal:") for b in m.buttons()))
    [data] = [b["callback_data"] for b in table.buttons()
              if b.get("callback_data", "").startswith("deal:")]
    await harness.press(user, table, data)
    record = fake.last_message(user.id, containing=containing)
    assert record is not None
    return record


def seen_by(session: Session, records: list[Any], log: list[tuple[int, str]]) -> set[str]:
    """Every card the seat-0 player saw: their record and their own hand at each decision."""
    record = records[0]
    seen = {card for hand in record.hands for card in hand}
    seen |= {turn.action for turn in record.turns}
    for point in decision_points("eleven", 2, session.options, SEED, log, 0, 0):
        seen |= set(point.view["hand"])
    return {display(card, "en") for card in seen if len(card) == 2}


async def test_compare_after_the_daily_deal(reviewing: tuple[Harness, Reviewing]) -> None:
    harness, computer = reviewing
    fake = harness.fake
    ann, bob, carol = fake.user("Ann"), fake.user("Bob"), fake.user("Carol")
    await play_daily(harness, bob, different_at=3)
    session = await play_daily(harness, ann)
    sid = session.id

    record = await open_record(harness, ann, "📜 Deal 1 — Eleven")
    assert labels(record)[-2:] == ["📈 Review", "⚖️ Compare"]
    [data] = [b["callback_data"] for b in record.buttons() if b["text"] == "⚖️ Compare"]
    assert data == f"cmp:{sid}:0" and len(data.encode()) <= 64

    # someone else's deal, and a deal that is not there: refused, nothing searched
    text = await pop_up(harness, carol, fake.private(carol), None, data)
    assert text == "⚖️ Only the player of that daily deal can compare it."
    text = await pop_up(harness, ann, fake.private(ann), record.message_id, f"cmp:{sid}:3")
    assert text == "That deal is not finished yet."
    assert computer.calls == 0

    computer.gate.clear()  # the compare runs until the gate opens
    answer = await fake.answer(fake.push_press(ann, record, "⚖️ Compare"))
    assert answer.params["text"].startswith("⚖️ Comparing your deal 1 with the others'")
    await computer.calls_reach(1)
    answer = await fake.answer(fake.push_press(ann, record, "⚖️ Compare"))  # doubled
    assert answer.params["text"] == "⚖️ Still comparing that deal — a moment, please."
    answer = await fake.answer(fake.push_press(ann, record, "📈 Review"))
    assert answer.params["text"] == (
        "⚖️ A review or comparison of yours is still running — wait for it first."
    )
    await asyncio.sleep(0.05)
    assert computer.calls == 1  # held at the gate: one search, one step so far
    computer.gate.set()
    await harness.settle()

    shown = fake.chat_messages(fake.private(ann).id)
    [compared] = [m for m in shown if "⚖️ Deal 1 — Eleven" in m.text]
    text = compared.text
    assert "⚖️ Deal 1 — Eleven: you, Bob and the strong computer" in text
    assert "Decisions are matched by number" in text
    # Bob's other choice at decision 3 (the same position as Ann's), where the computer
    # disagreed with Ann though Bob did not, and runs where all three agreed
    third = re.search(r"• Decision 3 \(trick 3\) — you: (\S+) · Bob: (\S+) · 🤖: \S+", text)
    assert third is not None and third[1] != third[2]
    assert re.search(r"you: (\S+) · Bob: \1 · 🤖: (?!\1\n)\S+\n", text)
    assert re.search(r"• Decisions \d+–\d+: the same choices", text)
    decisions = len(decision_points(
        "eleven", 2, session.options, SEED,
        [(m.seat, m.action) for m in await harness.kol.manager.replay_log(sid)], 0, 0,
    ))
    assert computer.calls == decisions
    # no card Ann has not seen
    log = [(m.seat, m.action) for m in await harness.kol.manager.replay_log(sid)]
    _, records = await harness.kol.manager.deal_records(sid, ann.id)
    assert set(CARD.findall(text)) <= seen_by(session, records, log)

    # pressed again once done: the kept review, no new search (the same answer within
    # seconds is not posted twice); 📈 Review is kept too
    answer = await harness.press(ann, record, "⚖️ Compare")
    assert not answer.params.get("text")
    await harness.press(ann, record, "📈 Review")
    assert fake.last_message(ann.id, containing="📈 Review of deal 1 — Eleven") is not None
    assert computer.calls == decisions


async def test_alone_in_russian_and_not_before_the_play_is_over(
    reviewing: tuple[Harness, Reviewing],
) -> None:
    harness, _ = reviewing
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    private = fake.private(vera)
    await harness.command(vera, private.id, "/start")
    await harness.command(vera, private.id, "/daily eleven")
    (session,) = await harness.kol.manager.sessions_of_user(vera.id)
    text = await pop_up(harness, vera, private, None, f"cmp:{session.id}:0")
    assert text == "Эта сдача ещё не закончена."
    await play_daily(harness, vera)
    record = await open_record(harness, vera, "📜 Сдача 1 — Одиннадцать")
    assert "⚖️ Сравнить" in labels(record)
    answer = await harness.press(vera, record, "⚖️ Сравнить")
    assert answer.params["text"].startswith("⚖️ Сравниваю вашу сдачу 1")
    shown = fake.last_message(vera.id, containing="⚖️ Сдача 1 — Одиннадцать: вы и сильный")
    assert shown is not None
    assert "Эту сдачу ещё никто, кроме вас, не сыграл" in shown.text
    assert re.search(r"• Решени[ея] \d", shown.text)

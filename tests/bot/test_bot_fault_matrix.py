"""The fault matrix: one whole King match while Telegram misbehaves on every method.

Two humans (Ann reads her private hand message, Ben presses "🃏 My hand" for
an ephemeral one) and two computers play a King match. Before each of the
first 40 human presses the fake Bot API is told to misbehave once on the next
call of one method, in turn: answer 5xx, hang up without carrying it out (a
dropped connection), carry it out and hang up before answering (the answer
lost), or answer late. The methods are every one the bot uses during a
match: ``sendMessage`` (the ephemeral hands), ``editMessageText`` (table and
private hands), ``editEphemeralMessageText``, ``answerCallbackQuery`` and
``getUpdates``; ``setMyCommands`` fails at start-up.

At the end: the match is finished, every press is in the move log exactly
once and in order, every press was answered without a pop-up, every message
shows the final state, the players never had to ask for their hand again, no
delivery was given up, and the log has no ERROR line.
"""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import pytest

from bot.delivery import Retries
from tests.support.buttons import MOVE
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness, start_harness

METHODS = (
    "editMessageText",
    "answerCallbackQuery",
    "getUpdates",
    "editEphemeralMessageText",
    "sendMessage",
)
FAULTS = ("5xx", "drop", "lost-reply", "slow")
#: Seconds a "slow" call is held before Telegram answers it.
LATENCY = 0.2
#: Presses that come with a fault (two rounds of every method and fault); the rest
#: of the match is played without, and must end as well.
FAULTY_PRESSES = 2 * len(METHODS) * len(FAULTS)

pytestmark = pytest.mark.slow


def inject(fake: FakeTelegram, method: str, fault: str) -> None:
    """Make the next call of ``method`` fail with ``fault`` (one fault at a time: one not
    yet met is not doubled)."""
    if fake.pending_faults(method) or method in fake.gates:
        return
    if fault == "5xx":
        fake.fail_next(method, 500, "Internal Server Error")
    elif fault in ("drop", "lost-reply"):
        fake.drop_next(method, applied=fault == "lost-reply")
    else:
        gate = fake.gates[method] = asyncio.Event()

        def release() -> None:
            gate.set()
            if fake.gates.get(method) is gate:
                del fake.gates[method]

        asyncio.get_running_loop().call_later(LATENCY, release)


def moves_at(message: StoredMessage, version: int) -> list[str]:
    """The move buttons of ``message`` drawn for ``version``."""
    found = []
    for button in message.buttons():
        match = MOVE.match(button.get("callback_data") or "")
        if match and int(match[2]) == version:
            found.append(match[0])
    return found


def reading(
    fake: FakeTelegram, user: FakeUser, group_id: int, private: bool
) -> StoredMessage | None:
    """The hand message the user reads: their newest ephemeral one in the group if they
    have one and were not sent to their private chat, else the one there."""
    mine = [m for m in fake.chat_messages(group_id, ephemeral=True) if m.ephemeral_for == user.id]
    return mine[-1] if mine and not private else fake.last_message(user.id, containing="🃏")


def current(
    fake: FakeTelegram, user: FakeUser, group_id: int, version: int, private: bool = False
) -> tuple[StoredMessage, list[str]] | None:
    """The user's hand message and its buttons, if it shows ``version``."""
    message = reading(fake, user, group_id, private)
    found = moves_at(message, version) if message is not None else []
    return (message, found) if message is not None and found else None


async def hand_shows(
    fake: FakeTelegram, user: FakeUser, group_id: int, version: int, private: bool,
    timeout: float,
) -> bool:
    """Wait until the user's hand message shows ``version``; False if it does not."""

    def showing() -> bool:
        return current(fake, user, group_id, version, private) is not None

    try:
        await fake.wait_until(showing, timeout=timeout)
    except TimeoutError:
        return False
    return True


async def open_king(harness: Harness, ann: FakeUser, ben: FakeUser) -> StoredMessage:
    """Ann opens King (the short programme), Ben joins, two computers sit; dealt."""
    fake = harness.fake
    group = fake.group("Faults")
    for user in (ann, ben):
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(ann, group.id, "/new king")
    table = fake.last_message(group.id)
    assert table is not None
    await harness.press(ben, table, "join:1")
    for _ in range(2):
        await harness.press(ann, table, "comps:1")
        await harness.press(ann, table, "comp:1:easy")
    for data in ("sets:1", "opt:1:positive:lottery", "back:1", "start:1"):
        answer = await fake.answer(fake.push_callback(ann, group, table.message_id, data))
        assert not answer.params.get("text"), answer.params
        await harness.settle()
    return table


async def test_a_king_match_survives_faults_on_every_method(
    db_dir: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING)
    fake = FakeTelegram()
    await fake.start()
    fake.fail_next("setMyCommands", 500, "Internal Server Error")
    harness = await start_harness(fake, db_dir / "faults.sqlite3", RandomComputer())
    harness.kol.delivery.retries = Retries(pause=0.05)  # the same retries, sooner
    rng = random.Random(15)
    try:
        ann, ben = fake.user("Ann"), fake.user("Ben")
        table = await open_king(harness, ann, ben)
        group = fake.chats[table.chat_id]
        manager = harness.kol.manager
        users = {ann.id: ann, ben.id: ben}
        presses: list[tuple[int, str]] = []
        queries: list[str] = []
        asked_again = 0
        sent_private = False  # Ben reads his private chat, not an ephemeral hand
        injected: set[tuple[str, str]] = set()
        while True:
            await manager.idle()
            session = await manager.get(1)
            if session.status != "running":
                break
            seat = session.to_move
            assert seat is not None
            user_id = session.seats[seat].user_id
            if user_id is None:  # a computer is about to move
                await asyncio.sleep(0.01)
                continue
            user, version = users[user_id], session.version
            faulty = len(presses) < FAULTY_PRESSES
            method = METHODS[len(presses) % len(METHODS)]
            fault = FAULTS[len(presses) // len(METHODS) % len(FAULTS)]
            wants_new = user is ben and method == "sendMessage"
            private = user is ann or sent_private
            if not await hand_shows(fake, user, group.id, version, private, timeout=5):
                wants_new = True  # a delivery lost for good: the player asks again
                asked_again += 1
            if wants_new and faulty:
                inject(fake, method, fault)
                injected.add((method, fault))
            if wants_new:
                if user is ben:  # an answer with a link sends him to his private chat
                    answer = await harness.press(ben, table, "🃏 My hand")
                    sent_private = bool(answer.params.get("url"))
                else:
                    await harness.command(ann, ann.id, "/hand")
                private = user is ann or sent_private
                assert await hand_shows(fake, user, group.id, version, private, timeout=10)
            found = current(fake, user, group.id, version, private)
            assert found is not None
            message, buttons = found
            data = rng.choice(buttons)
            if faulty and not wants_new:
                inject(fake, method, fault)
                injected.add((method, fault))
            chat = group if message.ephemeral_for is not None else fake.private(user)
            queries.append(fake.push_callback(user, chat, message.message_id, data))
            presses.append((seat, data.split(":", 2)[2]))
            await fake.wait_until(lambda: fake.answer_of(queries[-1]) is not None, timeout=20)
            await fake.wait_until(lambda: fake.undelivered() == 0, timeout=20)
        fake.gates.clear()
        await harness.settle(timeout=60)

        session = await manager.get(1)
        assert session.status == "finished"
        assert {(m, f) for m in METHODS for f in FAULTS} <= injected | {
            ("sendMessage", f) for f in FAULTS  # only when Ben asked for his hand anew
        }
        # every press once, in order, and nothing else by a human
        log = await manager.replay_log(1)
        assert [(r.seat, r.action) for r in log if not r.by_computer] == presses
        assert len(log) == session.moves
        for query in queries:
            answer = fake.answer_of(query)
            assert answer is not None and not answer.params.get("text"), answer
        assert asked_again == 0  # no hand message was lost for good
        # one fault at a time is absorbed by the retries: no delivery was given up
        assert not [r.getMessage() for r in caplog.records if "delivering" in r.getMessage()]
        # every message shows the final state
        presenter = harness.kol.presenter
        lang = await presenter.chat_language(group.id)
        final = presenter.table_screen(session, lang)
        assert table.text == final.text and "🏆" in table.text
        for ref in await harness.kol.messages.of(1):
            if ref.purpose.startswith("hand:") and ref.message_id:
                assert ref.chat_id is not None  # a hand is a private chat's message
                shown = fake.messages[(ref.chat_id, ref.message_id)]
                seat = int(ref.purpose.split(":")[1])
                user_lang = await presenter.user_language(ref.chat_id)
                assert shown.text == presenter.private_screen(session, seat, user_lang).text
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [
            r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR
        ]
        assert any("could not register the command list" in r.getMessage()
                   for r in caplog.records)
    finally:
        fake.gates.clear()
        await harness.stop()
        await fake.stop()

"""Turn timers through the real bot: an absent player's turn expires, a computer moves
for them, the table is re-rendered in place, and the third timeout in a row hands
the seat to the computer — which the table then shows."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import bot.app
from bot.i18n import t
from sessions import Computer, Session, SessionManager
from sessions.timers import Clock
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness, start_harness
from tests.support.helpers_sessions import FakeClock
from tests.support.tables import button_for, move_actions

MINUTE = 60


@pytest.fixture
def clock() -> FakeClock:
    """The bot's wall clock, moved by the test."""
    return FakeClock()


@pytest.fixture
async def timed(
    fake: FakeTelegram, db_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Harness]:
    """The bot against the fake server, its session manager reading ``clock``."""
    test_clock = clock

    class ClockedManager(SessionManager):
        """The session manager the bot opens at start-up, reading the test's clock."""

        @classmethod
        async def open(
            cls,
            url: str,
            computer: Computer,
            clock: Clock = time.time,
            cache_size: int = 1024,
            **options: Any,
        ) -> SessionManager:
            return await super().open(url, computer, test_clock, cache_size, **options)

    monkeypatch.setattr(bot.app, "SessionManager", ClockedManager)
    running = await start_harness(fake, db_dir / "timers.sqlite3", RandomComputer())
    yield running
    await running.stop()


async def timed_eleven(harness: Harness) -> tuple[FakeUser, FakeUser, StoredMessage]:
    """Alice and Bob at an Eleven table with a one-minute turn timer, dealt."""
    fake = harness.fake
    alice, bob = fake.user("Alice"), fake.user("Bob")
    _, table = await harness.open_lobby("eleven", (alice, bob), "Timers")
    await harness.press(bob, table, "join:1")
    await harness.press(alice, table, "sets:1")
    await harness.press(alice, table, f"timer:1:{MINUTE}")
    assert f"{t('en', 'option-timer')}: <b>{t('en', 'timer-60')}</b>" in table.text
    await harness.press(alice, table, "back:1")
    await harness.press(alice, table, "start:1")
    assert t("en", "timer-line", timer=t("en", "timer-60")) in table.text
    return alice, bob, table


async def let_time_run_out(harness: Harness, clock: FakeClock) -> Session:
    """A minute passes with nobody moving; returns the session afterwards."""
    clock.advance(MINUTE)
    assert harness.kol.manager.fire_due_timers() == 1
    await harness.settle()
    return await harness.kol.manager.get(1)


def seat_line(table: StoredMessage, seat: int) -> str:
    """The table's line for ``seat`` (seats follow the header and one blank line)."""
    lines = table.text.splitlines()
    return lines[lines.index("") + 1 + seat]


async def bob_moves(harness: Harness, bob: FakeUser) -> None:
    """Bob, who is present, plays his first legal card."""
    hand = harness.fake.last_message(bob.id, containing="🃏")
    assert hand is not None
    answer = await harness.press(bob, hand, button_for(hand, move_actions(hand)[0]))
    assert not answer.params.get("text"), answer.params


async def test_a_turn_that_runs_out_is_played_by_the_computer(
    timed: Harness, clock: FakeClock
) -> None:
    alice, bob, table = await timed_eleven(timed)
    session = await timed.kol.manager.get(1)
    seat = session.to_move
    assert seat is not None
    late = alice if session.seats[seat].user_id == alice.id else bob
    hand = timed.fake.last_message(late.id, containing="🃏")
    assert hand is not None and move_actions(hand)
    version, edits, text = session.version, table.edits, table.text

    clock.advance(MINUTE - 1)
    assert timed.kol.manager.fire_due_timers() == 0  # not yet
    after = await let_time_run_out(timed, clock)

    assert after.moves == 1 and after.version > version
    assert after.seats[seat].timeouts == 1
    assert after.seats[seat].user_id == late.id, "one timeout does not take the seat"
    (move,) = await timed.kol.manager.replay_log(1)
    assert move.by_computer and move.seat == seat
    # the table was edited in place to show the computer's card and the next turn
    assert timed.fake.chat_messages(table.chat_id) == [table]
    assert table.edits > edits and table.text != text
    # the late player's hand lost the card the computer played for them
    assert all(
        b["callback_data"].split(":")[1] != str(version)
        for b in hand.buttons()
        if b.get("callback_data")
    )
    assert after.game is not None and len(after.game.view(seat)["hand"]) == 5


async def test_three_timeouts_in_a_row_hand_the_seat_to_the_computer(
    timed: Harness, clock: FakeClock
) -> None:
    alice, bob, table = await timed_eleven(timed)
    session = await timed.kol.manager.get(1)
    gone = next(i for i, p in enumerate(session.seats) if p.user_id == alice.id)
    hand = timed.fake.last_message(alice.id, containing="🃏")
    assert hand is not None
    counts: list[int] = []
    last_buttons: list[str] = []
    while session.seats[gone].user_id == alice.id:
        assert session.status == "running"
        if session.to_move == gone:
            last_buttons = [b["callback_data"] for b in hand.buttons()]
            session = await let_time_run_out(timed, clock)
            counts.append(session.seats[gone].timeouts)
        else:
            await bob_moves(timed, bob)
            session = await timed.kol.manager.get(1)
    assert counts == [1, 2, 0], "handed over on the third timeout in a row, not before"
    assert session.seats[gone].is_computer
    # the table shows the seat as the computer's, playing for Alice (as after /leave)
    line = seat_line(table, gone)
    assert line.strip().startswith(t("en", "computer-for", name="Alice")), table.text
    # the computer now plays Alice's seat by itself: the turn is Bob's (or the deal is over)
    assert session.to_move != gone
    # Alice's hand message no longer claims it is her move: it says what happened
    assert hand.text == t("en", "seat-released-timeouts", game="Eleven"), hand.text
    assert [b["callback_data"] for b in hand.buttons()] == ["back2:1"]  # take the seat back
    # a button she still had (from before the last edit) does nothing
    answer = await timed.fake.answer(
        timed.fake.push_callback(
            alice, timed.fake.chats[alice.id], hand.message_id, last_buttons[0]
        )
    )
    assert answer.params.get("text") == t("en", "refusal-not_a_player")
    assert timed.fake.chat_messages(table.chat_id) == [table]


async def test_the_timer_moves_for_a_player_who_blocked_the_bot(
    timed: Harness, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    fake = timed.fake
    alice, bob, table = await timed_eleven(timed)
    session = await timed.kol.manager.get(1)
    assert session.to_move is not None
    absent = alice if session.seats[session.to_move].user_id == alice.id else bob
    fake.started.discard(absent.id)  # they block the bot, and do not move
    after = await let_time_run_out(timed, clock)
    assert after.moves == 1 and after.to_move != session.to_move  # played for them
    assert not await timed.kol.prefs.reachable(absent.id)  # their hand's edit got 403
    refused = [c for c in fake.calls_of("editMessageText", absent.id) if not c.ok]
    assert len(refused) == 1
    lang = await timed.kol.presenter.chat_language(table.chat_id)
    assert table.text == timed.kol.presenter.table_screen(after, lang).text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

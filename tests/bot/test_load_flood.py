"""Under load: nothing lost to flood limits, and idle tables cost no memory.

Flood limits, nothing lost: a four-human King match at full speed.

The fake Bot API enforces Telegram-like limits on a compressed clock (20 sends
and edits per minute per group, one per second per private chat in bursts of
up to three, 429 with ``retry_after`` beyond). The bot paces itself as in
production, scaled to the same clock. Telegram also answers 429 when it likes,
whatever the pacing: the fake does so for edits and sends twice during the
match, and the bot must wait those out and retry. The players press as soon as
their hand message shows move buttons. At the end every press must have been
applied, and every message must show the final state.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from telegram.error import Forbidden, RetryAfter

from bot.delivery import DEFER
from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.render.common import Screen, screen
from sessions import TABLE, hand_purpose
from tests.support.buttons import MOVE
from tests.support.computers import RandomComputer
from tests.support.fake_clock import FakeClock
from tests.support.fake_telegram import (
    MESSAGE_METHODS,
    FakeTelegram,
    FakeUser,
    FloodLimits,
    StoredMessage,
)
from tests.support.harness import Harness, start_harness
from tests.support.recording import Sent, recording_delivery

SCALE = 20.0  # three real seconds are one Telegram minute
pytestmark = pytest.mark.slow


def move_buttons(message: StoredMessage | None) -> list[tuple[int, str]]:
    """(version, data) of every move button on a message."""
    found = []
    for button in message.buttons() if message is not None else []:
        match = MOVE.match(button.get("callback_data") or "")
        if match:
            found.append((int(match[2]), match[0]))
    return found


async def open_match(
    harness: Harness, game: str, players: list[FakeUser], options: dict[str, Any]
) -> StoredMessage:
    """/start for everyone, /new in a group, the others join, options set, deal; the
    table message."""
    fake = harness.fake
    group = fake.group("Flood")
    for user in players:
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(players[0], group.id, f"/new {game}")
    table = fake.last_message(group.id)
    assert table is not None
    for user in players[1:]:
        await harness.press(user, table, "join:1")
    for name, value in options.items():
        await harness.kol.manager.set_option(1, players[0].id, name, value)
    await harness.press(players[0], table, "start:1")
    return table


async def hands(harness: Harness) -> dict[int, StoredMessage]:
    """Seat → the seat's private hand message, as the bot remembers it."""
    refs = await harness.kol.messages.of(1)
    return {
        int(ref.purpose.split(":")[1]): harness.fake.messages[(ref.chat_id, ref.message_id)]
        for ref in refs
        if ref.purpose.startswith("hand:") and ref.chat_id is not None and ref.message_id
    }


@pytest.mark.parametrize(
    ("game", "names", "options", "per_move"),
    [
        # the shorter programme: six negative deals and one lottery
        ("king", ("Ann", "Ben", "Cat", "Dan"), {"positive": "lottery"}, 2.0),
    ],
)
async def test_a_match_at_full_speed_under_flood_limits_loses_nothing(
    db_dir: Path,
    caplog: pytest.LogCaptureFixture,
    game: str,
    names: tuple[str, ...],
    options: dict[str, Any],
    per_move: float,
) -> None:
    caplog.set_level(logging.WARNING)
    fake = FakeTelegram(
        flood=FloodLimits(
            group_per_minute=20,
            private_per_second=1,
            private_burst=3,
            scale=SCALE,
            overall_per_second=30,
        )
    )
    await fake.start()
    limits = Limits(
        group=Pace(20, 60.0 / SCALE), private=Pace(3, 3.0 / SCALE), overall=Pace(30, 1.0 / SCALE)
    )
    harness = await start_harness(
        fake, db_dir / "flood.sqlite3", RandomComputer(), limits, defer=DEFER / SCALE
    )
    rng = random.Random(7)
    try:
        players = [fake.user(name) for name in names]
        table = await open_match(harness, game, players, options)
        by_seat = await hands(harness)
        assert len(by_seat) == len(players)
        dealt = len(fake.calls)

        def moved_past(last: int) -> Callable[[], bool]:
            """Whether a hand holds buttons newer than version ``last``, or the match is over."""
            return lambda: (
                any(v > last for m in by_seat.values() for v, _ in move_buttons(m))
                or "🏆" in table.text
            )

        presses, answers, last = 0, [], -1
        while (await harness.kol.manager.get(1)).status == "running":
            await fake.wait_until(moved_past(last), timeout=60)
            if presses in (10, 30):  # Telegram says "too many requests" regardless of pacing
                for method in ("editMessageText", "sendMessage"):
                    fake.fail_next(method, 429, "Too Many Requests: retry after 1", retry_after=1)
            if "🏆" in table.text:
                break
            seat, version = max(
                ((s, v) for s, m in by_seat.items() for v, _ in move_buttons(m)),
                key=lambda found: found[1],
            )
            choices = [d for v, d in move_buttons(by_seat[seat]) if v == version]
            user = players[seat]
            query = fake.push_callback(
                user, fake.private(user), by_seat[seat].message_id, rng.choice(choices)
            )
            answers.append(query)
            presses, last = presses + 1, version
        await harness.settle(timeout=120)

        session = await harness.kol.manager.get(1)
        assert session.status == "finished"
        # no action lost: every press was answered without a refusal and is in the move log
        for query in answers:
            answer = fake.answer_of(query)
            assert answer is not None and not answer.params.get("text"), query
        assert len(await harness.kol.manager.replay_log(1)) == presses == session.moves
        # the limits were hit, and every 429 was waited out: each message shows the final state
        assert any(not c.ok and c.error and c.error.startswith("Too Many") for c in fake.calls)
        presenter = harness.kol.presenter
        final = presenter.table_screen(session, await presenter.chat_language(table.chat_id))
        assert (table.text, table.buttons()) == (final.text, _buttons(final))
        assert "🏆" in table.text  # the result is on the table
        for seat, message in (await hands(harness)).items():
            lang = await presenter.user_language(players[seat].id)
            shown = presenter.private_screen(session, seat, lang)
            assert (message.text, message.buttons()) == (shown.text, _buttons(shown)), seat
        refs = {ref.purpose for ref in await harness.kol.messages.of(1)}
        assert {TABLE, *(hand_purpose(s) for s in range(len(players)))} <= refs
        # Telegram's budget: about two deliveries a move, everything counted
        deliveries = [c for c in fake.calls[dealt:] if c.ok and c.method in MESSAGE_METHODS]
        kinds = collections.Counter(
            (c.method, "group" if (c.chat_id or 0) < 0 else "private") for c in deliveries
        )
        assert len(deliveries) / presses <= per_move, (len(deliveries), presses, kinds)
        # no unhandled error (an unhandled 429 is logged by the delivery worker)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        # and the group never got more than its limit in any (compressed) minute
        group_calls = sorted(
            c.at
            for c in fake.calls
            if c.chat_id == table.chat_id and c.ok and c.method != "getChatMember"
        )
        window = 60.0 / SCALE
        assert max(sum(1 for u in group_calls if t <= u < t + window) for t in group_calls) <= 20
    finally:
        await harness.stop()
        await fake.stop()


def _buttons(screen: Screen) -> list[dict[str, str]]:
    """A screen's buttons as the fake server stores them."""
    markup = screen.markup()
    if markup is None:
        return []
    return [
        {k: v for k, v in button.to_dict().items() if v is not None}
        for row in markup.inline_keyboard
        for button in row
    ]


# ---------------------------------------------------------------- memory: idle slots are let go


async def test_idle_tables_are_forgotten_and_edited_again_from_the_store() -> None:
    io, sender, _ = recording_delivery(max_slots=3)
    for session in range(1, 11):
        io.show(session, TABLE, -session, screen(f"table {session}"), 1)
        await io.flush()
    assert io.slots <= 3  # ten tables were shown, only the newest are kept
    assert len(sender.sent) == 10 and not sender.edits
    # the first table, long forgotten, moves on: its stored message is edited, not posted again
    io.show(1, TABLE, -1, screen("table 1, next move"), 2)
    await io.flush()
    assert sender.edits == [(-1, 1, "table 1, next move")]
    assert len(sender.sent) == 10
    assert io.slots <= 3


async def test_a_chat_that_refuses_us_is_an_event_for_the_subscribers() -> None:
    """A 403 on a screen or a reply: every subscriber is told which chat (the app marks a
    user unreachable, or ends a group's games), and the slot is let go."""
    io, sender, clock = recording_delivery()
    told: list[int] = []

    async def closed(chat_id: int) -> None:
        told.append(chat_id)

    async def refused(chat_id: int, text: str, **_: Any) -> Sent:
        raise Forbidden("Forbidden: bot was blocked by the user")

    io.subscribe(closed)
    sender.send_message = refused  # type: ignore[method-assign]
    io.show(1, hand_purpose(0), 5, screen("your cards"), 1)
    io.send(-7, screen("the tally"))
    await clock.run(io.flush())
    assert sorted(told) == [-7, 5]
    assert io.slots == 0


async def test_deliveries_keep_to_the_overall_limit() -> None:
    overall = Pace(2, 2.0)
    io, sender, clock = recording_delivery(Limits(None, None, overall=overall))
    for session in range(1, 5):  # four groups at once: each alone is within its own limit
        io.show(session, TABLE, -session, screen(f"table {session}"), 1)
    await clock.advance(0.1)
    assert len(sender.sent) == 1  # the bot as a whole may send one a second, evenly
    await clock.run(io.flush())
    assert sorted(text for _, text in sender.sent) == [f"table {n}" for n in range(1, 5)]
    gaps = [b - a for a, b in itertools.pairwise(sender.times)]
    assert min(gaps) >= overall.interval - 1e-9, gaps


async def test_a_busy_group_keeps_its_pace_and_its_table_coalesces() -> None:
    """A table with a new screen every 0.6 s for a minute (a brisk table with computer
    players): no 60 s window holds more than the group's 20 sends and edits, far fewer
    than the 100 screens go out, and the message ends on the newest one."""
    group = Pace(20, 60.0)
    io, sender, clock = recording_delivery(Limits(group=group, private=None, overall=None))

    async def play() -> None:
        for version in range(1, 101):
            io.show(1, TABLE, -1, screen(f"table v{version}"), version)
            await clock.sleep(0.6)
        await io.flush()

    await clock.run(play())
    times = sender.times
    assert max(sum(1 for u in times if t <= u < t + group.per) for t in times) <= group.count
    assert len(times) < 30, len(times)
    last = sender.edits[-1] if sender.edits else sender.sent[-1]
    assert last[-1] == "table v100"


async def test_a_429_is_waited_out_and_the_call_made_again() -> None:
    """Telegram answers 429 ``retry_after`` 7: the call is made again 7 s later (on the
    clock), and the group's next message waits for that too."""
    clock = FakeClock()
    limiter = FloodLimiter(Limits(group=Pace(20, 60.0), private=None, overall=None), clock=clock)
    calls: list[float] = []

    async def flooded() -> bool:
        calls.append(clock.now())
        if len(calls) == 1:
            raise RetryAfter(7)
        return True

    start = clock.now()
    data = {"chat_id": -5}
    assert await clock.run(
        limiter.process_request(flooded, (), {}, "sendMessage", data, None)
    )
    assert [at - start for at in calls] == [0.0, 7.0] and limiter.retries == 1
    await clock.run(limiter.wait_turn(-5))
    assert clock.now() - start >= 7.0 + Pace(20, 60.0).interval - 1e-9


async def test_a_request_held_by_the_overall_pace_keeps_its_chats_spacing() -> None:
    """A low-priority request that waits long in the overall queue must not leave right
    before its chat's next, urgent one (Telegram counts what arrives per chat)."""
    from bot.queueing import LATER, URGENT

    clock = FakeClock()
    private = Pace(1, 0.2)
    limits = Limits(group=None, private=private, overall=Pace(1, 0.05))
    limiter = FloodLimiter(limits, clock=clock)
    left: dict[str, float] = {}

    async def go(chat_id: int, priority: int, name: str) -> None:
        await limiter.wait_turn(chat_id, priority)
        left[name] = clock.now()

    others = [go(100 + n, URGENT, f"other {n}") for n in range(6)]  # the queue is busy
    await clock.run(asyncio.gather(*others, go(1, LATER, "late"), go(1, URGENT, "next")))
    # one chat's pace, whatever the queue
    assert abs(left["next"] - left["late"]) >= private.interval - 1e-9

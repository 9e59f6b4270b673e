"""Nobody spoils a table for others: a member flooding her group with commands holds
up neither another chat's answers (the stall) nor her own group's table (the
starvation).

The fake Bot API enforces a group's flood limit on a compressed clock and the
bot paces itself to the same clock, with room to spare (:mod:`tests.support.flood`:
a send a busy machine makes late is no 429, whose retry would reorder them); what
is asserted is the order in which the requests reach the fake, not how long they took.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.delivery import REPEAT, REQUEST, Delivery, Request
from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.queueing import LATER, NORMAL, REPLY, TABLE, URGENT
from bot.render.common import screen
from tests.support.computers import RandomComputer
from tests.support.fake_clock import FakeClock, settled
from tests.support.fake_telegram import MESSAGE_METHODS, Call, FakeTelegram
from tests.support.flood import paced, refused
from tests.support.harness import start_harness


def _to(fake: FakeTelegram, chat_id: int, since: int = 0) -> list[Call]:
    """The sends and edits that reached ``chat_id`` (from call number ``since`` on)."""
    calls = fake.calls[since:]
    return [c for c in calls if c.chat_id == chat_id and c.ok and c.method in MESSAGE_METHODS]


def _ephemeral(call: Call) -> bool:
    return "ephemeral_message_parameters" in call.params


async def test_a_flooded_group_pressing_settings_holds_no_other_chat(db_dir: Path) -> None:
    """The creator's group is out of budget (six members' /score queued) when she
    presses ⚙️ Settings: her menu waits for the group's next slot, but the bot goes on
    fetching updates, and another chat's /help is answered before the menu goes out."""
    flood, limits = paced(scale=10.0, group_per_minute=6)  # one group slot every ~1 s
    fake = FakeTelegram(flood=flood)
    await fake.start()
    harness = await start_harness(fake, db_dir / "stall.sqlite3", RandomComputer(), limits)
    try:
        alice, bob = fake.user("Alice"), fake.user("Bob")
        group, lobby = await harness.open_lobby("king", [alice], "Flooded")
        other = fake.group("Quiet")
        before = len(fake.calls)
        for n in range(6):
            fake.push_command(fake.user(f"Fan{n}"), group, "/score")
        await fake.wait_until(lambda: len(_to(fake, group.id, before)) >= 1)
        fake.push_press(alice, lobby, "sets:1")  # the group's next slot is a second away
        await fake.wait_until(lambda: fake.undelivered() == 0)
        fake.push_command(bob, other, "/help")
        await fake.wait_until(
            lambda: bool(_to(fake, other.id)) and any(map(_ephemeral, _to(fake, group.id))),
            timeout=60,
        )
        calls = fake.calls[before:]
        help_at = next(i for i, c in enumerate(calls) if c.chat_id == other.id and c.ok)
        menu_at = next(i for i, c in enumerate(calls) if c.ok and _ephemeral(c))
        assert help_at < menu_at, (help_at, menu_at)
        # and the menu, a screen of the lobby, went before the other replies waiting there
        await harness.settle(timeout=60)
        replies = [c for c in _to(fake, group.id, before) if not _ephemeral(c)]
        assert len(replies) == 6
        assert fake.calls[before:].index(replies[1]) > menu_at
        assert refused(fake) == []
    finally:
        await harness.stop()
        await fake.stop()


async def test_spammed_replies_never_hold_back_the_next_move(db_dir: Path) -> None:
    """60 × /score from one member and one /score from ten others, then a move: the
    table's edit is among the first two deliveries to the group after the move, and
    the flooding member gets one answer."""
    flood, limits = paced(scale=30.0, group_per_minute=6)
    fake = FakeTelegram(flood=flood)
    await fake.start()
    harness = await start_harness(fake, db_dir / "starve.sqlite3", RandomComputer(), limits)
    try:
        alice, mallory = fake.user("Alice"), fake.user("Mallory")
        group, lobby = await harness.open_lobby("eleven", [alice], "Starved")
        await harness.kol.manager.add_computer(1, alice.id, "easy")
        await harness.press(alice, lobby, "start:1")
        await fake.wait_until(lambda: bool(_moves(fake, alice.id)), timeout=30)
        before = len(fake.calls)
        for _ in range(60):
            fake.push_command(mallory, group, "/score")
        for n in range(10):
            fake.push_command(fake.user(f"Fan{n}"), group, "/score")
        await fake.wait_until(lambda: fake.undelivered() == 0 and bool(_to(fake, group.id, before)))
        hand = fake.last_message(alice.id, containing="🃏")
        assert hand is not None
        moved = len(fake.calls)
        fake.push_callback(alice, fake.private(alice), hand.message_id, _moves(fake, alice.id)[0])
        await fake.wait_until(
            lambda: any(c.method == "editMessageText" for c in _to(fake, group.id, moved)),
            timeout=60,
        )
        after = _to(fake, group.id, moved)
        first_edit = next(i for i, c in enumerate(after) if c.method == "editMessageText")
        assert first_edit <= 1, [c.method for c in after]
        await harness.settle(timeout=60)
        replies = [c for c in _to(fake, group.id, before) if c.method == "sendMessage"]
        assert len(replies) == 11, len(replies)  # one each: Mallory's 59 repeats are not sent
        assert harness.kol.delivery.replies_dropped >= 59
        assert refused(fake) == []
    finally:
        await harness.stop()
        await fake.stop()


def _moves(fake: FakeTelegram, user_id: int) -> list[str]:
    hand = fake.last_message(user_id, containing="🃏")
    if hand is None:
        return []
    return [b["callback_data"] for b in hand.buttons() if b.get("callback_data", "")[:1].isdigit()]


# ---------------------------------------------------------------- the parts


async def test_a_chat_slot_goes_to_the_most_urgent_request_waiting() -> None:
    """Three replies wait for a chat's slots; a screen that comes after them takes the
    next slot (not the fourth), and the slots open one interval apart."""
    clock = FakeClock()
    pace = Pace(1, 10.0)
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    left: list[tuple[str, float]] = []

    async def go(name: str, priority: int) -> None:
        await limiter.wait_turn(-1, priority)
        left.append((name, clock.now()))

    start = clock.now()
    await limiter.wait_turn(-1, NORMAL)  # the chat's slot is now taken
    replies = [asyncio.create_task(go(f"reply {n}", REPLY)) for n in range(3)]
    await settled()
    assert limiter.waiting(-1) == 3 and left == []  # no time passed: nobody went
    await clock.run(asyncio.gather(go("table", URGENT), *replies))
    assert [name for name, _ in left] == ["table", "reply 0", "reply 1", "reply 2"]
    assert [round(at - start, 6) for _, at in left] == [
        round(n * pace.interval, 6) for n in range(1, 5)
    ]


async def test_a_free_slot_goes_to_the_first_that_asked_even_if_it_is_ready_last() -> None:
    """A turn's hand asks for the group's free slot (its message still to be read from
    the store), then the table, which is ready at once: the hand goes first, the table
    an interval later."""
    clock = FakeClock()
    pace = Pace(1, 10.0)
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    start = clock.now()
    hand, table = limiter.ask(-1, URGENT), limiter.ask(-1, TABLE)
    tabled = asyncio.create_task(limiter.take(table))
    await settled()
    assert not tabled.done()
    await limiter.take(hand)
    assert clock.now() == start
    await clock.run(tabled)
    assert clock.now() - start == pace.interval


async def test_a_place_given_back_costs_its_chat_no_slot() -> None:
    """A hand asked for the group's free slot and took it, the table waits behind it;
    the hand's message is not found (none is shown): the table takes the slot at once.
    A slot given back with nobody waiting lets the chat's next request go at once; a
    place given back while it waits is no longer waited for."""
    clock = FakeClock()
    pace = Pace(1, 10.0)
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    start = clock.now()
    hand, table = limiter.ask(-1, URGENT), limiter.ask(-1, TABLE)
    limiter.give_back(hand)
    tabled = asyncio.create_task(limiter.take(table))
    await settled()
    assert tabled.done() and clock.now() == start
    limiter.give_back(limiter.ask(-2, URGENT))  # the slot is free again: nobody waits
    alone = asyncio.create_task(limiter.wait_turn(-2, NORMAL))
    await settled()
    assert alone.done() and clock.now() == start
    limiter.give_back(limiter.ask(-2, URGENT))  # it waits for the next slot: it goes
    assert limiter.waiting(-2) == 0
    await clock.run(limiter.wait_turn(-2, NORMAL))
    assert clock.now() - start == pace.interval


async def test_a_shared_chat_slot_goes_to_the_most_urgent_request_when_it_opens() -> None:
    """With a budget shared by several workers (slots booked in the store), a chat's
    next slot opens 3 s on; a hand losing its buttons asks first, then the table: the
    table goes in that slot and the hand in the next, as with one worker."""
    clock = FakeClock()
    pace = Pace(1, 3.0, margin=1.0)
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    slots = {-1: clock.wall() + 3.0}  # the store's next free slot of the group

    async def reserve(key: int, interval: float, now: float) -> float:
        at = max(slots.get(key, now), now)
        slots[key] = at + interval
        return at

    limiter.share(reserve)
    left: list[tuple[str, float]] = []

    async def go(name: str, priority: int) -> None:
        await limiter.wait_turn(-1, priority)
        left.append((name, clock.now()))

    start = clock.now()
    hand = asyncio.ensure_future(go("hand", LATER))
    await settled()
    await clock.advance(0.5)
    await clock.run(asyncio.gather(hand, go("table", URGENT)))
    assert [(name, round(at - start, 6)) for name, at in left] == [("table", 3.0), ("hand", 6.0)]


async def test_a_table_busy_every_slot_is_never_passed_over_for_replies() -> None:
    """A group whose table has a new screen the moment its last one left, and three
    replies waiting: the table takes every slot while it moves (a screen passed over
    would wait two intervals), and the replies all go once it is quiet."""
    clock = FakeClock()
    limiter = FloodLimiter(Limits(group=Pace(1, 3.0), private=None, overall=None), clock=clock)
    left: list[str] = []

    async def go(name: str, priority: int) -> None:
        await limiter.wait_turn(-1, priority)
        left.append(name)

    async def busy_table() -> None:
        await limiter.wait_turn(-1, NORMAL)
        replies = [asyncio.create_task(go("reply", REPLY)) for _ in range(3)]
        for n in range(10):  # every slot has a screen waiting for it
            await go(f"table {n}", URGENT)
        await asyncio.gather(*replies)

    await clock.run(busy_table())
    assert left == [f"table {n}" for n in range(10)] + ["reply"] * 3, left


async def test_replies_go_in_the_gaps_a_moving_table_leaves() -> None:
    """A table that moves again 2.5 s after each edit (a computer's move) and three
    replies waiting in a group (a slot every 3.15 s): each reply, once it has waited two
    intervals, takes a slot from a screen that has waited less than a third of one,
    so the replies go while the table moves and no screen waits more than 4/3 of an
    interval."""
    clock = FakeClock()
    pace = Pace(20, 60.0)
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    left: list[str] = []
    waits: list[float] = []

    async def reply() -> None:
        await limiter.wait_turn(-1, REPLY)
        left.append("reply")

    async def moving_table() -> None:
        await limiter.wait_turn(-1, NORMAL)
        replies = [asyncio.create_task(reply()) for _ in range(3)]
        for n in range(10):
            await clock.sleep(2.5)  # the next move comes
            asked = clock.now()
            await limiter.wait_turn(-1, URGENT)
            waits.append(clock.now() - asked)
            left.append(f"table {n}")
        await asyncio.gather(*replies)

    await clock.run(moving_table())
    assert left.count("reply") == 3 and left.index("reply") < 4, left
    assert left.index("table 9") > max(i for i, name in enumerate(left) if name == "reply")
    assert max(waits) <= 4 / 3 * pace.interval + 1e-9, waits


@pytest.mark.parametrize("share", [0.02, 0.2, 0.4, 0.6, 0.8, 0.98])
async def test_after_a_flood_of_replies_the_next_moves_show_within_5_s(share: float) -> None:
    """Mallory sends /score sixty times and ten others once each in a group (a slot
    every 3.15 s); while their answers wait, Alice moves and two computers answer, the
    last at any moment (``share``) of an interval: each move's table edit goes out
    within 5 s (an answer passed over twice takes a slot from a screen at most once,
    early in its wait), and every answer goes out once the table is quiet."""
    pace = Pace(20, 60.0)
    bot, clock = _Bot(), FakeClock()
    limiter = FloodLimiter(Limits(group=pace, private=None, overall=None), clock=clock)
    io = Delivery(bot, limiter, None, clock=clock)  # type: ignore[arg-type]
    start = clock.now()
    await limiter.wait_turn(-5, URGENT)  # the deal's table edit: the group's slot is taken
    for n in range(60):
        _asked(io, -5, 1, "/score", f"tally {n}")
    for fan in range(2, 12):
        _asked(io, -5, fan, "/score", "tally")

    async def table_edit(at: float) -> float:
        """The table's edit for a move made ``at`` seconds from the start: its wait."""
        await clock.sleep(start + at - clock.now())
        await limiter.wait_turn(-5, URGENT)
        return clock.now() - start - at

    # Alice's move, and the two computers' answers
    moves = (0.5 * pace.interval, 1.2 * pace.interval, (2 + share) * pace.interval)
    waits = await clock.run(asyncio.gather(*map(table_edit, moves)))
    assert max(waits) <= 5.0, waits
    await clock.run(io.flush())
    # Mallory's newest answer and each fan's
    assert sorted(bot.sent) == [(-5, "tally")] * 10 + [(-5, "tally 59")], bot.sent


class _Bot:
    """Stands in for PTB's Bot: records what is sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Any:
        self.sent.append((chat_id, text))
        return type("Sent", (), {"message_id": len(self.sent)})()


async def test_repeated_requests_get_one_answer_and_a_backlog_is_bounded() -> None:
    """One user's unsent replies coalesce per request (the newest answer wins), the
    same answer is not posted twice within a few seconds (but is after them), and
    beyond three unsent requests of one user their oldest is dropped; another user's
    reply is kept."""
    bot, clock = _Bot(), FakeClock()
    limits = Limits(group=Pace(1, 0.05), private=None, overall=None)
    limiter = FloodLimiter(limits, clock=clock)
    io = Delivery(bot, limiter, None, clock=clock)  # type: ignore[arg-type]

    await limiter.wait_turn(-5, NORMAL)  # the group's budget is spent for now
    _asked(io, -5, 1, "/score", "tally v1")
    await settled()  # on its way: waiting for the group's next slot
    _asked(io, -5, 1, "/score", "tally v1")  # the same answer again: not posted twice
    _asked(io, -5, 1, "/score", "tally v2")  # a new answer waits ...
    _asked(io, -5, 1, "/score", "tally v3")  # ... and the newest replaces it
    _asked(io, -5, 2, "/score", "tally v3")  # someone else asking is answered too
    for kind in ("/help", "/rules", "/top"):  # user 1's fourth request waiting ...
        _asked(io, -5, 1, kind, kind)  # ... drops their oldest (tally v3)
    assert io.replies_waiting(-5) == 4
    await clock.run(io.flush())
    assert [text for _, text in bot.sent] == ["tally v1", "tally v3", "/help", "/rules", "/top"]
    _asked(io, -5, 1, "/top", "/top")  # again, the same answer, at once: nothing more
    await clock.run(io.flush())
    assert len(bot.sent) == 5
    assert io.replies_dropped == 4
    await clock.advance(REPEAT)  # a few seconds on, the same answer is posted again
    _asked(io, -5, 1, "/top", "/top")
    await clock.run(io.flush())
    assert [text for _, text in bot.sent][5:] == ["/top"]


def _asked(io: Delivery, chat_id: int, user_id: int, kind: str, text: str) -> None:
    """``user_id`` asked ``kind`` in ``chat_id``: its answer ``text`` is sent as a reply."""
    token = REQUEST.set(Request(user_id, kind))
    try:
        io.send(chat_id, screen(text))
    finally:
        REQUEST.reset(token)

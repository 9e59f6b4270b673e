"""A screen not urgent for its viewer (a player's own hand right after their move) waits
for a newer one only while the budget it needs is short; otherwise it goes now.

All on a fake clock with Telegram's limits (20 a minute in a group, one a second in a
private chat, 30 a second in all): the times asserted are the clock's.
"""

from __future__ import annotations

import asyncio
import itertools

from bot.delivery import DEFER, Delivery
from bot.flood_limits import Limits, Pace
from bot.limiter import DEMAND_SHORT, FloodLimiter
from bot.queueing import NORMAL
from bot.render.common import Button, Screen, screen
from sessions import TABLE, hand_purpose
from tests.support.fake_clock import FakeClock, settled
from tests.support.recording import RecordingBot, crowded, recording_delivery

GROUP = -7
#: the private chats of seats 0-3
PLAYERS = [10, 11, 12, 13]


def turn(text: str, version: int) -> Screen:
    """A hand screen with a move button (its owner's turn)."""
    return screen(text, [[Button("A♠", f"1:{version}:AS")]])


async def turn_shown() -> tuple[Delivery, RecordingBot, FakeClock]:
    """Ann's hand (chat 5) showing her turn, on a bot that may send one message a
    second; a deferred screen may wait 30 s."""
    io, sender, clock = recording_delivery(
        Limits(group=None, private=None, overall=Pace(1, 1.0)), defer=30.0
    )
    io.show(1, hand_purpose(0), 5, turn("your move", 1), 1)
    await clock.run(io.flush())
    return io, sender, clock


async def test_a_quiet_tables_mover_sees_his_hand_at_once() -> None:
    """Four players, Ann moves after thinking 3 s: her hand (the card gone) is edited
    at once, not after the defer window — the bot has budget to spare."""
    io, sender, clock = recording_delivery(Limits(), defer=DEFER)
    io.show(1, TABLE, GROUP, screen("table v1"), 1, urgent=True)
    io.show(1, hand_purpose(0), PLAYERS[0], turn("Ann v1", 1), 1)
    for seat in (1, 2, 3):
        io.show(1, hand_purpose(seat), PLAYERS[seat], screen(f"hand {seat} v1"), 1)
    await clock.run(io.flush())
    await clock.advance(3.0)
    moved = clock.now()
    io.show(1, TABLE, GROUP, screen("table v2"), 2, urgent=True)
    io.show(1, hand_purpose(0), PLAYERS[0], screen("Ann v2"), 2, deferred=True)
    io.show(1, hand_purpose(1), PLAYERS[1], turn("Ben v2", 2), 2)
    await clock.advance(DEFER / 10)
    assert sender.at["Ann v2"] - moved < DEFER / 10
    assert "Ben v2" in sender.at and "table v2" in sender.at


async def test_a_quick_move_waits_only_for_its_chats_next_slot() -> None:
    """Ann moves 0.3 s after her buttons came: her chat's one-a-second pace holds the edit
    until its next slot, and no longer."""
    limits = Limits()
    io, sender, clock = recording_delivery(limits, defer=DEFER)
    io.show(1, hand_purpose(0), PLAYERS[0], turn("Ann v1", 1), 1)
    await clock.run(io.flush())
    buttons = sender.at["Ann v1"]
    await clock.advance(0.3)
    io.show(1, hand_purpose(0), PLAYERS[0], screen("Ann v2"), 2, deferred=True)
    await clock.advance(2.0)
    assert limits.private is not None
    assert abs(sender.at["Ann v2"] - (buttons + limits.private.interval)) < 1e-6


async def test_on_a_busy_token_deferred_screens_coalesce_into_one_edit() -> None:
    """The bot's requests crowd the token: Ann's hand after her move waits, a newer
    deferred one replaces it, and her next turn's buttons go at once, in one edit."""
    io, sender, clock = await turn_shown()
    hand = hand_purpose(0)
    assert sender.sent == [(5, "your move")]  # the first showing is never held back
    async with crowded(io.limiter, 60):
        assert io.limiter.short(5)
        io.show(1, hand, 5, screen("hand after A♠"), 2, deferred=True)
        await clock.advance(10.0)
        io.show(1, hand, 5, screen("hand after A♠, deal goes on"), 3, deferred=True)
        await clock.advance(10.0)
        assert sender.edits == []
        came = clock.now()
        io.show(1, hand, 5, turn("your move again", 4), 4)  # her turn: at once
        await clock.advance(2.0)
        assert sender.edits == [(5, 1, "your move again")]
        assert sender.at["your move again"] - came <= Pace(1, 1.0).interval


async def test_a_held_back_hand_goes_by_itself_once_its_wait_is_over() -> None:
    io, sender, clock = await turn_shown()
    hand = hand_purpose(0)
    async with crowded(io.limiter, 60):
        io.show(1, hand, 5, screen("hand after A♠"), 2, deferred=True)
        await clock.advance(29.0)
        assert sender.edits == []
        await clock.advance(2.2)  # its wait is over, then one slot of the token's
        assert sender.edits == [(5, 1, "hand after A♠")]


async def test_a_held_back_hand_goes_once_the_budget_is_no_longer_short() -> None:
    """A few seconds' rush on the token: Ann's hand waits while it lasts, then goes —
    long before the defer window is over."""
    io, sender, clock = await turn_shown()
    hand = hand_purpose(0)
    async with crowded(io.limiter, 5):
        moved = clock.now()
        io.show(1, hand, 5, screen("hand after A♠"), 2, deferred=True)
        await clock.advance(3.0)
        assert sender.edits == []  # the rush goes on
        await clock.advance(7.0)
        assert sender.edits == [(5, 1, "hand after A♠")]
    assert 3.0 < sender.at["hand after A♠"] - moved < 10.0


async def test_flush_delivers_held_back_edits_and_other_slots_never_wait() -> None:
    io, sender, clock = recording_delivery(
        Limits(group=None, private=None, overall=Pace(1, 1.0)), defer=30.0
    )
    io.show(1, TABLE, -7, screen("table v1"), 1)
    io.show(1, hand_purpose(1), 6, screen("hand v1"), 1, deferred=True)
    await clock.run(io.flush())
    async with crowded(io.limiter, 60):
        io.show(1, TABLE, -7, screen("table v2"), 2)  # the group's table is never held back
        io.show(1, hand_purpose(1), 6, screen("hand v2"), 2, deferred=True)
        await clock.advance(5.0)
        assert sender.edits == [(-7, 1, "table v2")]
        await clock.run(io.flush())  # flushing (e.g. at shutdown) sends what waits
        assert sender.edits == [(-7, 1, "table v2"), (6, 2, "hand v2")]


async def test_a_busy_chat_gets_its_players_turns_not_each_card_gone() -> None:
    """Four players at machine speed: every 1.6 s Ann gets her turn and plays 0.4 s
    later — her chat is asked for more than half its one-a-second pace. Each card-gone
    screen waits for her next turn's buttons and goes with them, in one edit: once the
    chat's demand shows, a cycle costs her chat one edit, not two."""
    io, sender, clock = recording_delivery(
        Limits(group=None, private=Pace(1, 1.0), overall=None), defer=DEFER
    )
    hand = hand_purpose(0)
    version = itertools.count(1)

    async def play() -> None:
        for _ in range(40):
            n = next(version)
            io.show(1, hand, 5, turn(f"turn {n}", n), n)
            await clock.sleep(0.4)
            n = next(version)
            io.show(1, hand, 5, screen(f"played {n}"), n, deferred=True)
            await clock.sleep(1.2)
        await clock.sleep(DEFER)

    await clock.run(play())
    shown = [text for _, text in sender.sent] + [text for _, _, text in sender.edits]
    played = [text for text in shown if text.startswith("played")]
    assert len(played) <= 3, shown  # the first cycles, before the demand shows
    assert len(shown) <= 40 + len(played)
    assert shown[-1] == "played 80"  # the last one still goes, once its wait is over


async def test_a_table_never_waits_behind_other_chats_deferred_hands() -> None:
    """Forty players' hands are deferred while the bot is busy, and their waits end at
    once; a table moves just then: it takes the token's next slot, ahead of them."""
    limits = Limits()
    window = 10.0  # shorter than the rush
    io, sender, clock = recording_delivery(limits, defer=window)
    players = range(100, 140)
    for user in players:
        io.show(1, hand_purpose(user), user, turn(f"hand {user} v1", 1), 1)
    io.show(1, TABLE, GROUP, screen("table v1"), 1, urgent=True)
    await clock.run(io.flush())
    await clock.advance(60.0)
    async with crowded(io.limiter, 600):
        for user in players:
            io.show(1, hand_purpose(user), user, screen(f"hand {user} v2"), 2, deferred=True)
        await clock.advance(window - 0.01)
        assert not any(f"hand {user} v2" in sender.at for user in players)
        await clock.advance(0.01)
        shown = clock.now()
        io.show(1, TABLE, GROUP, screen("table v2"), 2, urgent=True)
        await clock.run(io.flush())
    assert limits.overall is not None
    assert sender.at["table v2"] - shown <= limits.overall.interval + 1e-9
    # the hands queued behind it: without its priority it would have waited for them
    assert max(sender.at[f"hand {user} v2"] for user in players) > sender.at["table v2"]


async def test_a_shared_budget_booked_ahead_by_other_workers_is_short() -> None:
    """With several workers the shared budget counts: while the overall slot this worker
    got lies more than a slot ahead (others' sends queue before it), the budget is
    short; once the token is free again, it is not."""
    clock = FakeClock()
    limits = Limits(group=None, private=Pace(1, 1.0), overall=Pace(30, 1.0))
    limiter = FloodLimiter(limits, clock=clock)
    booked = [2.0]  # seconds ahead the shared budget's next overall slot lies

    async def reserve(key: int, interval: float, now: float) -> float:
        return now + (booked.pop(0) if key == 0 and booked else 0.0)

    limiter.share(reserve)
    assert not limiter.short(5)
    sending = asyncio.ensure_future(limiter.wait_turn(5))
    await settled()
    assert limiter.short(6) and not sending.done()
    await clock.advance(2.0)
    assert sending.done()
    await clock.run(limiter.wait_turn(5))  # a free slot, at once
    assert not limiter.short(6)


async def test_a_chat_is_short_once_asked_for_at_half_its_pace() -> None:
    clock = FakeClock()
    limiter = FloodLimiter(Limits(group=None, private=Pace(1, 1.0), overall=None), clock=clock)
    asks = 0
    while not limiter.short(5):
        limiter.asked(5)
        asks += 1
        await clock.advance(0.1)
    # DEMAND_SHORT of the pace, averaged over 8 s: about four screens in a short while
    assert 3 <= asks <= 5, asks
    assert not limiter.short(6)  # another chat's budget is its own
    await clock.advance(30.0)
    assert not limiter.short(5) and DEMAND_SHORT < 1


async def test_a_hand_waiting_as_later_takes_its_players_turn_ahead_of_newer_requests() -> None:
    """Ben's hand after his move waits for the token as "later" (behind other chats'
    hands); meanwhile his turn comes again. The request is ranked by what it carries
    now: it goes ahead of every request that came after it, not after all of them (at
    200 tables a table whose next player waited as "later" made no move for minutes)."""
    limits = Limits()
    io, sender, clock = recording_delivery(limits, defer=DEFER)
    io.show(1, hand_purpose(1), PLAYERS[1], turn("Ben v1", 1), 1)
    await clock.run(io.flush())
    await clock.advance(2.0)
    loop = asyncio.get_running_loop()
    # others' hands (their turns) on the token: a few, so the budget is not short yet
    ahead = [loop.create_task(io.limiter.wait_turn(None, NORMAL)) for _ in range(20)]
    await settled()
    assert not io.limiter.short(PLAYERS[1])
    io.show(1, hand_purpose(1), PLAYERS[1], screen("Ben v2"), 2, deferred=True)
    await settled()
    behind = [loop.create_task(io.limiter.wait_turn(None, NORMAL)) for _ in range(300)]
    await settled()
    came = clock.now()
    io.show(1, hand_purpose(1), PLAYERS[1], turn("Ben v3", 3), 3)  # his turn again
    await clock.advance(3.0)
    assert limits.overall is not None
    assert "Ben v2" not in sender.at  # the newest screen went instead, in one edit
    assert sender.at["Ben v3"] - came <= (len(ahead) + 2) * limits.overall.interval
    assert all(task.done() for task in ahead)
    assert sum(task.done() for task in behind) < len(behind) / 2
    for task in behind:
        task.cancel()

"""A running table's edit waits behind the turns' hands only until it has waited its
group's interval: the player who must act gets her buttons first, and the table still
shows the move soon after. So it does for the bot's overall pace (the private hands)
and in its group's own queue (an ephemeral hand in the group), where it still goes
before every other screen and reply.

All on a fake clock: the bot may send one message a second in all and one edit every
3 s to a group; the times asserted are the clock's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.flood_limits import Limits, Pace
from bot.limiter import FloodLimiter
from bot.queueing import LATER, NORMAL, REPLY, TABLE, URGENT
from bot.render.common import Button, screen
from sessions import TABLE as TABLE_PURPOSE
from sessions import hand_purpose
from tests.support.fake_clock import FakeClock, settled
from tests.support.recording import recording_delivery

GROUP = -7
#: one send a second in all, one edit every 3 s in a group: a table ripens in 3 s
LIMITS = Limits(group=Pace(1, 3.0, margin=1.0), private=None, overall=Pace(1, 1.0, margin=1.0))


class Sends:
    """Requests through one limiter on a fake clock: who went, and when (the clock's
    seconds since the start)."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.limiter = FloodLimiter(LIMITS, clock=self.clock)
        self.start = self.clock.now()
        self.left: list[tuple[str, float]] = []

    async def go(self, name: str, chat_id: int, priority: int) -> None:
        """Wait for a turn, and note it."""
        await self.limiter.wait_turn(chat_id, priority)
        self.left.append((name, round(self.clock.now() - self.start, 6)))

    async def busy(self) -> None:
        """Take the token's slot now: the next opens a second later."""
        await self.limiter.wait_turn(None, NORMAL)

    async def later(self, seconds: float) -> None:
        """Let those asked for wait, and the clock move on."""
        await settled()
        await self.clock.advance(seconds)


async def test_a_turns_hand_goes_before_a_table_edit_that_has_not_waited_long() -> None:
    """A table's edit asks for the token's next slot, then Ben's turn: Ben's buttons take
    the slot, the table the one after (it has waited only a second by then)."""
    sends = Sends()
    await sends.busy()
    table = asyncio.create_task(sends.go("table", GROUP, TABLE))
    await sends.later(0.2)
    await sends.clock.run(asyncio.gather(table, sends.go("Ben's turn", 11, NORMAL)))
    assert sends.left == [("Ben's turn", 1.0), ("table", 2.0)]


async def test_a_table_edit_that_has_waited_its_interval_goes_before_the_turns() -> None:
    """Five players' turns queue for the token, then a table's edit: the turns go first
    while the table is young, but once it has waited its group's interval (3 s) it takes
    the next slot, ahead of the two turns still waiting (older than it)."""
    sends = Sends()
    await sends.busy()
    turns = [asyncio.create_task(sends.go(f"turn {n}", 10 + n, NORMAL)) for n in range(5)]
    await sends.later(0.1)
    await sends.clock.run(asyncio.gather(*turns, sends.go("table", GROUP, TABLE)))
    assert sends.left == [
        ("turn 0", 1.0), ("turn 1", 2.0), ("turn 2", 3.0),
        ("table", 4.0),  # asked at 0.1 s: 3.9 s waited, ripe
        ("turn 3", 5.0), ("turn 4", 6.0),
    ]


async def test_a_ripe_table_edit_still_shares_the_urgent_with_the_oldest_first() -> None:
    """A ripe table's edit ranks as urgent as a turn that asked as urgent (an ephemeral
    hand): the older of the two goes first."""
    sends = Sends()
    await sends.busy()
    urgent = [asyncio.create_task(sends.go(f"urgent {n}", 10 + n, URGENT)) for n in range(4)]
    await sends.later(0.1)
    table = asyncio.create_task(sends.go("table", GROUP, TABLE))
    await sends.later(0.1)
    late = sends.go("urgent late", 20, URGENT)
    await sends.clock.run(asyncio.gather(*urgent, table, late))
    assert [name for name, _ in sends.left] == [
        "urgent 0", "urgent 1", "urgent 2", "urgent 3", "table", "urgent late"
    ]


@dataclass
class Carried:
    """What a waiting request carries now (a delivery slot's newest screen)."""

    priority: int


class GroupQueue:
    """Requests for one group's slots alone (one every 3 s; no overall pace): who went,
    and when (the clock's seconds since the start)."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.limiter = FloodLimiter(
            Limits(group=Pace(1, 3.0, margin=1.0), private=None, overall=None), clock=self.clock
        )
        self.start = self.clock.now()
        self.left: list[tuple[str, float]] = []

    async def taken(self) -> None:
        """Take the group's slot now: the next opens 3 s later."""
        await self.limiter.wait_turn(GROUP, NORMAL)

    def ask(
        self, name: str, priority: int, urgency: Carried | None = None
    ) -> asyncio.Task[None]:
        """Ask for one of the group's slots (``urgency``: what it carries may change)."""

        async def go() -> None:
            await self.limiter.wait_turn(GROUP, priority, urgency=urgency)
            self.left.append((name, round(self.clock.now() - self.start, 6)))

        return asyncio.create_task(go())

    async def later(self, seconds: float) -> None:
        """Let those asked for wait, and the clock move on."""
        await settled()
        await self.clock.advance(seconds)

    async def queued(self, *asks: tuple[str, int]) -> list[asyncio.Task[None]]:
        """The group's slot is taken, then each of ``asks`` (name, priority) asks for the
        next one, a tenth of a second apart, from 0.1 s on."""
        await self.taken()
        waiting = []
        for name, priority in asks:
            await self.later(0.1)
            waiting.append(self.ask(name, priority))
        return waiting


async def test_in_its_group_a_table_edit_goes_before_an_ordinary_screen() -> None:
    """In its group's own queue a table's edit is not held back by other screens: it
    takes the group's next slot ahead of an ordinary request that asked before it."""
    lane = GroupQueue()
    waiting = await lane.queued(("ordinary", NORMAL), ("table", TABLE))
    await lane.clock.run(asyncio.gather(*waiting))
    assert [name for name, _ in lane.left] == ["table", "ordinary"]


async def test_in_its_group_a_turns_ephemeral_hand_goes_before_a_young_table_edit() -> None:
    """Ann moves: her table's edit asks for the group's next slot, then Ben's ephemeral
    hand with his turn's buttons. Ben's buttons take the slot, the table the next one."""
    lane = GroupQueue()
    waiting = await lane.queued(("table", TABLE), ("Ben's turn", URGENT))
    await lane.clock.run(asyncio.gather(*waiting))
    assert lane.left == [("Ben's turn", 3.0), ("table", 6.0)]


async def test_in_its_group_a_ripe_table_edit_goes_before_a_later_turn() -> None:
    """The table passed over once has waited its group's interval by the next slot: it
    takes it ahead of Cat's turn, asked after Ben's went (the older of two urgent
    requests first), so a busy group's table is never more than a slot late."""
    lane = GroupQueue()
    waiting = await lane.queued(("table", TABLE), ("Ben's turn", URGENT))
    await lane.later(3.0)  # Ben's buttons take the slot at 3 s
    cat = lane.ask("Cat's turn", URGENT)
    await lane.clock.run(asyncio.gather(*waiting, cat))
    assert lane.left == [("Ben's turn", 3.0), ("table", 6.0), ("Cat's turn", 9.0)]


async def test_in_its_group_a_young_table_edit_still_goes_before_a_reply() -> None:
    """A reply to a command asked first, then the table's edit, then Ben's turn: Ben's
    buttons, then the table, and the reply last (it has not waited two intervals yet
    when the table's slot opens)."""
    lane = GroupQueue()
    waiting = await lane.queued(("reply", REPLY), ("table", TABLE), ("Ben's turn", URGENT))
    await lane.clock.run(asyncio.gather(*waiting))
    assert [name for name, _ in lane.left] == ["Ben's turn", "table", "reply"]


async def test_in_its_group_a_hand_whose_turn_passed_goes_after_the_next_turn() -> None:
    """Ann's ephemeral hand asks for the group's slot with her turn's buttons; before it
    opens she plays (the move went through another worker, which drew her hand), so
    her hand's newest screen is only the card gone, which may wait; then Ben's turn
    asks. Ben's buttons take the slot, Ann's hand the next one."""
    lane = GroupQueue()
    await lane.taken()
    await lane.later(0.1)
    ann = Carried(URGENT)
    waiting = [lane.ask("Ann's hand", URGENT, ann)]
    await lane.later(1.0)
    ann.priority = LATER  # her turn has passed: the newest screen has no buttons
    waiting.append(lane.ask("Ben's turn", URGENT, Carried(URGENT)))
    await lane.clock.run(asyncio.gather(*waiting))
    assert lane.left == [("Ben's turn", 3.0), ("Ann's hand", 6.0)]


async def test_in_its_group_a_hand_that_came_to_carry_a_turn_goes_first() -> None:
    """A hand that asked as one that may wait, and then came to carry its player's
    turn, goes before a table's edit that asked after it."""
    lane = GroupQueue()
    await lane.taken()
    await lane.later(0.1)
    ben = Carried(LATER)
    waiting = [lane.ask("Ben's hand", LATER, ben), lane.ask("table", TABLE, Carried(TABLE))]
    await lane.later(1.0)
    ben.priority = URGENT
    await lane.clock.run(asyncio.gather(*waiting))
    assert lane.left == [("Ben's hand", 3.0), ("table", 6.0)]


async def test_after_sixty_replies_a_young_table_still_goes_within_two_intervals() -> None:
    """A member floods the group with 60 commands, then Ann moves: her table's edit and
    Ben's ephemeral hand ask for the group's slot. Ben's buttons take the next slot, the
    table the one after, within two of the group's intervals of asking (6 s here, 6.3 s
    at Telegram's 20 a minute); the replies wait behind both."""
    lane = GroupQueue()
    replies = [(f"reply {n}", REPLY) for n in range(60)]
    waiting = await lane.queued(*replies, ("table", TABLE), ("Ben's turn", URGENT))
    asked = 6.1  # the 61st ask, a tenth of a second apart from 0.1 s on
    await lane.clock.run(asyncio.gather(*waiting))
    went = dict(lane.left)
    assert went["Ben's turn"] < went["table"] <= asked + 2 * 3.0
    assert sum(1 for name, at in lane.left if name.startswith("reply") and at < went["table"]) == 2


async def test_the_next_players_buttons_reach_her_before_the_busy_tables_edit() -> None:
    """Delivery end to end: two other players' turns wait for the token; Ann moves, and
    her table's new screen and Ben's turn are shown together (the table first, as the
    presenter does). Ben's buttons go in the token's next slot, the table's edit in the
    one after."""
    io, sender, clock = recording_delivery(LIMITS, defer=10.0)
    io.show(1, TABLE_PURPOSE, GROUP, screen("table v1"), 1, table=True)
    await clock.run(io.flush())
    await clock.advance(10.0)
    for seat in range(3):  # another table's players: the first goes, two wait
        io.show(2, hand_purpose(seat), 20 + seat, screen(f"other {seat}"), 1)
    await settled()
    await clock.advance(0.5)
    io.show(1, TABLE_PURPOSE, GROUP, screen("table v2"), 2, table=True)
    io.show(1, hand_purpose(1), 11, screen("Ben's turn", [[Button("A♠", "1:2:AS")]]), 2)
    await clock.run(io.flush())
    order = sorted(sender.at, key=sender.at.__getitem__)
    assert order[-5:] == ["other 0", "other 1", "other 2", "Ben's turn", "table v2"], order

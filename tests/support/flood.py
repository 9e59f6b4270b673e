"""The fake Bot API's flood limits with room to spare over the bot's own pace.

A bot paced at exactly the fake's limit draws a 429 whenever a busy machine makes one
send late, so that it arrives bunched with the next (and the retry reorders what a
test asserts). Here the fake refuses only beyond half as many again as the bot sends:
a late send is no 429, but a bot that does not pace a chat, or paces it at twice its
pace, is refused (a bot at 1.5 times its pace is not: only a wall-clock count of
arrivals could tell, and that is what a busy machine makes flaky).
"""

from __future__ import annotations

from bot.flood_limits import Limits, Pace
from tests.support.fake_telegram import FakeTelegram, FloodLimits

#: How many times the bot's pace the fake allows before it answers 429.
HEADROOM = 1.5
#: A private chat's sends the fake counts together (over ``PRIVATE_BURST / HEADROOM``
#: Telegram seconds): counted one by one, two sends of a bot paced at one a second
#: that arrive less than 2/3 s apart were a 429 — 13 ms of jitter on a clock 30 times
#: faster (tests/bot/test_bot_flood.py failed so, once, on an idle machine).
PRIVATE_BURST = 3


def paced(scale: float, group_per_minute: int) -> tuple[FloodLimits, Limits]:
    """The fake's flood limits and the bot's pace, on a clock ``scale`` times faster
    than Telegram's: the bot paces itself to ``group_per_minute`` in a group and one a
    second in a private chat; the fake refuses only beyond :data:`HEADROOM` times that."""
    flood = FloodLimits(
        group_per_minute=int(group_per_minute * HEADROOM),
        private_per_second=HEADROOM,
        private_burst=PRIVATE_BURST,
        scale=scale,
    )
    limits = Limits(
        group=Pace(group_per_minute, 60.0 / scale), private=Pace(1, 1.0 / scale), overall=None
    )
    return flood, limits


def refused(fake: FakeTelegram) -> list[str]:
    """The methods of the calls ``fake`` refused for breaking its flood limits (429)."""
    return [c.method for c in fake.calls if not c.ok and "Too Many Requests" in (c.error or "")]

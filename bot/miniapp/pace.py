"""How fast one user may call the Mini App's API: a token bucket per user.

Every API request (a view, a move, 💡, ↩️, 📜 Deal, a stream opened) takes one
token from its user's bucket, checked right after the initData and before any
store access. A bucket holds :data:`BURST` tokens and refills at :data:`RATE` a
second; a request finding it empty is answered 429 with the seconds until its
next token (``Retry-After``), after a :data:`HOLD` that keeps a script from
asking thousands of times a second (at most :data:`HELD_PER_USER` held at
once). A real page sends two requests when it opens (the view and its stream)
and one or two a tap (the move; the view again only while its stream is down),
so it never comes near: the bucket only stops a script that sends without pause
from occupying the event loop and the store that every other chat shares.

The pace is per process. A bucket that has had time to fill up again is the same as
none, so it is forgotten: only the buckets of users seen in the last
``BURST / RATE`` seconds are kept.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

#: Requests one user may send at once (a page sends 2 when it opens, 1–2 a tap).
BURST = 20
#: Requests a second one user may go on sending: 5 taps a second, each with its view
#: again (a page whose stream is down) — no player keeps that up.
RATE = 10.0
#: Seconds a refused request is held before its 429 is answered: answered at once, a
#: script on a few connections gets thousands of them a second, and each still costs the
#: event loop an HTTP request's parsing; held, about one a second per connection.
HOLD = 1.0
#: Refused requests of one user held at once; more are answered at once. Each holds a
#: connection and, in webhook mode, one of the places of the requests in flight
#: (``bot.webhook.MAX_IN_FLIGHT``, shared with Telegram's updates).
HELD_PER_USER = 4

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Bucket:
    tokens: float
    #: when ``tokens`` was counted
    at: float


class UserPace:
    """The per-user token buckets of this process (not :class:`bot.flood_limits.Pace`,
    the bot's own pace towards Telegram)."""

    def __init__(
        self, burst: int = BURST, rate: float = RATE, hold: float = HOLD,
        clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep,
        held_per_user: int = HELD_PER_USER,
    ) -> None:
        if burst < 1 or rate <= 0 or hold < 0:
            raise ValueError(f"a pace needs a burst of 1 or more, a rate above 0 and a hold"
                             f" of 0 or more, not {burst}, {rate} and {hold}")
        self.burst, self.rate, self.hold, self.clock = burst, rate, hold, clock
        self._sleep, self._held_per_user = sleep, held_per_user
        #: by the time each user was last counted, the longest ago first
        self._buckets: OrderedDict[int, _Bucket] = OrderedDict()
        #: each user's refused requests being held
        self._holding: Counter[int] = Counter()
        #: requests answered 429 since start (the log and the tests read it)
        self.refused = 0

    def take(self, user_id: int) -> float:
        """Take one of the user's tokens: 0.0 when there was one, else the seconds
        until there is (the request is refused and takes nothing)."""
        now = self.clock()
        self._forget_full(now)
        bucket = self._buckets.pop(user_id, None)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
        self._buckets[user_id] = bucket  # the last counted: at the end
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        self.refused += 1
        return (1.0 - bucket.tokens) / self.rate

    async def hold_back(self, user_id: int) -> None:
        """Wait :attr:`hold` before a refusal is answered — at once if the user already
        has :data:`HELD_PER_USER` refusals waiting."""
        if self._holding[user_id] >= self._held_per_user:
            return
        self._holding[user_id] += 1
        try:
            await self._sleep(self.hold)
        finally:
            self._holding[user_id] -= 1
            if self._holding[user_id] <= 0:
                del self._holding[user_id]

    def holding(self, user_id: int) -> int:
        """How many of the user's refused requests are being held."""
        return self._holding[user_id]

    @property
    def kept(self) -> int:
        """How many users' buckets are kept (the others are full)."""
        return len(self._buckets)

    def _forget_full(self, now: float) -> None:
        """Drop the buckets full again: an empty one fills in ``burst / rate`` seconds, and
        the oldest counted are first, so the walk stops at the first one still filling."""
        full = self.burst / self.rate
        while self._buckets:
            user_id, bucket = next(iter(self._buckets.items()))
            if now - bucket.at < full:
                break
            del self._buckets[user_id]


def retry_after(wait: float) -> str:
    """``wait`` seconds as a ``Retry-After`` header's whole seconds (at least 1)."""
    return str(max(1, math.ceil(wait)))

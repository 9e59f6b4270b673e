"""How much of a pace is asked for lately: a decaying average per key (a chat, or the
bot's overall budget), for :meth:`bot.limiter.FloodLimiter.short`.

Each request (or screen asked for, sent or not) adds ``1 / span`` to its key's rate,
which decays by ``e`` every ``span`` seconds (``span``: :data:`SPAN` of the pace's
periods), so the rate is the requests a second over roughly the last span.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

#: The average spans this many of its pace's periods (8 s for a private chat's one a
#: second and for the bot's 30 a second).
SPAN = 8
#: Keys kept before the quiet ones are let go (a quiet chat costs no memory).
KEPT = 4096


class Paced(Protocol):
    """A pace as :class:`bot.flood_limits.Pace` describes it."""

    @property
    def per(self) -> float:
        """Seconds its count is spread over."""
        ...

    @property
    def interval(self) -> float:
        """Seconds between two requests."""
        ...


class Demand:
    """Decaying averages of requests per key; ``pace_of(key)`` is the key's pace."""

    def __init__(self, pace_of: Callable[[int], Paced | None]) -> None:
        self._pace_of = pace_of
        self._rates: dict[int, tuple[float, float]] = {}  # key → (a second, when)
        self._kept = KEPT

    def note(self, key: int, pace: Paced, now: float) -> None:
        """One more request for ``key`` at ``now``."""
        span = SPAN * pace.per
        self._rates[key] = (self._rate(key, span, now) + 1.0 / span, now)
        if len(self._rates) > self._kept:
            for quiet, (_, last) in list(self._rates.items()):
                if now - last > SPAN * (self._pace_of(quiet) or pace).per:
                    del self._rates[quiet]
            # many keys are busy: look again once twice as many are kept
            self._kept = max(KEPT, 2 * len(self._rates))

    def share(self, key: int, pace: Paced, now: float) -> float:
        """How much of ``pace`` is asked for ``key`` lately (1: all of it)."""
        return self._rate(key, SPAN * pace.per, now) * pace.interval

    def __len__(self) -> int:
        return len(self._rates)

    def _rate(self, key: int, span: float, now: float) -> float:
        rate, at = self._rates.get(key, (0.0, now))
        return rate * math.exp((at - now) / span)

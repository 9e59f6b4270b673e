"""Telegram's flood limits, as the rate limiter (:mod:`bot.limiter`) paces to them.

Telegram allows a bot about 20 sends+edits a minute in a group, about one a second in
a private chat and about 30 messages a second in all: a :class:`Pace` each, and the
three together are :class:`Limits` (scaled for a fake Bot API's faster clock, or
left out for one without limits).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pace:
    """``count`` requests per ``per`` seconds, spread evenly, ``margin`` times wider
    apart than exactly even, so no window of ``per`` seconds ever holds more than
    ``count`` even if a request arrives up to ``(margin - 1) · per`` seconds late."""

    count: int
    per: float
    # 5 % to spare: requests that leave on time can still arrive bunched (the HTTP
    # client queues them, the event loop is busy), and Telegram counts arrivals
    margin: float = 1.05

    @property
    def interval(self) -> float:
        """Seconds between two requests."""
        return self.per / self.count * self.margin


@dataclass(frozen=True)
class Limits:
    """Telegram's flood limits; None leaves one out (a Bot API without limits)."""

    group: Pace | None = Pace(20, 60.0)
    private: Pace | None = Pace(1, 1.0)
    #: 10 % to spare: a request may arrive 0.1 s late (the overall budget is where
    #: requests crowd, from every chat and, sharing it, from several workers)
    overall: Pace | None = Pace(30, 1.0, margin=1.1)

    def scaled(self, factor: float) -> Limits:
        """The same limits on a clock ``factor`` times faster (a fake Bot API's)."""

        def faster(pace: Pace | None) -> Pace | None:
            return None if pace is None else Pace(pace.count, pace.per / factor, pace.margin)

        return Limits(faster(self.group), faster(self.private), faster(self.overall))

    @classmethod
    def off(cls) -> Limits:
        """No pacing at all (the load benchmark's unlimited fake Bot API)."""
        return cls(None, None, None)

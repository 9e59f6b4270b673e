"""A season is a calendar month (UTC), numbered from January 1970.

Plain arithmetic on the project's clock (seconds since the epoch), like the daily
deal's days (:func:`sessions.daily.day_of`): no I/O, no time zone but UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime


def month_of(now: float) -> int:
    """The season (UTC calendar month) of a moment: months since January 1970."""
    moment = datetime.fromtimestamp(now, UTC)
    return (moment.year - 1970) * 12 + moment.month - 1


def month_start(month: int) -> float:
    """The moment ``month`` begins (UTC midnight of its first day)."""
    year, index = divmod(month, 12)
    return datetime(1970 + year, index + 1, 1, tzinfo=UTC).timestamp()


def year_and_month(month: int) -> tuple[int, int]:
    """``month`` as its calendar year and month (1–12), for showing it."""
    year, index = divmod(month, 12)
    return 1970 + year, index + 1

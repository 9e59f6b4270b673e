"""Rating rows and the shape of a rating update: plain data, no maths.

The maths (openskill's Plackett–Luce over each game's ranking) is
:mod:`sessions.ratings`; the store only keeps its results. A finished match
reaches :meth:`~storage.protocol.SessionStore.save_session` as a
:class:`RatingUpdate`, which the store applies inside the transaction that
writes the match's results (reading the current rows, locked, and writing what
the update returns), so concurrent finishes never lose an update. A season's
ratings (``season_ratings``) are the same computation started afresh each month:
a :class:`RatingChange` with a ``month``.
:meth:`~storage.protocol.TallyStore.rerate` reads every :class:`StoredMatch`
back and writes what a :class:`RebuildRatings` makes of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The scope key of the overall ratings (Telegram chat ids are never 0).
OVERALL = 0
#: The most lines of a game's leaderboard a store reads by default.
LEADERBOARD_LIMIT = 10


@dataclass(frozen=True)
class Rating:
    """One user's rating in one game and scope."""

    mu: float
    sigma: float
    played: int = 0
    wins: int = 0


@dataclass(frozen=True)
class RatingChange:
    """What one finished match did to one user's rating in one scope."""

    session: int
    scope: int
    user_id: int
    game: str
    before: Rating
    after: Rating
    #: None: the all-time rating; else the season (month) it counts in
    #: (:func:`sessions.seasons.month_of`)
    month: int | None = None


@dataclass(frozen=True)
class RatingRow:
    """A line of ``/top`` or ``/stats``: a user's rating in a game, with its rank."""

    user_id: int
    name: str
    game_id: str
    rating: Rating
    rank: int
    of: int


class RatingUpdate(Protocol):
    """A finished match to rate, as the store applies it (:class:`sessions.ratings.RatedMatch`)."""

    @property
    def session(self) -> int: ...

    @property
    def game(self) -> str: ...

    @property
    def scopes(self) -> tuple[int, ...]:
        """The rating scopes it counts in: the group chat's id and/or :data:`OVERALL`."""
        ...

    @property
    def month(self) -> int:
        """The season it counts in (a month: :func:`sessions.seasons.month_of`)."""
        ...

    @property
    def humans(self) -> list[int]:
        """The rated users (each gets a rating row in every scope)."""
        ...

    @property
    def start(self) -> Rating:
        """The rating of a user without a row yet."""
        ...

    def rate(
        self, scope: int, current: Mapping[int, Rating], month: int | None = None
    ) -> list[RatingChange]:
        """The changes in ``scope`` from the humans' ``current`` ratings there (those of
        season ``month``, if given: the changes then carry it)."""
        ...


@dataclass(frozen=True)
class StoredMatch:
    """A match with results as stored, for :meth:`~storage.protocol.TallyStore.rerate`."""

    session: int
    game: str
    kind: str
    chat_id: int | None
    result: Mapping[str, Any] | None
    #: (user_id, level) in seat order
    seats: tuple[tuple[int | None, str | None], ...]
    #: the humans with a result row
    rated_users: tuple[int, ...]
    #: when its results were stored (its season is this moment's month)
    finished: float = 0.0


class RebuildRatings(Protocol):
    """Every rating change from scratch, from the stored matches in the order they were
    rated (:func:`sessions.ratings.rebuild`), the seasons' too (a ``month`` set); the
    store keeps each user's last one per scope (and season)."""

    def __call__(self, matches: Sequence[StoredMatch]) -> list[RatingChange]: ...

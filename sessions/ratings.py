"""Skill ratings: openskill's Plackett–Luce model over each game's own ranking.

Pure computation, no I/O. The session layer hands a finished match to the
store as a :class:`RatedMatch`; the store calls its :meth:`RatedMatch.rate`
inside the transaction that writes the match's results (so a rating changes
exactly when, and only when, the result is stored), and
``python -m sessions.rerate`` runs :func:`rebuild` over every stored match,
oldest first, to get the same numbers.

Every seat of a match is a one-player team ranked by
:meth:`games.base.Game.ranking` (ties as ties). A computer seat plays with its
level's fixed rating and is never updated. Ratings are kept per chat (group
chats) and overall (:data:`OVERALL`); a private duel rates overall only. Each
rating also runs per season (a UTC calendar month, :mod:`sessions.months`): the
same computation, every player starting the month afresh, beside the all-time
one and never changing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from games import REGISTRY
from sessions.months import month_of
from storage.ratings import OVERALL, Rating, RatingChange, StoredMatch

MODEL = PlackettLuce()
#: Where every human starts.
START = Rating(float(MODEL.mu), float(MODEL.sigma))
#: The fixed (mu, sigma) of each computer level: playing the computer rates you.
COMPUTER_RATINGS: dict[str, tuple[float, float]] = {
    "easy": (17.0, 1.5),
    "normal": (24.0, 1.5),
    "strong": (30.0, 1.5),
}


def display(mu: float, sigma: float) -> int:
    """The number players see: 1500 + 10 × the conservative skill (mu − 3·sigma).

    A newcomer shows 1500; a win over an equal newcomer is worth about +34.
    """
    return round(1500 + 10 * (ordinal(mu, sigma) - ordinal(START.mu, START.sigma)))


def shown(rating: Rating) -> int:
    """A stored rating as players see it (:func:`display`)."""
    return display(rating.mu, rating.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate leaderboards are ordered by."""
    return mu - 3 * sigma


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a finished match: a rated human (``user_id``) or a computer (``level``)."""

    user_id: int | None
    level: str | None
    place: int
    won: bool


@dataclass(frozen=True)
class RatedMatch:
    """A finished match as the ratings see it (a :class:`storage.ratings.RatingUpdate`)."""

    session: int
    game: str
    #: the rating scopes it counts in: the group chat's id and/or :data:`OVERALL`
    scopes: tuple[int, ...]
    seats: tuple[RatedSeat, ...]
    #: the season it counts in (:func:`sessions.months.month_of` of its finish)
    month: int

    @property
    def humans(self) -> list[int]:
        """The rated users, in seat order."""
        return [seat.user_id for seat in self.seats if seat.user_id is not None]

    @property
    def start(self) -> Rating:
        """Where a user without a rating starts."""
        return START

    def rate(
        self, scope: int, current: Mapping[int, Rating], month: int | None = None
    ) -> list[RatingChange]:
        """The rating changes in ``scope`` (of season ``month``, if given: :func:`rate`)."""
        return rate(self, scope, current, month)


def rated_match(
    session: int,
    game_id: str,
    kind: str,
    chat_id: int | None,
    result: Mapping[str, Any] | None,
    seats: Sequence[tuple[int | None, str | None]],
    rated_users: Iterable[int],
    finished: float,
) -> RatedMatch | None:
    """The match to rate: ``seats`` as (user_id, level) in seat order, the humans in
    ``rated_users`` (those with a result row) rated, in the season of ``finished``;
    None if there is nothing to rate (no result, an unknown game, no rated human)."""
    if result is None or game_id not in REGISTRY or not result.get("scores"):
        return None
    places = REGISTRY[game_id].ranking(dict(result))
    winners = set(result.get("winners") or [])
    rated = set(rated_users)
    out = []
    for seat, (user_id, level) in enumerate(seats):
        if seat >= len(places):
            return None
        if user_id is not None and user_id in rated:
            out.append(RatedSeat(user_id, None, places[seat], seat in winners))
        else:
            out.append(RatedSeat(None, level or "normal", places[seat], seat in winners))
    if not any(s.user_id is not None for s in out):
        return None
    scopes = (chat_id, OVERALL) if kind == "group" and chat_id else (OVERALL,)
    return RatedMatch(session, game_id, scopes, tuple(out), month_of(finished))


def stored_match(match: StoredMatch) -> RatedMatch | None:
    """The stored match to rate (:func:`rated_match`), or None."""
    return rated_match(
        match.session, match.game, match.kind, match.chat_id, match.result,
        match.seats, match.rated_users, match.finished,
    )


def rate(
    match: RatedMatch, scope: int, current: Mapping[int, Rating], month: int | None = None
) -> list[RatingChange]:
    """The rating changes of ``match`` in ``scope``, from the humans' ``current``
    ratings there (a missing one starts fresh); with ``month``, those of that season
    (the changes carry it). Deterministic."""
    teams = []
    for seat in match.seats:
        if seat.user_id is not None:
            now = current.get(seat.user_id, START)
            teams.append([MODEL.rating(mu=now.mu, sigma=now.sigma)])
        else:
            mu, sigma = COMPUTER_RATINGS.get(seat.level or "normal", COMPUTER_RATINGS["normal"])
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    rated = MODEL.rate(teams, ranks=[float(seat.place) for seat in match.seats])
    changes = []
    for seat, team in zip(match.seats, rated, strict=True):
        if seat.user_id is None:
            continue
        before = current.get(seat.user_id, START)
        after = Rating(
            float(team[0].mu),
            float(team[0].sigma),
            before.played + 1,
            before.wins + int(seat.won),
        )
        changes.append(
            RatingChange(match.session, scope, seat.user_id, match.game, before, after, month)
        )
    return changes


def rebuild(matches: Sequence[StoredMatch]) -> list[RatingChange]:
    """Every rating change from scratch, all-time and per season: ``matches`` rated
    oldest first (a :class:`storage.ratings.RebuildRatings`)."""
    ratings: dict[tuple[int | None, int, str, int], Rating] = {}
    changes: list[RatingChange] = []
    for match in filter(None, map(stored_match, matches)):
        for month in (None, match.month):
            for scope in match.scopes:
                current = {
                    user: ratings[(month, scope, match.game, user)]
                    for user in match.humans
                    if (month, scope, match.game, user) in ratings
                }
                for change in rate(match, scope, current, month):
                    ratings[(month, scope, match.game, change.user_id)] = change.after
                    changes.append(change)
    return changes

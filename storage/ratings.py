"""Skill ratings: openskill's Plackett–Luce model over each game's own ranking.

Pure computation, no I/O: both stores call it inside the transaction that
writes a finished match's results (so a rating changes exactly when, and
only when, the result is stored), and ``python -m storage.rerate`` calls it
again over every stored match, oldest first, to get the same numbers.

Every seat of a match is a one-player team ranked by
:meth:`games.base.Game.ranking` (ties as ties). A computer seat plays with its
level's fixed rating and is never updated. Ratings are kept per chat (group
chats) and overall (:data:`OVERALL`); a private duel rates overall only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from games import REGISTRY

#: The scope key of the overall ratings (Telegram chat ids are never 0).
OVERALL = 0
MODEL = PlackettLuce()
#: Where every human starts.
START_MU = float(MODEL.mu)
START_SIGMA = float(MODEL.sigma)
#: The most lines of a game's leaderboard a store reads by default.
LEADERBOARD_LIMIT = 10
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
    return round(1500 + 10 * (ordinal(mu, sigma) - ordinal(START_MU, START_SIGMA)))


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
    """A finished match as the ratings see it."""

    session: int
    game: str
    #: the rating scopes it counts in: the group chat's id and/or :data:`OVERALL`
    scopes: tuple[int, ...]
    seats: tuple[RatedSeat, ...]

    @property
    def humans(self) -> list[int]:
        """The rated users, in seat order."""
        return [seat.user_id for seat in self.seats if seat.user_id is not None]


@dataclass(frozen=True)
class Rating:
    """One user's rating in one game and scope."""

    mu: float = START_MU
    sigma: float = START_SIGMA
    played: int = 0
    wins: int = 0

    @property
    def shown(self) -> int:
        """The rating as players see it (:func:`display`)."""
        return display(self.mu, self.sigma)


@dataclass(frozen=True)
class RatingChange:
    """What one finished match did to one user's rating in one scope."""

    session: int
    scope: int
    user_id: int
    game: str
    before: Rating
    after: Rating


@dataclass(frozen=True)
class RatingRow:
    """A line of ``/top`` or ``/stats``: a user's rating in a game, with its rank."""

    user_id: int
    name: str
    game_id: str
    rating: Rating
    rank: int
    of: int


def rated_match(
    session: int,
    game_id: str,
    kind: str,
    chat_id: int | None,
    result: Mapping[str, Any] | None,
    seats: Sequence[tuple[int | None, str | None]],
    rated_users: Iterable[int],
) -> RatedMatch | None:
    """The match to rate: ``seats`` as (user_id, level) in seat order, the humans in
    ``rated_users`` (those with a result row) rated; None if there is nothing to rate
    (no result, an unknown game, no rated human)."""
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
    return RatedMatch(session, game_id, scopes, tuple(out))


#: The queries that read every rated match back (both backends run these as they are);
#: a match with a take-back in its log is not rated.
STORED_SESSIONS = (
    "SELECT s.id, s.game, s.kind, s.chat_id, s.result, MIN(COALESCE(r.seq, 0)) AS seq,"
    " MIN(r.time) AS at FROM sessions AS s JOIN results AS r ON r.session = s.id"
    " WHERE NOT EXISTS (SELECT 1 FROM moves AS m WHERE m.session = s.id"
    " AND m.action LIKE 'takeback:%')"
    " GROUP BY s.id ORDER BY seq, at, s.id"
)
STORED_SEATS = (
    "SELECT session, user_id, level FROM seats"
    " WHERE session IN (SELECT session FROM results) ORDER BY session, seat"
)
STORED_RESULTS = "SELECT session, user_id FROM results"


def stored_matches(
    sessions: Iterable[Any],
    seat_rows: Iterable[Any],
    result_rows: Iterable[Any],
    result_of: Callable[[Any], Any] = lambda value: value,
) -> list[RatedMatch]:
    """Every match with results, in the order they were rated, from the rows of
    :data:`STORED_SESSIONS`, :data:`STORED_SEATS` and :data:`STORED_RESULTS`
    (``result_of`` decodes a stored result: SQLite keeps JSON text)."""
    seats: dict[int, list[tuple[int | None, str | None]]] = {}
    for row in seat_rows:
        seats.setdefault(row[0], []).append((row[1], row[2]))
    rated: dict[int, list[int]] = {}
    for row in result_rows:
        rated.setdefault(row[0], []).append(row[1])
    matches = []
    for row in sessions:
        match = rated_match(
            row[0], row[1], row[2], row[3], result_of(row[4]),
            seats.get(row[0], []), rated.get(row[0], []),
        )
        if match is not None:
            matches.append(match)
    return matches


def rate(match: RatedMatch, scope: int, current: Mapping[int, Rating]) -> list[RatingChange]:
    """The rating changes of ``match`` in ``scope``, from the humans' ``current``
    ratings there (a missing one starts fresh). Deterministic."""
    teams = []
    for seat in match.seats:
        if seat.user_id is not None:
            now = current.get(seat.user_id, Rating())
            teams.append([MODEL.rating(mu=now.mu, sigma=now.sigma)])
        else:
            mu, sigma = COMPUTER_RATINGS.get(seat.level or "normal", COMPUTER_RATINGS["normal"])
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    rated = MODEL.rate(teams, ranks=[float(seat.place) for seat in match.seats])
    changes = []
    for seat, team in zip(match.seats, rated, strict=True):
        if seat.user_id is None:
            continue
        before = current.get(seat.user_id, Rating())
        after = Rating(
            float(team[0].mu),
            float(team[0].sigma),
            before.played + 1,
            before.wins + int(seat.won),
        )
        changes.append(RatingChange(match.session, scope, seat.user_id, match.game, before, after))
    return changes


def replay_ratings(
    matches: Iterable[RatedMatch],
) -> tuple[dict[tuple[int, str, int], Rating], list[RatingChange]]:
    """Every rating from scratch: ``matches`` applied oldest first. The final
    ratings by (scope, game, user_id), and every change."""
    ratings: dict[tuple[int, str, int], Rating] = {}
    changes: list[RatingChange] = []
    for match in matches:
        for scope in match.scopes:
            current = {
                user: ratings[(scope, match.game, user)]
                for user in match.humans
                if (scope, match.game, user) in ratings
            }
            for change in rate(match, scope, current):
                ratings[(scope, match.game, change.user_id)] = change.after
                changes.append(change)
    return ratings, changes

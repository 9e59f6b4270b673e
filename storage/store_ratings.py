"""Tallies and ratings: one implementation for both backends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from games import REGISTRY
from storage.ratings import (
    LEADERBOARD_LIMIT,
    Rating,
    RatingChange,
    RatingRow,
    RatingUpdate,
    RebuildRatings,
    StoredMatch,
)
from storage.records import TallyRow
from storage.sql import Backend, Row, Sql, Tx

_TALLY = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, COUNT(*) AS played,"
    " SUM(CASE WHEN r.won THEN 1 ELSE 0 END) AS wins, SUM(r.points) AS points"
    " FROM results AS r LEFT JOIN users AS u ON u.id = r.user_id"
)
_TALLY_ORDER = (
    " GROUP BY r.user_id, u.name, r.game"
    " ORDER BY wins DESC, points DESC, played ASC, r.user_id, r.game"
)
_CHAT_TALLY = Sql(_TALLY + " WHERE r.chat_id = :chat" + _TALLY_ORDER)
_CHAT_GAME_TALLY = Sql(_TALLY + " WHERE r.chat_id = :chat AND r.game = :game" + _TALLY_ORDER)
_USER_TALLY = Sql(_TALLY + " WHERE r.user_id = :user" + _TALLY_ORDER)
#: the best ``limit`` ratings of one game in a scope (the ratings_order index, in its
#: order), ranked among themselves — every better rating is among them — with how many
#: players the game has there
_TOP = Sql(
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " RANK() OVER (ORDER BY r.mu - 3 * r.sigma DESC) AS rank,"
    " (SELECT COUNT(*) FROM ratings WHERE scope = :scope AND game = :game) AS of"
    " FROM (SELECT * FROM ratings WHERE scope = :scope AND game = :game"
    " ORDER BY mu - 3 * sigma DESC, played DESC, user_id LIMIT :limit) AS r"
    " LEFT JOIN users AS u ON u.id = r.user_id ORDER BY rank, r.played DESC, r.user_id"
)
#: one user's ratings in a scope, each ranked by counting the better ones (an index range)
_RANKS = Sql(
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " 1 + (SELECT COUNT(*) FROM ratings AS b WHERE b.scope = r.scope AND b.game = r.game"
    " AND b.mu - 3 * b.sigma > r.mu - 3 * r.sigma) AS rank,"
    " (SELECT COUNT(*) FROM ratings AS c WHERE c.scope = r.scope AND c.game = r.game) AS of"
    " FROM ratings AS r LEFT JOIN users AS u ON u.id = r.user_id"
    " WHERE r.user_id = :user AND r.scope = :scope ORDER BY r.game"
)
_CHANGE_COLUMNS = (
    "session", "scope", "user_id", "game", "mu_before", "sigma_before", "played_before",
    "wins_before", "mu", "sigma", "played", "wins",
)
_CHANGES = Sql(
    f"SELECT {', '.join(_CHANGE_COLUMNS)} FROM rating_changes WHERE session = :session"
    " ORDER BY scope, user_id"
)
_INSERT_CHANGE = Sql(
    f"INSERT INTO rating_changes ({', '.join(_CHANGE_COLUMNS)})"
    f" VALUES ({', '.join(f':{name}' for name in _CHANGE_COLUMNS)})"
)
_INSERT_RATING = Sql(
    "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
    " VALUES (:scope, :game, :user_id, :mu, :sigma, :played, :wins)"
)
_NEW_RATING = Sql(
    "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
    " VALUES (:scope, :game, :user_id, :mu, :sigma, 0, 0) ON CONFLICT DO NOTHING"
)
_UPDATE_RATING = Sql(
    "UPDATE ratings SET mu = :mu, sigma = :sigma, played = :played, wins = :wins"
    " WHERE scope = :scope AND game = :game AND user_id = :user_id"
)
_NUMBER_RESULTS = Sql("UPDATE results SET seq = {next_seq} WHERE session = :session")
_DELETE_CHANGES = Sql("DELETE FROM rating_changes")
_DELETE_RATINGS = Sql("DELETE FROM ratings")
#: every match with results, in the order they were rated (a match with a take-back in
#: its log is not rated), its seats, and its humans with a result row
_STORED = (
    Sql(
        "SELECT s.id, s.game, s.kind, s.chat_id, s.result, MIN(COALESCE(r.seq, 0)) AS seq,"
        " MIN(r.time) AS at FROM sessions AS s JOIN results AS r ON r.session = s.id"
        " WHERE NOT EXISTS (SELECT 1 FROM moves AS m WHERE m.session = s.id"
        " AND m.action LIKE 'takeback:%')"
        " GROUP BY s.id ORDER BY seq, at, s.id"
    ),
    Sql(
        "SELECT session, user_id, level FROM seats"
        " WHERE session IN (SELECT session FROM results) ORDER BY session, seat"
    ),
    Sql("SELECT session, user_id FROM results"),
)
#: the current ratings of n players, locked where rows can be (by count of players)
_CURRENT: dict[int, Sql] = {}


class SqlTallies:
    """The tallies-and-ratings role of the store (:class:`storage.protocol.TallyStore`)."""

    backend: Backend

    async def chat_tally(self, chat_id: int, game: str | None = None) -> list[TallyRow]:
        """Per user and game in one chat: played, wins, points; best first."""
        if game is None:
            return _tally_rows(await self.backend.fetch(_CHAT_TALLY, chat=chat_id))
        return _tally_rows(await self.backend.fetch(_CHAT_GAME_TALLY, chat=chat_id, game=game))

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across every chat."""
        return _tally_rows(await self.backend.fetch(_USER_TALLY, user=user_id))

    async def rating_changes(self, session_id: int) -> list[RatingChange]:
        """What the finished match did to its humans' ratings."""
        rows = await self.backend.fetch(_CHANGES, session=session_id)
        return [
            RatingChange(r[0], r[1], r[2], r[3], Rating(r[4], r[5], r[6], r[7]),
                         Rating(r[8], r[9], r[10], r[11]))
            for r in rows
        ]

    async def leaderboard(
        self, scope: int, game: str | None = None, *, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of ``scope`` per game, best first, with ranks."""
        rows: list[RatingRow] = []
        for each in [game] if game is not None else sorted(REGISTRY):
            found = await self.backend.fetch(_TOP, scope=scope, game=each, limit=limit)
            rows += [_rating_row(row) for row in found]
        return rows

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's ratings in ``scope`` with their ranks."""
        rows = await self.backend.fetch(_RANKS, user=user_id, scope=scope)
        return [_rating_row(row) for row in rows]

    async def rerate(self, rebuild: RebuildRatings) -> int:
        """Recompute every rating from the stored results with ``rebuild``, in one
        transaction (the rating tables held against matches finishing meanwhile)."""
        backend = self.backend

        async def work(tx: Tx) -> int:
            await backend.lock_ratings(tx)
            sessions, seats, results = [await tx.fetch(sql) for sql in _STORED]
            changes = rebuild(stored_matches(sessions, seats, results, backend.load_json))
            ratings = {(c.scope, c.game, c.user_id): c.after for c in changes}
            await tx.execute(_DELETE_CHANGES)
            await tx.execute(_DELETE_RATINGS)
            await tx.executemany(_INSERT_RATING, [
                {"scope": scope, "game": game, "user_id": user, "mu": r.mu, "sigma": r.sigma,
                 "played": r.played, "wins": r.wins}
                for (scope, game, user), r in ratings.items()
            ])
            await _insert_changes(tx, changes)
            return len({change.session for change in changes})

        return await backend.write(work)


async def rate_match(tx: Tx, match: RatingUpdate) -> None:
    """Update the humans' ratings of every scope of ``match`` (inside the transaction).

    The rows are created if missing, then read (and locked, where rows can be) in
    key order, so two workers finishing matches of the same player apply them one
    after the other.
    """
    humans = sorted(match.humans)
    current_of = _CURRENT.get(len(humans))
    if current_of is None:
        marks = ", ".join(f":u{n}" for n in range(len(humans)))
        current_of = _CURRENT[len(humans)] = Sql(
            "SELECT user_id, mu, sigma, played, wins FROM ratings"
            f" WHERE scope = :scope AND game = :game AND user_id IN ({marks})"
            " ORDER BY user_id{for_update}"
        )
    users = {f"u{n}": user for n, user in enumerate(humans)}
    fresh = match.start
    changes: list[RatingChange] = []
    for scope in sorted(match.scopes):
        await tx.executemany(_NEW_RATING, [
            {"scope": scope, "game": match.game, "user_id": user, "mu": fresh.mu,
             "sigma": fresh.sigma}
            for user in humans
        ])
        rows = await tx.fetch(current_of, scope=scope, game=match.game, **users)
        current = {row[0]: Rating(row[1], row[2], row[3], row[4]) for row in rows}
        changes += match.rate(scope, current)
    await tx.executemany(_UPDATE_RATING, [
        {"scope": c.scope, "game": c.game, "user_id": c.user_id, "mu": c.after.mu,
         "sigma": c.after.sigma, "played": c.after.played, "wins": c.after.wins}
        for c in changes
    ])
    await _insert_changes(tx, changes)
    # taken after the locks: matches sharing a player are numbered in the order
    # they were rated, so rerate (by seq) applies them in that order too
    await tx.execute(_NUMBER_RESULTS, session=match.session)


async def _insert_changes(tx: Tx, changes: Sequence[RatingChange]) -> None:
    await tx.executemany(_INSERT_CHANGE, [
        {"session": c.session, "scope": c.scope, "user_id": c.user_id, "game": c.game,
         "mu_before": c.before.mu, "sigma_before": c.before.sigma,
         "played_before": c.before.played, "wins_before": c.before.wins, "mu": c.after.mu,
         "sigma": c.after.sigma, "played": c.after.played, "wins": c.after.wins}
        for c in changes
    ])


def stored_matches(
    sessions: Iterable[Any],
    seat_rows: Iterable[Any],
    result_rows: Iterable[Any],
    result_of: Callable[[Any], Any] = lambda value: value,
) -> list[StoredMatch]:
    """Every match with results, in the order they were rated, from the rows of
    ``_STORED`` (``result_of`` decodes a stored result: SQLite keeps JSON text)."""
    seats: dict[int, list[tuple[int | None, str | None]]] = {}
    for row in seat_rows:
        seats.setdefault(row[0], []).append((row[1], row[2]))
    rated: dict[int, list[int]] = {}
    for row in result_rows:
        rated.setdefault(row[0], []).append(row[1])
    return [
        StoredMatch(row[0], row[1], row[2], row[3], result_of(row[4]),
                    tuple(seats.get(row[0], [])), tuple(rated.get(row[0], [])))
        for row in sessions
    ]


def _rating_row(row: Row) -> RatingRow:
    return RatingRow(
        row["user_id"], row["name"], row["game"],
        Rating(row["mu"], row["sigma"], row["played"], row["wins"]), row["rank"], row["of"],
    )


def _tally_rows(rows: list[Row]) -> list[TallyRow]:
    return [
        TallyRow(r["user_id"], r["name"], r["game"], r["played"], r["wins"], _number(r["points"]))
        for r in rows
    ]


def _number(value: float) -> float:
    """Whole points as ints (they are stored as floating point)."""
    return int(value) if float(value).is_integer() else float(value)

"""Tallies and ratings: one implementation for both backends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
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
#: a chat's tally (of one game; between two moments: index results_chat_time),
#: by (game named, period given)
_CHAT_TALLY = {
    (game, period): Sql(
        _TALLY + " WHERE r.chat_id = :chat"
        + (" AND r.game = :game" if game else "")
        + (" AND r.time >= :since AND r.time < :until" if period else "")
        + _TALLY_ORDER
    )
    for game in (False, True) for period in (False, True)
}
_USER_TALLY = Sql(_TALLY + " WHERE r.user_id = :user" + _TALLY_ORDER)


def top_of(table: str, where: str = "") -> Sql:
    """The best ``limit`` ratings of one game in a scope of ``table`` (``where``: more
    of its key, as ``month = :month AND ``) in the order of its index (ratings_order,
    season_ratings_order), ranked among themselves — every better rating is among
    them — with how many players the game has there."""
    return Sql(
        "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played,"
        " r.wins, RANK() OVER (ORDER BY r.mu - 3 * r.sigma DESC) AS rank,"
        f" (SELECT COUNT(*) FROM {table} WHERE {where}scope = :scope AND game = :game) AS of"
        f" FROM (SELECT * FROM {table} WHERE {where}scope = :scope AND game = :game"
        " ORDER BY mu - 3 * sigma DESC, played DESC, user_id LIMIT :limit) AS r"
        " LEFT JOIN users AS u ON u.id = r.user_id ORDER BY rank, r.played DESC, r.user_id"
    )


_TOP = top_of("ratings")
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

class _Kept:
    """The statements of one rating table: ``ratings`` (all-time) or ``season_ratings``
    (the same columns after a ``month``)."""

    def __init__(self, table: str, month: bool) -> None:
        key = "month, " if month else ""
        value = ":month, " if month else ""
        where = "month = :month AND " if month else ""
        self.insert = Sql(
            f"INSERT INTO {table} ({key}scope, game, user_id, mu, sigma, played, wins)"
            f" VALUES ({value}:scope, :game, :user_id, :mu, :sigma, :played, :wins)"
        )
        self.new = Sql(
            f"INSERT INTO {table} ({key}scope, game, user_id, mu, sigma, played, wins)"
            f" VALUES ({value}:scope, :game, :user_id, :mu, :sigma, 0, 0) ON CONFLICT DO NOTHING"
        )
        self.update = Sql(
            f"UPDATE {table} SET mu = :mu, sigma = :sigma, played = :played, wins = :wins"
            f" WHERE {where}scope = :scope AND game = :game AND user_id = :user_id"
        )
        self.delete = Sql(f"DELETE FROM {table}")
        self._table, self._where = table, where
        #: the current ratings of n players, locked where rows can be (by count of players)
        self._current: dict[int, Sql] = {}

    def current(self, players: int) -> Sql:
        """The current ratings of ``players`` users (``:u0``…), locked where rows can be."""
        found = self._current.get(players)
        if found is None:
            marks = ", ".join(f":u{n}" for n in range(players))
            found = self._current[players] = Sql(
                f"SELECT user_id, mu, sigma, played, wins FROM {self._table}"
                f" WHERE {self._where}scope = :scope AND game = :game AND user_id IN ({marks})"
                " ORDER BY user_id{for_update}"
            )
        return found


_ALL_TIME = _Kept("ratings", month=False)
_SEASON = _Kept("season_ratings", month=True)
_NUMBER_RESULTS = Sql("UPDATE results SET seq = {next_seq} WHERE session = :session")
_DELETE_CHANGES = Sql("DELETE FROM rating_changes")
_ANY_SEASON = Sql("SELECT 1 FROM season_ratings LIMIT 1")
_ANY_RESULT = Sql("SELECT 1 FROM results LIMIT 1")
#: every match with results, in the order they were rated (a match with a take-back in
#: its log is not rated), its seats, and its humans with a result row
_STORED = (
    Sql(
        "SELECT s.id, s.game, s.kind, s.chat_id, s.result, MIN(COALESCE(r.seq, 0)) AS seq,"
        " MIN(r.time) AS finished FROM sessions AS s JOIN results AS r ON r.session = s.id"
        " WHERE NOT EXISTS (SELECT 1 FROM moves AS m WHERE m.session = s.id"
        " AND m.action LIKE 'takeback:%')"
        " GROUP BY s.id ORDER BY seq, finished, s.id"
    ),
    Sql(
        "SELECT session, user_id, level FROM seats"
        " WHERE session IN (SELECT session FROM results) ORDER BY session, seat"
    ),
    Sql("SELECT session, user_id FROM results"),
)


class SqlTallies:
    """The tallies-and-ratings role of the store (:class:`storage.protocol.TallyStore`)."""

    backend: Backend

    async def chat_tally(
        self, chat_id: int, game: str | None = None,
        period: tuple[float, float] | None = None,
    ) -> list[TallyRow]:
        """Per user and game in one chat (of the matches finished in ``period``, from its
        first moment up to its second): played, wins, points; best first."""
        since, until = period if period is not None else (0.0, 0.0)
        sql = _CHAT_TALLY[(game is not None, period is not None)]
        return _tally_rows(await self.backend.fetch(
            sql, chat=chat_id, game=game, since=float(since), until=float(until)
        ))

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
        return await boards(self.backend, _TOP, game, scope=scope, limit=limit)

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
            return await _rerate_in(tx, backend, rebuild)

        return await backend.write(work)

    async def fill_seasons(self, rebuild: RebuildRatings) -> int:
        """:meth:`rerate`, in the same transaction as the check, only if no season is
        rated yet but results are stored (an upgrade past revision 0004); else 0. The
        check is read first without a lock: a start on a filled store writes nothing."""
        backend = self.backend
        if not await _seasons_to_fill(backend.fetch):
            return 0

        async def work(tx: Tx) -> int:
            await backend.lock_ratings(tx)
            if not await _seasons_to_fill(tx.fetch):  # another worker filled them meanwhile
                return 0
            return await _rerate_in(tx, backend, rebuild)

        return await backend.write(work)


async def _seasons_to_fill(fetch: Callable[..., Awaitable[list[Row]]]) -> bool:
    """Whether no season is rated yet but results are stored, read through ``fetch``."""
    return not await fetch(_ANY_SEASON) and bool(await fetch(_ANY_RESULT))


async def _rerate_in(tx: Tx, backend: Backend, rebuild: RebuildRatings) -> int:
    """The body of :meth:`SqlTallies.rerate`, inside its transaction."""
    sessions, seats, results = [await tx.fetch(sql) for sql in _STORED]
    changes = rebuild(stored_matches(sessions, seats, results, backend.load_json))
    ratings = {(c.month, c.scope, c.game, c.user_id): c.after for c in changes}
    await tx.execute(_DELETE_CHANGES)
    for kept in (_ALL_TIME, _SEASON):
        await tx.execute(kept.delete)
        await tx.executemany(kept.insert, [
            {"month": month, "scope": scope, "game": game, "user_id": user,
             "mu": r.mu, "sigma": r.sigma, "played": r.played, "wins": r.wins}
            for (month, scope, game, user), r in ratings.items()
            if (month is not None) == (kept is _SEASON)
        ])
    await _insert_changes(tx, [c for c in changes if c.month is None])
    return len({change.session for change in changes})


async def boards(backend: Backend, top: Sql, game: str | None, **key: Any) -> list[RatingRow]:
    """The rows of ``top`` (:func:`top_of`) for ``game``, or for each game in turn."""
    rows: list[RatingRow] = []
    for each in [game] if game is not None else sorted(REGISTRY):
        rows += [_rating_row(row) for row in await backend.fetch(top, game=each, **key)]
    return rows


async def rate_match(tx: Tx, match: RatingUpdate) -> None:
    """Update the humans' ratings of every scope of ``match``, all-time and in its
    season (inside the transaction).

    The rows are created if missing, then read (and locked, where rows can be) in
    key order — all-time before season — so two workers finishing matches of the
    same player apply them one after the other.
    """
    await _insert_changes(tx, await _rate_in(tx, _ALL_TIME, match, None))
    await _rate_in(tx, _SEASON, match, match.month)
    # taken after the locks: matches sharing a player are numbered in the order
    # they were rated, so rerate (by seq) applies them in that order too
    await tx.execute(_NUMBER_RESULTS, session=match.session)


async def _rate_in(
    tx: Tx, kept: _Kept, match: RatingUpdate, month: int | None
) -> list[RatingChange]:
    """Rate ``match`` in the rows of ``kept`` (of season ``month``, if given)."""
    humans = sorted(match.humans)
    users = {f"u{n}": user for n, user in enumerate(humans)}
    fresh = match.start
    changes: list[RatingChange] = []
    for scope in sorted(match.scopes):
        await tx.executemany(kept.new, [
            {"month": month, "scope": scope, "game": match.game, "user_id": user,
             "mu": fresh.mu, "sigma": fresh.sigma}
            for user in humans
        ])
        rows = await tx.fetch(
            kept.current(len(humans)), month=month, scope=scope, game=match.game, **users
        )
        current = {row[0]: Rating(row[1], row[2], row[3], row[4]) for row in rows}
        changes += match.rate(scope, current, month)
    await tx.executemany(kept.update, [
        {"month": month, "scope": c.scope, "game": c.game, "user_id": c.user_id,
         "mu": c.after.mu, "sigma": c.after.sigma, "played": c.after.played,
         "wins": c.after.wins}
        for c in changes
    ])
    return changes


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
                    tuple(seats.get(row[0], [])), tuple(rated.get(row[0], [])),
                    float(row[6] or 0.0))
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

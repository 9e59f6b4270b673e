"""The store protocols for what finished matches leave behind: the tallies and
ratings (:class:`TallyStore`), the daily deal (:class:`DailyStore`) and the seasons
(:class:`SeasonStore`). Part of :class:`storage.protocol.Store`; the conventions are
those of :mod:`storage.protocol`.
"""

from __future__ import annotations

from typing import Protocol

from storage.ratings import LEADERBOARD_LIMIT, RatingChange, RatingRow, RebuildRatings
from storage.records import DailyResult, DailyRow, TallyRow


class TallyStore(Protocol):
    """Tallies (``/score``, ``/stats``) and ratings (``/top``)."""

    async def chat_tally(
        self, chat_id: int, game: str | None = None,
        period: tuple[float, float] | None = None,
    ) -> list[TallyRow]:
        """Per user and game in one chat: played, wins, points; most wins first. With
        ``period`` (since, until), only the matches finished from ``since`` up to
        ``until`` (a season's tally; read through an index of the chat's results by time)."""
        ...

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across every chat."""
        ...

    async def rating_changes(self, session_id: int) -> list[RatingChange]:
        """What the finished match ``session_id`` did to its humans' ratings, by scope
        and seat order of users (empty if it was not rated)."""
        ...

    async def leaderboard(
        self, scope: int, game: str | None = None, *, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of ``scope`` (a group chat's id, or
        ``ratings.OVERALL``) in ``game`` or in each game, per game best first (by
        ``mu − 3·sigma``), each with its rank among the game's players there (read
        through an index: the cost does not grow with the scope)."""
        ...

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's ratings in ``scope``, one row per game, with their ranks there."""
        ...

    async def rerate(self, rebuild: RebuildRatings) -> int:
        """Recompute every rating and rating change from the stored results with
        ``rebuild`` (:func:`sessions.ratings.rebuild`), in the order the matches were
        rated (results rows keep it), in one transaction; the number of matches rated."""
        ...

    async def fill_seasons(self, rebuild: RebuildRatings) -> int:
        """:meth:`rerate` if ``season_ratings`` is empty and results are stored (a
        database upgraded past revision 0004, whose seasons start empty), checked in
        the rerate's transaction so concurrent workers fill once; else nothing, and 0."""
        ...


class DailyStore(Protocol):
    """The daily deal: its secret seed per day and game, the plays and their boards,
    and each group's one post when a day's boards close."""

    async def daily_seed(self, day: int, game: str, seed: int) -> int:
        """The seed of ``day``'s deal of ``game``: ``seed`` if none is stored yet, else
        the stored one (the first writer's; workers agree)."""
        ...

    async def daily_result(self, day: int, game: str, user_id: int) -> DailyResult | None:
        """The user's play of that deal, or None."""
        ...

    async def daily_results(self, day: int, user_id: int) -> list[DailyResult]:
        """The user's plays of ``day``, by game."""
        ...

    async def daily_place(
        self, day: int, game: str, standing: float, chat_id: int | None = None
    ) -> tuple[int, int]:
        """(place, players) of a finished play of ``standing`` among every finished
        play of that deal, or among group ``chat_id``'s members'; ties share a place."""
        ...

    async def daily_board(
        self, day: int, game: str, chat_id: int | None = None, limit: int = 10
    ) -> list[DailyRow]:
        """The best ``limit`` finished plays (of group ``chat_id``'s members), best
        first, with their places."""
        ...

    async def daily_groups(self, user_id: int) -> list[int]:
        """The group chats the user is a member of: they finished a match there."""
        ...

    async def daily_games(self, day: int, chat_id: int) -> list[str]:
        """The games whose ``day`` deal a member of the group finished."""
        ...

    async def daily_days(self, user_id: int) -> list[int]:
        """The days the user finished a daily deal, newest first."""
        ...

    async def open_daily_posts(self, day: int) -> list[int]:
        """Close ``day``'s boards: one post row per group where a member finished that
        day's deal (made once), and the groups whose post nobody has taken."""
        ...

    async def take_daily_post(self, day: int, chat_id: int, owner: str, now: float) -> bool:
        """Take the group's post of ``day`` to send it: True for exactly one caller ever."""
        ...


class SeasonStore(Protocol):
    """Seasons: each calendar month's ratings boards (rated with the all-time ratings:
    ``save_session(..., rated=…)``) and each group's one champions' post a month."""

    async def season_leaderboard(
        self, month: int, scope: int, game: str | None = None, *,
        limit: int = LEADERBOARD_LIMIT,
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of season ``month`` (months since January 1970) in
        ``scope``, per game best first, with ranks (read through an index)."""
        ...

    async def open_season_posts(self, month: int) -> list[int]:
        """Close season ``month``: one post row per group with a rated match in it (made
        once), and the groups whose post nobody has taken."""
        ...

    async def take_season_post(self, month: int, chat_id: int, owner: str, now: float) -> bool:
        """Take the group's champions' post of ``month``: True for exactly one caller ever."""
        ...

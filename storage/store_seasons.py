"""Seasons: each calendar month's ratings boards and the champions' posts.

One implementation for both backends (see :mod:`storage.sql`). A season's
ratings are written with the all-time ones (:func:`storage.store_ratings.rate_match`),
in ``season_ratings`` keyed by month, scope, game and user; a board reads the
best few through ``season_ratings_order``, like ``/top`` reads ``ratings``. A
group had a season when a rated match of that month counted in its scope.
"""

from __future__ import annotations

from storage.ratings import LEADERBOARD_LIMIT, RatingRow
from storage.sql import Backend, Sql
from storage.store_posts import PostRows
from storage.store_ratings import boards, top_of

_TOP = top_of("season_ratings", "month = :month AND ")
#: the group chats with a rated match in a month (the key's range of that month)
_CHATS = Sql(
    "SELECT DISTINCT scope FROM season_ratings WHERE month = :month AND scope <> 0"
    " ORDER BY scope"
)
_POSTS = PostRows("season_posts", "month")


class SqlSeasons:
    """The seasons' role of the store (:class:`storage.protocol.SeasonStore`)."""

    backend: Backend

    async def season_leaderboard(
        self, month: int, scope: int, game: str | None = None, *,
        limit: int = LEADERBOARD_LIMIT,
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of season ``month`` in ``scope`` per game, best
        first, with ranks (as :meth:`~storage.protocol.TallyStore.leaderboard`)."""
        return await boards(self.backend, _TOP, game, month=month, scope=scope, limit=limit)

    async def open_season_posts(self, month: int) -> list[int]:
        """Close season ``month``: a post row for every group with a rated match in it
        (once: a second call adds none), and the groups whose post is not taken yet."""
        chats = [int(row[0]) for row in await self.backend.fetch(_CHATS, month=month)]
        return await _POSTS.opened(self.backend, month, chats)

    async def take_season_post(self, month: int, chat_id: int, owner: str, now: float) -> bool:
        """Take the group's champions' post of ``month`` for ``owner`` to send (one atomic
        update: of any number of workers, one gets it, once)."""
        return await _POSTS.taken(self.backend, month, chat_id, owner, now)

"""Seasons: every rating and the tally also run per calendar month (UTC).

A season's ratings are rated with the all-time ones, in the same transaction
(:func:`sessions.ratings.rate` with a month; every player starts each month
afresh), so the all-time ratings are exactly what they were without seasons. A
season's tally is the chat's tally of the matches finished that month. When a
month is over, each group with a rated match in it gets one "season champions"
post: taken by one atomic update (``take_season_post``), so of any number of
workers, restarted or not, one sends it, once. Daily deals are in neither (they
are not rated and not in the tally).
"""

from __future__ import annotations

from dataclasses import dataclass

from sessions.months import month_of, month_start
from sessions.queries import best_first
from sessions.repository import Repository
from sessions.timers import Clock
from storage import RatingRow, TallyRow
from storage.ratings import LEADERBOARD_LIMIT

#: How many of a game's best a champions' post reads (those ranked first are shown).
CHAMPION_ROWS = 3


@dataclass(frozen=True)
class Champions:
    """A game's best of a season in one group: the players ranked first (tied, several),
    and how many were rated in it."""

    game_id: str
    best: tuple[RatingRow, ...]
    players: int


class Seasons:
    """The seasons of one :class:`~sessions.SessionManager`."""

    def __init__(self, repo: Repository, clock: Clock, worker: str) -> None:
        self.repo = repo
        self._clock = clock
        #: who takes a group's post here (this worker: :attr:`SessionManager.worker_id`)
        self._worker = worker

    def this_month(self) -> int:
        """The season now (:func:`sessions.months.month_of`)."""
        return month_of(self._clock())

    async def board(
        self, scope: int, game_id: str | None = None, limit: int = LEADERBOARD_LIMIT,
        month: int | None = None,
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of season ``month`` (default: this one) in a group
        chat or overall, per game, with ranks."""
        month = self.this_month() if month is None else month
        return await self.repo.seasons.season_leaderboard(month, scope, game_id, limit=limit)

    async def tally(
        self, chat_id: int, game_id: str | None = None, month: int | None = None
    ) -> list[TallyRow]:
        """The chat's tally of the matches finished in season ``month`` (default: this one)."""
        month = self.this_month() if month is None else month
        period = (month_start(month), month_start(month + 1))
        return best_first(await self.repo.tallies.chat_tally(chat_id, game_id, period))

    async def to_post(self, month: int) -> list[int]:
        """Close season ``month`` (only once it is over; none before): the groups whose
        champions' post nobody has taken yet."""
        if month >= self.this_month():
            return []
        return await self.repo.seasons.open_season_posts(month)

    async def take_post(self, month: int, chat_id: int) -> bool:
        """Take the group's champions' post of ``month``: True for one caller only, ever."""
        return await self.repo.seasons.take_season_post(month, chat_id, self._worker, self._clock())

    async def champions(self, chat_id: int, month: int) -> list[Champions]:
        """The best of each game rated in the group in season ``month``."""
        rows = await self.board(chat_id, None, CHAMPION_ROWS, month)
        found: dict[str, list[RatingRow]] = {}
        for row in rows:
            found.setdefault(row.game_id, []).append(row)
        return [
            Champions(game, tuple(row for row in best if row.rank == 1), best[0].of)
            for game, best in found.items()
        ]

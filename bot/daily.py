"""The daily deal's work beyond commands: a player's standing once their deal is over,
and the group posts when a day's boards close.

Every worker looks for closed boards once a minute (:class:`bot.posts.Posts` runs
:meth:`DailyBoards.close`, the look of :class:`bot.posts.PeriodPosts`). A day's
boards close when the day is over (UTC): the store then holds one post row per group where a
member finished that day's deal, made once whoever looks first. Each post is
taken by one atomic update before it is sent (``take_daily_post``): of any number
of workers, restarted or not, one sends it, once — at most one message per group
per day. A worker that dies between taking a post and sending it loses that post
(we chose at most once over at least once: a second post would break the
promise; a lost one only leaves the board unannounced). Posts go through the one
rate limiter like every other message, so they keep within the budget.
"""

from __future__ import annotations

from bot.posts import PeriodPosts
from bot.render.common import Screen
from bot.render.daily import render_post, render_standing
from sessions import Session


class DailyBoards(PeriodPosts):
    """One worker's part of the daily deal's background work: the standings, and the
    posts of the closed boards (a period is a day)."""

    async def finished(self, session: Session) -> None:
        """A daily table was just finished: tell its player where they stand."""
        if session.daily is None or not session.humans:
            return
        user = session.humans[0]
        standing = await self.manager.daily.standing(user, session.game_id, session.daily)
        if standing is None:
            return
        lang = await self.presenter.user_language(user)
        self.presenter.reply(user, render_standing(standing, lang), thread=0)

    def current(self) -> int:
        """Today (UTC)."""
        return self.manager.daily.today()

    async def waiting(self, period: int) -> list[int]:
        """Close ``period``'s boards: the groups where someone played, not yet posted."""
        return await self.manager.daily.boards_to_post(period)

    async def take(self, period: int, chat_id: int) -> bool:
        """Take the group's post of day ``period``."""
        return await self.manager.daily.take_post(period, chat_id)

    async def draw(self, period: int, chat_id: int, lang: str) -> Screen | None:
        """Each game's winners among the group's members, with how many played."""
        winners = []
        for game in await self.manager.daily.games_played(chat_id, period):
            board = await self.manager.daily.board(game, chat_id, period)
            best = [row for row in board if row.place == 1]
            players = await self.manager.daily.players(game, chat_id, period)
            winners.append((game, best, players))
        return render_post(period, winners, lang) if winners else None

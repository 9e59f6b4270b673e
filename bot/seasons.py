"""The seasons' work beyond commands: each group's champions' post when a month ends.

At the first look after a month is over (:class:`bot.posts.Posts`, once a minute
on every worker), the store holds one post row per group that had a rated match
that month, made once whoever looks first; each is taken by one atomic update
(``take_season_post``) before it is sent, so the cluster sends it once, across
restarts too.
"""

from __future__ import annotations

from bot.posts import PeriodPosts
from bot.render.common import Screen
from bot.render.seasons import render_champions


class SeasonPosts(PeriodPosts):
    """One worker's part of closing the seasons (a period is a month)."""

    def current(self) -> int:
        """This month (UTC)."""
        return self.manager.seasons.this_month()

    async def waiting(self, period: int) -> list[int]:
        """Close month ``period``: the groups with a rated match in it, not yet posted."""
        return await self.manager.seasons.to_post(period)

    async def take(self, period: int, chat_id: int) -> bool:
        """Take the group's champions' post of month ``period``."""
        return await self.manager.seasons.take_post(period, chat_id)

    async def draw(self, period: int, chat_id: int, lang: str) -> Screen | None:
        """Each game's champions of the month in the group."""
        champions = await self.manager.seasons.champions(chat_id, period)
        return render_champions(period, champions, lang) if champions else None

"""The seasons' work beyond commands: each group's champions' post when a month ends.

At the first look after a month is over (:class:`bot.posts.Posts`, once a minute
on every worker), the store holds one post row per group that had a rated match
that month, made once whoever looks first; each is taken by one atomic update
(``take_season_post``) before it is sent, so the cluster sends it once, across
restarts too.
"""

from __future__ import annotations

from bot.present import Presenter
from bot.render.seasons import render_champions
from sessions import SessionManager

#: Months back a look closes (a worker down over the turn of the month still posts).
MONTHS_BACK = 2


class SeasonPosts:
    """One worker's part of closing the seasons."""

    def __init__(self, manager: SessionManager, presenter: Presenter) -> None:
        self.manager = manager
        self.presenter = presenter
        #: past months whose every post is taken (looked at no more)
        self._done: set[int] = set()

    async def close_seasons(self) -> int:
        """Post each ended season's champions in every group that had a rated match in
        it, once in the cluster; how many posts this worker sent."""
        now = self.manager.this_month()
        sent = 0
        for month in range(now - MONTHS_BACK, now):
            if month in self._done:
                continue
            waiting = await self.manager.seasons_to_post(month)
            if not waiting:
                self._done.add(month)  # every post of that month is taken
            for chat in waiting:
                if not await self.manager.take_season_post(month, chat):
                    continue  # another worker has it
                champions = await self.manager.season_champions(chat, month)
                if not champions:
                    continue
                lang = await self.presenter.chat_language(chat)
                self.presenter.reply(chat, render_champions(month, champions, lang), thread=0)
                sent += 1
        return sent

"""The daily deal's work beyond commands: a player's standing once their deal is over,
and the group posts when a day's boards close.

Every worker runs :class:`DailyBoards` (one look a minute). A day's boards close
when the day is over (UTC): the store then holds one post row per group where a
member finished that day's deal, made once whoever looks first. Each post is
taken by one atomic update before it is sent (``take_daily_post``): of any number
of workers, restarted or not, one sends it, once — at most one message per group
per day. A worker that dies between taking a post and sending it loses that post
(we chose at most once over at least once: a second post would break the
promise; a lost one only leaves the board unannounced). Posts go through the one
rate limiter like every other message, so they keep within the budget.
"""

from __future__ import annotations

from bot.present import Presenter
from bot.render.daily import render_post, render_standing
from sessions import Session, SessionManager

#: Days back a look closes (a worker down over midnight still posts the day before).
DAYS_BACK = 2


class DailyBoards:
    """One worker's part of the daily deal's background work."""

    def __init__(self, manager: SessionManager, presenter: Presenter) -> None:
        self.manager = manager
        self.presenter = presenter
        #: past days whose every post is taken (looked at no more)
        self._done: set[int] = set()

    async def finished(self, session: Session) -> None:
        """A daily table was just finished: tell its player where they stand."""
        if session.daily is None or not session.humans:
            return
        user = session.humans[0]
        standing = await self.manager.daily_standing(user, session.game_id, session.daily)
        if standing is None:
            return
        lang = await self.presenter.user_language(user)
        self.presenter.reply(user, render_standing(standing, lang), thread=0)

    async def close_boards(self) -> int:
        """Post each closed board's winner in every group where someone played, once in
        the cluster; how many posts this worker sent."""
        today = self.manager.today()
        sent = 0
        for day in range(today - DAYS_BACK, today):
            if day in self._done:
                continue
            waiting = await self.manager.daily_boards_to_post(day)
            if not waiting:
                self._done.add(day)  # every post of that day is taken: no need to look again
            for chat in waiting:
                if not await self.manager.take_daily_post(day, chat):
                    continue  # another worker has it
                winners = []
                for game in await self.manager.daily_games(chat, day):
                    board = await self.manager.daily_board(game, chat, day)
                    best = [row for row in board if row.place == 1]
                    players = await self.manager.daily_players(game, chat, day)
                    winners.append((game, best, players))
                if not winners:
                    continue
                lang = await self.presenter.chat_language(chat)
                self.presenter.reply(chat, render_post(day, winners, lang), thread=0)
                sent += 1
        return sent

"""The daily deal: every UTC day one deal per game, the same cards for everybody.

A player starts it in their private chat against strong computers and plays
it once (the ``daily_plays`` key refuses a second). Its seed is drawn from
:mod:`secrets` by the day's first player and stored (``daily_deals``): it can't
be worked out from the date, and its record keeps it sealed until the day is
over (:func:`revealed`). The match is the first deal — Fifteen's whole short
match (5 deals), where one hand means little — and its score, stored with the
move that finished it, is the player's place on the day's board. A daily deal
is neither rated nor in the tally: one deal is too short to move a rating, and
the board is its own table.
"""

from __future__ import annotations

import itertools
import math
import secrets
from dataclasses import dataclass, replace
from typing import Any

from games import REGISTRY, Game
from sessions.change import Change
from sessions.checks import computer, game_class
from sessions.model import Outcome, Player, Refusal, Session
from sessions.repository import Repository
from sessions.timers import Clock
from storage import DailyPlay, DailyResult, DailyRow, DailyScore

#: Seconds of a day: a daily deal's day is ``time // DAY`` (UTC).
DAY = 86400
#: The level of the computers every daily deal is played against.
DAILY_LEVEL = "strong"
#: Games whose daily deal is a whole (short) match: a single deal means little.
WHOLE_MATCH = frozenset({"fifteen"})
#: The options of the daily tables (the rest at their defaults).
DAILY_OPTIONS: dict[str, dict[str, Any]] = {"fifteen": {"deals": 5}}
#: How many plays a board shows.
BOARD_LIMIT = 10


def day_of(now: float) -> int:
    """The UTC day of a moment (days since the epoch)."""
    return int(now // DAY)


def day_start(day: int) -> float:
    """The moment ``day`` begins (UTC midnight)."""
    return float(day * DAY)


def revealed(session: Session, now: float) -> bool:
    """Whether a table's seed may be shown: always, except a daily deal's while its day
    lasts (everyone else still plays those cards)."""
    return session.daily is None or day_of(now) > session.daily


def standing_of(game_id: str, points: float) -> float:
    """The number a board orders by, higher is better: the points, negated where the
    lowest score wins (Mau-Mau)."""
    return -points if REGISTRY[game_id].lowest_wins else points


def deal_over(session: Session, game: Game, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A daily table's result once its deal (or short match) is over, else None:
    ``{"scores": the deal's points per seat, "winners": the best seats}``."""
    if game.finished:
        return game.result
    if session.game_id in WHOLE_MATCH:
        return None
    for event in events:
        if event.get("type") == "deal_end":
            scores = list(event.get("deal_scores", event.get("scores")) or game.scores)
            best = min(scores) if REGISTRY[session.game_id].lowest_wins else max(scores)
            return {"scores": scores, "winners": [s for s, v in enumerate(scores) if v == best]}
    return None


def daily_score(session: Session, now: float) -> DailyScore | None:
    """The board's row of a daily table just finished (None: not a daily table, or
    finished after its day, when its board has closed)."""
    if session.daily is None or session.result is None or day_of(now) != session.daily:
        return None
    user = session.humans[0] if session.humans else None
    if user is None:
        return None
    seat = session.seat_of(user)
    assert seat is not None
    points = float(session.result["scores"][seat])
    return DailyScore(session.daily, session.game_id, user, points,
                      standing_of(session.game_id, points), now)


@dataclass(frozen=True)
class GroupPlace:
    """A player's place among one group's members."""

    chat_id: int
    place: int
    of: int


@dataclass(frozen=True)
class Standing:
    """A player's play of a day's deal and where it stands now."""

    day: int
    game_id: str
    session: int
    #: None while it is not finished (or never was)
    points: float | None
    place: int = 0
    of: int = 0
    groups: tuple[GroupPlace, ...] = ()
    #: the day's best play (the first of the best, when tied)
    best: DailyRow | None = None


@dataclass(frozen=True)
class Streak:
    """Consecutive days with a finished daily deal: the run up to today (or up to
    yesterday, while today's may still come) and the longest."""

    current: int
    best: int


class Daily:
    """The daily deals of one :class:`~sessions.SessionManager`."""

    def __init__(self, repo: Repository, clock: Clock, worker: str) -> None:
        self.repo = repo
        self._clock = clock
        #: who takes a group's post here (this worker: :attr:`SessionManager.worker_id`)
        self._worker = worker

    def today(self) -> int:
        """The UTC day now."""
        return day_of(self._clock())

    async def start(self, chat_id: int | None, user_id: int, name: str, game_id: str) -> Outcome:
        """The user's play of today's deal of ``game_id``, dealt against strong computers
        in one commit with its play row (Refusal ``daily_played`` with the game if they
        have played it today, ``unknown_game``)."""
        rules = game_class(game_id)
        now = self._clock()
        day = day_of(now)
        if await self.repo.daily.daily_result(day, game_id, user_id) is not None:
            raise Refusal("daily_played", game_id)
        seed = await self.repo.daily.daily_seed(day, game_id, secrets.randbits(63))
        players = rules.min_players
        options = rules.validate_options(players, DAILY_OPTIONS.get(game_id, {}))
        seats = [Player(user_id, name, None)]
        seats += [computer(DAILY_LEVEL) for _ in range(players - 1)]
        table = Session(
            id=0, chat_id=chat_id, kind="private", game_id=game_id, status="running",
            creator_id=user_id, seats=seats, options=options, timer=None, version=1,
            deadline=None, game=rules.new(players, options, seed), result=None,
            created_at=now, seed=seed, hints=False, daily=day,
        )
        change = Change.new(table, daily=DailyPlay(day, game_id, user_id, now))
        return Outcome(await self.repo.commit(change), [], None, False)

    async def standing(self, user_id: int, game_id: str, day: int | None = None) -> Standing | None:
        """The user's play of ``day``'s (default: today's) deal of ``game_id`` and its
        place overall and in each of the user's groups, with the day's best; None if
        they have not played it."""
        day = self.today() if day is None else day
        play = await self.repo.daily.daily_result(day, game_id, user_id)
        return None if play is None else await self._standing(play)

    async def standings(self, user_id: int, day: int | None = None) -> list[Standing]:
        """The user's plays of ``day`` (default: today), by game."""
        day = self.today() if day is None else day
        return [await self._standing(p) for p in await self.repo.daily.daily_results(day, user_id)]

    async def _standing(self, play: DailyResult) -> Standing:
        found = Standing(play.day, play.game, play.session, play.points)
        if play.standing is None:
            return found
        store = self.repo.daily
        place, of = await store.daily_place(play.day, play.game, play.standing)
        groups = []
        for chat in await store.daily_groups(play.user_id):
            in_group, members = await store.daily_place(play.day, play.game, play.standing, chat)
            groups.append(GroupPlace(chat, in_group, members))
        best = await store.daily_board(play.day, play.game, limit=1)
        return replace(found, place=place, of=of, groups=tuple(groups),
                       best=best[0] if best else None)

    async def board(
        self, game_id: str, chat_id: int | None = None, day: int | None = None,
        limit: int = BOARD_LIMIT,
    ) -> list[DailyRow]:
        """The best plays of ``day``'s (default: today's) deal of ``game_id``: of every
        player, or of group ``chat_id``'s members."""
        game_class(game_id)
        day = self.today() if day is None else day
        return await self.repo.daily.daily_board(day, game_id, chat_id, limit)

    async def players(
        self, game_id: str, chat_id: int | None = None, day: int | None = None
    ) -> int:
        """How many finished ``day``'s deal of ``game_id`` (of group ``chat_id``'s members)."""
        day = self.today() if day is None else day
        return (await self.repo.daily.daily_place(day, game_id, math.inf, chat_id))[1]

    async def games_played(self, chat_id: int, day: int | None = None) -> list[str]:
        """The games whose ``day`` deal (default: today's) members of the group finished."""
        day = self.today() if day is None else day
        return await self.repo.daily.daily_games(day, chat_id)

    async def boards_to_post(self, day: int) -> list[int]:
        """Close ``day``'s boards (only once the day is over; none before): the groups
        whose post nobody has taken yet."""
        if day >= self.today():
            return []
        return await self.repo.daily.open_daily_posts(day)

    async def take_post(self, day: int, chat_id: int) -> bool:
        """Take the group's post of ``day``: True for one caller only, ever."""
        return await self.repo.daily.take_daily_post(day, chat_id, self._worker, self._clock())

    async def streak(self, user_id: int) -> Streak:
        """The user's run of days with a finished daily deal, and their longest."""
        days = await self.repo.daily.daily_days(user_id)
        return streak_of(days, self.today())


def streak_of(days: list[int], today: int) -> Streak:
    """The streak of ``days`` played (newest first) as of ``today``."""
    best = run = 0
    previous: int | None = None
    for day in days:
        run = run + 1 if previous is not None and day == previous - 1 else 1
        best = max(best, run)
        previous = day
    current = 0
    if days and days[0] >= today - 1:
        current = 1
        for newer, older in itertools.pairwise(days):
            if older != newer - 1:
                break
            current += 1
    return Streak(current, best)

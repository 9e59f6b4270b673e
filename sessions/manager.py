"""The session layer's one entry point: :class:`SessionManager`.

No Telegram here: the front end turns updates into calls on
:class:`SessionManager` and draws the :class:`Session` / :class:`Outcome` it
gets back. The manager is a facade over modules with one job each — the lobby
(:mod:`sessions.lobby`, :mod:`sessions.invites`), play (:mod:`sessions.play`),
computer turns and timers (:mod:`sessions.turns`), read queries
(:mod:`sessions.queries`) and the repository (:mod:`sessions.repository`), which
commits each operation's :class:`~sessions.change.Change` in one transaction
before the operation returns. The contract is ``docs/sessions-api.md``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from games.ai import LEVELS
from games.record import DealRecord
from sessions.background import Background
from sessions.change import LINK_BYTES
from sessions.checks import OPEN, STAND_IN_LEVEL, seats_allowed, takeback_allowed
from sessions.compare import Comparison, Comparisons
from sessions.daily import Daily
from sessions.invites import INVITE_TTL, Invites
from sessions.lobby import (
    KINDS,
    LOBBY_TTL,
    PRIVATE_TABLES,
    REMATCH,
    TIMER_RANGE,
    TIMERS,
    Lobby,
)
from sessions.model import Computer, Outcome, Session, Subscriber
from sessions.play import Play
from sessions.queries import Queries
from sessions.repository import FORGET_PRESSES_EVERY, STALE_TRIES, Repository
from sessions.rerate import fill_seasons
from sessions.review import DealReview, Reviews, Ticket
from sessions.seasons import Seasons
from sessions.timers import Clock
from sessions.topics import Topics
from sessions.turns import OUTAGE_PAUSE, OUTAGE_PAUSE_CAP, TIMEOUTS_TO_HAND_OVER, Turns
from storage import (
    Beat,
    MessageRef,
    MoveRecord,
    RatingRow,
    Store,
    TallyRow,
    open_store,
)
from storage.ratings import LEADERBOARD_LIMIT

# the settings of the modules behind the facade, importable from here as before
__all__ = [
    "FORGET_PRESSES_EVERY",
    "INVITE_TTL",
    "KINDS",
    "LEASE_SECONDS",
    "LEVELS",
    "LINK_BYTES",
    "LOBBY_TTL",
    "OPEN",
    "OUTAGE_PAUSE",
    "OUTAGE_PAUSE_CAP",
    "PRIVATE_TABLES",
    "REMATCH",
    "STALE_TRIES",
    "STAND_IN_LEVEL",
    "TIDY_EVERY",
    "TIMEOUTS_TO_HAND_OVER",
    "TIMERS",
    "TIMER_RANGE",
    "SessionManager",
    "seats_allowed",
    "takeback_allowed",
]

log = logging.getLogger(__name__)

#: Seconds between two passes over quiet lobbies and spent invites (:meth:`SessionManager.tidy`).
TIDY_EVERY = 600.0
#: How long a worker holds the lease on a computer's turn or a timer's expiry
#: before another worker may take it over (it died): longer than any search.
LEASE_SECONDS = 30.0


class SessionManager:
    """Every table of the bot, durable in a :class:`~storage.Store`.

    ``shared``: other processes write the same store (several workers), so a
    cached session is checked against the stored version before it is used,
    and due background work left by a dead worker is picked up by
    :meth:`run_due_work`. ``lease``: seconds a claim on background work stands
    before another worker may take the work over.
    """

    def __init__(
        self,
        store: Store,
        computer: Computer,
        clock: Clock = time.time,
        cache_size: int = 1024,
        *,
        shared: bool = False,
        lease: float = LEASE_SECONDS,
    ) -> None:
        #: who holds this worker's leases on background work
        self.worker_id = uuid.uuid4().hex[:12]
        #: the wall clock every change is stamped with
        self.clock = clock
        self._background = Background(clock, self._expired)
        self._repo = Repository(
            store, clock, self._background, self._committed, cache_size, shared=shared
        )
        self._play = Play(self._repo, computer, clock)
        self._turns = Turns(
            self._repo, self._play, self._background, computer, clock,
            worker_id=self.worker_id, lease=lease, outage_pause=OUTAGE_PAUSE,
        )
        self._lobby = Lobby(self._repo, self._background, clock)
        self._invites = Invites(self._repo, self._lobby, clock)
        self._queries = Queries(self._repo)
        self._reviews = Reviews(self._repo, computer)
        self._comparisons = Comparisons(self._repo, self._reviews, clock)
        self._topics = Topics(self._repo, clock)
        #: the daily deals: today's deal, its boards and streaks, the boards' posts
        self.daily = Daily(self._repo, clock, self.worker_id)
        #: the monthly seasons: their leaderboards and tallies, the champions' posts
        self.seasons = Seasons(self._repo, clock, self.worker_id)
        self._tidying: asyncio.Task[None] | None = None

    # The timers and the repository exist before the turns they call on.

    def _expired(self, session_id: int, version: int) -> None:
        self._turns.on_expiry(session_id, version)

    def _committed(self, session: Session) -> None:
        self._turns.after_change(session)

    @property
    def store(self) -> Store:
        """The store every change is committed to (replaceable, e.g. by a test's wrapper)."""
        return self._repo.store

    @store.setter
    def store(self, store: Store) -> None:
        self._repo.store = store

    @property
    def _cache(self) -> OrderedDict[int, Session]:
        return self._repo.cache

    @property
    def cached(self) -> int:
        """How many sessions are held in memory (bounded by ``cache_size``)."""
        return len(self._repo.cache)

    # ------------------------------------------------------------ lifecycle

    @classmethod
    async def open(
        cls,
        url: str,
        computer: Computer,
        clock: Clock = time.time,
        cache_size: int = 1024,
        *,
        shared: bool = False,
        lease: float = LEASE_SECONDS,
    ) -> SessionManager:
        """Open the store at ``url`` (ValueError if malformed, DatabaseUnusable if it
        cannot be used), rate the seasons of an upgraded store (:func:`fill_seasons`)
        and restore timers and computer turns."""
        store = await open_store(url)
        manager = cls(store, computer, clock, cache_size, shared=shared, lease=lease)
        try:
            await fill_seasons(store)
            await manager.restore()
        except BaseException:
            await store.close()
            raise
        return manager

    async def restore(self) -> None:
        """Re-arm every stored deadline and resume computer seats that are to move
        (only sessions with such work are loaded); ``open`` calls it, again is harmless."""
        await self._turns.restore()

    def start_tidying(self, every: float = TIDY_EVERY) -> None:
        """Run :meth:`tidy` every ``every`` seconds until :meth:`close`."""

        async def run() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    await self.tidy()
                except Exception:
                    log.exception("tidying lobbies and invites failed; trying again later")

        if self._tidying is None:
            self._tidying = asyncio.get_running_loop().create_task(run())

    async def close(self) -> None:
        """Stop timers and background work, then close the store."""
        if self._tidying is not None:
            self._tidying.cancel()
            await asyncio.gather(self._tidying, return_exceptions=True)
        await self._background.close()
        await self.store.close()

    def subscribe(self, callback: Subscriber) -> None:
        """Call ``callback(outcome)`` after every change nobody asked for directly."""
        self._background.subscribe(callback)

    async def idle(self) -> None:
        """Wait until no background work (computer moves, expired timers) is pending."""
        await self._background.idle()

    def fire_due_timers(self) -> int:
        """Expire every turn whose deadline the clock has passed (for an injected clock)."""
        return self._background.timers.fire_due()

    async def run_due_work(self) -> int:
        """Take up background work that is due in the store but not in hand here (a
        worker that scheduled it died, or another worker committed the change);
        returns how many sessions were looked at."""
        return await self._turns.run_due_work()

    async def beat(self, now: float, silent: float) -> Beat:
        """Note this worker alive at ``now`` (wall clock) in the store: whether the store
        still knew it, and the workers found silent for ``silent`` seconds (dead), each
        found by one worker only (their unopened send slots are given back)."""
        return await self.store.beat(self.worker_id, now, silent)

    async def reserve_send(self, key: int, interval: float, now: float) -> float:
        """Book ``key``'s next slot of the shared send budget for this worker; when it
        opens (``Store.reserve_send``)."""
        return await self.store.reserve_send(key, interval, now, self.worker_id)

    # ------------------------------------------------------------ lobby

    async def create(
        self, chat_id: int | None, kind: str, user_id: int, name: str, game_id: str,
        thread: int = 0,
    ) -> Session:
        """A new lobby with the creator in seat 0, a group's in its forum topic ``thread``
        (0: none; a user's oldest private lobby makes room for a fourth)."""
        return await self._lobby.create(chat_id, kind, user_id, name, game_id, thread)

    async def join(self, session_id: int, user_id: int, name: str) -> Session:
        """Sit ``user_id`` in the next free seat of a group lobby."""
        return await self._lobby.join(session_id, user_id, name)

    async def add_computer(self, session_id: int, user_id: int, level: str) -> Session:
        """The creator adds a computer player of ``level`` to the lobby."""
        return await self._lobby.add_computer(session_id, user_id, level)

    async def play_computer(self, session_id: int, user_id: int, level: str) -> Outcome:
        """A private duel against the computer: seats filled and dealt in one commit."""
        return await self._lobby.play_computer(session_id, user_id, level)

    async def leave(self, session_id: int, user_id: int) -> Outcome:
        """Free the seat (lobby), or hand it to a computer (running)."""
        return await self._lobby.leave(session_id, user_id)

    async def reclaim(self, session_id: int, user_id: int) -> Session:
        """A human takes back the seat a computer plays for them."""
        return await self._lobby.reclaim(session_id, user_id)

    async def set_option(self, session_id: int, user_id: int, name: str, value: Any) -> Session:
        """The creator changes a table option (validated by the game's schema)."""
        return await self._lobby.set_option(session_id, user_id, name, value)

    async def set_timer(self, session_id: int, user_id: int, seconds: int | None) -> Session:
        """The creator sets the turn timer: None (off) or whole minutes in TIMER_RANGE."""
        return await self._lobby.set_timer(session_id, user_id, seconds)

    async def set_hints(self, session_id: int, user_id: int, on: bool) -> Session:
        """The creator turns the table's hints on or off (in the lobby)."""
        return await self._lobby.set_hints(session_id, user_id, on)

    async def start(self, session_id: int, user_id: int) -> Outcome:
        """The creator deals; computer seats start moving in the background."""
        return await self._lobby.start(session_id, user_id)

    async def cancel(self, session_id: int, user_id: int, is_admin: bool = False) -> Session:
        """The creator (or a group admin) cancels a lobby or a running game."""
        return await self._lobby.cancel(session_id, user_id, is_admin)

    async def rematch(self, session_id: int, user_id: int) -> Outcome:
        """A player of a finished match starts a new one, already dealt (once per match)."""
        return await self._lobby.rematch(session_id, user_id)

    async def create_invite(self, session_id: int, user_id: int) -> str:
        """A single-use code (valid for INVITE_TTL) that seats a friend in the lobby."""
        return await self._invites.create(session_id, user_id)

    async def accept_invite(self, code: str, user_id: int, name: str) -> Outcome:
        """Seat ``user_id`` by an invite code, dealing once the table is full: one commit."""
        return await self._invites.accept(code, user_id, name)

    async def tidy(self) -> int:
        """Cancel the lobbies quiet for LOBBY_TTL and purge spent invites; how many went."""
        return await self._lobby.tidy()

    async def end_chat(self, chat_id: int) -> list[Session]:
        """The bot left a chat: cancel every open session created there; returns them."""
        return await self._lobby.end_chat(chat_id)

    # ------------------------------------------------------------ forum topics

    async def topic_closed(self, session_id: int) -> Session | None:
        """The table's topic was closed: a running table waits (None: nothing changed)."""
        return await self._topics.close(session_id)

    async def topic_reopened(self, session_id: int) -> Session | None:
        """The table's topic is open again: a waiting table goes on (None: it was not
        waiting)."""
        return await self._topics.reopen(session_id)

    async def topic_gone(self, session_id: int) -> Session | None:
        """The table's topic was deleted: the table is cancelled, a match in play kept in
        /history (None: it had ended)."""
        return await self._topics.gone(session_id)

    # ------------------------------------------------------------ play

    async def act(self, session_id: int, user_id: int, version: int, action: str) -> Outcome:
        """A human's move: checked in the documented order, committed in one transaction."""
        return await self._play.act(session_id, user_id, version, action)

    async def take_back(self, session_id: int, user_id: int) -> Outcome:
        """Undo the only human's last move of this deal and the computers' replies."""
        return await self._play.take_back(session_id, user_id)

    async def hint(self, session_id: int, user_id: int) -> str:
        """The strong computer's move for ``user_id``'s seat (counted, no new version)."""
        return await self._play.hint(session_id, user_id)

    async def expire(self, session_id: int, version: int) -> Outcome | None:
        """What a turn timer does: the computer moves for the absent human (None if that
        version is no longer current, not yet due, or another worker's)."""
        return await self._turns.expire(session_id, version)

    # ------------------------------------------------------------ lookups

    async def get(self, session_id: int) -> Session:
        """The session (Refusal ``no_session`` if unknown)."""
        return await self._repo.load(session_id)

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` changed something already (it is then ``applied``)."""
        return await self._queries.pressed(key)

    async def by_link(self, link: str) -> Session:
        """The session of a deep-link token (Refusal ``no_session`` if none has it)."""
        return await self._queries.by_link(link)

    async def open_in_chat(self, chat_id: int, thread: int = 0) -> Session | None:
        """The lobby or running game of the group chat's topic ``thread`` (0: the chat's
        own), or None."""
        return await self._queries.open_in_chat(chat_id, thread)

    async def tables_in_chat(self, chat_id: int) -> list[Session]:
        """Every lobby or running game of the group chat, in all its topics."""
        return await self._queries.tables_in_chat(chat_id)

    async def active_sessions(self) -> list[Session]:
        """Every lobby and running session."""
        return await self._queries.active_sessions()

    async def behind(self) -> AsyncIterator[tuple[Session, list[MessageRef]]]:
        """Sessions with a message that shows an older version than it should, each with
        its stored messages (not kept in the cache)."""
        async for found in self._queries.behind():
            yield found

    async def sessions_of_user(self, user_id: int) -> list[Session]:
        """The lobby and running sessions ``user_id`` sits in (or a computer plays for them)."""
        return await self._queries.sessions_of_user(user_id)

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Session]:
        """The chat's last ``limit`` finished matches, newest first."""
        return await self._queries.finished_in_chat(chat_id, limit)

    async def replay_log(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        return await self._queries.replay_log(session_id)

    async def deal_records(
        self, session_id: int, viewer: int | None
    ) -> tuple[Session, list[DealRecord]]:
        """The session and its finished deals as played, rebuilt from seed and log, as
        ``viewer`` may see them (None: nobody in particular): a private table's are its
        players' alone (Refusal ``record_players_only``; a daily deal's, while its day
        lasts, ``daily_sealed``)."""
        return await self._queries.deal_records(session_id, viewer, self.clock())

    async def review_deal(
        self, session_id: int, deal_no: int, user_id: int
    ) -> Ticket[DealReview]:
        """📈 A press on Review of finished deal ``deal_no`` by ``user_id``: the kept
        review, the same one running, or a new one to run; see :mod:`sessions.review`."""
        return await self._reviews.prepare(session_id, deal_no, user_id)

    async def compare_deal(
        self, session_id: int, deal_no: int, user_id: int
    ) -> Ticket[Comparison]:
        """⚖️ A press on Compare of daily deal ``deal_no`` by ``user_id``: the comparison
        with the day's best other player and the computer, the same one running, or a new
        one to run; see :mod:`sessions.compare`."""
        return await self._comparisons.prepare(session_id, deal_no, user_id)

    async def chat_tally(self, chat_id: int, game_id: str | None = None) -> list[TallyRow]:
        """Per user and game in a chat: played, wins, points; best first."""
        return await self._queries.chat_tally(chat_id, game_id)

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across all chats."""
        return await self._queries.user_stats(user_id)

    async def leaderboard(
        self, scope: int, game_id: str | None = None, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of a group chat or overall, per game, with ranks."""
        return await self._queries.leaderboard(scope, game_id, limit)

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's rating and rank per game in a chat or overall."""
        return await self._queries.user_ratings(user_id, scope)

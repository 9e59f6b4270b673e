"""Sessions in and out of the store: load, cache, lock, and the one commit of a change.

:class:`Repository` is the only part of the session layer that reads or writes a
session's row. It keeps loaded sessions in an LRU cache (the store is the
truth: with several workers a cached session is checked against the stored
version before it is used), hands out one lock per session, and commits a
:class:`~sessions.change.Change` in one transaction — ``UPDATE … WHERE version``,
so a change based on a version another commit replaced stores nothing and is
refused as ``stale``. The press the calling task handles
(:mod:`sessions.presses`) is recorded with the first change it commits. The
Session ↔ record mapping is at the bottom: same-named fields are copied as they are.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import fields, replace
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from sessions.background import Background
from sessions.change import Change, computer_to_move
from sessions.checks import game_class
from sessions.model import Player, Refusal, Session
from sessions.presses import PRESS_TTL, press_recorded, unrecorded_press
from sessions.replay import TAKE_BACK
from sessions.timers import Clock
from storage import (
    ChatBusy,
    DailyPlayed,
    DailyStore,
    InviteUsed,
    MessageStore,
    PressRepeated,
    SeasonStore,
    SeatRecord,
    SessionRecord,
    SessionStore,
    StaleVersion,
    Store,
    TallyStore,
)

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: Tries of a lobby or seat change that another worker's commit made stale.
STALE_TRIES = 5
#: Seconds between two passes that forget presses older than ``PRESS_TTL``.
FORGET_PRESSES_EVERY = 3600.0

#: What the repository calls with every session it committed (arms timers, wakes computers).
Committed = Callable[[Session], None]


class Repository:
    """The sessions of one :class:`~sessions.SessionManager`, loaded and committed.

    ``store`` may be replaced (tests wrap it); every operation reads it from here,
    each through the role it uses (:attr:`sessions`, :attr:`messages`, :attr:`tallies`).
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        background: Background,
        committed: Committed,
        cache_size: int = 1024,
        *,
        shared: bool = False,
    ) -> None:
        self.store = store
        #: other processes write the same store: cached sessions are checked first
        self.shared = shared
        self.cache: OrderedDict[int, Session] = OrderedDict()
        self._clock = clock
        self._background = background
        self._committed = committed
        self._cache_size = cache_size
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._presses_forgotten = float("-inf")

    @property
    def sessions(self) -> SessionStore:
        """The store's sessions-and-moves role."""
        return self.store

    @property
    def messages(self) -> MessageStore:
        """The store's messages role (what shows each session)."""
        return self.store

    @property
    def tallies(self) -> TallyStore:
        """The store's tallies-and-ratings role."""
        return self.store

    @property
    def daily(self) -> DailyStore:
        """The store's daily-deal role."""
        return self.store

    @property
    def seasons(self) -> SeasonStore:
        """The store's seasons role."""
        return self.store

    def lock(self, session_id: int) -> asyncio.Lock:
        """The lock that orders this worker's changes to one session."""
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    # ------------------------------------------------------------ loading

    async def load(self, session_id: int) -> Session:
        """The session (Refusal ``no_session`` if unknown)."""
        session = await self.load_or_none(session_id)
        if session is None:
            raise Refusal("no_session", str(session_id))
        return session

    async def load_or_none(self, session_id: int, remember: bool = True) -> Session | None:
        """The session, from the cache while it is current; ``remember``: cache it."""
        cached = self.cache.get(session_id)
        if cached is not None and (
            not self.shared or await self.sessions.session_version(session_id) == cached.version
        ):
            # the version check awaited: the entry may have been dropped or replaced
            # meanwhile (the background pass, another session's eviction)
            if self.cache.get(session_id) is cached:
                self.cache.move_to_end(session_id)
            return cached
        record = await self.sessions.load_session(session_id)
        if record is None:
            return None
        session = session_of(record)
        if session.status == "finished":
            session = await self._with_finished(session)
        if remember:
            self._remember(session)
        return session

    def forget(self, session_id: int) -> None:
        """Drop the cached session: the next load reads the store."""
        self.cache.pop(session_id, None)

    async def taken_back(self, session_id: int) -> bool:
        """Whether a move of the match was taken back: such a match is not rated. Read
        from the log (never rewritten), so a restart or a re-rating sees the same."""
        moves = await self.sessions.moves_of(session_id)
        return any(m.action.startswith(f"{TAKE_BACK}:") for m in moves)

    async def _with_finished(self, session: Session) -> Session:
        """A finished session with what its result shows beside the scores: the rating
        changes and the hints used, as stored."""
        used = await self.sessions.hint_uses(session.id)
        return replace(
            session,
            ratings=tuple(await self.tallies.rating_changes(session.id)),
            hints_used=tuple(used.get(seat, 0) for seat in range(len(session.seats))),
            taken_back=await self.taken_back(session.id),
        )

    def _remember(self, session: Session) -> None:
        self.cache[session.id] = session
        self.cache.move_to_end(session.id)
        while len(self.cache) > self._cache_size:
            self.cache.popitem(last=False)

    # ------------------------------------------------------------ committing

    async def commit(self, change: Change) -> Session:
        """Store ``change`` in one transaction and return the session it made (a new
        one with its id). The caller holds the session's lock (none yet for a new one).

        Refusals, with nothing stored: ``stale`` (another commit came first; the
        cache is dropped), ``chat_busy``, ``invite_invalid``, ``applied`` (this
        task's press was committed already), ``daily_played``.
        """
        if change.before is None:
            return await self._insert(change)
        before, after = change.before, change.after
        press = unrecorded_press()
        try:
            await self.sessions.save_session(
                self._record(after),
                before.version,
                seats=change.seats_changed,
                move=change.move,
                results=change.results,
                invite=change.invite,
                wanted=after.changed,
                rated=change.rated,
                press=press,
                daily=change.daily_score,
            )
        except StaleVersion as error:
            self.forget(before.id)
            raise Refusal("stale") from error
        except InviteUsed as error:
            raise Refusal("invite_invalid") from error
        except PressRepeated as error:
            raise Refusal("applied") from error
        except BaseException:
            self.forget(before.id)
            raise
        self._recorded(press)
        if change.finishes:
            after = await self._with_finished(after)
        self._remember(after)
        self._committed(after)
        return after

    async def _insert(self, change: Change) -> Session:
        press = unrecorded_press()
        try:
            session_id = await self.sessions.create_session(
                self._record(change.after), press=press, daily=change.daily_play
            )
        except ChatBusy as error:
            raise Refusal("chat_busy") from error
        except DailyPlayed as error:
            raise Refusal("daily_played", change.after.game_id) from error
        except PressRepeated as error:
            raise Refusal("applied") from error
        self._recorded(press)
        session = replace(change.after, id=session_id)
        async with self.lock(session_id):
            self._remember(session)
            self._committed(session)
        return session

    def _record(self, session: Session) -> SessionRecord:
        """The row of ``session``: due now while a computer is to move, else at its deadline."""
        now = self._clock()
        due = now if session.status == "running" and computer_to_move(session) is not None else (
            session.deadline)
        return record_of(session, due, now)

    def _recorded(self, press: str | None) -> None:
        """The press is recorded with its change; now and then, old ones are forgotten."""
        if press is None:
            return
        press_recorded()
        now = self._clock()
        if now >= self._presses_forgotten + FORGET_PRESSES_EVERY:
            self._presses_forgotten = now
            self._background.spawn(self._forget_presses(now - PRESS_TTL))

    async def _forget_presses(self, before: float) -> None:
        forgotten = await self.sessions.forget_presses(before)
        if forgotten:
            log.info("forgot %d presses older than a day", forgotten)


class _HasRepository(Protocol):
    repo: Repository


R = TypeVar("R", bound=_HasRepository)


def again_if_stale(
    operation: Callable[Concatenate[R, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[R, P], Coroutine[Any, Any, T]]:
    """A change that is not tied to a version the user saw (join, leave, settings,
    start …): with several workers another one may commit first; it is then made
    again on the new state (the cache was dropped), as one process's lock would
    have ordered it. A move (``act``) is tied to its button's version: it stays
    refused as stale."""

    @functools.wraps(operation)
    async def again(self: R, /, *args: P.args, **kwargs: P.kwargs) -> T:
        for attempt in range(1, STALE_TRIES + 1):
            try:
                return await operation(self, *args, **kwargs)
            except Refusal as refusal:
                if refusal.code != "stale" or not self.repo.shared or attempt == STALE_TRIES:
                    raise
        raise AssertionError("unreachable")

    return again


# ---------------------------------------------------------------- records


#: record fields a Session keeps under another name
_RENAMED = {"game": "game_id", "creator": "creator_id", "created": "created_at"}
#: record fields the mapping fills itself (``state`` is the Session's ``game``)
_OWN = frozenset({"seats", "state", "due", "updated", "link"})
#: (record field, Session field) pairs copied as they are: every other field, so a new
#: one needs no code here — only a Session field of the same name
_COPIED = tuple(
    (name, _RENAMED.get(name, name))
    for name in (each.name for each in fields(SessionRecord))
    if name not in _OWN
)
_missing = {pair for pair in _COPIED if pair[1] not in {each.name for each in fields(Session)}}
assert not _missing, f"SessionRecord fields without a Session field: {sorted(_missing)}"


def session_of(record: SessionRecord) -> Session:
    """The session a stored record holds (its game restored from the stored state)."""
    game = None
    if record.state is not None:
        game = game_class(record.game).from_dict(record.state)
    return Session(
        **{ours: getattr(record, theirs) for theirs, ours in _COPIED},
        seats=[Player(s.user_id, s.name, s.level, s.timeouts, s.stands_in_for)
               for s in record.seats],
        game=game,
        link=record.link or "",
    )


def record_of(session: Session, due: float | None, now: float) -> SessionRecord:
    """The record that stores ``session``, with its background work ``due`` then."""
    return SessionRecord(
        **{theirs: getattr(session, ours) for theirs, ours in _COPIED},
        seats=[
            SeatRecord(p.user_id, p.name, p.level, p.timeouts, p.stands_in_for)
            for p in session.seats
        ],
        state=None if session.game is None else session.game.snapshot(),  # games never change
        due=due,
        updated=now,
        link=session.link or None,
    )

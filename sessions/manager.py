"""The session state machine: lobbies, seats, turns, invites, rematches, timeouts.

No Telegram here: the front end turns updates into calls on
:class:`SessionManager` and draws the :class:`Session` / :class:`Outcome` it
gets back. Every change is committed through the :class:`~storage.Store`
protocol before it is returned, in one transaction; the in-memory cache is only
a cache. The contract is ``docs/sessions-api.md``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar

from games import REGISTRY, BadOptions, Game, IllegalAction
from games.record import DealRecord, deal_records
from sessions.background import Background
from sessions.hints import HintSearches
from sessions.messages import TABLE, ephemeral_purpose, hand_purpose
from sessions.model import (
    TURN_OWNER,
    Computer,
    Outcome,
    Player,
    Refusal,
    Session,
    Subscriber,
)
from sessions.presses import PRESS_TTL, press_recorded, unrecorded_press
from sessions.timers import Clock
from storage import (
    TAKE_BACK,
    ChatBusy,
    InviteRecord,
    InviteUse,
    InviteUsed,
    MessageRef,
    MoveRecord,
    PressRepeated,
    RatedMatch,
    RatingRow,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    StaleVersion,
    Store,
    TallyRow,
    in_effect,
    open_store,
    rated_match,
    replay,
)
from storage.outage import unavailable
from storage.ratings import LEADERBOARD_LIMIT

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

LEVELS = ("easy", "normal", "strong")
TIMERS = (None, 60, 300, 86400)
#: The turn timer a creator may type, in seconds: whole minutes from 1 minute to a day.
TIMER_RANGE = (60, 86400)
KINDS = ("group", "private")
INVITE_TTL = 86400.0
#: Open private lobbies and duels one user may have; a new one replaces the oldest lobby.
PRIVATE_TABLES = 3
#: A lobby nobody changed for this long is cancelled (a group's lobby frees the group).
LOBBY_TTL = 86400.0
#: Seconds between two passes over quiet lobbies and spent invites (:meth:`SessionManager.tidy`).
TIDY_EVERY = 600.0
#: Consecutive timeouts after which the computer keeps the seat.
TIMEOUTS_TO_HAND_OVER = 3
#: The level of a computer that stands in for an absent or departed human.
STAND_IN_LEVEL = "normal"
#: Seconds before background work (a computer's turn, an expired timer) that the
#: store could not take is tried again, doubled each time up to the cap.
OUTAGE_PAUSE = 1.0
OUTAGE_PAUSE_CAP = 30.0
OPEN = ("lobby", "running")
#: The key of a finished match's result that names its rematch.
REMATCH = "rematch"
#: Random bytes of a session's deep-link token (16 URL-safe characters).
LINK_BYTES = 12
#: Tries of a lobby or seat change that another worker's commit made stale.
STALE_TRIES = 5
#: How long a worker holds the lease on a computer's turn or a timer's expiry
#: before another worker may take it over (it died): longer than any search.
LEASE_SECONDS = 30.0
#: Seconds between two passes that forget presses older than ``PRESS_TTL``.
FORGET_PRESSES_EVERY = 3600.0


def _again_if_stale(
    operation: Callable[Concatenate[SessionManager, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[SessionManager, P], Coroutine[Any, Any, T]]:
    """A change that is not tied to a version the user saw (join, leave, settings,
    start …): with several workers another one may commit first; it is then made
    again on the new state (the cache was dropped), as one process's lock would
    have ordered it. A move (``act``) is tied to its button's version: it stays
    refused as stale."""

    @functools.wraps(operation)
    async def again(self: SessionManager, /, *args: P.args, **kwargs: P.kwargs) -> T:
        for attempt in range(1, STALE_TRIES + 1):
            try:
                return await operation(self, *args, **kwargs)
            except Refusal as refusal:
                if refusal.code != "stale" or not self._shared or attempt == STALE_TRIES:
                    raise
        raise AssertionError("unreachable")

    return again


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
        self.store = store
        self._computer = computer
        self._clock = clock
        self._cache: OrderedDict[int, Session] = OrderedDict()
        self._cache_size = cache_size
        self._shared = shared
        self._lease = lease
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._background = Background(clock, self._on_expiry)
        self._computer_turns: dict[int, asyncio.Task[None]] = {}
        self._hints = HintSearches()
        self._tidying: asyncio.Task[None] | None = None
        #: who holds this worker's leases on background work
        self.worker_id = uuid.uuid4().hex[:12]
        self._presses_forgotten = float("-inf")

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
        cannot be used) and restore timers and computer turns."""
        store = await open_store(url)
        manager = cls(store, computer, clock, cache_size, shared=shared, lease=lease)
        try:
            await manager.restore()
        except BaseException:
            await store.close()
            raise
        return manager

    async def restore(self) -> None:
        """Re-arm every stored deadline and resume computer seats that are to move
        (only sessions with such work are loaded).

        ``open`` calls it; calling it again is harmless.
        """
        for session_id in await self.store.due_session_ids(float("inf")):
            async with self._lock(session_id):
                self._after_change(await self._load(session_id))

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
        due = await self.store.due_session_ids(self._clock())
        for session_id in due:
            if session_id in self._computer_turns:
                continue
            async with self._lock(session_id):
                self._cache.pop(session_id, None)
                session = await self._load_or_none(session_id)
                if session is not None:
                    self._after_change(session)
        return len(due)

    # ------------------------------------------------------------ lobby

    async def create(
        self, chat_id: int | None, kind: str, user_id: int, name: str, game_id: str
    ) -> Session:
        """A new lobby with the creator in seat 0 and the game's default options."""
        game_class = _game_class(game_id)
        if kind not in KINDS:
            raise Refusal("bad_option", "kind")
        if kind == "group" and chat_id is None:
            raise Refusal("bad_option", "chat_id")
        if kind == "group" and await self.store.open_session_ids(chat_id=chat_id):
            raise Refusal("chat_busy")
        if kind == "private":
            await self._make_room(user_id)
        lobby = Session(
            id=0,
            chat_id=chat_id,
            kind=kind,
            game_id=game_id,
            status="lobby",
            creator_id=user_id,
            seats=[Player(user_id, name, None)],
            options=game_class.validate_options(game_class.min_players, {}),
            timer=None,
            version=1,
            deadline=None,
            game=None,
            result=None,
            created_at=self._clock(),
        )
        return await self._insert(lobby)

    async def _make_room(self, user_id: int) -> None:
        """Before a user's new private lobby: cancel their oldest private lobbies so
        that at most PRIVATE_TABLES are open with it (Refusal ``too_many_tables`` if
        their running duels alone fill that)."""
        mine = [
            s for s in await self.sessions_of_user(user_id)
            if s.kind == "private" and s.creator_id == user_id
        ]
        lobbies = [s for s in mine if s.status == "lobby"]
        excess = len(mine) - PRIVATE_TABLES + 1
        if excess > len(lobbies):
            raise Refusal("too_many_tables", str(PRIVATE_TABLES))
        for lobby in lobbies[:max(excess, 0)]:
            cancelled = await self.cancel(lobby.id, user_id)
            await self._background.notify(Outcome(cancelled, [], None, False))

    @_again_if_stale
    async def join(self, session_id: int, user_id: int, name: str) -> Session:
        """Sit ``user_id`` in the next free seat of a group lobby (a private one
        seats only by its invite: Refusal ``invite_only``)."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.kind == "private" and session.seat_of(user_id) is None:
                raise Refusal("invite_only")
            return await self._save(session, _with_seat(session, Player(user_id, name, None)))

    @_again_if_stale
    async def add_computer(self, session_id: int, user_id: int, level: str) -> Session:
        """The creator adds a computer player of ``level`` to the lobby."""
        _check_level(level)
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_creator(session, user_id)
            return await self._save(session, _with_seat(session, _computer(level)))

    async def play_computer(self, session_id: int, user_id: int, level: str) -> Outcome:
        """A private duel against the computer: fill every free seat with ``level`` and
        deal, in one commit. Only computers are seated (the humans there came by the
        lobby's invite: :meth:`join` seats nobody in a private lobby)."""
        _check_level(level)
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            filled = session
            while len(filled.seats) < _game_class(session.game_id).min_players:
                filled = _with_seat(filled, _computer(level))
            return await self._start(session, filled)

    @_again_if_stale
    async def leave(self, session_id: int, user_id: int) -> Outcome:
        """Lobby: free the seat. Running: a computer takes the seat over (event
        ``seat_handed_over``, reason ``left``).

        When the last human leaves, the session is cancelled; when the creator
        leaves a lobby, the next human seated becomes its creator.
        """
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            seat = _require_seat(session, user_id)
            seats = list(session.seats)
            events: list[dict[str, Any]] = []
            if session.status == "lobby":
                del seats[seat]
            else:
                seats[seat] = _stand_in(seats[seat])
                events.append({"type": "seat_handed_over", "seat": seat, "why": "left",
                               "user_id": user_id})
            humans = [p.user_id for p in seats if p.user_id is not None]
            if not humans:
                left = replace(session, status="cancelled", seats=seats)
            else:
                creator = session.creator_id if session.creator_id in humans else humans[0]
                left = replace(session, seats=seats, creator_id=creator)
            return Outcome(await self._save(session, left), events, None, False)

    @_again_if_stale
    async def reclaim(self, session_id: int, user_id: int) -> Session:
        """A human takes back the seat a computer plays for them (after leaving or
        timing out); Refusal ``not_a_player`` if no seat stands in for them."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status != "running":
                raise Refusal("not_running", session.status)
            seat = next(
                (i for i, p in enumerate(session.seats) if p.stands_in_for == user_id), None
            )
            if seat is None:
                raise Refusal("not_a_player")
            if session.seat_of(user_id) is not None:
                raise Refusal("already_seated")
            seats = list(session.seats)
            seats[seat] = Player(user_id, seats[seat].name, None)
            return await self._save(session, replace(session, seats=seats))

    @_again_if_stale
    async def set_option(self, session_id: int, user_id: int, name: str, value: Any) -> Session:
        """The creator changes a table option (validated by the game's schema)."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            game_class = _game_class(session.game_id)
            players = min(max(len(session.seats), game_class.min_players), game_class.max_players)
            wanted = {**session.options, name: value}
            try:
                options = game_class.validate_options(players, wanted)
            except BadOptions as error:
                raise Refusal("bad_option", error.option or name) from error
            return await self._save(session, replace(session, options=options))

    @_again_if_stale
    async def set_timer(self, session_id: int, user_id: int, seconds: int | None) -> Session:
        """The creator sets the turn timer: None (off) or whole minutes from 60 to 86400
        seconds (the menu offers 60, 300 and 86400)."""
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, int)
            or not TIMER_RANGE[0] <= seconds <= TIMER_RANGE[1]
            or seconds % 60
        ):
            raise Refusal("bad_option", "timer")
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            return await self._save(session, replace(session, timer=seconds))

    async def set_hints(self, session_id: int, user_id: int, on: bool) -> Session:
        """The creator turns the table's hints on or off (in the lobby)."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            return await self._save(session, replace(session, hints=on))

    async def hint(self, session_id: int, user_id: int) -> str:
        """The move the strong computer would make for ``user_id``'s seat, from that
        seat's view only; counted for the result. Computed outside the session's lock
        and changing nothing at the table (no new version: the turn timer runs on).
        One search per seat at a time, one per version: a press again at the same
        version waits for (or gets) the same answer and is not counted again; a press
        at a newer version while the last search still runs is ``hint_busy``."""
        session = await self._load(session_id)
        seat = session.seat_of(user_id)
        if session.status != "running" or session.game is None:
            raise Refusal("not_running")
        if seat is None:
            raise Refusal("not_a_player")
        if not session.hints_on:
            raise Refusal("hints_off")
        if session.to_move != seat:
            raise Refusal("not_your_turn")
        view = session.view(seat)
        seed = ((session.seed or 0) + session.version * 7919 + seat) % (1 << 63)

        async def search() -> str:
            action = await self._computer.choose(session.game_id, view, "strong", seed)
            if action not in view["legal"]:
                action = str(view["legal"][0])
            await self.store.use_hint(session_id, seat)
            return action

        action, _ = await self._hints.answer(session_id, seat, session.version, search)
        return action

    @_again_if_stale
    async def start(self, session_id: int, user_id: int) -> Outcome:
        """The creator deals; computer seats start moving in the background."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            return await self._start(session, session)

    @_again_if_stale
    async def cancel(self, session_id: int, user_id: int, is_admin: bool = False) -> Session:
        """The creator (or a group admin) cancels a lobby or a running game."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            if user_id != session.creator_id and not is_admin:
                raise Refusal("not_creator")
            return await self._save(session, replace(session, status="cancelled", deadline=None))

    @_again_if_stale
    async def rematch(self, session_id: int, user_id: int) -> Outcome:
        """A player of a finished match starts a new one: same seats and options, new
        seed, already dealt — one commit. Once per match: a later call returns that
        rematch (whatever became of it) with the event ``rematch_exists``."""
        async with self._lock(session_id):
            old = await self._load(session_id)
            _require_seat(old, user_id)
            if old.status != "finished":
                raise Refusal("not_finished", old.status)
            again = (old.result or {}).get(REMATCH)
            if again is not None:  # one rematch per match: later presses lead to it
                events = [{"type": "rematch_exists", "of": old.id}]
                return Outcome(await self._load(int(again)), events, None, False)
            if old.kind == "group" and await self.store.open_session_ids(chat_id=old.chat_id):
                raise Refusal("chat_busy")
            fresh = await self._insert(self._rematch_of(old, user_id))
            try:
                result = {**(old.result or {}), REMATCH: fresh.id}
                await self._save(old, replace(old, result=result), seats=False)
            except Refusal:  # another worker's rematch was first: this one goes
                await self.cancel(fresh.id, user_id)
                raise
            return Outcome(fresh, [], None, False)

    def _rematch_of(self, old: Session, user_id: int) -> Session:
        """The running session a rematch of ``old`` starts as (not stored yet)."""
        seed = secrets.randbits(63)
        game = _game_class(old.game_id).new(len(old.seats), old.options, seed)
        seats = [replace(p, timeouts=0) for p in old.seats]
        fresh = replace(
            old,
            id=0,
            status="running",
            creator_id=user_id,
            seats=seats,
            version=1,
            moves=0,
            seed=seed,
            game=game,
            result=None,
            last_deal=None,
            created_at=self._clock(),
            deadline=self._deadline(game, seats, old.timer),
            ratings=(),
            hints_used=(),
        )
        return fresh

    # ------------------------------------------------------------ play

    async def act(self, session_id: int, user_id: int, version: int, action: str) -> Outcome:
        """A human's move: checked in the documented order, committed in one transaction."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if version < session.version and await self._applied(session, user_id, version, action):
                raise Refusal("applied")
            if session.status != "running" or session.game is None:
                raise Refusal("not_running", session.status)
            seat = _require_seat(session, user_id)
            if version != session.version:
                raise Refusal("stale", str(session.version))
            if session.game.to_move != seat:
                raise Refusal("not_your_turn")
            seats = None
            if session.seats[seat].timeouts:
                seats = list(session.seats)
                seats[seat] = replace(seats[seat], timeouts=0)
            try:
                return await self._commit_move(session, seat, action, False, seats)
            except IllegalAction as error:
                raise Refusal("illegal", error.reason) from error

    async def _applied(self, session: Session, user_id: int, version: int, action: str) -> bool:
        """True if this very press (user, version, action) was committed already:
        Telegram delivers a press again when the bot crashed before confirming it."""
        move = await self.store.move_at_version(session.id, version)
        return (
            move is not None
            and not move.by_computer
            and move.action == action
            and move.seat == session.seat_of(user_id)
        )

    async def take_back(self, session_id: int, user_id: int) -> Outcome:
        """At a table where every other seat is a computer: undo the player's last move of
        this deal and the computers' replies after it. Logged as a ``takeback:<k>`` row
        (the log is never rewritten); the state is the log in effect, replayed."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status != "running" or session.game is None or session.seed is None:
                raise Refusal("not_running", session.status)
            seat = _require_seat(session, user_id)
            if not takeback_allowed(session):
                raise Refusal("takeback_off")
            log = in_effect(await self.store.moves_of(session_id), lambda m: m.action)
            mine = [i for i, m in enumerate(log) if m.seat == seat and not m.by_computer]
            if not mine:
                raise Refusal("nothing_to_take_back")
            kept = [(m.seat, m.action) for m in log[: mine[-1]]]
            game = replay(session.game_id, len(session.seats), session.options, session.seed,
                          kept)
            if game.deal_no != session.game.deal_no:  # that move ended the last deal
                raise Refusal("nothing_to_take_back")
            undone = len(log) - mine[-1]
            back = replace(
                session,
                game=game,
                moves=session.moves + 1,
                deadline=self._deadline(game, session.seats, session.timer),
            )
            move = MoveRecord(back.moves, seat, f"{TAKE_BACK}:{undone}", False, self._clock(),
                              session.version)
            saved = await self._save(session, back, seats=False, move=move)
            return Outcome(saved, [{"type": "take_back", "seat": seat, "moves": undone}], seat,
                           False)

    async def expire(self, session_id: int, version: int) -> Outcome | None:
        """What a turn timer does: the computer moves for the absent human.

        Does nothing (returns None) unless ``version`` is still current and its
        deadline has passed, or another worker holds the lease on it. The third
        timeout in a row hands the seat to the computer for good (events
        ``timeout`` and ``seat_handed_over`` with reason ``timeouts``).
        """
        async with self._lock(session_id):
            session = await self._load_or_none(session_id)
            if session is None or session.version != version or session.deadline is None:
                return None
            if session.status != "running" or session.to_move is None:
                return None
            if session.deadline > self._clock():
                self._background.timers.arm(session_id, version, session.deadline)
                return None
            if not await self._claim(session):
                return None
            seat = session.to_move
        action = await self._choose(session, seat, STAND_IN_LEVEL)
        async with self._lock(session_id):
            current = await self._load(session_id)
            if current.version != version:
                return None
            seats = list(current.seats)
            timeouts = seats[seat].timeouts + 1
            events: list[dict[str, Any]] = [{"type": "timeout", "seat": seat}]
            if timeouts >= TIMEOUTS_TO_HAND_OVER:
                events.append({"type": "seat_handed_over", "seat": seat, "why": "timeouts",
                               "user_id": seats[seat].user_id})
                seats[seat] = _stand_in(seats[seat])
            else:
                seats[seat] = replace(seats[seat], timeouts=timeouts)
            try:
                outcome = await self._commit_choice(current, seat, action, seats)
            except Refusal:
                return None  # another worker committed first
        outcome = replace(outcome, events=events + outcome.events)
        await self._background.notify(outcome)
        return outcome

    # ------------------------------------------------------------ invites

    async def create_invite(self, session_id: int, user_id: int) -> str:
        """A single-use code (valid for INVITE_TTL) that seats a friend in the lobby."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            _require_free_seat(session)
            code = secrets.token_urlsafe(9)
            invite = InviteRecord(code, session_id, user_id, self._clock() + INVITE_TTL, None)
            await self.store.insert_invite(invite)
            return code

    async def accept_invite(self, code: str, user_id: int, name: str) -> Outcome:
        """Seat ``user_id`` by an invite code, and deal once the table is full: one
        commit, which also uses the code up."""
        invite = await self.store.load_invite(code)
        self._check_invite(invite, user_id)
        assert invite is not None
        async with self._lock(invite.session):
            session = await self._load(invite.session)
            seated = _with_seat(session, Player(user_id, name, None))
            use = InviteUse(code, user_id)
            if len(seated.seats) >= _game_class(session.game_id).min_players:
                return await self._start(session, seated, invite=use)
            return Outcome(await self._save(session, seated, invite=use), [], None, False)

    def _check_invite(self, invite: InviteRecord | None, user_id: int) -> None:
        if invite is None or invite.used_by is not None:
            raise Refusal("invite_invalid")
        if invite.expires <= self._clock():
            raise Refusal("invite_expired")
        if invite.creator == user_id:
            raise Refusal("invite_own")

    # ------------------------------------------------------------ lookups

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` (see :func:`sessions.presses.pressing`) changed
        something already: delivered again, it is refused as ``applied``."""
        return await self.store.pressed(key)

    async def get(self, session_id: int) -> Session:
        """The session (Refusal ``no_session`` if unknown)."""
        return await self._load(session_id)

    async def by_link(self, link: str) -> Session:
        """The session of a deep-link token (Refusal ``no_session`` if none has it)."""
        session_id = await self.store.session_by_link(link) if link else None
        if session_id is None:
            raise Refusal("no_session")
        return await self._load(session_id)

    async def tidy(self) -> int:
        """Cancel the lobbies quiet for LOBBY_TTL (a group's lobby frees the group;
        each is told to the subscribers) and purge used or expired invites; how many
        lobbies went."""
        now = self._clock()
        gone = 0
        for session_id in await self.store.quiet_lobby_ids(now - LOBBY_TTL):
            try:
                cancelled = await self._expire_lobby(session_id, now)
            except Refusal:  # started, cancelled or changed meanwhile
                continue
            if cancelled is not None:
                gone += 1
                await self._background.notify(Outcome(cancelled, [], None, False))
        await self.store.purge_invites(now)
        return gone

    async def _expire_lobby(self, session_id: int, now: float) -> Session | None:
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status != "lobby":
                return None
            return await self._save(session, replace(session, status="cancelled"))

    async def open_in_chat(self, chat_id: int) -> Session | None:
        """The group chat's lobby or running game, or None."""
        ids = await self.store.open_session_ids(chat_id=chat_id)
        return await self._load(ids[0]) if ids else None

    async def active_sessions(self) -> list[Session]:
        """Every lobby and running session."""
        return [await self._load(i) for i in await self.store.open_session_ids()]

    async def behind(self) -> AsyncIterator[tuple[Session, list[MessageRef]]]:
        """Sessions with a message that shows an older version than it should (a crash
        or an outage came between a commit and its delivery), each with its stored
        messages; one at a time and not kept in the cache."""
        for session_id in await self.store.behind_session_ids():
            session = await self._load_or_none(session_id, remember=False)
            if session is not None:
                yield session, await self.store.messages_of(session_id)

    async def sessions_of_user(self, user_id: int) -> list[Session]:
        """The lobby and running sessions ``user_id`` sits in (or a computer plays for them)."""
        ids = await self.store.open_session_ids(user_id=user_id)
        return [await self._load(i) for i in ids]

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Session]:
        """The chat's last ``limit`` finished matches, newest first."""
        ids = await self.store.finished_session_ids(chat_id, limit)
        found = [await self._load_or_none(i, remember=False) for i in ids]
        return [s for s in found if s is not None]

    async def end_chat(self, chat_id: int) -> list[Session]:
        """The bot left a chat: cancel every open session created there; returns them."""
        ended = []
        for session_id in await self.store.chat_session_ids(chat_id):
            async with self._lock(session_id):
                session = await self._load(session_id)
                if session.status in OPEN:
                    cancelled = replace(session, status="cancelled", deadline=None)
                    ended.append(await self._save(session, cancelled))
        return ended

    async def replay_log(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        await self._load(session_id)
        return await self.store.moves_of(session_id)

    async def deal_records(self, session_id: int) -> tuple[Session, list[DealRecord]]:
        """The session and its finished deals as played, rebuilt from the stored seed
        and move log (so any finished match has them, also after a restart); none
        before the deal. Only finished deals: nothing of the deal in play."""
        session = await self._load(session_id)
        if session.seed is None or session.game is None:
            return session, []
        log = in_effect(await self.store.moves_of(session_id), lambda m: m.action)
        moves = [(m.seat, m.action) for m in log]
        records = deal_records(
            session.game_id, len(session.seats), session.options, session.seed, moves
        )
        return session, records

    # ------------------------------------------------------------ tally

    async def chat_tally(self, chat_id: int, game_id: str | None = None) -> list[TallyRow]:
        """Per user and game in a chat: played, wins, points; best first."""
        return _best_first(await self.store.chat_tally(chat_id, game_id))

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across all chats."""
        return _best_first(await self.store.user_stats(user_id))

    async def leaderboard(
        self, scope: int, game_id: str | None = None, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of a group chat (its id) or overall (``OVERALL``),
        per game best first, with ranks."""
        return await self.store.leaderboard(scope, game_id, limit=limit)

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's rating and rank per game in a chat or overall."""
        return await self.store.user_ratings(user_id, scope)

    # ------------------------------------------------------------ committing

    async def _start(
        self, old: Session, lobby: Session, *, invite: InviteUse | None = None
    ) -> Outcome:
        """Deal ``lobby`` (``old`` with seats or options changed) and commit it over ``old``."""
        game_class = _game_class(lobby.game_id)
        if len(lobby.seats) < game_class.min_players:
            raise Refusal("too_few_players", str(game_class.min_players))
        if len(lobby.seats) > game_class.players_allowed(lobby.options):
            raise Refusal("table_full")
        seed = secrets.randbits(63)
        try:
            game = game_class.new(len(lobby.seats), lobby.options, seed)
        except BadOptions as error:
            raise Refusal("bad_option", error.option) from error
        deadline = self._deadline(game, lobby.seats, lobby.timer)
        running = replace(lobby, status="running", seed=seed, game=game, deadline=deadline)
        return Outcome(await self._save(old, running, invite=invite), [], None, False)

    async def _commit_move(
        self,
        session: Session,
        seat: int,
        action: str,
        by_computer: bool,
        seats: list[Player] | None,
    ) -> Outcome:
        """Apply ``action`` to a copy of the game and commit state, version and log row."""
        assert session.game is not None
        game = session.game.clone()
        events = game.apply(seat, action)
        seated = session.seats if seats is None else seats
        moved = replace(
            session,
            game=game,
            seats=seated,
            moves=session.moves + 1,
            status="finished" if game.finished else "running",
            result=game.result,
            deadline=self._deadline(game, seated, session.timer),
            last_deal=_last_deal(session.last_deal, game, events),
        )
        now = self._clock()
        move = MoveRecord(moved.moves, seat, action, by_computer, now, session.version)
        results = _results(moved, now)
        rated = None if results is None or await self._taken_back(session.id) else _rated(
            moved, results)
        saved = await self._save(
            session,
            moved,
            seats=seats is not None,
            move=move,
            results=results,
            rated=rated,
        )
        return Outcome(saved, events, seat, by_computer)

    async def _commit_choice(
        self, session: Session, seat: int, action: str | None, seats: list[Player] | None
    ) -> Outcome:
        """Commit a computer's choice; an illegal or missing one falls back to the first legal."""
        assert session.game is not None
        if action is not None:
            try:
                return await self._commit_move(session, seat, action, True, seats)
            except IllegalAction as error:
                log.warning(
                    "computer chose illegal %r in session %s (%s); playing the first legal",
                    action,
                    session.id,
                    error.reason,
                )
        fallback = session.game.legal_actions(seat)[0]
        return await self._commit_move(session, seat, fallback, True, seats)

    async def _insert(self, session: Session) -> Session:
        """Store a new session; it comes back with its id (Refusal ``chat_busy``)."""
        everyone = [hand_purpose(seat) for seat, p in enumerate(session.seats) if p.user_id]
        session = replace(
            session,
            deadline=self._kept_deadline(session),
            changed=(TABLE, *everyone),
            link=secrets.token_urlsafe(LINK_BYTES),
        )
        press = unrecorded_press()
        try:
            session_id = await self.store.create_session(self._record(session), press=press)
        except ChatBusy as error:
            raise Refusal("chat_busy") from error
        except PressRepeated as error:
            raise Refusal("applied") from error
        self._recorded(press)
        session = replace(session, id=session_id)
        async with self._lock(session_id):
            self._remember(session)
            self._after_change(session)
        return session

    async def _save(
        self,
        old: Session,
        new: Session,
        *,
        seats: bool = True,
        move: MoveRecord | None = None,
        results: list[ResultRecord] | None = None,
        invite: InviteUse | None = None,
        rated: RatedMatch | None = None,
    ) -> Session:
        """Commit ``new`` over ``old`` (version + 1) in one transaction (caller holds the lock)."""
        new = replace(
            new,
            version=old.version + 1,
            deadline=self._kept_deadline(new),
            changed=_changed(old, new),
        )
        press = unrecorded_press()
        try:
            await self.store.save_session(
                self._record(new),
                old.version,
                seats=seats,
                move=move,
                results=results or (),
                invite=invite,
                wanted=new.changed,
                rated=rated,
                press=press,
            )
        except StaleVersion as error:
            self._cache.pop(old.id, None)
            raise Refusal("stale") from error
        except InviteUsed as error:
            raise Refusal("invite_invalid") from error
        except PressRepeated as error:
            raise Refusal("applied") from error
        except BaseException:
            self._cache.pop(old.id, None)
            raise
        self._recorded(press)
        if new.status == "finished" and old.status != "finished":
            new = await self._with_finished(new)
        self._remember(new)
        self._after_change(new)
        return new

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
        forgotten = await self.store.forget_presses(before)
        if forgotten:
            log.info("forgot %d presses older than a day", forgotten)

    def _kept_deadline(self, session: Session) -> float | None:
        """A deadline only while a human is to move in a running game."""
        if session.status == "running" and _computer_to_move(session) is None:
            return session.deadline
        return None

    def _record(self, session: Session) -> SessionRecord:
        if session.status == "running" and _computer_to_move(session) is not None:
            due: float | None = self._clock()
        else:
            due = session.deadline
        return _record(session, due, self._clock())

    def _deadline(self, game: Game, seats: list[Player], timer: int | None) -> float | None:
        """When the turn now starting expires: only a human's turn, only with a timer."""
        seat = game.to_move
        if timer is None or seat is None or seats[seat].is_computer:
            return None
        return self._clock() + timer

    def _after_change(self, session: Session) -> None:
        """Arm the turn timer and wake the computer seat that is to move."""
        if session.status == "running" and session.deadline is not None:
            self._background.timers.arm(session.id, session.version, session.deadline)
        else:
            self._background.timers.disarm(session.id)
        if _computer_to_move(session) is not None and session.id not in self._computer_turns:
            task = self._background.spawn(self._through_outages(session.id))
            self._computer_turns[session.id] = task

    # ------------------------------------------------------------ background

    def _on_expiry(self, session_id: int, version: int) -> None:
        self._background.spawn(self._expire_quietly(session_id, version))

    async def _expire_quietly(self, session_id: int, version: int) -> None:
        pause = OUTAGE_PAUSE
        while True:
            try:
                await self.expire(session_id, version)
                return
            except Exception as error:
                if not unavailable(error):
                    raise
                log.warning("turn timer of session %s waits for the database: %s", session_id,
                            error)
            await asyncio.sleep(pause)
            pause = min(pause * 2, OUTAGE_PAUSE_CAP)

    async def _through_outages(self, session_id: int) -> None:
        """Play the computer seats to move; after a store outage, again (1, 2, 4 … s)
        unless another task took them up meanwhile."""
        pause = OUTAGE_PAUSE
        while True:
            try:
                await self._play_computers(session_id)
                return
            except Exception as error:
                if not unavailable(error):
                    raise
                log.warning("computer turn of session %s waits for the database: %s",
                            session_id, error)
            await asyncio.sleep(pause)
            pause = min(pause * 2, OUTAGE_PAUSE_CAP)
            task = asyncio.current_task()
            if self._computer_turns.setdefault(session_id, task) is not task:  # type: ignore[arg-type]
                return

    async def _claim(self, session: Session) -> bool:
        """This worker's lease on the session's background work at its version."""
        now = self._clock()
        return await self.store.claim(
            session.id, session.version, self.worker_id, now, now + self._lease
        )

    async def _play_computers(self, session_id: int) -> None:
        """Play every computer seat to move, one committed move at a time."""
        try:
            while True:
                async with self._lock(session_id):
                    session = await self._load_or_none(session_id)
                    seat = None if session is None else _computer_to_move(session)
                    if session is None or seat is None or not await self._claim(session):
                        # Leaving under the lock: a change committed after this
                        # sees no task and starts a new one.
                        self._computer_turns.pop(session_id, None)
                        return
                level = session.seats[seat].level or STAND_IN_LEVEL
                action = await self._choose(session, seat, level)
                async with self._lock(session_id):
                    current = await self._load(session_id)
                    if current.version != session.version:
                        continue
                    try:
                        outcome = await self._commit_choice(current, seat, action, None)
                    except Refusal:  # stale in the database: the cache was dropped, reload
                        continue
                await self._background.notify(outcome)
        finally:
            if self._computer_turns.get(session_id) is asyncio.current_task():
                del self._computer_turns[session_id]

    async def _choose(self, session: Session, seat: int, level: str) -> str | None:
        """The computer's choice for ``seat``, or None if it failed."""
        seed = ((session.seed or 0) ^ (session.version * 0x9E3779B97F4A7C15)) % (1 << 63)
        owner = TURN_OWNER.set(session.chat_id if session.chat_id is not None else session.id)
        try:
            return await self._computer.choose(session.game_id, session.view(seat), level, seed)
        except Exception:
            log.exception("computer failed in session %s; playing the first legal", session.id)
            return None
        finally:
            TURN_OWNER.reset(owner)

    # ------------------------------------------------------------ loading

    def _lock(self, session_id: int) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    async def _load(self, session_id: int) -> Session:
        session = await self._load_or_none(session_id)
        if session is None:
            raise Refusal("no_session", str(session_id))
        return session

    async def _load_or_none(self, session_id: int, remember: bool = True) -> Session | None:
        cached = self._cache.get(session_id)
        if cached is not None and (
            not self._shared or await self.store.session_version(session_id) == cached.version
        ):
            # the version check awaited: the entry may have been dropped or replaced
            # meanwhile (the background pass, another session's eviction)
            if self._cache.get(session_id) is cached:
                self._cache.move_to_end(session_id)
            return cached
        record = await self.store.load_session(session_id)
        if record is None:
            return None
        session = _session(record)
        if session.status == "finished":
            session = await self._with_finished(session)
        if remember:
            self._remember(session)
        return session

    async def _with_finished(self, session: Session) -> Session:
        """A finished session with what its result shows beside the scores: the rating
        changes and the hints used, as stored."""
        used = await self.store.hint_uses(session.id)
        return replace(
            session,
            ratings=tuple(await self.store.rating_changes(session.id)),
            hints_used=tuple(used.get(seat, 0) for seat in range(len(session.seats))),
            taken_back=await self._taken_back(session.id),
        )

    async def _taken_back(self, session_id: int) -> bool:
        """Whether a move of the match was taken back: such a match is not rated. Read
        from the log (never rewritten), so a restart or a re-rating sees the same."""
        return any(m.action.startswith(f"{TAKE_BACK}:") for m in await self.store.moves_of(
            session_id))

    def _remember(self, session: Session) -> None:
        self._cache[session.id] = session
        self._cache.move_to_end(session.id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    @property
    def cached(self) -> int:
        """How many sessions are held in memory (bounded by ``cache_size``)."""
        return len(self._cache)


# ---------------------------------------------------------------- checks


def _game_class(game_id: str) -> type[Game]:
    game_class = REGISTRY.get(game_id)
    if game_class is None:
        raise Refusal("unknown_game", str(game_id))
    return game_class


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise Refusal("bad_level", str(level))


def _require_lobby(session: Session) -> None:
    if session.status != "lobby":
        raise Refusal("not_in_lobby", session.status)


def _require_creator(session: Session, user_id: int) -> None:
    if user_id != session.creator_id:
        raise Refusal("not_creator")


def _require_seat(session: Session, user_id: int) -> int:
    seat = session.seat_of(user_id)
    if seat is None:
        raise Refusal("not_a_player")
    return seat


def takeback_allowed(session: Session) -> bool:
    """Take-backs are for a table of one person and computers (never two humans, nor a
    computer standing in for a human who may come back)."""
    humans = [p for p in session.seats if p.user_id is not None or p.stands_in_for is not None]
    return len(humans) == 1


def seats_allowed(session: Session) -> int:
    """How many seats the table may have with its options."""
    return _game_class(session.game_id).players_allowed(session.options)


def _require_free_seat(session: Session) -> None:
    if len(session.seats) >= seats_allowed(session):
        raise Refusal("table_full")


def _with_seat(session: Session, player: Player) -> Session:
    """The lobby with ``player`` in the next free seat."""
    _require_lobby(session)
    if player.user_id is not None and session.seat_of(player.user_id) is not None:
        raise Refusal("already_seated")
    _require_free_seat(session)
    return replace(session, seats=[*session.seats, player])


def _computer(level: str) -> Player:
    return Player(None, f"Computer ({level})", level)


def _stand_in(player: Player) -> Player:
    """The computer that takes over a human's seat (it keeps the human's name and id)."""
    return Player(None, player.name, STAND_IN_LEVEL, stands_in_for=player.user_id)


def _computer_to_move(session: Session) -> int | None:
    seat = session.to_move
    return seat if seat is not None and session.seats[seat].is_computer else None


def _changed(old: Session, new: Session) -> tuple[str, ...]:
    """The messages ``new`` must be shown in: the table always; a player's own hand
    message when their cards or moves changed, and the hand of whoever is to move
    (its buttons carry the version), with her ephemeral hand in a group (if she
    has one open: only stored messages are marked behind); every hand in a
    private duel, whose hand message is the table."""
    purposes = [TABLE]
    for seat, player in enumerate(new.seats):
        before = old.seats[seat] if seat < len(old.seats) else None
        if player.user_id is None and (before is None or before.user_id is None):
            continue
        if (
            new.kind != "group"
            or old.status != new.status
            or before != player
            or new.to_move == seat
            or old.hand_key(seat) != new.hand_key(seat)
        ):
            purposes.append(hand_purpose(seat))
            if new.kind == "group":
                purposes.append(ephemeral_purpose(seat))
    return tuple(purposes)


def _last_deal(
    before: dict[str, Any] | None, game: Game, events: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The last finished deal's points (from a ``deal_end`` event), kept until the next."""
    for event in events:
        if event.get("type") == "deal_end":
            scores = event.get("deal_scores", event.get("scores"))
            if scores is not None:
                return {"deal_no": game.deal_no, "scores": list(scores)}
    return before


def _best_first(rows: list[TallyRow]) -> list[TallyRow]:
    """Tally rows by wins, then points — fewest first where the lowest total wins
    (the store orders by most points) — then fewest games played."""

    def rank(row: TallyRow) -> tuple[float, float, int]:
        game_class = REGISTRY.get(row.game_id)
        points = row.points if game_class is not None and game_class.lowest_wins else -row.points
        return (-row.wins, points, row.played)

    return sorted(rows, key=rank)


def _results(session: Session, now: float) -> list[ResultRecord] | None:
    """The humans' tally rows of a finished match (None while it runs)."""
    if session.status != "finished" or session.result is None:
        return None
    winners = set(session.result.get("winners", []))
    scores = session.result.get("scores", [])
    return [
        ResultRecord(player.user_id, seat, seat in winners, float(scores[seat]), now)
        for seat, player in enumerate(session.seats)
        if player.user_id is not None
    ]


def _rated(session: Session, results: list[ResultRecord] | None) -> RatedMatch | None:
    """The finished match to rate, with its humans who have a result row."""
    if results is None:
        return None
    return rated_match(
        session.id,
        session.game_id,
        session.kind,
        session.chat_id,
        session.result,
        [(player.user_id, player.level) for player in session.seats],
        [share.user_id for share in results],
    )


# ---------------------------------------------------------------- records


def _session(record: SessionRecord) -> Session:
    game = None
    if record.state is not None:
        game = _game_class(record.game).from_dict(record.state)
    return Session(
        id=record.id,
        chat_id=record.chat_id,
        kind=record.kind,
        game_id=record.game,
        status=record.status,
        creator_id=record.creator,
        seats=[Player(s.user_id, s.name, s.level, s.timeouts, s.stands_in_for)
               for s in record.seats],
        options=record.options,
        timer=record.timer,
        version=record.version,
        deadline=record.deadline,
        game=game,
        result=record.result,
        created_at=record.created,
        seed=record.seed,
        moves=record.moves,
        last_deal=record.last_deal,
        hints=record.hints,
        link=record.link or "",
    )


def _record(session: Session, due: float | None, now: float) -> SessionRecord:
    return SessionRecord(
        id=session.id,
        chat_id=session.chat_id,
        kind=session.kind,
        game=session.game_id,
        status=session.status,
        creator=session.creator_id,
        options=session.options,
        timer=session.timer,
        seed=session.seed,
        version=session.version,
        moves=session.moves,
        state=None if session.game is None else session.game.snapshot(),  # games never change
        deadline=session.deadline,
        result=session.result,
        created=session.created_at,
        seats=[
            SeatRecord(p.user_id, p.name, p.level, p.timeouts, p.stands_in_for)
            for p in session.seats
        ],
        due=due,
        last_deal=session.last_deal,
        updated=now,
        hints=session.hints,
        link=session.link or None,
    )

"""The session layer: lobbies, seats, turns, timers, computer players, tally.

No Telegram here: the front end turns updates into calls on
:class:`SessionManager` and renders the :class:`Session` / :class:`Outcome`
it gets back. Every change is committed to SQLite (``storage``) before it is
returned; the in-memory cache is only a cache. The contract is
``docs/sessions-api.md``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from aiosqlite import Connection

from bot.timers import Clock, TurnTimers
from games import REGISTRY, BadOptions, Game, IllegalAction
from storage import (
    ChatBusy,
    Database,
    InviteRecord,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    StaleVersion,
    TallyRow,
    store,
)

log = logging.getLogger(__name__)

LEVELS = ("easy", "normal", "strong")
TIMERS = (None, 60, 300, 86400)
KINDS = ("group", "private")
LANGUAGES = ("ru", "en")
INVITE_TTL = 86400.0
#: Consecutive timeouts after which the computer keeps the seat.
TIMEOUTS_TO_HAND_OVER = 3
#: The level of a computer that stands in for an absent or departed human.
STAND_IN_LEVEL = "normal"
OPEN = ("lobby", "running")
#: Languages and reachability remembered in memory (least recently used go first).
PREFERENCES_CACHED = 50_000

__all__ = [
    "INVITE_TTL",
    "LEVELS",
    "TIMERS",
    "Computer",
    "MessageRef",
    "Outcome",
    "Player",
    "Refusal",
    "Session",
    "SessionManager",
    "TallyRow",
]


@dataclass(frozen=True)
class Player:
    """Who sits in a seat: a human (``user_id``) or a computer (``level``)."""

    user_id: int | None
    name: str
    level: str | None
    timeouts: int = 0

    @property
    def is_computer(self) -> bool:
        """True for a computer seat."""
        return self.level is not None


@dataclass(frozen=True)
class Session:
    """A snapshot of one table; ``game`` is a private copy, safe to keep."""

    id: int
    chat_id: int | None
    kind: str
    game_id: str
    status: str
    creator_id: int
    seats: list[Player]
    options: dict[str, Any]
    timer: int | None
    version: int
    deadline: float | None
    game: Game | None
    result: dict[str, Any] | None
    created_at: float
    seed: int | None = None
    moves: int = 0

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` sits in, or None."""
        for index, player in enumerate(self.seats):
            if player.user_id == user_id:
                return index
        return None

    def view(self, seat: int | None) -> dict[str, Any]:
        """``game.view(seat)`` (None: the public view); Refusal ``not_running`` in a lobby."""
        if self.game is None:
            raise Refusal("not_running", "the game has not started")
        return self.game.view(seat)

    @property
    def to_move(self) -> int | None:
        """The seat whose move is awaited, or None."""
        return None if self.game is None or self.status != "running" else self.game.to_move


@dataclass(frozen=True)
class Outcome:
    """What a committed change produced, for rendering."""

    session: Session
    events: list[dict[str, Any]]
    actor: int | None
    by_computer: bool


class Refusal(Exception):
    """A typed "no": nothing changed. ``code`` is from docs/sessions-api.md."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class Computer(Protocol):
    """A computer player: picks an action from what its seat may see."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """One of ``view["legal"]``."""
        ...


Subscriber = Callable[[Outcome], Awaitable[None]]


class SessionManager:
    """Every table of the bot, durable in SQLite."""

    def __init__(
        self, db: Database, computer: Computer, clock: Clock = time.time, cache_size: int = 1024
    ) -> None:
        self._db = db
        self._computer = computer
        self._clock = clock
        self._cache: OrderedDict[int, Session] = OrderedDict()
        self._cache_size = cache_size
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._subscribers: list[Subscriber] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._computer_turns: dict[int, asyncio.Task[None]] = {}
        self._timers = TurnTimers(clock, self._on_expiry)
        # (scope, id) → language or reachability: read on every render, written rarely
        # and only through this manager, so the cache is kept exact by the writers.
        self._preferences: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self._preference_writes = 0

    # ------------------------------------------------------------ lifecycle

    @classmethod
    async def open(
        cls,
        url: str,
        computer: Computer,
        clock: Clock = time.time,
        cache_size: int = 1024,
    ) -> SessionManager:
        """Open the database at ``url`` (ValueError if malformed) and restore timers."""
        db = await Database.open(url)
        manager = cls(db, computer, clock, cache_size)
        await manager.restore()
        return manager

    async def restore(self) -> None:
        """Re-arm every stored deadline and resume computer seats that are to move.

        ``open`` calls it; calling it again is harmless.
        """
        for session_id in await store.open_session_ids(self._db):
            async with self._lock(session_id):
                self._after_change(await self._load(session_id))

    async def close(self) -> None:
        """Stop timers and background work, then close the database."""
        self._timers.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._db.close()

    def subscribe(self, callback: Subscriber) -> None:
        """Call ``callback(outcome)`` after every change nobody asked for directly."""
        self._subscribers.append(callback)

    async def idle(self) -> None:
        """Wait until no background work (computer moves, expired timers) is pending."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def fire_due_timers(self) -> int:
        """Expire every turn whose deadline the clock has passed (for an injected clock)."""
        return self._timers.fire_due()

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
        if kind == "group" and await store.open_session_ids(self._db, chat_id=chat_id):
            raise Refusal("chat_busy")
        now = self._clock()
        record = SessionRecord(
            id=0,
            chat_id=chat_id,
            kind=kind,
            game=game_id,
            status="lobby",
            creator=user_id,
            options=game_class.validate_options(game_class.min_players, {}),
            timer=None,
            seed=None,
            version=1,
            moves=0,
            state=None,
            deadline=None,
            result=None,
            created=now,
            seats=[SeatRecord(user_id, name, None)],
        )

        async def insert(tx: Connection) -> int:
            await store.remember_user(tx, user_id, name)
            return await store.insert_session(tx, record)

        try:
            session_id = await self._db.write(insert)
        except ChatBusy as error:
            raise Refusal("chat_busy") from error
        session = _session(replace(record, id=session_id))
        self._remember(session)
        return session

    async def join(self, session_id: int, user_id: int, name: str) -> Session:
        """Sit ``user_id`` in the next free seat of a lobby."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            return await self._save(session, _with_seat(session, Player(user_id, name, None)))

    async def add_computer(self, session_id: int, user_id: int, level: str) -> Session:
        """The creator adds a computer player of ``level`` to the lobby."""
        if level not in LEVELS:
            raise Refusal("bad_level", str(level))
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_creator(session, user_id)
            player = Player(None, f"Computer ({level})", level)
            return await self._save(session, _with_seat(session, player))

    async def leave(self, session_id: int, user_id: int) -> Session:
        """Lobby: free the seat. Running: a computer takes the seat over.

        When the last human leaves, the session is cancelled; when the creator
        leaves a lobby, the next human seated becomes its creator.
        """
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            seat = _require_seat(session, user_id)
            seats = list(session.seats)
            if session.status == "lobby":
                del seats[seat]
            else:
                seats[seat] = _stand_in(seats[seat])
            humans = [p.user_id for p in seats if p.user_id is not None]
            if not humans:
                return await self._save(session, replace(session, status="cancelled", seats=seats))
            creator = session.creator_id if session.creator_id in humans else humans[0]
            return await self._save(session, replace(session, seats=seats, creator_id=creator))

    async def set_option(self, session_id: int, user_id: int, name: str, value: Any) -> Session:
        """The creator changes a table option (validated by the game's schema)."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            game_class = _game_class(session.game_id)
            players = min(max(len(session.seats), game_class.min_players), game_class.max_players)
            wanted = {**session.options, name: _coerce(game_class, name, value)}
            try:
                options = game_class.validate_options(players, wanted)
            except BadOptions as error:
                raise Refusal("bad_option", error.option or name) from error
            return await self._save(session, replace(session, options=options))

    async def set_timer(self, session_id: int, user_id: int, seconds: int | None) -> Session:
        """The creator sets the turn timer: None (off), 60, 300 or 86400 seconds."""
        if seconds not in TIMERS or isinstance(seconds, bool):
            raise Refusal("bad_option", "timer")
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            return await self._save(session, replace(session, timer=seconds))

    async def start(self, session_id: int, user_id: int) -> Outcome:
        """The creator deals; computer seats start moving in the background."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            _require_lobby(session)
            _require_creator(session, user_id)
            game_class = _game_class(session.game_id)
            if len(session.seats) < game_class.min_players:
                raise Refusal("too_few_players", str(game_class.min_players))
            seed = secrets.randbits(63)
            try:
                game = game_class.new(len(session.seats), session.options, seed)
            except BadOptions as error:
                raise Refusal("bad_option", error.option) from error
            deadline = self._deadline(game, session.seats, session.timer)
            running = replace(session, status="running", seed=seed, game=game, deadline=deadline)
            return Outcome(await self._save(session, running), [], None, False)

    async def cancel(self, session_id: int, user_id: int, is_admin: bool = False) -> Session:
        """The creator (or a group admin) cancels a lobby or a running game."""
        async with self._lock(session_id):
            session = await self._load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            if user_id != session.creator_id and not is_admin:
                raise Refusal("not_creator")
            return await self._save(session, replace(session, status="cancelled", deadline=None))

    async def rematch(self, session_id: int, user_id: int) -> Outcome:
        """A player of a finished match starts a new one: same seats and options, new seed."""
        async with self._lock(session_id):
            old = await self._load(session_id)
            _require_seat(old, user_id)
            if old.status != "finished":
                raise Refusal("not_finished", old.status)
        if old.kind == "group" and await store.open_session_ids(self._db, chat_id=old.chat_id):
            raise Refusal("chat_busy")
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
            created_at=self._clock(),
            deadline=self._deadline(game, seats, old.timer),
        )
        try:
            new_id = await self._db.write(lambda tx: store.insert_session(tx, _record(fresh)))
        except ChatBusy as error:
            raise Refusal("chat_busy") from error
        fresh = replace(fresh, id=new_id)
        async with self._lock(new_id):
            self._remember(fresh)
            self._after_change(fresh)
        return Outcome(fresh, [], None, False)

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
        move = await store.move_at_version(self._db, session.id, version)
        return (
            move is not None
            and not move.by_computer
            and move.action == action
            and move.seat == session.seat_of(user_id)
        )

    async def expire(self, session_id: int, version: int) -> Outcome | None:
        """What a turn timer does: the computer moves for the absent human.

        Does nothing (returns None) unless ``version`` is still current and its
        deadline has passed. The third timeout in a row hands the seat to the
        computer for good (events ``timeout`` and ``seat_handed_over``).
        """
        async with self._lock(session_id):
            session = await self._load_or_none(session_id)
            if session is None or session.version != version or session.deadline is None:
                return None
            if session.status != "running" or session.to_move is None:
                return None
            if session.deadline > self._clock():
                self._timers.arm(session_id, version, session.deadline)
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
                seats[seat] = _stand_in(seats[seat])
                events.append({"type": "seat_handed_over", "seat": seat})
            else:
                seats[seat] = replace(seats[seat], timeouts=timeouts)
            outcome = await self._commit_choice(current, seat, action, seats)
        outcome = replace(outcome, events=events + outcome.events)
        await self._notify(outcome)
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
            await self._db.write(lambda tx: store.insert_invite(tx, invite))
            return code

    async def accept_invite(self, code: str, user_id: int, name: str) -> Session:
        """Seat ``user_id`` by an invite code; the code is used up in the same transaction."""
        invite = await store.load_invite(self._db, code)
        self._check_invite(invite, user_id)
        assert invite is not None
        async with self._lock(invite.session):
            session = await self._load(invite.session)

            async def use_up(tx: Connection) -> None:
                self._check_invite(await store.find_invite(tx, code), user_id)
                await store.use_invite(tx, code, user_id)

            seated = _with_seat(session, Player(user_id, name, None))
            return await self._save(session, seated, extra=use_up)

    def _check_invite(self, invite: InviteRecord | None, user_id: int) -> None:
        if invite is None or invite.used_by is not None:
            raise Refusal("invite_invalid")
        if invite.expires <= self._clock():
            raise Refusal("invite_expired")
        if invite.creator == user_id:
            raise Refusal("invite_own")

    # ------------------------------------------------------------ lookups

    async def get(self, session_id: int) -> Session:
        """The session (Refusal ``no_session`` if unknown)."""
        return await self._load(session_id)

    async def open_in_chat(self, chat_id: int) -> Session | None:
        """The group chat's lobby or running game, or None."""
        ids = await store.open_session_ids(self._db, chat_id=chat_id)
        return await self._load(ids[0]) if ids else None

    async def active_sessions(self) -> list[Session]:
        """Every lobby and running session (to re-render after a restart)."""
        return [await self._load(i) for i in await store.open_session_ids(self._db)]

    async def ended_since(self, seconds: float) -> AsyncIterator[Session]:
        """Sessions finished or cancelled in the last ``seconds`` (a crash may have come
        before their last screens were delivered), loaded one at a time and not kept in
        the cache: an ended session is drawn once and rarely wanted again."""
        for session_id in await store.ended_session_ids(self._db, self._clock() - seconds):
            session = await self._load_or_none(session_id, remember=False)
            if session is not None:
                yield session

    async def sessions_of_user(self, user_id: int) -> list[Session]:
        """The lobby and running sessions ``user_id`` sits in."""
        ids = await store.open_session_ids(self._db, user_id=user_id)
        return [await self._load(i) for i in ids]

    async def end_chat(self, chat_id: int) -> list[Session]:
        """The bot left a chat: cancel every open session created there; returns them."""
        ended = []
        for session_id in await store.chat_session_ids(self._db, chat_id):
            async with self._lock(session_id):
                session = await self._load(session_id)
                if session.status in OPEN:
                    cancelled = replace(session, status="cancelled", deadline=None)
                    ended.append(await self._save(session, cancelled))
        return ended

    async def replay_log(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        await self._load(session_id)
        return await store.moves_of(self._db, session_id)

    # ------------------------------------------------------------ tally

    async def chat_tally(self, chat_id: int, game_id: str | None = None) -> list[TallyRow]:
        """Per user and game in a chat: played, wins, points; best first."""
        return await store.chat_tally(self._db, chat_id, game_id)

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across all chats."""
        return await store.user_stats(self._db, user_id)

    # ------------------------------------------------------------ messages

    async def set_message(
        self,
        session_id: int,
        purpose: str,
        chat_id: int | None,
        message_id: int | None = None,
        inline_message_id: str | None = None,
    ) -> None:
        """Remember which Telegram message shows the session for ``purpose``."""
        await self._load(session_id)
        ref = MessageRef(purpose, chat_id, message_id, inline_message_id)
        await self._db.write(lambda tx: store.set_message(tx, session_id, ref))

    async def messages(self, session_id: int) -> list[MessageRef]:
        """Every remembered message of the session."""
        return await store.messages_of(self._db, session_id)

    async def drop_message(self, session_id: int, purpose: str) -> None:
        """Forget the message of ``purpose``."""
        await self._db.write(lambda tx: store.drop_message(tx, session_id, purpose))

    # ------------------------------------------------------------ preferences

    async def set_language(self, scope: str, key: int, lang: str) -> None:
        """Store the language (``ru`` | ``en``) of a ``user`` or ``chat``."""
        if scope not in ("user", "chat"):
            raise Refusal("bad_option", "scope")
        if lang not in LANGUAGES:
            raise Refusal("bad_option", "lang")
        self._preference_writes += 1
        try:
            await self._db.write(lambda tx: store.set_language(tx, scope, key, lang))
        finally:
            self._preferences.pop((scope, key), None)
        self._remember_preference((scope, key), lang)

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a ``user`` or ``chat``, None if never set."""
        if scope not in ("user", "chat"):
            raise Refusal("bad_option", "scope")
        found: str | None = await self._preference(
            (scope, key), lambda: store.language(self._db, scope, key)
        )
        return found

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark the user's private chat reachable or not (after a 403)."""
        self._preference_writes += 1
        try:
            await self._db.write(lambda tx: store.set_reachable(tx, user_id, reachable))
        finally:
            self._preferences.pop(("reachable", user_id), None)
        self._remember_preference(("reachable", user_id), reachable)

    async def reachable(self, user_id: int) -> bool:
        """True unless the user was marked unreachable."""
        found: bool = await self._preference(
            ("reachable", user_id), lambda: store.reachable(self._db, user_id)
        )
        return found

    async def _preference(self, key: tuple[str, int], read: Callable[[], Awaitable[Any]]) -> Any:
        """A cached preference, else ``read()`` from the database (and cached)."""
        if key in self._preferences:
            self._preferences.move_to_end(key)
            return self._preferences[key]
        writes = self._preference_writes
        value = await read()
        if writes == self._preference_writes:  # no write raced the read: it is current
            self._remember_preference(key, value)
        return value

    def _remember_preference(self, key: tuple[str, int], value: Any) -> None:
        self._preferences[key] = value
        self._preferences.move_to_end(key)
        while len(self._preferences) > PREFERENCES_CACHED:
            self._preferences.popitem(last=False)

    # ------------------------------------------------------------ committing

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
        )
        move = MoveRecord(moved.moves, seat, action, by_computer, self._clock(), session.version)
        saved = await self._save(
            session, moved, seats=seats is not None, move=move, results=_results(moved)
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

    async def _save(
        self,
        old: Session,
        new: Session,
        *,
        seats: bool = True,
        move: MoveRecord | None = None,
        results: list[ResultRecord] | None = None,
        extra: Callable[[Connection], Awaitable[None]] | None = None,
    ) -> Session:
        """Commit ``new`` over ``old`` (version + 1) in one transaction (caller holds the lock)."""
        keeps_deadline = new.status == "running" and _computer_to_move(new) is None
        new = replace(
            new, version=old.version + 1, deadline=new.deadline if keeps_deadline else None
        )
        record = _record(new)
        now = self._clock()

        async def work(tx: Connection) -> None:
            if extra is not None:
                await extra(tx)
            await store.save_session(
                tx, record, old.version, now, seats=seats, move=move, results=results
            )
            if seats:
                for player in new.seats:
                    if player.user_id is not None:
                        await store.remember_user(tx, player.user_id, player.name)

        try:
            await self._db.write(work)
        except StaleVersion as error:
            self._cache.pop(old.id, None)
            raise Refusal("stale") from error
        except Refusal:
            raise
        except BaseException:
            self._cache.pop(old.id, None)
            raise
        self._remember(new)
        self._after_change(new)
        return new

    def _deadline(self, game: Game, seats: list[Player], timer: int | None) -> float | None:
        """When the turn now starting expires: only a human's turn, only with a timer."""
        seat = game.to_move
        if timer is None or seat is None or seats[seat].is_computer:
            return None
        return self._clock() + timer

    def _after_change(self, session: Session) -> None:
        """Arm the turn timer and wake the computer seat that is to move."""
        if session.status == "running" and session.deadline is not None:
            self._timers.arm(session.id, session.version, session.deadline)
        else:
            self._timers.disarm(session.id)
        if _computer_to_move(session) is not None and session.id not in self._computer_turns:
            self._computer_turns[session.id] = self._spawn(self._play_computers(session.id))

    # ------------------------------------------------------------ background

    def _spawn(self, work: Awaitable[None]) -> asyncio.Task[None]:
        async def run() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background work failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_expiry(self, session_id: int, version: int) -> None:
        self._spawn(self._expire_quietly(session_id, version))

    async def _expire_quietly(self, session_id: int, version: int) -> None:
        await self.expire(session_id, version)

    async def _play_computers(self, session_id: int) -> None:
        """Play every computer seat to move, one committed move at a time."""
        try:
            while True:
                async with self._lock(session_id):
                    session = await self._load_or_none(session_id)
                    seat = None if session is None else _computer_to_move(session)
                    if session is None or seat is None:
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
                await self._notify(outcome)
        finally:
            if self._computer_turns.get(session_id) is asyncio.current_task():
                del self._computer_turns[session_id]

    async def _choose(self, session: Session, seat: int, level: str) -> str | None:
        """The computer's choice for ``seat``, or None if it failed."""
        seed = ((session.seed or 0) ^ (session.version * 0x9E3779B97F4A7C15)) % (1 << 63)
        try:
            return await self._computer.choose(session.game_id, session.view(seat), level, seed)
        except Exception:
            log.exception("computer failed in session %s; playing the first legal", session.id)
            return None

    async def _notify(self, outcome: Outcome) -> None:
        for callback in list(self._subscribers):
            try:
                await callback(outcome)
            except Exception:
                log.exception("subscriber failed on session %s", outcome.session.id)

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
        if cached is not None:
            self._cache.move_to_end(session_id)
            return cached
        record = await store.load_session(self._db, session_id)
        if record is None:
            return None
        session = _session(record)
        if remember:
            self._remember(session)
        return session

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


def _require_free_seat(session: Session) -> None:
    if len(session.seats) >= _game_class(session.game_id).max_players:
        raise Refusal("table_full")


def _with_seat(session: Session, player: Player) -> Session:
    """The lobby with ``player`` in the next free seat."""
    _require_lobby(session)
    if player.user_id is not None and session.seat_of(player.user_id) is not None:
        raise Refusal("already_seated")
    _require_free_seat(session)
    return replace(session, seats=[*session.seats, player])


def _stand_in(player: Player) -> Player:
    """The computer that takes over a human's seat (the seat keeps its name)."""
    return Player(None, player.name, STAND_IN_LEVEL)


def _computer_to_move(session: Session) -> int | None:
    seat = session.to_move
    return seat if seat is not None and session.seats[seat].is_computer else None


def _coerce(game_class: type[Game], name: str, value: Any) -> Any:
    """Button data arrives as text: turn "7" / "true" into the option's type."""
    option = next((o for o in game_class.options_schema if o.name == name), None)
    if option is None or not isinstance(value, str):
        return value
    if isinstance(option.default, bool):
        return {"true": True, "false": False}.get(value.lower(), value)
    if isinstance(option.default, int) and value.lstrip("-").isdigit():
        return int(value)
    return value


def _results(session: Session) -> list[ResultRecord] | None:
    """The humans' tally rows of a finished match (None while it runs)."""
    if session.status != "finished" or session.result is None:
        return None
    winners = set(session.result.get("winners", []))
    scores = session.result.get("scores", [])
    return [
        ResultRecord(player.user_id, seat, seat in winners, float(scores[seat]))
        for seat, player in enumerate(session.seats)
        if player.user_id is not None
    ]


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
        seats=[Player(s.user_id, s.name, s.level, s.timeouts) for s in record.seats],
        options=record.options,
        timer=record.timer,
        version=record.version,
        deadline=record.deadline,
        game=game,
        result=record.result,
        created_at=record.created,
        seed=record.seed,
        moves=record.moves,
    )


def _record(session: Session) -> SessionRecord:
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
        seats=[SeatRecord(p.user_id, p.name, p.level, p.timeouts) for p in session.seats],
    )

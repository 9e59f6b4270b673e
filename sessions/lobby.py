"""The lobby: create a table, seat players, set its options, deal, cancel, rematch.

Each operation loads the session under its lock, checks who may do it, builds
one :class:`~sessions.change.Change` and has the repository commit it; what a
user sees as one step is one commit (a duel against the computer: fill and
deal). A change that is not tied to a version the user saw is made again when
another worker's commit made it stale (:func:`~sessions.repository.again_if_stale`).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from games import BadOptions
from sessions.background import Background
from sessions.change import Change, turn_deadline
from sessions.checks import (
    OPEN,
    check_level,
    computer,
    game_class,
    require_creator,
    require_lobby,
    require_seat,
    stand_in,
    with_seat,
)
from sessions.model import Outcome, Player, Refusal, Session
from sessions.repository import Repository, again_if_stale
from sessions.timers import Clock
from storage import InviteUse

TIMERS = (None, 60, 300, 86400)
#: The turn timer a creator may type, in seconds: whole minutes from 1 minute to a day.
TIMER_RANGE = (60, 86400)
KINDS = ("group", "private")
#: Open private lobbies and duels one user may have; a new one replaces the oldest lobby.
PRIVATE_TABLES = 3
#: A lobby nobody changed for this long is cancelled (a group's lobby frees the group).
LOBBY_TTL = 86400.0
#: The key of a finished match's result that names its rematch.
REMATCH = "rematch"


class Lobby:
    """The lobbies of one :class:`~sessions.SessionManager` (and their ends)."""

    def __init__(self, repo: Repository, background: Background, clock: Clock) -> None:
        self.repo = repo
        self._background = background
        self._clock = clock

    async def create(
        self, chat_id: int | None, kind: str, user_id: int, name: str, game_id: str,
        thread: int = 0,
    ) -> Session:
        """A new lobby with the creator in seat 0 and the game's default options; a group's
        in its forum topic ``thread`` (0: none), one open table per chat and topic."""
        rules = game_class(game_id)
        if kind not in KINDS:
            raise Refusal("bad_option", "kind")
        if kind == "group" and chat_id is None:
            raise Refusal("bad_option", "chat_id")
        if kind == "group" and await self.repo.sessions.open_session_ids(
            chat_id=chat_id, thread=thread
        ):
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
            options=rules.validate_options(rules.min_players, {}),
            timer=None,
            version=1,
            deadline=None,
            game=None,
            result=None,
            created_at=self._clock(),
            thread=thread if kind == "group" else 0,
        )
        return await self.repo.commit(Change.new(lobby))

    async def _make_room(self, user_id: int) -> None:
        """Before a user's new private lobby: cancel their oldest private lobbies so
        that at most PRIVATE_TABLES are open with it (Refusal ``too_many_tables`` if
        their running duels alone fill that)."""
        theirs = await self.repo.sessions.open_session_ids(user_id=user_id)
        mine = [
            s for s in [await self.repo.load(i) for i in theirs]
            if s.kind == "private" and s.creator_id == user_id
        ]
        lobbies = [s for s in mine if s.status == "lobby"]
        excess = len(mine) - PRIVATE_TABLES + 1
        if excess > len(lobbies):
            raise Refusal("too_many_tables", str(PRIVATE_TABLES))
        for lobby in lobbies[:max(excess, 0)]:
            cancelled = await self.cancel(lobby.id, user_id)
            await self._background.notify(Outcome(cancelled, [], None, False))

    async def _commit(self, session: Session, state: Session) -> Session:
        return await self.repo.commit(Change.of(session, state))

    @again_if_stale
    async def join(self, session_id: int, user_id: int, name: str) -> Session:
        """Sit ``user_id`` in the next free seat of a group lobby (a private one
        seats only by its invite: Refusal ``invite_only``)."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.kind == "private" and session.seat_of(user_id) is None:
                raise Refusal("invite_only")
            return await self._commit(session, with_seat(session, Player(user_id, name, None)))

    @again_if_stale
    async def add_computer(self, session_id: int, user_id: int, level: str) -> Session:
        """The creator adds a computer player of ``level`` to the lobby."""
        check_level(level)
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            require_creator(session, user_id)  # before the lobby check (in with_seat)
            return await self._commit(session, with_seat(session, computer(level)))

    async def play_computer(self, session_id: int, user_id: int, level: str) -> Outcome:
        """A private duel against the computer: fill every free seat with ``level`` and
        deal, in one commit. Only computers are seated (the humans there came by the
        lobby's invite: :meth:`join` seats nobody in a private lobby)."""
        check_level(level)
        async with self.repo.lock(session_id):
            session = await self._creators_lobby(session_id, user_id)
            filled = session
            while len(filled.seats) < game_class(session.game_id).min_players:
                filled = with_seat(filled, computer(level))
            return await self.deal(session, filled)

    @again_if_stale
    async def leave(self, session_id: int, user_id: int) -> Outcome:
        """Lobby: free the seat. Running: a computer takes the seat over (event
        ``seat_handed_over``, reason ``left``).

        When the last human leaves, the session is cancelled; when the creator
        leaves a lobby, the next human seated becomes its creator.
        """
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            seat = require_seat(session, user_id)
            seats = list(session.seats)
            events: list[dict[str, Any]] = []
            if session.status == "lobby":
                del seats[seat]
            else:
                seats[seat] = stand_in(seats[seat])
                events.append({"type": "seat_handed_over", "seat": seat, "why": "left",
                               "user_id": user_id})
            humans = [p.user_id for p in seats if p.user_id is not None]
            if not humans:
                left = replace(session, status="cancelled", seats=seats)
            else:
                creator = session.creator_id if session.creator_id in humans else humans[0]
                left = replace(session, seats=seats, creator_id=creator)
            return Outcome(await self._commit(session, left), events, None, False)

    @again_if_stale
    async def reclaim(self, session_id: int, user_id: int) -> Session:
        """A human takes back the seat a computer plays for them (after leaving or
        timing out); Refusal ``not_a_player`` if no seat stands in for them."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
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
            return await self._commit(session, replace(session, seats=seats))

    @again_if_stale
    async def set_option(self, session_id: int, user_id: int, name: str, value: Any) -> Session:
        """The creator changes a table option (validated by the game's schema)."""
        async with self.repo.lock(session_id):
            session = await self._creators_lobby(session_id, user_id)
            rules = game_class(session.game_id)
            players = min(max(len(session.seats), rules.min_players), rules.max_players)
            wanted = {**session.options, name: value}
            try:
                options = rules.validate_options(players, wanted)
            except BadOptions as error:
                raise Refusal("bad_option", error.option or name) from error
            return await self._commit(session, replace(session, options=options))

    @again_if_stale
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
        async with self.repo.lock(session_id):
            session = await self._creators_lobby(session_id, user_id)
            return await self._commit(session, replace(session, timer=seconds))

    async def set_hints(self, session_id: int, user_id: int, on: bool) -> Session:
        """The creator turns the table's hints on or off (in the lobby)."""
        async with self.repo.lock(session_id):
            session = await self._creators_lobby(session_id, user_id)
            return await self._commit(session, replace(session, hints=on))

    @again_if_stale
    async def start(self, session_id: int, user_id: int) -> Outcome:
        """The creator deals; computer seats start moving in the background."""
        async with self.repo.lock(session_id):
            session = await self._creators_lobby(session_id, user_id)
            return await self.deal(session, session)

    async def _creators_lobby(self, session_id: int, user_id: int) -> Session:
        """The session, still a lobby, changed by its creator (the caller holds the lock)."""
        session = await self.repo.load(session_id)
        require_lobby(session)
        require_creator(session, user_id)
        return session

    async def deal(
        self, old: Session, lobby: Session, *, invite: InviteUse | None = None
    ) -> Outcome:
        """Deal ``lobby`` (``old`` with seats or options changed) and commit it over
        ``old``, using up ``invite`` with it."""
        rules = game_class(lobby.game_id)
        if len(lobby.seats) < rules.min_players:
            raise Refusal("too_few_players", str(rules.min_players))
        if len(lobby.seats) > rules.players_allowed(lobby.options):
            raise Refusal("table_full")
        seed = secrets.randbits(63)
        try:
            game = rules.new(len(lobby.seats), lobby.options, seed)
        except BadOptions as error:
            raise Refusal("bad_option", error.option) from error
        deadline = turn_deadline(game, lobby.seats, lobby.timer, self._clock())
        running = replace(lobby, status="running", seed=seed, game=game, deadline=deadline)
        saved = await self.repo.commit(Change.of(old, running, invite=invite))
        return Outcome(saved, [], None, False)

    @again_if_stale
    async def cancel(self, session_id: int, user_id: int, is_admin: bool = False) -> Session:
        """The creator (or a group admin) cancels a lobby or a running game."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status not in OPEN:
                raise Refusal("not_running", session.status)
            if user_id != session.creator_id and not is_admin:
                raise Refusal("not_creator")
            return await self._commit(session, replace(session, status="cancelled",
                                                       deadline=None))

    @again_if_stale
    async def rematch(self, session_id: int, user_id: int) -> Outcome:
        """A player of a finished match starts a new one: same seats and options, new
        seed, already dealt — one commit. Once per match: a later call returns that
        rematch (whatever became of it) with the event ``rematch_exists``."""
        async with self.repo.lock(session_id):
            old = await self.repo.load(session_id)
            require_seat(old, user_id)
            if old.status != "finished":
                raise Refusal("not_finished", old.status)
            again = (old.result or {}).get(REMATCH)
            if again is not None:  # one rematch per match: later presses lead to it
                events = [{"type": "rematch_exists", "of": old.id}]
                return Outcome(await self.repo.load(int(again)), events, None, False)
            busy = old.kind == "group" and await self.repo.sessions.open_session_ids(
                chat_id=old.chat_id, thread=old.thread
            )
            if busy:
                raise Refusal("chat_busy")
            fresh = await self.repo.commit(Change.new(self._rematch_of(old, user_id)))
            try:
                result = {**(old.result or {}), REMATCH: fresh.id}
                await self._commit(old, replace(old, result=result))
            except Refusal:  # another worker's rematch was first: this one goes
                await self.cancel(fresh.id, user_id)
                raise
            return Outcome(fresh, [], None, False)

    def _rematch_of(self, old: Session, user_id: int) -> Session:
        """The running session a rematch of ``old`` starts as (not stored yet)."""
        seed = secrets.randbits(63)
        game = game_class(old.game_id).new(len(old.seats), old.options, seed)
        seats = [replace(p, timeouts=0) for p in old.seats]
        return replace(
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
            deadline=turn_deadline(game, seats, old.timer, self._clock()),
            ratings=(),
            hints_used=(),
            daily=None,
        )

    # ------------------------------------------------------------ ends

    async def tidy(self) -> int:
        """Cancel the lobbies quiet for LOBBY_TTL (a group's lobby frees the group;
        each is told to the subscribers) and purge used or expired invites; how many
        lobbies went."""
        now = self._clock()
        gone = 0
        for session_id in await self.repo.sessions.quiet_lobby_ids(now - LOBBY_TTL):
            try:
                cancelled = await self._expire_lobby(session_id)
            except Refusal:  # started, cancelled or changed meanwhile
                continue
            if cancelled is not None:
                gone += 1
                await self._background.notify(Outcome(cancelled, [], None, False))
        await self.repo.sessions.purge_invites(now)
        return gone

    async def _expire_lobby(self, session_id: int) -> Session | None:
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status != "lobby":
                return None
            return await self._commit(session, replace(session, status="cancelled"))

    async def end_chat(self, chat_id: int) -> list[Session]:
        """The bot left a chat: cancel every open session created there; returns them."""
        ended = []
        for session_id in await self.repo.sessions.chat_session_ids(chat_id):
            async with self.repo.lock(session_id):
                session = await self.repo.load(session_id)
                if session.status in OPEN:
                    cancelled = replace(session, status="cancelled", deadline=None)
                    ended.append(await self._commit(session, cancelled))
        return ended

"""Invites to a private duel: a single-use code that seats a friend.

A code is valid for :data:`INVITE_TTL`; accepting it seats the friend, uses the
code up and, once the table is full, deals — one commit, so a refused accept
leaves the code as it was.
"""

from __future__ import annotations

import secrets

from sessions.change import Change
from sessions.checks import game_class, require_creator, require_free_seat, require_lobby, with_seat
from sessions.lobby import Lobby
from sessions.model import Outcome, Player, Refusal
from sessions.repository import Repository
from sessions.timers import Clock
from storage import InviteRecord, InviteUse

INVITE_TTL = 86400.0


class Invites:
    """The invites of one :class:`~sessions.SessionManager`'s private lobbies."""

    def __init__(self, repo: Repository, lobby: Lobby, clock: Clock) -> None:
        self.repo = repo
        self._lobby = lobby
        self._clock = clock

    async def create(self, session_id: int, user_id: int) -> str:
        """A single-use code (valid for INVITE_TTL) that seats a friend in the lobby."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            require_lobby(session)
            require_creator(session, user_id)
            require_free_seat(session)
            code = secrets.token_urlsafe(9)
            invite = InviteRecord(code, session_id, user_id, self._clock() + INVITE_TTL, None)
            await self.repo.sessions.insert_invite(invite)
            return code

    async def accept(self, code: str, user_id: int, name: str) -> Outcome:
        """Seat ``user_id`` by an invite code, and deal once the table is full: one
        commit, which also uses the code up."""
        invite = await self.repo.sessions.load_invite(code)
        if invite is None or invite.used_by is not None:
            raise Refusal("invite_invalid")
        if invite.expires <= self._clock():
            raise Refusal("invite_expired")
        if invite.creator == user_id:
            raise Refusal("invite_own")
        async with self.repo.lock(invite.session):
            session = await self.repo.load(invite.session)
            seated = with_seat(session, Player(user_id, name, None))
            use = InviteUse(code, user_id)
            if len(seated.seats) >= game_class(session.game_id).min_players:
                return await self._lobby.deal(session, seated, invite=use)
            saved = await self.repo.commit(Change.of(session, seated, invite=use))
            return Outcome(saved, [], None, False)

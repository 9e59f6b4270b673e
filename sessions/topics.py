"""What a forum topic's fate does to the table in it: closed, the table waits;
reopened, it goes on; deleted, it ends, its match kept in /history.

The bot learns of these from Telegram (a service message in the topic, or a send
the topic refused) and calls here; each is one commit, and repeating it changes
nothing (a closed topic is often reported by several refused sends at once).
"""

from __future__ import annotations

from dataclasses import replace

from sessions.change import Change, turn_deadline
from sessions.checks import OPEN
from sessions.model import Session
from sessions.repository import Repository, again_if_stale
from sessions.timers import Clock


class Topics:
    """The topic changes of one :class:`~sessions.SessionManager`'s tables."""

    def __init__(self, repo: Repository, clock: Clock) -> None:
        self.repo = repo
        self._clock = clock

    @again_if_stale
    async def close(self, session_id: int) -> Session | None:
        """The table's topic was closed: a running table waits (no turn timer, no
        computer turn, no move); a lobby stays as it is. The new session, or None if
        nothing changed."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status != "running" or session.topic_state is not None:
                return None
            waiting = replace(session, topic_state="closed", deadline=None)
            return await self.repo.commit(Change.of(session, waiting))

    @again_if_stale
    async def reopen(self, session_id: int) -> Session | None:
        """The table's topic is open again: the table goes on, the player to move with
        a whole turn's time. The new session, or None if it was not waiting."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status != "running" or session.topic_state != "closed":
                return None
            assert session.game is not None
            deadline = turn_deadline(session.game, session.seats, session.timer, self._clock())
            going = replace(session, topic_state=None, deadline=deadline)
            return await self.repo.commit(Change.of(session, going))

    @again_if_stale
    async def gone(self, session_id: int) -> Session | None:
        """The table's topic was deleted: the table is cancelled; a match that was being
        played is kept in /history (its record stays). The new session, or None if it
        had ended already."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.status not in OPEN:
                return None
            state = "gone" if session.status == "running" else None
            ended = replace(session, status="cancelled", deadline=None, topic_state=state)
            return await self.repo.commit(Change.of(session, ended))

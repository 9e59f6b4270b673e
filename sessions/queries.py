"""Read-only questions about tables, tallies, ratings and records; nothing changes.

Sessions are read through the repository (and its cache); tallies and ratings
straight from the store, ranked for showing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from games import REGISTRY
from games.record import DealRecord, deal_records
from sessions.daily import revealed
from sessions.model import Refusal, Session
from sessions.replay import in_effect
from sessions.repository import Repository
from sessions.review import reviewing_seat
from storage import MessageRef, MoveRecord, RatingRow, TallyRow
from storage.ratings import LEADERBOARD_LIMIT


class Queries:
    """What one :class:`~sessions.SessionManager` answers without changing anything."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` (see :func:`sessions.presses.pressing`) changed
        something already: delivered again, it is refused as ``applied``."""
        return await self.repo.sessions.pressed(key)

    async def by_link(self, link: str) -> Session:
        """The session of a deep-link token (Refusal ``no_session`` if none has it)."""
        session_id = await self.repo.sessions.session_by_link(link) if link else None
        if session_id is None:
            raise Refusal("no_session")
        return await self.repo.load(session_id)

    async def open_in_chat(self, chat_id: int, thread: int = 0) -> Session | None:
        """The lobby or running game of the group chat's topic ``thread`` (0: the chat's
        own, in a group without topics or the General topic), or None."""
        ids = await self.repo.sessions.open_session_ids(chat_id=chat_id, thread=thread)
        return await self.repo.load(ids[0]) if ids else None

    async def tables_in_chat(self, chat_id: int) -> list[Session]:
        """Every lobby or running game of the group chat, in all its topics."""
        ids = await self.repo.sessions.open_session_ids(chat_id=chat_id)
        return [await self.repo.load(i) for i in ids]

    async def active_sessions(self) -> list[Session]:
        """Every lobby and running session."""
        return [await self.repo.load(i) for i in await self.repo.sessions.open_session_ids()]

    async def behind(self) -> AsyncIterator[tuple[Session, list[MessageRef]]]:
        """Sessions with a message that shows an older version than it should, each with
        its stored messages; one at a time and not kept in the cache."""
        for session_id in await self.repo.messages.behind_session_ids():
            session = await self.repo.load_or_none(session_id, remember=False)
            if session is not None:
                yield session, await self.repo.messages.messages_of(session_id)

    async def sessions_of_user(self, user_id: int) -> list[Session]:
        """The lobby and running sessions ``user_id`` sits in (or a computer plays for them)."""
        ids = await self.repo.sessions.open_session_ids(user_id=user_id)
        return [await self.repo.load(i) for i in ids]

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Session]:
        """The chat's last ``limit`` finished matches, newest first."""
        ids = await self.repo.sessions.finished_session_ids(chat_id, limit)
        found = [await self.repo.load_or_none(i, remember=False) for i in ids]
        return [s for s in found if s is not None]

    async def replay_log(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        await self.repo.load(session_id)
        return await self.repo.sessions.moves_of(session_id)

    async def deal_records(
        self, session_id: int, viewer: int | None, now: float
    ) -> tuple[Session, list[DealRecord]]:
        """The session and its finished deals as played, rebuilt from the stored seed
        and move log; none before the deal, nothing of the deal in play. A group table's
        are its group's; a private table's its players' alone (Refusal
        ``record_players_only`` for any other ``viewer``) — a daily deal's with its own
        refusal, ``daily_sealed``, while its day lasts, as everybody else still plays
        those cards."""
        session = await self.repo.load(session_id)
        player = viewer is not None and reviewing_seat(session, viewer) is not None
        if not (player or revealed(session, now)):
            raise Refusal("daily_sealed")
        if not player and session.kind == "private":
            raise Refusal("record_players_only")
        if session.seed is None or session.game is None:
            return session, []
        moves = in_effect(await self.repo.sessions.moves_of(session_id), lambda m: m.action)
        records = deal_records(
            session.game_id,
            len(session.seats),
            session.options,
            session.seed,
            [(m.seat, m.action) for m in moves],
        )
        return session, records

    async def chat_tally(self, chat_id: int, game_id: str | None = None) -> list[TallyRow]:
        """Per user and game in a chat: played, wins, points; best first."""
        return best_first(await self.repo.tallies.chat_tally(chat_id, game_id))

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across all chats."""
        return best_first(await self.repo.tallies.user_stats(user_id))

    async def leaderboard(
        self, scope: int, game_id: str | None = None, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of a group chat (its id) or overall (``OVERALL``),
        per game best first, with ranks."""
        return await self.repo.tallies.leaderboard(scope, game_id, limit=limit)

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's rating and rank per game in a chat or overall."""
        return await self.repo.tallies.user_ratings(user_id, scope)


def best_first(rows: list[TallyRow]) -> list[TallyRow]:
    """Tally rows by wins, then points — fewest first where the lowest total wins
    (the store orders by most points) — then fewest games played."""

    def rank(row: TallyRow) -> tuple[float, float, int]:
        game_class = REGISTRY.get(row.game_id)
        points = row.points if game_class is not None and game_class.lowest_wins else -row.points
        return (-row.wins, points, row.played)

    return sorted(rows, key=rank)

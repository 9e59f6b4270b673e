"""Plain rows the store reads and writes (no rules objects, no Telegram)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SeatRecord:
    """One seat: a human (``user_id``) or a computer (``level``)."""

    user_id: int | None
    name: str
    level: str | None
    timeouts: int = 0


@dataclass(frozen=True)
class SessionRecord:
    """One row of ``sessions`` with its seats; ``state`` is ``Game.to_dict()``."""

    id: int
    chat_id: int | None
    kind: str
    game: str
    status: str
    creator: int
    options: dict[str, Any]
    timer: int | None
    seed: int | None
    version: int
    moves: int
    state: dict[str, Any] | None
    deadline: float | None
    result: dict[str, Any] | None
    created: float
    seats: list[SeatRecord]


@dataclass(frozen=True)
class MoveRecord:
    """One row of the append-only move log."""

    n: int
    seat: int
    action: str
    by_computer: bool
    time: float
    #: the session version the move was made at (None in rows older than migration 2)
    version: int | None = None


@dataclass(frozen=True)
class ResultRecord:
    """One human's share of a finished match, for the tally."""

    user_id: int
    seat: int
    won: bool
    points: float


@dataclass(frozen=True)
class TallyRow:
    """A line of ``/score`` or ``/stats``: one user's record in one game."""

    user_id: int
    name: str
    game_id: str
    played: int
    wins: int
    points: float


@dataclass(frozen=True)
class MessageRef:
    """A Telegram message that shows a session (to edit it after a restart)."""

    purpose: str
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None


@dataclass(frozen=True)
class InviteRecord:
    """A private-duel invite code."""

    code: str
    session: int
    creator: int
    expires: float
    used_by: int | None

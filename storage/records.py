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
    #: a computer seat standing in for this human (who may take it back)
    stands_in_for: int | None = None


@dataclass(frozen=True)
class SessionRecord:
    """One row of ``sessions`` with its seats; ``state`` is ``Game.to_dict()``.

    Each field but ``seats`` is the column of the same name, and a column
    :mod:`storage.schema` does not declare is made from the field's type
    (``int`` → ``BigInt``, ``float`` → ``Real``, ``bool`` → ``Flag``, ``str`` →
    TEXT, ``dict`` → ``Json``; nullable when ``None`` is allowed).
    """

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
    #: when the session last changed (time.time(); ``created`` if not given)
    updated: float | None = None
    #: when the session's background work is due (a human's turn deadline, or
    #: at once while a computer is to move); None when there is none
    due: float | None = None
    #: the last finished deal's points while the next deal is played
    #: (``{"deal_no": n, "scores": [...]}``), so a redraw shows them too
    last_deal: dict[str, Any] | None = None
    #: the table's Hints setting: True, False, or None for the default
    hints: bool | None = None
    #: the unguessable token of the session's deep links (``h<link>``, ``j<link>``)
    link: str | None = None
    #: the forum topic a group table lives in (its ``message_thread_id``); 0 for the
    #: General topic, a group without topics and a private duel
    thread: int = 0
    #: what became of the table's forum topic: ``closed`` (the table waits: no timers,
    #: computer turns or moves), ``gone`` (deleted: the table was cancelled, and its
    #: match is kept in /history); None while it is open (or there is none)
    topic_state: str | None = None
    #: a daily deal's day (days since the epoch, UTC); None for every other table
    daily: int | None = None


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
    time: float = 0.0


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
    """A Telegram message that shows a session (to edit it after a restart).

    ``shown`` is the session version it was last delivered showing, ``wanted``
    the version it should show; a message with ``shown < wanted`` is behind.
    """

    purpose: str
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None = None
    shown: int = 0
    wanted: int = 0
    #: the one user who sees it, for an ephemeral message in a group (``message_id`` is
    #: then its ephemeral message id)
    receiver: int | None = None


@dataclass(frozen=True)
class Beat:
    """What a worker's heartbeat found (``Store.beat``)."""

    #: the store still knew the worker: False at its first beat, and at the first one
    #: after another worker found it dead (its unopened send slots were then given back)
    known: bool
    #: the workers this beat found dead (each is found by one beat only)
    dead: tuple[str, ...] = ()


@dataclass(frozen=True)
class InviteRecord:
    """A private-duel invite code."""

    code: str
    session: int
    creator: int
    expires: float
    used_by: int | None


@dataclass(frozen=True)
class InviteUse:
    """An invite code used up by ``user_id`` in the transaction that seats them."""

    code: str
    user_id: int


@dataclass(frozen=True)
class DailyPlay:
    """A player's one play of a day's deal of one game, stored with its session."""

    day: int
    game: str
    user_id: int
    started: float


@dataclass(frozen=True)
class DailyScore:
    """A daily deal's result, stored with the move that finished it: ``points`` as the
    game counts them, ``standing`` the number the board is ordered by (higher is better:
    the points, negated where the lowest wins)."""

    day: int
    game: str
    user_id: int
    points: float
    standing: float
    time: float


@dataclass(frozen=True)
class DailyRow:
    """One finished play on a day's board: who, their points, and their place (ties
    share one)."""

    user_id: int
    name: str
    points: float
    standing: float
    place: int


@dataclass(frozen=True)
class DailyResult:
    """A player's play of one day's deal: ``points`` and ``standing`` are None until it
    is finished (or if it never was)."""

    day: int
    game: str
    user_id: int
    session: int
    points: float | None
    standing: float | None

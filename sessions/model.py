"""The session layer's types: who sits where, a table's snapshot, outcomes, refusals."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from games import Game
from games.ai.review import Verdict
from storage.ratings import RatingChange


@dataclass(frozen=True)
class Player:
    """Who sits in a seat: a human (``user_id``) or a computer (``level``)."""

    user_id: int | None
    name: str
    level: str | None
    timeouts: int = 0
    #: a computer standing in for a human who left or timed out: that human's id
    #: (they may take the seat back); None otherwise
    stands_in_for: int | None = None

    @property
    def is_computer(self) -> bool:
        """True for a computer seat."""
        return self.level is not None


@dataclass
class _Views:
    """The views of one game state, by seat (None: the public one)."""

    game: Game | None
    last_deal: dict[str, Any] | None
    built: dict[int | None, dict[str, Any]] = field(default_factory=dict)


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
    #: the last finished deal's points while the next deal is on
    #: (``{"deal_no": n, "scores": [...]}``), or None
    last_deal: dict[str, Any] | None = None
    #: the purposes of the messages that must show this version (``table``,
    #: ``hand:<seat>``): what the change that made it altered for whom
    changed: tuple[str, ...] = field(default=(), compare=False)
    #: a finished match: what it did to its humans' ratings (stored with its results)
    ratings: tuple[RatingChange, ...] = field(default=(), compare=False)
    #: the table's Hints setting: True, False, or None for the default (:attr:`hints_on`)
    hints: bool | None = None
    #: a finished match: the hints each seat had
    hints_used: tuple[int, ...] = field(default=(), compare=False)
    #: a finished match: a move was taken back, so it was not rated
    taken_back: bool = field(default=False, compare=False)
    #: the unguessable token of the session's deep links (``h<link>``, ``j<link>``)
    link: str = ""
    #: the forum topic a group table lives in (``message_thread_id``; 0: none)
    thread: int = 0
    #: what became of its forum topic: ``closed`` (the table waits), ``gone`` (deleted:
    #: the table was cancelled, its match kept in /history), None: open or none
    topic_state: str | None = None
    #: a daily deal's table: its day (days since the epoch, UTC; :mod:`sessions.daily`)
    daily: int | None = None
    #: the views built of this snapshot's game (:meth:`view`); ``replace`` hands it on,
    #: and ``__post_init__`` keeps it only while the game and the last deal are the same
    views: _Views | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        views = self.views
        if views is None or views.game is not self.game or views.last_deal is not self.last_deal:
            object.__setattr__(self, "views", _Views(self.game, self.last_deal))

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` sits in, or None."""
        for index, player in enumerate(self.seats):
            if player.user_id == user_id:
                return index
        return None

    def view(self, seat: int | None) -> dict[str, Any]:
        """``game.view(seat)`` (None: the public view), with ``last_deal_scores`` while the
        deal after a finished one is played; Refusal ``not_running`` in a lobby.

        Built once per snapshot and seat, and shared: read it, never change it."""
        if self.game is None:
            raise Refusal("not_running", "the game has not started")
        assert self.views is not None
        view = self.views.built.get(seat)
        if view is not None:
            return view
        view = self.game.view(seat)
        last = self.last_deal
        if last and view.get("deal_no") == last.get("deal_no") and not view.get("finished"):
            view["last_deal_scores"] = list(last["scores"])
        self.views.built[seat] = view
        return view

    def hand_key(self, seat: int) -> tuple[Any, ...]:
        """What a seat's own hand message shows: its cards and its moves."""
        if self.game is None:
            return ()
        view = self.view(seat)
        return (self.status, repr(view.get("hand")), tuple(view.get("legal", ())))

    @property
    def hints_on(self) -> bool:
        """Whether players may ask for hints: the table's setting; by default only where
        every seat but one is a computer (off in a group of humans)."""
        if self.hints is not None:
            return self.hints
        humans = sum(1 for p in self.seats if not p.is_computer)
        if self.kind == "private" and self.status == "lobby":
            return len(self.seats) == 1  # a duel against the computer, or soon a friend
        if self.kind == "group":
            return humans <= 1 and len(self.seats) > humans  # one person and computers
        return humans <= 1

    @property
    def paused(self) -> bool:
        """True while the table waits for its closed topic to reopen."""
        return self.topic_state == "closed"

    @property
    def humans(self) -> list[int]:
        """The user ids of the humans seated, in seat order."""
        return [p.user_id for p in self.seats if p.user_id is not None]

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


#: Every refusal code (docs/sessions-api.md); the bot has a pop-up text for each.
RefusalCode = Literal[
    "no_session", "applied", "not_running", "not_in_lobby", "not_a_player", "stale",
    "not_your_turn", "illegal", "chat_busy", "not_finished", "already_seated",
    "table_full", "too_few_players", "not_creator", "bad_option", "bad_level",
    "unknown_game", "invite_invalid", "invite_expired", "invite_own", "invite_only",
    "too_many_tables", "topic_closed", "hints_off", "hint_busy", "takeback_off",
    "nothing_to_take_back", "daily_played", "review_players_only", "review_busy",
    "compare_not_daily", "compare_players_only", "compare_not_finished", "compare_busy",
    "daily_sealed", "record_players_only",
    # raised by the bot's handlers
    "deal_not_finished", "other_chat",
]
REFUSAL_CODES: frozenset[str] = frozenset(get_args(RefusalCode))


class Refusal(Exception):
    """A typed "no": nothing changed. ``code`` is one of :data:`REFUSAL_CODES`."""

    def __init__(self, code: RefusalCode, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class Computer(Protocol):
    """A computer player: picks an action from what its seat may see."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """One of ``view["legal"]``."""
        ...


@runtime_checkable
class Reviewer(Protocol):
    """A computer player that can also review a decision after a deal (in its pool, at
    low priority): ``games.ai.review.review_decision`` for ``chosen`` at ``view``."""

    async def review(self, game_id: str, view: dict[str, Any], chosen: str, seed: int) -> Verdict:
        """The verdict on ``chosen`` (``evaluated`` False if there was no time)."""
        ...


Subscriber = Callable[[Outcome], Awaitable[None]]

#: Whose computer turn a ``Computer.choose`` call is (the table's chat), set by the
#: session layer around the call: a computer that queues shares its time among them.
TURN_OWNER: ContextVar[int | None] = ContextVar("turn_owner", default=None)

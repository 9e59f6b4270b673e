"""The rules API every game implements (see docs/games-api.md).

A :class:`Game` object is one whole match. Its state is plain data — ints,
strings, lists and dicts with string keys — held in instance attributes, so
``to_dict``/``from_dict`` and ``clone`` work generically and quickly for every
game. Subclasses implement the rules; this module implements the contract
around them: option validation, seat and turn checks, deterministic deals,
serialization.
"""

from __future__ import annotations

import marshal
import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from games.cards import shuffled

Event = dict[str, Any]
View = dict[str, Any]
OptionValue = bool | int | str
G = TypeVar("G", bound="Game")


class IllegalAction(Exception):
    """An action the rules do not allow now; the state is unchanged.

    ``reason`` is a stable code the front end localizes: ``finished``,
    ``not_your_turn``, ``bad_seat``, ``unknown_action``, ``illegal`` or a
    game-specific one such as ``must_follow_suit``.
    """

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


class BadOptions(ValueError):
    """Table options (or a player count) the game does not accept.

    ``option`` names the offending setting (``players`` for the player count)
    and ``value`` the rejected value, so the front end can localize it.
    """

    def __init__(self, message: str, option: str = "", value: object = None) -> None:
        super().__init__(message)
        self.option = option
        self.value = value


@dataclass(frozen=True)
class Option:
    """One table setting of a game, as the settings menu shows it.

    ``choices`` are the values offered as buttons. An int option also accepts
    any value in ``[low, high]`` when those are set.
    """

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...] = field(default=())
    low: int | None = None
    high: int | None = None

    def accepts(self, value: object) -> bool:
        """True if ``value`` is a valid setting for this option."""
        if isinstance(self.default, bool):
            return isinstance(value, bool)
        if isinstance(self.default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                return False
            if self.low is not None and self.high is not None:
                return self.low <= value <= self.high
            return value in self.choices
        return isinstance(value, str) and value in self.choices


def copy_state(value: Any) -> Any:
    """A deep copy of plain JSON-like data (lists, dicts, scalars), fast.

    ``marshal`` copies such data in C, two to three times faster than walking
    it in Python; anything it cannot carry is copied container by container,
    with other values shared.
    """
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return _copy_containers(value)


def _copy_containers(value: Any) -> Any:
    kind = type(value)
    if kind is list:
        return [_copy_containers(v) for v in value]
    if kind is dict:
        return {k: _copy_containers(v) for k, v in value.items()}
    if kind is tuple:
        return tuple(_copy_containers(v) for v in value)
    return value


def ranking(result: dict[str, Any], *, lowest_wins: bool = False) -> list[int]:
    """Places (0 first) of the seats of ``result`` (``{"scores", "winners"}``): winners
    first, then by total in the game's direction; equal keys share a place."""
    scores = list(result.get("scores") or [])
    winners = set(result.get("winners") or [])
    sign = 1 if lowest_wins else -1

    def key(seat: int) -> tuple[int, Any]:
        return (0 if seat in winners else 1, sign * scores[seat])

    keys = [key(seat) for seat in range(len(scores))]
    return [sum(1 for other in keys if other < mine) for mine in keys]


def other_hands(
    hands: list[list[str]], seat: int | None, known: list[list[str]] | None = None
) -> set[str]:
    """Every card in the hands of the seats other than ``seat``.

    Cards in ``known[other]`` (publicly known to be in that hand) are left out.
    """
    return {
        card
        for other, hand in enumerate(hands)
        if other != seat
        for card in hand
        if known is None or card not in known[other]
    }


class Game(ABC):
    """One match of a card game. Subclasses fill in the rules.

    Common state every game keeps (subclasses add their own, all plain data):
    ``players``, ``options``, ``seed``, ``dealer``, ``deal_no`` (0 for the
    first deal), ``turn`` (the seat to move or None), ``scores`` (running match
    score per seat) and ``result`` (None until the match ends).
    """

    id: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_schema: ClassVar[tuple[Option, ...]] = ()
    #: True where the lowest match score wins (penalty points: Mau-Mau)
    lowest_wins: ClassVar[bool] = False
    #: Format of ``to_dict`` data; bump it and extend ``_upgrade`` on change.
    FORMAT: ClassVar[int] = 1

    players: int
    options: dict[str, Any]
    seed: int
    dealer: int
    deal_no: int
    turn: int | None
    scores: list[Any]
    result: dict[str, Any] | None

    # ----------------------------------------------------------------- creating

    @classmethod
    def new(
        cls: type[G],
        players: int,
        options: dict[str, Any] | None = None,
        seed: int = 0,
        dealer: int | None = None,
        deck: list[str] | None = None,
    ) -> G:
        """Start a match: validate the table, choose the dealer, deal.

        ``dealer`` fixes the first dealer (otherwise drawn by lot from the
        seed); ``deck`` stacks the first deal, top card first.
        """
        opts = cls.validate_options(players, options)
        game = cls.__new__(cls)
        game.players = players
        game.options = opts
        game.seed = int(seed)
        if dealer is None:
            dealer = random.Random(f"koloda:{seed}:dealer").randrange(players)
        elif not 0 <= dealer < players:
            raise BadOptions(f"dealer must be a seat 0..{players - 1}", "dealer", dealer)
        game.dealer = dealer
        game.deal_no = 0
        game.turn = None
        game.scores = [0] * players
        game.result = None
        game._start_match()
        if deck is not None:
            expected = sorted(game.deck_cards())
            if sorted(deck) != expected:
                raise BadOptions("a stacked deck must hold exactly this game's cards", "deck")
            game._deal(list(deck))
        else:
            game._deal(game.shuffled_deck())
        return game

    @classmethod
    def ranking(cls, result: dict[str, Any]) -> list[int]:
        """Each seat's place in a finished match by this game's own ranking, 0 first.

        The winners share place 0; the others follow by their total (highest
        first, lowest first where :attr:`lowest_wins`); equal totals share a
        place ("1, 2, 2, 4"). Used for ratings and for the result screen.
        """
        return ranking(result, lowest_wins=cls.lowest_wins)

    @classmethod
    def players_allowed(cls, options: dict[str, Any] | None) -> int:
        """The most players ``options`` allow (a deck may seat fewer than ``max_players``)."""
        for players in range(cls.max_players, cls.min_players, -1):
            try:
                cls.validate_options(players, options)
            except BadOptions:
                continue
            return players
        return cls.min_players

    @classmethod
    def validate_options(cls, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """The full option set (defaults filled in), or :class:`BadOptions`."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise BadOptions("players must be a whole number", "players", players)
        if not cls.min_players <= players <= cls.max_players:
            raise BadOptions(
                f"{cls.id} is for {cls.min_players}–{cls.max_players} players", "players", players
            )
        given = dict(options or {})
        known = {opt.name: opt for opt in cls.options_schema}
        for name in given:
            if name not in known:
                raise BadOptions(f"{cls.id} has no option {name!r}", name)
        result: dict[str, Any] = {}
        for opt in cls.options_schema:
            value = given.get(opt.name, opt.default)
            if not opt.accepts(value):
                raise BadOptions(f"{value!r} is not a valid {opt.name}", opt.name, value)
            result[opt.name] = value
        cls._check_options(players, result)
        return result

    @classmethod
    def _check_options(cls, players: int, options: dict[str, Any]) -> None:
        """Cross-checks between options and the player count; raise BadOptions."""
        return None

    def shuffled_deck(self) -> list[str]:
        """This deal's cards in their deterministic shuffled order."""
        return shuffled(self.deck_cards(), self.seed, self.deal_no)

    def _start_match(self) -> None:
        """Set up match-level state before the first deal (optional)."""
        return None

    @abstractmethod
    def deck_cards(self) -> list[str]:
        """The cards of one deal of this match, in any fixed order."""

    @abstractmethod
    def _deal(self, deck: list[str]) -> None:
        """Deal the current deal from ``deck`` (top card first) and set ``turn``."""

    def _next_deal(self) -> None:
        """Pass the deal left and deal again from a freshly shuffled deck."""
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % self.players
        self._deal(self.shuffled_deck())

    # ----------------------------------------------------------------- playing

    @property
    def to_move(self) -> int | None:
        """The seat whose decision is awaited; None once the match is over."""
        return None if self.result is not None else self.turn

    @property
    def finished(self) -> bool:
        """True once the match is over."""
        return self.result is not None

    @abstractmethod
    def legal_actions(self, seat: int) -> list[str]:
        """Every action ``seat`` may take now; empty when it is not its turn."""

    def apply(self, seat: int, action: str) -> list[Event]:
        """Take ``action`` for ``seat`` and return what happened, as events.

        Raises :class:`IllegalAction` (state unchanged) if the match is over,
        it is not the seat's turn or the rules forbid the action.
        """
        if self.result is not None:
            raise IllegalAction("finished", "the match is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction("bad_seat", f"no seat {seat!r}")
        if seat != self.turn:
            raise IllegalAction("not_your_turn", f"seat {self.turn} is to move, not {seat}")
        if action not in self.legal_actions(seat):
            reason = self._why_illegal(seat, action)
            raise IllegalAction(reason, f"{action!r} is not allowed now ({reason})")
        return self._apply(seat, action)

    def _why_illegal(self, seat: int, action: str) -> str:
        """A specific reason code for an illegal action (default ``illegal``)."""
        return "illegal"

    @abstractmethod
    def _apply(self, seat: int, action: str) -> list[Event]:
        """Apply a legal action for the seat to move."""

    def _finish_best(self, best: Callable[[list[Any]], Any] = max) -> Event:
        """End the match; the seats with the ``best`` (max, or min) score win, ties share."""
        top = best(self.scores)
        return self._finish([seat for seat, score in enumerate(self.scores) if score == top])

    def _finish(self, winners: list[int]) -> Event:
        """End the match with ``winners``; returns the ``match_end`` event."""
        self.result = {"scores": list(self.scores), "winners": sorted(winners)}
        self.turn = None
        return {"type": "match_end", "scores": list(self.scores), "winners": sorted(winners)}

    # ----------------------------------------------------------------- seeing

    @abstractmethod
    def view(self, seat: int | None) -> View:
        """Everything ``seat`` may know now (``None``: what everybody may know)."""

    def base_view(self, seat: int | None) -> View:
        """The keys every game's view starts with."""
        return {
            "game": self.id,
            "seat": seat,
            "players": self.players,
            "options": dict(self.options),
            "dealer": self.dealer,
            "deal_no": self.deal_no,
            "to_move": self.to_move,
            "scores": list(self.scores),
            "finished": self.finished,
            "result": copy_state(self.result),
            "legal": self.legal_actions(seat) if seat is not None else [],
        }

    @abstractmethod
    def hidden_cards(self, seat: int | None) -> set[str]:
        """Cards whose whereabouts ``seat`` may not know (other hands, face-down stock)."""

    @abstractmethod
    def card_zones(self) -> dict[str, list[str]]:
        """Every card of the deal by where it lies (hands, stock, tricks …).

        Each card of ``deck_cards()`` appears in exactly one zone.
        """

    @classmethod
    @abstractmethod
    def determinize(cls: type[G], view: View, rng: random.Random) -> G:
        """A full game consistent with ``view``: hidden cards sampled at random.

        The sample respects everything the viewing seat knows (its hand, cards
        seen, suits a player showed he lacks, cards known to be in a hand).
        Computer players search over such samples.
        """

    # ----------------------------------------------------------------- storing

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data, with the game id and format."""
        return {"game": self.id, "format": self.FORMAT, "state": copy_state(self.__dict__)}

    def snapshot(self) -> dict[str, Any]:
        """:meth:`to_dict` without the copy: the data shares the game's own lists and dicts.

        For a caller that only serializes it, and does not change the game until it
        has (the session layer never changes a game it has stored: each move is
        applied to a clone).
        """
        return {"game": self.id, "format": self.FORMAT, "state": self.__dict__}

    @classmethod
    def from_dict(cls: type[G], data: dict[str, Any]) -> G:
        """Restore a game saved by :meth:`to_dict` (older formats upgraded)."""
        if data.get("game") != cls.id:
            raise ValueError(f"data is for {data.get('game')!r}, not {cls.id!r}")
        fmt = data.get("format")
        if not isinstance(fmt, int) or fmt > cls.FORMAT:
            raise ValueError(f"unknown {cls.id} data format {fmt!r}")
        state = cls._upgrade(fmt, copy_state(data["state"]))
        game = cls.__new__(cls)
        game.__dict__.update(state)
        return game

    @classmethod
    def _upgrade(cls, fmt: int, state: dict[str, Any]) -> dict[str, Any]:
        """Bring state stored in format ``fmt`` up to the current format."""
        return state

    def clone(self: G) -> G:
        """An independent copy, for search."""
        game = self.__class__.__new__(self.__class__)
        game.__dict__.update(copy_state(self.__dict__))
        return game

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    __hash__ = None  # type: ignore[assignment]

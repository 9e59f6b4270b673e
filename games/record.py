"""Deal records: a match's finished deals as played, rebuilt from seed and move log.

Pure: the match is replayed move by move (``REGISTRY[id].new`` + ``apply``), and
each deal is recorded from the state it was dealt in (every hand, the public
view: trumps, contract, the turned-up card) to the move that ended it (every
move with its events, and what the deal brought each seat). Only **finished**
deals are returned, so a record of a match still running shows nothing of the
deal being played (tests/games/test_deal_records.py checks it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games import REGISTRY
from games.base import Event, Game, View


@dataclass(frozen=True)
class Turn:
    """One move of a deal and what it did."""

    seat: int
    action: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class DealRecord:
    """One finished deal, as played."""

    deal_no: int
    dealer: int
    #: every seat's hand as dealt
    hands: tuple[tuple[str, ...], ...]
    #: the public view as the deal began (trumps, contract, turned-up card …)
    start: View
    turns: tuple[Turn, ...]
    #: what the deal changed in each seat's match score
    points: tuple[Any, ...]
    #: the match score after the deal
    scores: tuple[Any, ...]


def deal_records(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: Iterable[tuple[int, str]],
) -> list[DealRecord]:
    """Every finished deal of the match reached by ``moves`` from ``seed``, in order.

    Raises ``KeyError`` for an unknown game and ``IllegalAction`` if the log
    does not fit the deal (as :func:`sessions.replay.replay` does).
    """
    game = REGISTRY[game_id].new(players, options, seed)
    records: list[DealRecord] = []
    start = _start(game)
    turns: list[Turn] = []
    for seat, action in moves:
        events = game.apply(seat, action)
        turns.append(Turn(seat, action, tuple(events)))
        if game.finished or game.deal_no != start[0]:
            records.append(_finished(start, turns, game))
            start, turns = _start(game), []
    return records


_Start = tuple[int, int, tuple[tuple[str, ...], ...], View, tuple[Any, ...]]


def _start(game: Game) -> _Start:
    """What a deal begins with: its number, dealer, hands, public view, match score."""
    hands: list[list[str]] = getattr(game, "hands", [])
    return (
        game.deal_no,
        game.dealer,
        tuple(tuple(hand) for hand in hands),
        game.view(None),
        tuple(game.scores),
    )


def _finished(start: _Start, turns: list[Turn], game: Game) -> DealRecord:
    deal_no, dealer, hands, view, before = start
    after = tuple(game.result["scores"]) if game.result else _scores_at_end(turns, game)
    points = tuple(_minus(a, b) for a, b in zip(after, before, strict=False))
    return DealRecord(deal_no, dealer, hands, view, tuple(turns), points, after)


def _scores_at_end(turns: list[Turn], game: Game) -> tuple[Any, ...]:
    """The match score right after the deal's last move (before any ante of the next)."""
    for event in turns[-1].events:
        if event.get("type") == "deal_end" and "scores" in event:
            scores: list[Any] = event.get("match_scores") or event["scores"]
            return tuple(scores)
    return tuple(game.scores)


def _minus(after: Any, before: Any) -> Any:
    difference = after - before
    return int(difference) if float(difference).is_integer() else difference

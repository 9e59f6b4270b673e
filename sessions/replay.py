"""Rebuild a match from its seed and move log — the proof that the log is complete."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from games import REGISTRY, Game

#: The action of a move-log row that takes moves back: ``takeback:<k>`` undoes the k
#: moves before it that are still in effect (a player's move and the computers'
#: replies). The log stays append-only: history is never rewritten.
TAKE_BACK = "takeback"
M = TypeVar("M")


def in_effect(log: Sequence[M], action: Callable[[M], str]) -> list[M]:
    """The rows of ``log`` still in effect once its take-backs are applied, in order."""
    kept: list[M] = []
    for row in log:
        verb, _, count = action(row).partition(":")
        if verb == TAKE_BACK and count.isdigit():
            del kept[len(kept) - min(int(count), len(kept)):]
        else:
            kept.append(row)
    return kept


def replay(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: Iterable[tuple[int, str]],
    dealer: int | None = None,
    deck: list[str] | None = None,
) -> Game:
    """The game reached by dealing from ``seed`` and applying ``moves`` (seat, action) in order
    (a take-back row undoes the moves before it, as :func:`in_effect` says).

    ``dealer`` and ``deck`` are only for stacked test deals; a stored session
    needs neither (the first dealer and every shuffle come from the seed).
    Raises ``KeyError`` for an unknown game and ``IllegalAction`` if the log
    does not fit the deal.
    """
    game = REGISTRY[game_id].new(players, options, seed, dealer=dealer, deck=deck)
    for seat, action in in_effect(list(moves), lambda move: move[1]):
        game.apply(seat, action)
    return game

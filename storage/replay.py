"""Rebuild a match from its seed and move log — the proof that the log is complete."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import REGISTRY, Game


def replay(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: Iterable[tuple[int, str]],
    dealer: int | None = None,
    deck: list[str] | None = None,
) -> Game:
    """The game reached by dealing from ``seed`` and applying ``moves`` (seat, action) in order.

    ``dealer`` and ``deck`` are only for stacked test deals; a stored session
    needs neither (the first dealer and every shuffle come from the seed).
    Raises ``KeyError`` for an unknown game and ``IllegalAction`` if the log
    does not fit the deal.
    """
    game = REGISTRY[game_id].new(players, options, seed, dealer=dealer, deck=deck)
    for seat, action in moves:
        game.apply(seat, action)
    return game

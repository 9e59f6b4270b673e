"""Positions for the computer-player tests (helpers, no tests): real games advanced by easy play."""

from __future__ import annotations

import random

from games import REGISTRY, Game
from games.ai import choose

#: The table each game is tested at (players).
TABLE = {
    "eleven": 2,
    "two_ten_jack": 3,
    "fifteen": 2,
    "rummy": 2,
    "mau_mau": 3,
    "oh_hell": 4,
    "king": 4,
}
GAMES = sorted(TABLE)


def advanced(game_id: str, seed: int, moves: int) -> Game:
    """A fresh match advanced by up to ``moves`` easy moves, stopped at a real choice.

    The returned game always has a seat to move with at least two legal actions,
    unless the match ended first.
    """
    game = REGISTRY[game_id].new(TABLE[game_id], seed=seed)
    rng = random.Random(seed)
    for number in range(moves + 500):
        seat = game.to_move
        if seat is None:
            break
        legal = game.legal_actions(seat)
        if number >= moves and len(legal) > 1:
            break
        if rng.random() < 0.2:
            game.apply(seat, rng.choice(legal))
        else:
            game.apply(seat, choose(game_id, game.view(seat), "easy", number))
    return game

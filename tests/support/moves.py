"""A match moved on in tests: the seat to move, and a random or the first legal move."""

from __future__ import annotations

import random

from games.base import Event, Game


def seat_to_move(game: Game) -> int:
    """The seat whose decision is awaited (the match must not be over)."""
    seat = game.to_move
    assert seat is not None, "the match is over"
    return seat


def random_move(game: Game, rng: random.Random) -> list[Event]:
    """One random legal move by the seat to move; its events."""
    seat = seat_to_move(game)
    return game.apply(seat, rng.choice(game.legal_actions(seat)))


def first_move(game: Game) -> list[Event]:
    """The first legal move of the seat to move; its events."""
    seat = seat_to_move(game)
    return game.apply(seat, game.legal_actions(seat)[0])

"""The bench's scripts in tests: a script as a module, and a bench match played into a phase."""

from __future__ import annotations

import importlib
import random
from types import ModuleType

from games.base import Game
from tests.support.moves import random_move


def bench_module(name: str) -> ModuleType:
    """A bench script as a module: ``bench.<name>``, as the scripts import each other
    (``bench`` a namespace package, so that bench/games.py does not hide ``games``)."""
    return importlib.import_module(f"bench.{name}")


def played_to(game_id: str, seed: int, phase: str, moves: int = 0) -> Game:
    """The bench's match of ``seed``, played by random legal moves (seeded) until
    ``phase``, then ``moves`` more decisions into it."""
    game: Game = bench_module("computer").start_game(game_id, seed)
    rng = random.Random(seed)
    while getattr(game, "phase") != phase or moves > 0:  # noqa: B009 - a trick game's phase
        if getattr(game, "phase") == phase:  # noqa: B009
            moves -= 1
        random_move(game, rng)
    return game

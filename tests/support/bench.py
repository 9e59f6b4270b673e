"""The bench's scripts in tests: a script as a module, and a bench match played into a phase."""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path
from types import ModuleType

from games.base import Game

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    """A bench script as a module (the bench is scripts, not a package; appended to
    the path, so that bench/games.py does not hide the ``games`` package)."""
    if str(BENCH) not in sys.path:
        sys.path.append(str(BENCH))
    return importlib.import_module(name)


def played_to(game_id: str, seed: int, phase: str, moves: int = 0) -> Game:
    """The bench's match of ``seed``, played by random legal moves (seeded) until
    ``phase``, then ``moves`` more decisions into it."""
    game: Game = bench_module("computer").start_game(game_id, seed)
    rng = random.Random(seed)
    while getattr(game, "phase") != phase or moves > 0:  # noqa: B009 - a trick game's phase
        if getattr(game, "phase") == phase:  # noqa: B009
            moves -= 1
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game

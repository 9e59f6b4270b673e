"""Choosing among a few options by their chances over sampled deals.

Bids (Oh Hell) and contracts (King's trumps) are decided before a card is
played, and what they are worth depends on the whole deal: the seat's cards,
where the others' cards lie and who leads. So every level estimates it: each
*world* is a deal consistent with the seat's view (``Game.determinize``), every
option is played out in that same world with the same random numbers (a paired
comparison), and the option with the best mean wins.

The number of worlds is not fixed: after ``min_worlds`` the sampling stops as
soon as the best option leads the runner-up by more than two standard errors
of their paired difference, and goes on otherwise, up to ``max_worlds`` or the
time limit — close decisions get the samples, clear ones do not waste them.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.base import Game

#: How many standard errors separate a settled choice from a close one.
SEPARATION = 2.0

#: Plays an option out in a world (consumed) and scores it for the seat.
Simulate = Callable[[Any, str, random.Random], float]


@dataclass(frozen=True)
class Sampling:
    """How many worlds an estimate may sample, and until when (a ``clock`` reading)."""

    min_worlds: int
    max_worlds: int
    stop_at: float | None = None
    clock: Callable[[], float] = time.perf_counter


def best_option(
    sample: Callable[[random.Random], Any],
    options: list[str],
    simulate: Simulate,
    rng: random.Random,
    sampling: Sampling,
) -> tuple[str, int]:
    """The option with the best mean over worlds from ``sample``, and the worlds used.

    ``options`` come in order of preference: ties go to the earlier one, and
    with no time for even one world the first is returned.
    """
    if len(options) == 1:
        return options[0], 0
    values: dict[str, list[float]] = {option: [] for option in options}
    worlds = 0
    while worlds < sampling.max_worlds:
        if sampling.stop_at is not None and sampling.clock() >= sampling.stop_at:
            break
        world = sample(rng)
        seed = rng.getrandbits(64)
        for option in options:
            values[option].append(simulate(world.clone(), option, random.Random(seed)))
        worlds += 1
        if worlds >= sampling.min_worlds and settled(values, options):
            break
    if not worlds:
        return options[0], 0
    return max(options, key=lambda o: statistics.fmean(values[o])), worlds


def settled(values: dict[str, list[float]], options: list[str]) -> bool:
    """True if the best option leads the runner-up by more than :data:`SEPARATION` SEs."""
    ranked = sorted(options, key=lambda o: statistics.fmean(values[o]), reverse=True)
    gaps = [a - b for a, b in zip(values[ranked[0]], values[ranked[1]], strict=True)]
    if len(gaps) < 2:
        return False
    spread = statistics.stdev(gaps) / math.sqrt(len(gaps))
    mean = statistics.fmean(gaps)
    return mean > SEPARATION * spread or (spread == 0.0 and mean == 0.0 and len(gaps) >= 8)


def deal_gains(
    world: Game,
    seat: int,
    action: str,
    rollout: Callable[[Game, int, list[str], random.Random], str],
    rng: random.Random,
    max_moves: int = 400,
) -> list[float]:
    """Take ``action`` for ``seat`` in ``world`` (consumed), finish the deal with
    ``rollout``; every seat's gain in the match score."""
    before = list(world.scores)
    deal_no = world.deal_no
    world._apply(seat, action)  # one of the view's legal actions
    for _ in range(max_moves):
        mover = world.to_move
        if mover is None or world.deal_no != deal_no:
            break
        legal = world.legal_actions(mover)
        world._apply(mover, legal[0] if len(legal) == 1 else rollout(world, mover, legal, rng))
    return [float(after - b) for b, after in zip(before, world.scores, strict=True)]

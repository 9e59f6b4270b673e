"""Perfect-information Monte Carlo (PIMC): each sampled world searched as the truth.

IS-MCTS (``games.ai.ismcts``) fuses all its worlds in one tree: the
opponents' nodes are shared by every world, so there they play as if they did
not know their own cards, and worlds closer to the real hands change little.
PIMC — the card play of Skat's Kermit and bridge's GIB — draws
:data:`WORLDS` worlds instead (from the inference's weighted sampler when it
is on), searches each one as a perfect-information game (the same tree search
over a sampler that always returns that one world, as the seer does), and
plays the candidate with the best mean, over the worlds, of its root mean
reward in that world. The seer is PIMC over one world, the true deal.

The budget is split evenly over the worlds; a world whose search settles
early leaves its time to the ones after it. A candidate a world's search
never tried counts as that world's worst. The rule of thumb keeps its head
start: it gets the root's prior bonus in every world's tree, and it is played
unless another candidate's advantage over it, paired world by world, is more
than :data:`PRIOR_ERRORS` standard errors.

:data:`ENABLED` is off: the benchmark's ``strong-pimc`` levels turn it on
(``bench/computer.py``); strong itself plays IS-MCTS.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from games.ai.ismcts import PRIOR_BONUS, Result, Space, search_worlds

#: Whether strong plays its cards by PIMC instead of IS-MCTS (the bench turns it on).
ENABLED = False
#: Worlds searched per decision: at 0.1 s in Oh Hell, 8 did better than 16 against
#: both strong-pimc-blind and strong (+0.59 ± 0.52 and +0.34 ± 0.51 against
#: +0.34 ± 0.56 and −0.12 ± 0.46, 96 deals each; docs/computer-players.md).
WORLDS = 8
#: The rule of thumb's move is overruled only by a candidate better by more than
#: this many standard errors of the paired, world-by-world difference.
PRIOR_ERRORS = 1.0


def search(
    space: Space,
    seat: int,
    candidates: list[Any],
    rng: random.Random,
    *,
    iterations: int | None,
    stop_at: float | None,
    max_moves: int = 400,
    clock: Callable[[], float] = time.perf_counter,
    fallback: Any = None,
    prior_bonus: float = PRIOR_BONUS,
    worlds: int | None = None,
) -> Result:
    """PIMC among ``candidates`` (``space``'s actions) for ``seat`` over ``worlds``
    worlds (:data:`WORLDS`), drawn by ``space.fresh`` (independent draws) or
    else ``space.sample``.

    ``iterations`` and the time up to ``stop_at`` are split evenly over the
    worlds (fewer worlds if there are fewer iterations than worlds). The
    result's visits and totals are summed over the worlds, its iterations too.
    With no time left, ``fallback`` (or the first candidate) is returned.
    """
    if len(candidates) == 1:
        return Result(candidates[0], {}, 0)
    count = worlds or WORLDS
    if iterations is not None:
        count = min(count, iterations)
    draw = space.fresh or space.sample
    means: list[dict[Any, float]] = []
    visits: dict[Any, int] = {}
    totals: dict[Any, float] = {}
    done = 0
    for index in range(count):
        now = clock()
        if stop_at is not None and now >= stop_at:
            break
        world = draw(rng)
        share = None
        if iterations is not None:
            share = iterations * (index + 1) // count - iterations * index // count
        until = None if stop_at is None else now + (stop_at - now) / (count - index)
        found = search_worlds(
            _always(world),
            seat,
            candidates,
            space.rollout,
            space.rewards,
            rng,
            iterations=share,
            stop_at=until,
            max_moves=max_moves,
            clock=clock,
            fallback=fallback,
            prior_bonus=prior_bonus,
        )
        if not found.visits:
            continue
        done += found.iterations
        for action, n in found.visits.items():
            visits[action] = visits.get(action, 0) + n
            totals[action] = totals.get(action, 0.0) + found.totals[action]
        means.append(_world_means(found, candidates))
    if not means:
        return Result(fallback if fallback in candidates else candidates[0], {}, 0)
    favoured = fallback if fallback in candidates and prior_bonus > 0 else None
    return Result(_choice(means, candidates, favoured), visits, done, totals)


def _always(world: Any) -> Callable[[random.Random], Any]:
    """A sampler that deals ``world`` every time (a fresh copy: the search consumes it)."""

    def sample(rng: random.Random) -> Any:
        return world.clone()

    return sample


def _world_means(found: Result, candidates: list[Any]) -> dict[Any, float]:
    """Each candidate's mean root reward in one world's search; an untried one
    gets the world's worst mean."""
    means = {a: found.totals[a] / n for a, n in found.visits.items() if n}
    worst = min(means.values())
    return {a: means.get(a, worst) for a in candidates}


def _choice(means: list[dict[Any, float]], candidates: list[Any], favoured: Any) -> Any:
    """The candidate with the best mean over the worlds; ``favoured`` unless the
    best beats it by more than :data:`PRIOR_ERRORS` paired standard errors
    (over one world, the best)."""
    best = max(candidates, key=lambda a: sum(world[a] for world in means))
    if favoured is None or best == favoured:
        return best
    gaps = [world[best] - world[favoured] for world in means]
    if len(gaps) < 2:  # one world: taken as the truth, the tree's bonus was the head start
        return best
    error = statistics.stdev(gaps) / math.sqrt(len(gaps))
    return best if statistics.fmean(gaps) > PRIOR_ERRORS * error else favoured

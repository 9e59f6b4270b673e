"""Inference: worlds drawn by how likely they make what the seat has seen.

A sampler that honours only the voids deals an opponent who bid 0 as many
aces and trumps as one who bid 4. Here the worlds are *weighted* by an
opponent model instead — the chance that an opponent holding that world's
hand would have made the bids (or choices) seen — and drawn in proportion to
that weight by rejection: a world is kept with probability its weight over the
largest weight of a first handful of worlds, so the worlds kept follow the
model's posterior, not just the constraints. A likely world takes several
draws, so each world kept is also kept for later: with probability
:data:`REUSE` a sample is a copy of one of them instead (each still a draw
from the posterior; only a few samples in a row are alike), which keeps a
sample's cost near a blind draw's. That is for the tree search, which only
counts visits; the bid estimates and the exact endings stop when the leader
is a few standard errors ahead, which copies would make look smaller than
they are, so they draw every world afresh (:meth:`Weighted.fresh`).

The opponent models are the project's own policies (for Oh Hell: the bid is
near the hand's count of likely winners, and the cards played are the rule of
thumb's, softened, ``games.ai.oh_hell``; the same for the cards played in
King, and in Eleven and Two-Ten-Jack since the last draw from the stock,
``games.ai.play_inference``; for Rummy: what is thrown and taken from the
pile, ``games.ai.rummy``). Easy samples blind; normal and strong infer.
:data:`ENABLED` lets the benchmark measure the same levels without it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Generic, Protocol, Self, TypeVar

#: Whether the search levels weigh their worlds (the benchmark turns it off to compare).
ENABLED = True
#: Whether they weigh them by the cards played as well as by the bids and
#: choices (the trick games' play, Rummy's pile; the benchmark turns it off to compare).
FROM_PLAY = True
#: Worlds drawn at most for one sample; then the likeliest of them is taken.
MAX_TRIES = 16
#: Worlds drawn first to find the weights' bound (their largest weight).
WARMUP = 24
#: The chance that a sample is a copy of a world kept before (once there is one).
REUSE = 0.75


class World(Protocol):
    """A sampled world: anything that copies itself."""

    def clone(self) -> Self:
        """An independent copy."""
        ...


W = TypeVar("W", bound=World)


def gaussian(distance: float, spread: float) -> float:
    """exp(−d² / 2s²): 1 at no distance, the weight of a choice ``distance`` off the model's."""
    return math.exp(-(distance * distance) / (2.0 * spread * spread))


class Weighted(Generic[W]):
    """Draws worlds from ``sample`` and keeps each with probability ``weight(world)``
    over the bound (the largest weight of :data:`WARMUP` first worlds, at most 1).

    ``cheap``, if given, is a cheaper weight never below ``weight`` (one factor
    of it): a world it already rejects is rejected without ``weight``.
    """

    def __init__(
        self,
        sample: Callable[[random.Random], W],
        weight: Callable[[W], float],
        tries: int = MAX_TRIES,
        warmup: int = WARMUP,
        reuse: float | None = None,
        cheap: Callable[[W], float] | None = None,
    ) -> None:
        self.draw = sample
        self.weight = weight
        self.cheap = cheap
        self.tries = tries
        self.warmup = warmup
        #: None: :data:`REUSE` as it is when the worlds are made (a benchmark may set it)
        self.reuse = REUSE if reuse is None else reuse
        self.bound: float | None = None
        self.worlds: list[W] = []
        #: Worlds drawn, and worlds kept (for the acceptance rate).
        self.drawn = 0
        self.kept = 0

    def sample(self, rng: random.Random) -> W:
        """One world, drawn in proportion to its weight, or (with probability
        ``reuse``) a copy of one drawn before."""
        if self.worlds and rng.random() < self.reuse:
            return self.worlds[rng.randrange(len(self.worlds))].clone()
        return self.fresh(rng)

    def fresh(self, rng: random.Random) -> W:
        """A new world, drawn in proportion to its weight (after :data:`MAX_TRIES`
        draws, the likeliest drawn): for estimates that take their samples as
        independent (a copy would shrink their standard errors)."""
        if self.bound is None:
            found = max(self.weight(self.draw(rng)) for _ in range(self.warmup))
            self.bound = min(1.0, max(found, 1e-6))
        best: W | None = None
        best_weight = -1.0
        for _ in range(self.tries):
            world = self.draw(rng)
            self.drawn += 1
            weight = self.cheap(world) if self.cheap is not None else 1.0
            threshold = rng.random() * self.bound
            if threshold < weight:
                weight = self.weight(world)
            if threshold < weight:
                self.kept += 1
                self.worlds.append(world.clone())
                return world
            if weight > best_weight:
                best, best_weight = world, weight
        assert best is not None
        return best


def combined(
    sample: Callable[[random.Random], W],
    cheap: Callable[[W], float] | None,
    dear: Callable[[W], float] | None,
    tries: int = MAX_TRIES,
) -> Weighted[W] | None:
    """Worlds from ``sample`` weighted by the product of two weights, either of
    which may be None: ``dear`` is reckoned only for the worlds ``cheap`` keeps
    (``tries``: draws at most for one sample). None when there is nothing to weigh by."""
    if dear is None:
        return None if cheap is None else Weighted(sample, cheap, tries)
    if cheap is None:
        return Weighted(sample, dear, tries)
    return Weighted(sample, lambda world: cheap(world) * dear(world), tries, cheap=cheap)

"""Determinized Monte-Carlo search: the engine behind the normal and strong levels.

A seat never sees the whole deal, so the search samples it: each *world* is a
full game drawn by ``Game.determinize(view, rng)`` — consistent with all the
seat has seen — and every candidate action is played out in that same world to
the end of the deal. The action with the best mean outcome over the worlds wins.
Evaluating all candidates on the same worlds (and the same rollout random
numbers) makes the comparison paired, which cuts the noise a lot; candidates
clearly behind drop out of the race (``games.ai.estimate.best_option``), so the
close ones get the samples.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from games.ai.estimate import Race, Sampling, best_option
from games.ai.inference import Weighted
from games.base import Event, Game, View

#: A fast move chooser for playouts: (game, seat to move, its legal actions, rng) -> action.
Rollout = Callable[[Game, int, list[str], random.Random], str]
#: How good the end of a playout is for ``seat``: (world at the start, world now,
#: events of the last move, seat) -> a number, higher is better.
Outcome = Callable[[Game, Game, list[Event], int], float]

#: No decision may think longer than this, whatever the budget says.
HARD_CAP_SECONDS = 3.0
#: Worlds every candidate is played out in before any drops out of the race.
MIN_WORLDS = 8


@dataclass(frozen=True)
class Budget:
    """How much a decision may think: wall-clock ``seconds``, ``playouts``, or both.

    ``playouts`` counts sampled worlds (for IS-MCTS, its iterations: one world
    each). A playout budget makes a decision reproducible (tests, benchmarks); a
    time budget adapts to the machine. Whichever runs out first stops the search, and
    :data:`HARD_CAP_SECONDS` always does.
    """

    seconds: float | None = None
    playouts: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.playouts is None:
            raise ValueError("a budget needs seconds, playouts or both")
        if self.seconds is not None and not 0 < self.seconds <= HARD_CAP_SECONDS:
            raise ValueError(f"budget seconds must be in (0, {HARD_CAP_SECONDS}]")
        if self.playouts is not None and self.playouts < 1:
            raise ValueError("budget playouts must be at least 1")


@dataclass(frozen=True)
class Playout:
    """How to finish a sampled deal: the move chooser, the scoring, a length cap."""

    rollout: Rollout
    outcome: Outcome
    max_moves: int


def play_out(world: Game, seat: int, action: str, playout: Playout, rng: random.Random) -> float:
    """Apply ``action`` for ``seat`` in ``world`` (consumed), finish the deal, score it."""
    start = world.clone()
    deal_no = world.deal_no
    events = world.apply(seat, action)
    for _ in range(playout.max_moves):
        mover = world.to_move
        if mover is None or world.deal_no != deal_no:
            break
        legal = world.legal_actions(mover)
        choice = legal[0] if len(legal) == 1 else playout.rollout(world, mover, legal, rng)
        # The choice comes from legal_actions, so the base class's re-check is skipped.
        events = world._apply(mover, choice)
    return playout.outcome(start, world, events, seat)


def world_sampler(
    game_cls: type[Game], view: View, weight: Callable[[Game], float] | None = None
) -> Callable[[random.Random], Game]:
    """Full games consistent with ``view`` (``Game.determinize``), drawn in
    proportion to ``weight`` if given (inference), each afresh
    (``games.ai.inference.Weighted.fresh``: its users take them as independent)."""

    def sample(world_rng: random.Random) -> Game:
        return game_cls.determinize(view, world_rng)

    return sample if weight is None else Weighted(sample, weight).fresh


def search(
    game_cls: type[Game],
    view: View,
    candidates: list[str],
    playout: Playout,
    budget: Budget,
    rng: random.Random,
    prior: str | None = None,
    clock: Callable[[], float] = time.perf_counter,
    weight: Callable[[Game], float] | None = None,
) -> Race:
    """The candidate with the best mean playout outcome over sampled worlds
    (``choice``), each played out to the end of the deal, with every
    candidate's results and the worlds sampled (``games.ai.estimate.best_option``).

    Every world is drawn by ``Game.determinize`` and every candidate still in
    the race is played out in it, with the same rollout random numbers for
    each. After :data:`MIN_WORLDS` worlds a candidate the leader beats by more
    than two standard errors of their paired difference drops out; the search
    ends when one is left or the budget is spent (its time, its ``playouts``
    counted in worlds, the hard cap always). At least one world is always
    played out. ``prior`` (the rule of thumb's choice) is played if it is still
    in the race at the end: only a candidate the samples show clearly better,
    or better in several worlds and as good in all the others (dominance), overrules it.
    With ``weight`` (inference), worlds are drawn in proportion to it, each afresh
    (``games.ai.inference.Weighted.fresh``: the race takes them as independent).
    """
    seat = int(view["seat"])
    seconds = min(budget.seconds or HARD_CAP_SECONDS, HARD_CAP_SECONDS)

    def simulate(world: Game, action: str, playout_rng: random.Random) -> float:
        return play_out(world, seat, action, playout, playout_rng)

    return best_option(
        world_sampler(game_cls, view, weight),
        candidates,
        simulate,
        rng,
        Sampling(
            min_worlds=MIN_WORLDS,
            max_worlds=budget.playouts or 1 << 30,
            stop_at=clock() + seconds,
            clock=clock,
        ),
        favourite=prior,
    )

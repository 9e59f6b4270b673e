"""Determinized Monte-Carlo search: the engine behind the normal and strong levels.

A seat never sees the whole deal, so the search samples it: each *world* is a
full game drawn by ``Game.determinize(view, rng)`` — consistent with all the
seat has seen — and every candidate action is played out in that same world to
the end of the deal. The action with the best mean outcome over the worlds wins.
Evaluating all candidates on the same worlds (and the same rollout random
numbers) makes the comparison paired, which cuts the noise a lot.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from games.base import Event, Game, View

#: A fast move chooser for playouts: (game, seat to move, its legal actions, rng) -> action.
Rollout = Callable[[Game, int, list[str], random.Random], str]
#: How good the end of a playout is for ``seat``: (world at the start, world now,
#: events of the last move, seat) -> a number, higher is better.
Outcome = Callable[[Game, Game, list[Event], int], float]

#: No decision may think longer than this, whatever the budget says.
HARD_CAP_SECONDS = 3.0
#: How many standard errors a candidate must gain to overrule the rule of thumb.
CONFIDENCE = 1.0


@dataclass(frozen=True)
class Budget:
    """How much a decision may think: wall-clock ``seconds``, ``playouts``, or both.

    A playout budget makes a decision reproducible (tests, benchmarks); a time
    budget adapts to the machine. Whichever runs out first stops the search, and
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


def search(
    game_cls: type[Game],
    view: View,
    candidates: list[str],
    playout: Playout,
    budget: Budget,
    rng: random.Random,
    prior: str | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> str:
    """The candidate with the best mean playout outcome over sampled worlds.

    Every round samples one world and plays every candidate out in it, with the
    same rollout random numbers for each; rounds repeat while another round
    fits in the time budget and the playouts last (the hard cap always stops).
    At least one full round is always played, unless the hard cap cuts it
    short. Ties go to the earlier candidate.

    ``prior`` (a rule-of-thumb choice) is kept unless the best candidate beats
    it by more than the noise: its mean paired gain must exceed
    :data:`CONFIDENCE` standard errors.
    """
    if len(candidates) == 1:
        return candidates[0]
    seat = int(view["seat"])
    results: dict[str, list[float]] = {action: [] for action in candidates}
    started = clock()
    deadline = started + (budget.seconds if budget.seconds is not None else HARD_CAP_SECONDS)
    hard_stop = started + HARD_CAP_SECONDS
    done = 0
    round_started = started
    while True:
        world = game_cls.determinize(view, rng)
        rollout_seed = rng.getrandbits(64)
        for action in candidates:
            value = play_out(world.clone(), seat, action, playout, random.Random(rollout_seed))
            results[action].append(value)
            done += 1
            if clock() >= hard_stop:
                break
        now = clock()
        # Stop when another round like the last one would overrun the budget.
        if 2 * now - round_started >= deadline or now >= hard_stop:
            break
        round_started = now
        if budget.playouts is not None and done >= budget.playouts:
            break
    best = max((a for a in candidates if results[a]), key=lambda a: statistics.fmean(results[a]))
    if prior is None or prior == best or prior not in results:
        return best
    return best if clearly_better(results[best], results[prior]) else prior


def clearly_better(challenger: list[float], incumbent: list[float]) -> bool:
    """True if the paired gains of ``challenger`` over ``incumbent`` are above the noise."""
    gains = [a - b for a, b in zip(challenger, incumbent, strict=False)]
    if len(gains) < 2:
        return False
    mean = statistics.fmean(gains)
    spread = statistics.stdev(gains) / math.sqrt(len(gains))
    return mean > CONFIDENCE * spread

"""Endings played exactly: the last few cards solved over sampled deals.

Near the end of a trick deal there are few cards left and few ways to play
them, so rolling out at random (or by the rule of thumb) is a poor guess at
what a move is worth when the whole rest can be worked out. Once the seat
holds :attr:`~games.ai.playbook.Playbook.endgame` cards or fewer, strong
samples worlds (the same sampler as its search, with inference) and solves
each one exactly — perfect-information search where every seat plays the
card best for *itself* (max^n; a seat's value is the search's reward, its
deal score against the others'), remembering positions already solved. Every
legal move is solved in the same worlds (paired), and the move with the best
mean is played; a move worse in every world than another is never chosen
(``games.ai.dominance``). Sampling stops at the budget, or once the leader is
:data:`~games.ai.estimate.SEPARATION` standard errors ahead of every other
move (after :data:`MIN_WORLDS`).

Solving each world as if every card were seen is the classic perfect-
information Monte Carlo (PIMC) of bridge programs; its blind spot (a move
that is right only if one guesses the world) is small in the last tricks.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.ai.dominance import undominated
from games.ai.estimate import clearly_behind
from games.ai.ismcts import Rewards, Sample

#: Whether strong solves endings (the benchmark turns it off to compare).
ENABLED = True
#: Worlds solved before the leader may be declared settled.
MIN_WORLDS = 16
#: Worlds solved at most for one decision.
MAX_WORLDS = 400


def state_key(state: Any) -> tuple[Any, ...]:
    """Everything that can change in a compact state during play, as one hashable key
    (fields fixed for the deal, shared by clones, are left out)."""
    parts: list[Any] = [
        tuple(state.hands),
        tuple(state.scores),
        state.turn,
        state.led,
        state.best,
        state.best_seat,
        state.in_trick,
        state.gone,
    ]
    for name in state.SHARED:
        value = getattr(state, name)
        if isinstance(value, int):
            parts.append(value)
    for name in state.LISTS:
        parts.append(tuple(getattr(state, name)))
    return tuple(parts)


def solve(
    state: Any, start: Any, rewards: Rewards, memo: dict[tuple[Any, ...], list[float]]
) -> list[float]:
    """Every seat's reward when the deal is played out from ``state`` by seats
    each playing the card best for itself (the first such card on a tie)."""
    mover = state.to_move
    if mover is None or state.deal_no != start.deal_no:
        return rewards(start, state, [])
    key = state_key(state)
    known = memo.get(key)
    if known is not None:
        return known
    best: list[float] | None = None
    for action in state.legal_actions(mover):
        after = state.clone()
        after._apply(mover, action)
        values = solve(after, start, rewards, memo)
        if best is None or values[mover] > best[mover]:
            best = values
    assert best is not None
    memo[key] = best
    return best


def move_values(world: Any, seat: int, actions: list[Any], rewards: Rewards) -> list[float]:
    """The seat's exact reward after each of ``actions`` in one world."""
    memo: dict[tuple[Any, ...], list[float]] = {}
    values = []
    for action in actions:
        after = world.clone()
        after._apply(seat, action)
        values.append(solve(after, world, rewards, memo)[seat])
    return values


@dataclass
class Ending:
    """An ending's decision: the move, and each move's exact value per world solved."""

    action: Any
    table: dict[Any, list[float]]


def play_ending(
    sample: Sample,
    seat: int,
    actions: list[Any],
    rewards: Rewards,
    rng: random.Random,
    *,
    worlds: int | None = None,
    stop_at: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Ending:
    """Solve the ending in sampled worlds until ``worlds`` (at most
    :data:`MAX_WORLDS`) or ``stop_at``, or until the leader is settled; the
    undominated move with the best mean."""
    table: dict[Any, list[float]] = {action: [] for action in actions}
    cap = min(worlds or MAX_WORLDS, MAX_WORLDS)
    solved = 0
    while solved < cap and (stop_at is None or solved == 0 or clock() < stop_at):
        world = sample(rng)
        for action, value in zip(actions, move_values(world, seat, actions, rewards), strict=True):
            table[action].append(value)
        solved += 1
        if solved >= MIN_WORLDS and settled(table):
            break
    return Ending(pick(table), table)


def pick(table: dict[Any, list[float]]) -> Any:
    """The undominated move with the best mean (the first of equals)."""
    return max(undominated(table), key=lambda move: statistics.fmean(table[move]))


def settled(table: dict[Any, list[float]]) -> bool:
    """True once the best move by mean is clearly ahead of every other."""
    best = pick(table)
    return all(clearly_behind(table[best], table[move]) for move in table if move != best)

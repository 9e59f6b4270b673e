"""Choosing among a few options by their chances over sampled deals.

Bids (Oh Hell) and contracts (King's trumps) are decided before a card is
played, and what they are worth depends on the whole deal: the seat's cards,
where the others' cards lie and who leads. So every level estimates it: each
*world* is a deal consistent with the seat's view (``Game.determinize``), every
option is played out in that same world with the same random numbers (a paired
comparison), and the option with the best mean wins. The flat search of Rummy
and Mau-Mau (``games.ai.search``) races its candidate moves the same way.

The number of worlds is not fixed. After ``min_worlds`` every option that the
leader beats by more than two standard errors of their paired difference is
dropped and played out no more, so the options still close get the samples
that follow; sampling stops when one option is left, or at ``max_worlds`` or
the time limit — close decisions get the samples, clear ones do not waste them.

A *favourite* (the rule of thumb's move, in the flat search) is the one option
whose dropping changes the move played, so it faces a stricter test, and fewer
of them: :data:`FAVOURITE_SEPARATION` standard errors, looked at only when the
worlds double (8, 16, 32, …) and once at the end. Tested at two standard errors
after every world, a favourite merely level with the leader was dropped more
often the longer the race ran — repeated looks at a noisy difference — so more
worlds played worse (Rummy, docs/computer-players.md). Level by the standard
errors is not enough, though: a favourite that another option still in the
race matches in every world and beats in one is dominated, and is not played
(``games.ai.dominance``).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.ai.dominance import undominated
from games.base import Game

#: How many standard errors separate a settled choice from a close one.
SEPARATION = 2.0
#: Two options that scored the same in this many worlds are taken as equal.
SAME_AFTER = 8
#: How many standard errors behind the leader a favourite must be to drop out,
#: at each of its looks (a few looks at 2.5: about 1 % each when it is level).
FAVOURITE_SEPARATION = 2.5
#: A favourite is dominated in a race only by an option ahead of it in at least
#: this many worlds and behind in none (a sign test's 1 in 32). Playouts by the
#: rule of thumb often tie, and a move ahead in one world of eight is no
#: evidence: with 1, strong played Rummy worse (−0.40 ± 0.28 a deal, 160 deals).
DOMINANCE_EVIDENCE = 5

#: Plays an option out in a world (consumed) and scores it for the seat.
Simulate = Callable[[Any, str, random.Random], float]


@dataclass(frozen=True)
class Sampling:
    """How many worlds an estimate may sample, and until when (a ``clock`` reading)."""

    min_worlds: int
    max_worlds: int
    stop_at: float | None = None
    clock: Callable[[], float] = time.perf_counter


@dataclass
class Race:
    """A race's outcome: the option chosen, every option's result per world it
    was played in (an option dropped out has fewer), and the options still in
    the race at the end (played in every world)."""

    choice: str
    values: dict[str, list[float]]
    live: list[str]
    worlds: int


def best_option(
    sample: Callable[[random.Random], Any],
    options: list[str],
    simulate: Simulate,
    rng: random.Random,
    sampling: Sampling,
    favourite: str | None = None,
) -> Race:
    """Race ``options`` over worlds from ``sample``: the option with the best mean
    wins (``choice``), with every option's results and the worlds used.

    ``options`` come in order of preference: ties go to the earlier one, and
    with no time for even one world the first is returned. A world is begun
    only if one like the last fits before ``stop_at``. A ``favourite`` (a rule
    of thumb's choice) still in the race when the sampling ends wins: the
    samples could not tell it from the leader. It drops out only at its looks
    (see the module's docstring) — or at the end, once ``min_worlds`` are
    played, if another option still in the race is as good in every world and
    better in :data:`DOMINANCE_EVIDENCE` of them (``games.ai.dominance``; the
    leader never is).
    """
    values: dict[str, list[float]] = {option: [] for option in options}
    if len(options) == 1:
        return Race(options[0], values, list(options), 0)
    live = list(options)
    worlds = 0
    last_world = 0.0
    while worlds < sampling.max_worlds and len(live) > 1:
        began = sampling.clock()
        if sampling.stop_at is not None and began + last_world >= sampling.stop_at:
            break
        world = sample(rng)
        seed = rng.getrandbits(64)
        for option in live:
            values[option].append(simulate(world.clone(), option, random.Random(seed)))
        worlds += 1
        last_world = sampling.clock() - began
        if worlds >= sampling.min_worlds:
            live = still_close(values, live, favourite, _doubled(worlds, sampling.min_worlds))
    if not worlds:
        return Race(options[0], values, live, 0)
    if worlds >= sampling.min_worlds:
        if not _doubled(worlds, sampling.min_worlds):
            live = still_close(values, live, favourite, look=True)  # the favourite's last look
        live = undominated({option: values[option] for option in live}, DOMINANCE_EVIDENCE)
    choice = favourite if favourite in live else leader(values, live)
    return Race(choice, values, live, worlds)


def _doubled(worlds: int, first: int) -> bool:
    """True at ``first`` worlds and each doubling of it."""
    return worlds % first == 0 and (worlds // first) & (worlds // first - 1) == 0


def leader(values: dict[str, list[float]], options: list[str]) -> str:
    """The option with the best mean (the earliest of equals)."""
    return max(options, key=lambda o: statistics.fmean(values[o]))


def still_close(
    values: dict[str, list[float]],
    live: list[str],
    favourite: str | None = None,
    look: bool = False,
) -> list[str]:
    """The options the leader does not beat by more than :data:`SEPARATION`
    standard errors of their paired difference (the leader included).

    The ``favourite`` is kept unless this is one of its looks and it is behind
    by :data:`FAVOURITE_SEPARATION`.
    """
    best = leader(values, live)

    def behind(option: str) -> bool:
        if option == favourite:
            return look and clearly_behind(values[best], values[option], FAVOURITE_SEPARATION)
        return clearly_behind(values[best], values[option])

    return [option for option in live if option == best or not behind(option)]


def clearly_behind(best: list[float], other: list[float], separation: float = SEPARATION) -> bool:
    """True if ``other``'s paired differences to ``best`` put it more than
    ``separation`` standard errors behind (or, after :data:`SAME_AFTER`
    identical results, level with it for good)."""
    gaps = [a - b for a, b in zip(best, other, strict=True)]
    n = len(gaps)
    if n < 2:
        return False
    # Checked after every world, on every live option: plain floats, not
    # statistics.stdev's exact fractions (a quarter of a search's time).
    mean = math.fsum(gaps) / n
    spread = math.sqrt(math.fsum((g - mean) ** 2 for g in gaps) / ((n - 1) * n))
    return mean > separation * spread or (spread == 0.0 and mean == 0.0 and len(gaps) >= SAME_AFTER)


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

"""📈 Review after a deal: which of a player's decisions cost points, and how many.

Pure (no I/O, no clock unless given a deadline). The session layer rebuilds
the seat's decisions of one finished deal from the stored seed and move log
(:func:`decision_points`), and asks for a :class:`Verdict` on each one
(:func:`review_decision`), one decision per job of the computer players' pool.

A decision is judged **from the seat's own view at that moment** — the same
``view(seat)`` the player saw, with its ``legal`` moves — never from the record's
open hands: every legal move is played out in the same worlds, each a deal
consistent with all the seat had seen and nothing more, drawn as the strong
level draws its own worlds at that decision (:func:`draw_worlds`: weighed by what
the bids, the trumps named and the play make likely, ``games.ai.inference``),
the rest of the deal played by the strong level's playout
policy (the rules of thumb; the bids and trumps of later seats by the easy
policy), with the same random numbers for every move (a paired comparison).
A move's value is the seat's deal gain minus the mean of the others' gains,
in the game's own deal points. Moves the leader beats by more than two standard
errors of the paired difference drop out and are played out no more; the
chosen move is never dropped, so its gap to the leader is measured on every
world. The leader is "the move it would have played"; cost = leader − chosen.

A cost is a **mistake** from :data:`THRESHOLDS` ``[game][0]`` points, a
**blunder** from ``[game][1]``, and only if it is also more than
:data:`SEPARATION` standard errors (the noise of a sampled estimate is not
called a mistake). The thresholds are in deal points and documented in
docs/computer-players.md.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from games import REGISTRY
from games.ai import PLAYBOOKS, flat_weight
from games.ai.compact import to_game
from games.ai.estimate import clearly_behind
from games.ai.inference import Weighted
from games.ai.search import HARD_CAP_SECONDS, Budget, world_sampler
from games.base import Game, View

#: (mistake, blunder) thresholds per game, in that game's deal points (the seat's
#: deal gain minus the mean of the others'): about a fifth and a half of what a
#: typical decisive move is worth there.
THRESHOLDS: MappingProxyType[str, tuple[float, float]] = MappingProxyType(
    {
        "eleven": (0.5, 1.5),  # deal scores 1-5; two players, so a point swings the margin by 2
        "two_ten_jack": (5.0, 15.0),  # card values: 2♠ 10♠ J♠ are ±10
        "fifteen": (0.5, 1.5),  # chips; the pot is two antes
        "rummy": (5.0, 15.0),  # the card points left in the others' hands
        "mau_mau": (4.0, 10.0),  # penalty pips, A 11, K 4 …
        "oh_hell": (2.0, 5.0),  # bid + 10 when made: a lost contract costs 10 and more
        "king": (15.0, 40.0),  # a trick is 20-25 points, a queen 60, the K♥ 150
    }
)
#: How many standard errors a cost must clear before it is called a mistake.
SEPARATION = 2.0
#: Worlds every legal move is played out in before any drops out.
MIN_WORLDS = 16
#: The default budget of one decision's review: a pool job never holds a worker longer.
REVIEW_BUDGET = Budget(seconds=0.5, playouts=400)

Grade = Literal["mistake", "blunder"]


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of the seat in the deal: what it saw and what it chose.

    ``number``: the decision's place among the seat's decisions of the deal (1
    first); ``turn``: the move's index among the deal's turns (0 first);
    ``trick``: the trick it was made in (1 first; 0 outside trick play).
    """

    number: int
    turn: int
    trick: int
    view: View
    chosen: str


@dataclass(frozen=True)
class Verdict:
    """What the review found at one decision.

    ``best``: the move with the best value (the chosen one if none beat it);
    ``cost``: the estimated points the chosen move lost against it (never
    negative); ``error``: the standard error of that estimate; ``worlds``:
    sampled deals; ``evaluated``: False if there was no time for even one.
    """

    chosen: str
    best: str
    cost: float
    error: float
    worlds: int
    evaluated: bool = True


def decision_points(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: Iterable[tuple[int, str]],
    deal_no: int,
    seat: int,
    skip: Collection[int] = (),
    dealer: int | None = None,
    deck: list[str] | None = None,
) -> list[DecisionPoint]:
    """The decisions ``seat`` made in deal ``deal_no`` (0 first) of the match reached
    by ``moves`` from ``seed``: each with the seat's view just before it. Moves at the
    indices in ``skip`` (made for the seat by a computer) and moves with no choice
    (one legal action) are left out. ``dealer`` and ``deck`` only for stacked test
    deals. Raises ``KeyError`` for an unknown game and ``IllegalAction`` for a log
    that does not fit the deal."""
    game = REGISTRY[game_id].new(players, options, seed, dealer=dealer, deck=deck)
    points: list[DecisionPoint] = []
    turn = 0
    for index, (mover, action) in enumerate(moves):
        if game.deal_no > deal_no or game.finished:
            break
        here = game.deal_no == deal_no
        if here and mover == seat and index not in skip:
            legal = game.legal_actions(seat)
            if len(legal) > 1:
                view = copy.deepcopy(game.view(seat))
                trick = len(view.get("history") or []) + 1 if "trick" in view else 0
                points.append(DecisionPoint(len(points) + 1, turn, trick, view, action))
        game.apply(mover, action)
        if here:
            turn += 1
    return points


def review_decision(
    game_id: str,
    view: View,
    chosen: str,
    seed: int,
    budget: Budget | None = None,
    deadline: float | None = None,
) -> Verdict:
    """Judge ``chosen`` at ``view`` against every other legal move (module docstring).

    Stops at ``budget`` (default :data:`REVIEW_BUDGET`: its worlds or its time,
    whichever first) or ``deadline`` (a ``time.time()`` reading), whichever
    first. Raises ValueError for an unknown game or a ``chosen`` that is not legal.
    """
    if game_id not in PLAYBOOKS:
        raise ValueError(f"no computer player for game {game_id!r}")
    legal: list[str] = list(view.get("legal") or [])
    if chosen not in legal:
        raise ValueError(f"{chosen!r} is not among the view's legal moves {legal}")
    if len(legal) == 1:
        return Verdict(chosen, chosen, 0.0, 0.0, 0)
    budget = budget or REVIEW_BUDGET
    started = time.perf_counter()
    stop_at = started + min(budget.seconds or HARD_CAP_SECONDS, HARD_CAP_SECONDS)
    if deadline is not None:
        stop_at = min(stop_at, started + max(0.0, deadline - time.time()))
    most = budget.playouts or 1 << 30
    seat = int(view["seat"])
    draw = draw_worlds(game_id, view)
    rng = random.Random(f"koloda-review:{seed}")
    values: dict[str, list[float]] = {move: [] for move in legal}
    live = list(legal)
    worlds = 0
    last_world = 0.0
    while worlds < most and len(live) > 1:
        began = time.perf_counter()
        if began + last_world >= stop_at:
            break
        world = draw(rng)
        playout_seed = rng.getrandbits(64)
        for move in live:
            values[move].append(
                deal_value(game_id, world.clone(), seat, move, random.Random(playout_seed))
            )
        worlds += 1
        last_world = time.perf_counter() - began
        if worlds >= MIN_WORLDS:
            live = _still_close(values, live, chosen)
    if not worlds:
        return Verdict(chosen, chosen, 0.0, 0.0, 0, evaluated=False)
    best = max(live, key=lambda move: (math.fsum(values[move]), move == chosen))
    gaps = [b - c for b, c in zip(values[best], values[chosen], strict=True)]
    cost, error = _mean_and_error(gaps)
    if best == chosen or cost <= 0.0:
        return Verdict(chosen, chosen, 0.0, error, worlds)
    return Verdict(chosen, best, cost, error, worlds)


def draw_worlds(game_id: str, view: View) -> Callable[[random.Random], Game]:
    """Full games of ``view`` drawn as the strong level draws its worlds there:
    from the playbook's compact sampler (``Playbook.worlds``, the bids' and
    trick play's inference) turned into games (``games.ai.compact.to_game``),
    else ``Game.determinize`` weighed as the flat search weighs it (Rummy's
    pile); each world afresh, for the review takes them as independent."""
    game_cls = REGISTRY[game_id]
    playbook = PLAYBOOKS[game_id]
    sampler = playbook.worlds(view) if playbook.worlds is not None else None
    if isinstance(sampler, Weighted):
        fresh = sampler.fresh
        return lambda rng: to_game(game_cls, view, fresh(rng), rng)
    return world_sampler(game_cls, view, flat_weight(game_id, view))


def grade(game_id: str, verdict: Verdict) -> Grade | None:
    """``blunder``, ``mistake`` or None (within the game's first threshold, or not
    clearly more than the noise: :data:`SEPARATION` standard errors)."""
    mistake, blunder = THRESHOLDS[game_id]
    if verdict.cost < mistake or verdict.cost <= SEPARATION * verdict.error:
        return None
    return "blunder" if verdict.cost >= blunder else "mistake"


def deal_value(game_id: str, world: Game, seat: int, move: str, rng: random.Random) -> float:
    """Take ``move`` for ``seat`` in ``world`` (consumed), finish the deal with the
    strong level's playout policy; the seat's deal gain minus the others' mean gain."""
    playbook = PLAYBOOKS[game_id]
    before = list(world.scores)
    deal_no = world.deal_no
    world._apply(seat, move)  # one of the view's legal moves
    for _ in range(playbook.max_moves if playbook.max_moves > 100 else 400):
        mover = world.to_move
        if mover is None or world.deal_no != deal_no:
            break
        legal = world.legal_actions(mover)
        if len(legal) == 1:
            choice = legal[0]
        elif playbook.sampled_phase is not None and (
            getattr(world, "phase", None) == playbook.sampled_phase
        ):
            choice = playbook.easy(world.view(mover), rng)  # a later bid or trump choice
        else:
            choice = playbook.strong_rollout(world, mover, legal, rng)
        world._apply(mover, choice)
    gains = [float(after - b) for b, after in zip(before, world.scores, strict=True)]
    others = [g for s, g in enumerate(gains) if s != seat]
    return gains[seat] - math.fsum(others) / len(others)


def _still_close(values: dict[str, list[float]], live: list[str], chosen: str) -> list[str]:
    """The live moves the leader does not clearly beat, the leader and ``chosen`` kept."""
    best = max(live, key=lambda move: math.fsum(values[move]))
    return [
        move
        for move in live
        if move in (best, chosen) or not clearly_behind(values[best], values[move])
    ]


def _mean_and_error(gaps: list[float]) -> tuple[float, float]:
    n = len(gaps)
    mean = math.fsum(gaps) / n
    if n < 2:
        return mean, math.inf
    spread = math.sqrt(math.fsum((g - mean) ** 2 for g in gaps) / ((n - 1) * n))
    return mean, spread

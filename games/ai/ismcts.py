"""Information-set Monte-Carlo tree search: the engine behind normal and strong.

A seat never sees the whole deal, so every iteration samples one *world* —
``Game.determinize(view, rng)``, a full game consistent with all the seat has
seen — and descends one tree shared by all the worlds (single-observer
IS-MCTS, Cowling, Powley & Whitehouse 2012). A node is a sequence of public
actions from the root; its edges are actions. A world offers only some of a
node's actions (other hands, other cards), so each edge counts how often it was
*available*, and the UCB bonus uses that count instead of the parent's visits.
Every seat picks the edge best for itself (its own reward), so the opponents
play as well as the search can imagine, not as the seat would like.

Below the tree, a rollout policy finishes the deal; the deal's score per seat
is backed up. The root's most visited action is chosen.

The root gives the rule of thumb's move a PUCT prior bonus that fades as
1/√N (:data:`PRIOR_BONUS`; a game may weigh it otherwise, Eleven not at
all): a difference the samples cannot yet tell from noise does not overrule
sound play; one they can, does.

Close decisions get the whole budget, clear ones stop early: the search ends
as soon as the leading action's visit lead exceeds what the rest of the budget
could overturn, so samples go where they change the answer.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.base import Event, Game, View

#: A fast move chooser for rollouts: (game, seat to move, its legal actions, rng) -> action.
Rollout = Callable[[Any, int, list[Any], random.Random], Any]
#: Every seat's reward for a finished (or cut-off) deal: (start, end, last events) -> rewards.
Rewards = Callable[[Any, Any, list[Event]], list[float]]
#: Samples one world consistent with the seat's view.
Sample = Callable[[random.Random], Any]


@dataclass(frozen=True)
class Space:
    """A search representation other than the rules engine's (a compact state).

    ``sample`` deals worlds in that representation; ``encode``/``decode``
    translate the view's actions to and from its actions. Worlds must offer
    ``to_move``, ``deal_no``, ``legal_actions``, ``_apply`` and ``clone``
    like a :class:`~games.base.Game`. ``fresh`` samples independent worlds
    where ``sample`` may repeat one (``games.ai.inference``); None: ``sample``
    never does.
    """

    sample: Sample
    encode: Callable[[str], Any]
    decode: Callable[[Any], str]
    rollout: Rollout
    rewards: Rewards
    fresh: Sample | None = None


#: The UCB exploration constant, for rewards scaled to about [-1, 1].
EXPLORATION = 0.7
#: Early stopping is considered only after this share of the budget.
MIN_SHARE = 0.3
#: The rule of thumb's move gets a bonus at the root (in scaled reward units) of
#: PRIOR_BONUS · √N / (n + 1) — N the root's visits, n the move's (PUCT, as in
#: AlphaZero): worth about 1.5 standard errors of a visit-count comparison at
#: any budget, so it fades as 1/√N. A prior, not a veto: a clearly better move
#: overtakes it, a move that only looks better by the noise does not.
PRIOR_BONUS = 0.8


class Node:
    """Edge statistics of one tree node, keyed by action."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits: dict[Any, int] = {}
        self.total: dict[Any, float] = {}
        self.avail: dict[Any, int] = {}


@dataclass
class Result:
    """What a search found: the action, the visits per root action, iterations
    run, and the searching seat's summed reward per root action."""

    action: Any
    visits: dict[Any, int]
    iterations: int
    totals: dict[Any, float] = field(default_factory=dict)


def search(
    game_cls: type[Game],
    view: View,
    candidates: list[str],
    rollout: Rollout,
    rewards: Rewards,
    rng: random.Random,
    *,
    iterations: int | None,
    stop_at: float | None,
    max_moves: int = 400,
    clock: Callable[[], float] = time.perf_counter,
    fallback: str | None = None,
    space: Space | None = None,
    prior_bonus: float = PRIOR_BONUS,
) -> Result:
    """IS-MCTS from ``view`` among ``candidates``, in the engine's states or in ``space``.

    See :func:`search_worlds` for the budget, the fallback and its bonus.
    """
    if space is None:
        return search_worlds(
            lambda r: game_cls.determinize(view, r),
            int(view["seat"]),
            candidates,
            rollout,
            rewards,
            rng,
            iterations=iterations,
            stop_at=stop_at,
            max_moves=max_moves,
            clock=clock,
            fallback=fallback,
            prior_bonus=prior_bonus,
        )
    found = search_worlds(
        space.sample,
        int(view["seat"]),
        [space.encode(a) for a in candidates],
        space.rollout,
        space.rewards,
        rng,
        iterations=iterations,
        stop_at=stop_at,
        max_moves=max_moves,
        clock=clock,
        fallback=None if fallback is None else space.encode(fallback),
        prior_bonus=prior_bonus,
    )
    visits = {space.decode(a): n for a, n in found.visits.items()}
    return Result(space.decode(found.action), visits, found.iterations)


def search_worlds(
    sample: Sample,
    seat: int,
    candidates: list[Any],
    rollout: Rollout,
    rewards: Rewards,
    rng: random.Random,
    *,
    iterations: int | None,
    stop_at: float | None,
    max_moves: int = 400,
    clock: Callable[[], float] = time.perf_counter,
    fallback: Any = None,
    prior_bonus: float = PRIOR_BONUS,
) -> Result:
    """IS-MCTS over worlds from ``sample`` among ``candidates`` for ``seat``.

    Stops after ``iterations`` or at ``stop_at`` (a ``clock`` reading),
    whichever comes first, or earlier once the choice cannot change. With no
    time left at all, no world is sampled and ``fallback`` (or the first
    candidate) is returned. ``fallback`` also gets the root's prior bonus,
    ``prior_bonus`` (:data:`PRIOR_BONUS`) on scaled rewards, and is tried first.
    """
    if len(candidates) == 1:
        return Result(candidates[0], {}, 0)
    root = Node()
    started = clock()
    done = 0
    scale = [0.0, 0.0]  # summed |reward| of the searching seat, and the count
    start: Any = None
    while True:
        now = clock() if stop_at is not None else 0.0
        if stop_at is not None and now >= stop_at:
            break
        if iterations is not None and done >= iterations:
            break
        world = sample(rng)
        if start is None:
            start = world.clone()
        _iterate(
            root,
            world,
            start,
            seat,
            candidates,
            rollout,
            rewards,
            rng,
            scale,
            max_moves,
            (fallback, prior_bonus),
        )
        done += 1
        if done % 16 == 0 and _decided(root, done, iterations, stop_at, started, now):
            break
    if not root.visits:
        return Result(fallback if fallback in candidates else candidates[0], {}, 0)
    best = max(candidates, key=lambda a: (root.visits.get(a, 0), root.total.get(a, 0.0)))
    return Result(best, dict(root.visits), done, dict(root.total))


def _decided(
    root: Node,
    done: int,
    iterations: int | None,
    stop_at: float | None,
    started: float,
    now: float,
) -> bool:
    """True once the leader's visit lead is more than the rest of the budget could undo."""
    left = math.inf
    if iterations is not None:
        if done < MIN_SHARE * iterations:
            return False
        left = iterations - done
    if stop_at is not None:
        spent = now - started
        total = stop_at - started
        if spent <= 0 or spent < MIN_SHARE * total:
            return False
        left = min(left, done * (stop_at - now) / spent)
    counts = sorted(root.visits.values(), reverse=True)
    if len(counts) < 2:
        return False
    return counts[0] - counts[1] > left


def _iterate(
    root: Node,
    world: Any,
    start: Any,
    seat: int,
    candidates: list[Any],
    rollout: Rollout,
    rewards: Rewards,
    rng: random.Random,
    scale: list[float],
    max_moves: int,
    prior: tuple[Any, float],
) -> None:
    """One iteration: descend the tree in ``world``, expand one edge, roll out,
    back up; ``prior``: the root's favoured action and its bonus."""
    deal_no = world.deal_no
    path: list[tuple[Node, Any, int, list[Any]]] = []
    node: Node | None = root
    events: list[Event] = []
    legal = candidates
    moves = 0
    while node is not None:
        mover = world.to_move
        if mover is None or world.deal_no != deal_no:
            break
        if node is not root:
            legal = world.legal_actions(mover)
        action = _select(node, legal, rng, scale, prior if node is root else (None, 0.0))
        path.append((node, action, mover, legal))
        fresh = action not in node.visits
        events = world._apply(mover, action)  # chosen from legal_actions
        moves += 1
        if fresh:
            node.children[action] = Node()
            node = None
        else:
            node = node.children[action]
    while moves < max_moves:
        mover = world.to_move
        if mover is None or world.deal_no != deal_no:
            break
        legal = world.legal_actions(mover)
        choice = legal[0] if len(legal) == 1 else rollout(world, mover, legal, rng)
        events = world._apply(mover, choice)
        moves += 1
    reward = rewards(start, world, events)
    scale[0] += abs(reward[seat])
    scale[1] += 1
    for parent, action, mover, offered in path:
        parent.visits[action] = parent.visits.get(action, 0) + 1
        parent.total[action] = parent.total.get(action, 0.0) + reward[mover]
        avail = parent.avail
        for other in offered:
            avail[other] = avail.get(other, 0) + 1


def _select(
    node: Node, legal: list[Any], rng: random.Random, scale: list[float], prior: tuple[Any, float]
) -> Any:
    """An untried action at random (the favoured one of ``prior`` first), else
    the best by UCB over availability counts, the favoured one lifted by its bonus.

    Rewards are divided by twice the mean absolute reward seen so far, so one
    exploration constant serves every game and deal size.
    """
    if len(legal) == 1:
        return legal[0]
    visits = node.visits
    favoured, bonus = prior
    untried = [a for a in legal if a not in visits]
    if untried:
        return favoured if favoured in untried else untried[rng.randrange(len(untried))]
    total = node.total
    avail = node.avail
    unit = 2.0 * scale[0] / scale[1] if scale[0] > 0 else 1.0
    lift = bonus * math.sqrt(sum(visits.values())) if favoured is not None else 0.0
    best = legal[0]
    best_score = -math.inf
    for action in legal:
        n = visits[action]
        score = total[action] / (n * unit) + EXPLORATION * math.sqrt(
            math.log(avail.get(action, 1) + 1) / n
        )
        if action == favoured:
            score += lift / (n + 1)
        if score > best_score:
            best, best_score = action, score
    return best


def gains(start: Game, end: Game) -> list[float]:
    """Each seat's gain in the match score since ``start``."""
    return [float(after - before) for before, after in zip(start.scores, end.scores, strict=True)]


def relative(values: list[float]) -> list[float]:
    """Each seat's value minus the mean of the other seats' values."""
    total = sum(values)
    others = len(values) - 1
    return [v - (total - v) / others for v in values]


def score_rewards(start: Game, end: Game, events: list[Event]) -> list[float]:
    """Each seat's deal gain minus the mean gain of the others."""
    return relative(gains(start, end))

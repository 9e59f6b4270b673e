"""What the search needs to know about one game: its :class:`Playbook`.

Each game module of this package builds one playbook: the easy policy (rules
of thumb on a view), the rollout policies that finish sampled deals quickly
(normal) or well (strong), how a finished deal is scored for a seat, and
optionally an exact decision that replaces sampling where the game allows it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.ai.compact import Sampler
from games.ai.estimate import Sampling
from games.ai.inference import Weighted
from games.ai.ismcts import PRIOR_BONUS, Rewards, Space, score_rewards
from games.ai.search import Outcome, Rollout
from games.base import Event, Game, View

#: The easy policy: a view (with ``legal``) and a random source -> one legal action.
Policy = Callable[[View, random.Random], str]
#: An exact decision for a view, or None where the search should decide.
Exact = Callable[[View], str | None]
#: The actions worth searching among, given the view and the easy choice.
Shortlist = Callable[[View, str], list[str]]
#: A decision made by sampled estimates (bids, contracts): the action and the
#: worlds sampled.
Sampled = Callable[[View, random.Random, Sampling], tuple[str, int]]


def random_rollout(game: Game, seat: int, legal: list[str], rng: random.Random) -> str:
    """A uniformly random legal action: the fastest way to finish a deal."""
    return legal[rng.randrange(len(legal))]


def policy_rollout(policy: Policy, keys: tuple[str, ...] | None = None) -> Rollout:
    """A rollout that asks ``policy`` what the seat would do.

    With ``keys``, the policy gets a cheap glance instead of ``game.view(seat)``:
    ``legal``, ``seat``, ``players``, ``hand`` and the game attributes named in
    ``keys``, uncopied — a sampled world is the search's own, and the policies
    only read. It must hold every view key the policy reads.
    """

    def rollout(game: Game, seat: int, legal: list[str], rng: random.Random) -> str:
        if keys is None:
            return policy(game.view(seat), rng)
        glance: View = {
            "legal": legal,
            "seat": seat,
            "players": game.players,
            "hand": getattr(game, "hands")[seat],  # noqa: B009 - every card game has hands
        }
        for key in keys:
            glance[key] = getattr(game, key)
        return policy(glance, rng)

    return rollout


def _gains(start: Game, end: Game) -> list[float]:
    return [float(after - before) for before, after in zip(start.scores, end.scores, strict=True)]


def score_margin(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """What the seat gained in the match score minus the best gain of an opponent."""
    gains = _gains(start, end)
    return gains[seat] - max(g for s, g in enumerate(gains) if s != seat)


def penalty_margin(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """For scores that count penalties: the best opponent's penalty minus the seat's."""
    gains = _gains(start, end)
    return min(g for s, g in enumerate(gains) if s != seat) - gains[seat]


@dataclass(frozen=True)
class Playbook:
    """Everything the levels need for one game.

    ``rollout`` is the fastest way to finish a deal (uniformly random; Rummy's
    greedy); the levels play their playouts with ``strong_rollout``, the easy
    policy on a glance, and ``rollout`` stays for experiments and the bench.

    With ``tree`` the search levels use IS-MCTS (``games.ai.ismcts``) scored
    by ``rewards`` with ``strong_rollout`` below the tree; otherwise the flat
    determinized search (``games.ai.search``) scored by ``outcome``. In the
    view phase ``sampled_phase`` every level decides by ``sampled`` instead.
    ``compact`` may give the tree search a faster representation of the view.
    ``normal_samples`` caps the normal level's samples in this game (None:
    the level's usual cap; see ``games.ai.level_budget``; strong has only its
    time). ``endgame``: once the seat holds this many cards or fewer, strong
    solves the rest of the deal exactly over sampled worlds of ``compact``
    (``games.ai.endgame``); 0: never. ``infer``: for the flat search, how
    likely a sampled world makes what the seat has seen (``games.ai.inference``;
    None: nothing to weigh by); the tree search's worlds are weighted by
    ``compact``'s sampler instead. ``worlds``: that sampler, the compact worlds
    the search levels draw at a view (for its bids and contracts as well as
    its play; None at a view where they draw ``Game.determinize``): the 📈
    review draws its worlds from it too (``games.ai.review.draw_worlds``).
    ``strong_prior_bonus``: how much strong's tree search favours the easy
    move at the root (``games.ai.ismcts.PRIOR_BONUS``, normal's always;
    Eleven 0, measured).
    """

    easy: Policy
    rollout: Rollout
    strong_rollout: Rollout
    outcome: Outcome = score_margin
    exact: Exact | None = None
    shortlist: Shortlist | None = None
    max_moves: int = 400
    tree: bool = False
    rewards: Rewards = score_rewards
    sampled: Sampled | None = None
    sampled_phase: str | None = None
    compact: Callable[[View], Space | None] | None = None
    normal_samples: int | None = None
    endgame: int = 0
    infer: Callable[[View], Callable[[Game], float] | None] | None = None
    worlds: Callable[[View], Sampler[Any] | Weighted[Any] | None] | None = None
    strong_prior_bonus: float = PRIOR_BONUS

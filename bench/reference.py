"""The hand-written reference of bench/computer.py for games OpenSpiel lacks.

A plain information-set MCTS in the manner of OpenSpiel's Python
``ISMCTSBot``: UCT on the deal score divided by a per-game scale
(:data:`SCALES`; Mau-Mau's penalty points count negative), uniformly random
rollouts, a fresh sampled world per simulation, nodes keyed by the mover's
information (the public actions since the root and the mover's own hand),
the most visited root action chosen. It runs on the search's
compact state where Koloda's search has one, elsewhere on the rules engine,
as Koloda's search does. Oh Hell is measured against OpenSpiel's own bot
instead (bench/spiel_oh_hell.py); this one still plays it, for comparison.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from games import REGISTRY
from games.ai import PLAYBOOKS
from games.ai import compact_oh_hell as compact
from games.ai.compact import INDEX, NAMES
from games.base import View

#: The deal score's spread per game: rewards are divided by it (to about 0..2),
#: and the UCT constant applies to that.
SCALES = {
    "eleven": 1.0,
    "two_ten_jack": 10.0,
    "fifteen": 1.0,
    "rummy": 20.0,
    "mau_mau": 10.0,
    "oh_hell": 11.0,
    "king": 40.0,
}


class RefNode:
    """Statistics of one information set's actions (visits, summed returns)."""

    __slots__ = ("returns", "visits")

    def __init__(self) -> None:
        self.visits: dict[str, int] = {}
        self.returns: dict[str, float] = {}


def reference_move(
    game_id: str,
    view: View,
    seconds: float,
    seed: int,
    uct_c: float,
    scale: float,
    lower_is_better: bool = False,
) -> str:
    """A plain IS-MCTS move (see the module docstring): UCT constant ``uct_c``
    on deal scores divided by ``scale``, ``seconds`` of thought; in a game
    scored in penalty points (``lower_is_better``) it plays for the fewest."""
    legal: list[str] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    rng = random.Random(seed)
    playbook = PLAYBOOKS[game_id]
    space = playbook.compact(view) if playbook.compact is not None else None
    if space is not None and game_id != "oh_hell":
        sample: Callable[[random.Random], Any] = space.sample
        encode, decode = space.encode, space.decode
    elif game_id == "oh_hell":
        sampler = compact.Sampler(view)
        sample = sampler.sample

        def encode(action: str) -> int:
            return compact.BID + int(action[4:]) if action[:4] == "bid:" else INDEX[action]

        def decode(action: int) -> str:
            return f"bid:{action - compact.BID}" if action >= compact.BID else NAMES[action]
    else:
        cls = REGISTRY[game_id]

        def sample(r: random.Random) -> Any:
            return cls.determinize(view, r)

        def encode(action: str) -> Any:
            return action

        decode = encode
    root_legal = [encode(a) for a in legal]
    nodes: dict[tuple[Any, ...], RefNode] = {}
    root: RefNode | None = None
    sign = -1.0 if lower_is_better else 1.0
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        root = _reference_simulation(sample(rng), root_legal, nodes, rng, uct_c / scale, sign)
    if root is None:
        return legal[rng.randrange(len(legal))]
    return decode(max(root_legal, key=lambda a: root.visits.get(a, 0)))


def _info_key(world: Any, mover: int, actions: tuple[Any, ...]) -> tuple[Any, ...]:
    hand = world.hands[mover]
    return (mover, actions, hand if isinstance(hand, int) else tuple(sorted(hand)))


def _reference_simulation(
    world: Any,
    root_legal: list[Any],
    nodes: dict[tuple[Any, ...], RefNode],
    rng: random.Random,
    uct_c: float,
    sign: float,
) -> RefNode:
    """One simulation: select and expand by UCT over information sets, random
    rollout, back up raw deal gains times ``sign`` (-1: penalty points;
    ``uct_c`` for them); returns the root node."""
    before = list(world.scores)
    deal_no = world.deal_no
    actions: tuple[Any, ...] = ()
    path: list[tuple[RefNode, Any, int]] = []
    expanding = True
    while world.to_move is not None and world.deal_no == deal_no:
        mover = world.to_move
        legal = root_legal if not actions else world.legal_actions(mover)
        if expanding:
            key = _info_key(world, mover, actions)
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = RefNode()
                expanding = False  # expand one node, then roll out
            untried = [a for a in legal if a not in node.visits]
            if untried:
                action = untried[rng.randrange(len(untried))]
            else:
                total = sum(node.visits[a] for a in legal)
                action = max(
                    legal,
                    key=lambda a: (
                        node.returns[a] / node.visits[a]
                        + uct_c * math.sqrt(math.log(total) / node.visits[a])
                    ),
                )
            path.append((node, action, mover))
        else:
            action = legal[rng.randrange(len(legal))]
        world._apply(mover, action)
        actions = (*actions, action)
    gains = [sign * (a - b) for a, b in zip(world.scores, before, strict=True)]
    for node, action, mover in path:
        node.visits[action] = node.visits.get(action, 0) + 1
        node.returns[action] = node.returns.get(action, 0.0) + gains[mover]
    return path[0][0]

"""Computer players for every game, at three levels (docs/computer-players.md).

``choose(game_id, view, level, seed)`` is the one entry point: it reads only the
seat's view (which includes ``legal``) and returns one of the legal actions.

- ``easy``: rules of thumb per game, instant.
- ``normal``: determinized Monte-Carlo search with random playouts (0.3 s).
- ``strong``: the same search with the easy policy playing the playouts (1 s).

The result is reproducible for a given seed under a playout budget; a time
budget may see more or fewer samples on a busier machine.
"""

from __future__ import annotations

import random
from types import MappingProxyType

from games import REGISTRY
from games.ai import eleven, fifteen, king, mau_mau, oh_hell, rummy, two_ten_jack
from games.ai.playbook import Playbook
from games.ai.search import HARD_CAP_SECONDS, Budget, Playout, search
from games.base import View

LEVELS = ("easy", "normal", "strong")
#: The default thinking time per decision.
DEFAULT_BUDGETS = MappingProxyType({"normal": Budget(seconds=0.3), "strong": Budget(seconds=1.0)})
PLAYBOOKS: MappingProxyType[str, Playbook] = MappingProxyType(
    {
        "eleven": eleven.PLAYBOOK,
        "two_ten_jack": two_ten_jack.PLAYBOOK,
        "fifteen": fifteen.PLAYBOOK,
        "oh_hell": oh_hell.PLAYBOOK,
        "king": king.PLAYBOOK,
        "rummy": rummy.PLAYBOOK,
        "mau_mau": mau_mau.PLAYBOOK,
    }
)


def choose(game_id: str, view: View, level: str, seed: int, budget: Budget | None = None) -> str:
    """One legal action for the seat whose ``view`` this is.

    Raises ValueError for an unknown game or level, or a view with no legal
    action (not this seat's turn). ``budget`` overrides the level's default
    thinking budget (the easy level ignores it).
    """
    check_request(game_id, view, level)
    legal: list[str] = list(view["legal"])
    if len(legal) == 1:
        return legal[0]
    playbook = PLAYBOOKS[game_id]
    rng = random.Random(f"koloda-ai:{seed}:{level}")
    if level == "easy":
        return _checked(playbook.easy(view, rng), legal)
    if playbook.exact is not None:
        decided = playbook.exact(view)
        if decided is not None:
            return _checked(decided, legal)
    playout = Playout(
        rollout=playbook.rollout if level == "normal" else playbook.strong_rollout,
        outcome=playbook.outcome,
        max_moves=playbook.max_moves,
    )
    prior = playbook.easy(view, random.Random(f"koloda-ai:{seed}:easy"))
    candidates = playbook.shortlist(view, prior) if playbook.shortlist else legal
    chosen = search(
        REGISTRY[game_id], view, candidates, playout, budget or DEFAULT_BUDGETS[level], rng, prior
    )
    return _checked(chosen, legal)


def check_request(game_id: str, view: View, level: str) -> None:
    """Raise ValueError unless the game, the level and the view's ``legal`` are usable."""
    if game_id not in PLAYBOOKS or game_id not in REGISTRY:
        raise ValueError(f"no computer player for game {game_id!r}")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    legal = view.get("legal")
    if not isinstance(legal, list) or not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")


def _checked(action: str, legal: list[str]) -> str:
    """Guard against a policy bug ever reaching the table: the action must be legal."""
    if action not in legal:
        raise AssertionError(f"computer chose {action!r}, not among {legal}")
    return action


__all__ = [
    "DEFAULT_BUDGETS",
    "HARD_CAP_SECONDS",
    "LEVELS",
    "PLAYBOOKS",
    "Budget",
    "check_request",
    "choose",
]

"""Computer players for every game, at three levels (docs/computer-players.md).

``choose(game_id, view, level, seed)`` is the one entry point: it reads only the
seat's view (which includes ``legal``) and returns one of the legal actions.

Every game of ``games.REGISTRY`` has its computer player here, in the module
named by its id (``games.ai.king``), which builds its :class:`Playbook`;
:data:`PLAYBOOKS` is derived from the registry, so there is no second list of
games to keep in step.

- ``easy``: rules of thumb per game, instant; bids and contracts estimated
  over a handful of sampled deals.
- ``normal``: information-set MCTS for the trick games, determinized
  Monte-Carlo search for Rummy and Mau-Mau, the easy policy playing the
  playouts (200 samples, at most 0.3 s; Rummy and Mau-Mau 24 worlds).
- ``strong``: the same searches with 1 s; the last few cards of a trick deal
  solved exactly over sampled deals (``games.ai.endgame``).

The result is reproducible for a given seed under a playout budget; a time
budget may see more or fewer samples on a busier machine.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from games import REGISTRY
from games.ai import endgame, inference, ismcts, pimc
from games.ai.estimate import Sampling
from games.ai.playbook import Playbook
from games.ai.search import HARD_CAP_SECONDS, Budget, Playout, search
from games.base import Game, View

LEVELS = ("easy", "normal", "strong")
#: The default thinking budget per decision. Normal stops at 200 samples as well,
#: or at its game's ``Playbook.normal_samples`` where the game sets one: with
#: the compact search states 0.3 s would buy about as many as strong gets, and it
#: would play as well as strong (docs/computer-players.md, measured).
DEFAULT_BUDGETS = MappingProxyType(
    {"normal": Budget(seconds=0.3, playouts=200), "strong": Budget(seconds=1.0)}
)


def _playbook(game_id: str) -> Playbook:
    """The computer player of ``game_id``: ``PLAYBOOK`` of ``games.ai.<game_id>``."""
    playbook = importlib.import_module(f"{__name__}.{game_id}").PLAYBOOK
    if not isinstance(playbook, Playbook):
        raise TypeError(f"{__name__}.{game_id}.PLAYBOOK is not a Playbook")
    return playbook


#: Each registered game's playbook, by game id.
PLAYBOOKS: MappingProxyType[str, Playbook] = MappingProxyType(
    {game_id: _playbook(game_id) for game_id in REGISTRY}
)


def level_budget(game_id: str, level: str) -> Budget | None:
    """The level's default thinking budget in ``game_id`` (None for easy).

    The time is the level's; normal's samples are capped per game
    (``Playbook.normal_samples``): where the search settles its decisions
    long before the time is up (Mau-Mau, Rummy), normal stops sooner, so that
    it plays between easy and strong (docs/computer-players.md, measured).
    Strong has only its time.
    """
    default = DEFAULT_BUDGETS.get(level)
    if default is None:
        return None
    samples = PLAYBOOKS[game_id].normal_samples if level == "normal" else None
    return Budget(seconds=default.seconds, playouts=samples or default.playouts)


#: The fewest sampled worlds a bid or contract estimate takes, per search level.
MIN_WORLDS = MappingProxyType({"normal": 12, "strong": 24})


@dataclass(frozen=True)
class Decision:
    """A chosen action and how it was reached.

    ``samples``: worlds sampled (IS-MCTS iterations, or worlds of an
    estimate); ``budget_seconds``: the time the level's budget allowed;
    ``seconds``: the time actually spent; ``cut_short``: the deadline left
    less time than the budget.
    """

    action: str
    samples: int = 0
    seconds: float = 0.0
    budget_seconds: float = 0.0
    cut_short: bool = False


def choose(
    game_id: str,
    view: View,
    level: str,
    seed: int,
    budget: Budget | None = None,
    deadline: float | None = None,
) -> str:
    """One legal action for the seat whose ``view`` this is.

    Raises ValueError for an unknown game or level, or a view with no legal
    action (not this seat's turn). ``budget`` overrides the level's default
    thinking budget (the easy level ignores it). ``deadline`` (a
    ``time.time()`` reading) stops any search by then, whatever the budget;
    with no time left the easy choice is returned at once.
    """
    return decide(game_id, view, level, seed, budget, deadline).action


def decide(
    game_id: str,
    view: View,
    level: str,
    seed: int,
    budget: Budget | None = None,
    deadline: float | None = None,
) -> Decision:
    """:func:`choose` with the account of the thinking (see :class:`Decision`)."""
    check_request(game_id, view, level)
    legal: list[str] = list(view["legal"])
    if len(legal) == 1:
        return Decision(legal[0])
    playbook = PLAYBOOKS[game_id]
    rng = random.Random(f"koloda-ai:{seed}:{level}")
    if level == "easy":
        return Decision(_checked(playbook.easy(view, rng), legal))
    if playbook.exact is not None:
        decided = playbook.exact(view)
        if decided is not None:
            return Decision(_checked(decided, legal))
    budget = budget or level_budget(game_id, level)
    assert budget is not None
    started = time.perf_counter()
    allowed = min(budget.seconds or HARD_CAP_SECONDS, HARD_CAP_SECONDS)
    stop_at = started + allowed
    cut_short = False
    if deadline is not None:
        left = deadline - time.time()
        if left < allowed:
            stop_at, cut_short = started + max(0.0, left), True
    timed = budget.seconds is not None or cut_short

    def account(action: str, samples: int) -> Decision:
        spent = time.perf_counter() - started
        return Decision(_checked(action, legal), samples, spent, allowed, cut_short)

    if playbook.sampled is not None and view.get("phase") == playbook.sampled_phase:
        sampling = Sampling(
            min_worlds=MIN_WORLDS[level],
            max_worlds=budget.playouts or 100_000,
            stop_at=stop_at,
        )
        return account(*playbook.sampled(view, rng, sampling))
    prior = playbook.easy(view, random.Random(f"koloda-ai:{seed}:easy"))
    if cut_short and stop_at <= started:
        return account(prior, 0)
    candidates = playbook.shortlist(view, prior) if playbook.shortlist else legal
    space = playbook.compact(view) if playbook.tree and playbook.compact else None
    ending_cards = playbook.endgame if endgame.ENABLED else 0
    if level == "strong" and space is not None and len(view["hand"]) <= ending_cards:
        ending = endgame.play_ending(
            space.fresh or space.sample,
            int(view["seat"]),
            [space.encode(action) for action in legal],
            space.rewards,
            rng,
            worlds=budget.playouts,
            stop_at=stop_at if timed else started + HARD_CAP_SECONDS,
        )
        return account(space.decode(ending.action), len(ending.table[ending.action]))
    if level == "strong" and space is not None and pimc.ENABLED:
        played = pimc.search(
            space,
            int(view["seat"]),
            [space.encode(action) for action in candidates],
            rng,
            iterations=budget.playouts,
            stop_at=stop_at if timed else started + HARD_CAP_SECONDS,
            max_moves=playbook.max_moves,
            fallback=space.encode(prior),
            prior_bonus=playbook.strong_prior_bonus,
        )
        return account(space.decode(played.action), played.iterations)
    if playbook.tree:
        found = ismcts.search(
            REGISTRY[game_id],
            view,
            candidates,
            playbook.strong_rollout,
            playbook.rewards,
            rng,
            iterations=budget.playouts,
            stop_at=stop_at if timed else started + HARD_CAP_SECONDS,
            max_moves=playbook.max_moves,
            fallback=prior,
            space=space,
            prior_bonus=playbook.strong_prior_bonus if level == "strong" else ismcts.PRIOR_BONUS,
        )
        return account(found.action, found.iterations)
    playout = Playout(
        rollout=playbook.strong_rollout,
        outcome=playbook.outcome,
        max_moves=playbook.max_moves,
    )
    flat_budget = Budget(
        seconds=max(1e-6, min(stop_at - time.perf_counter(), HARD_CAP_SECONDS)) if timed else None,
        playouts=budget.playouts,
    )
    raced = search(
        REGISTRY[game_id],
        view,
        candidates,
        playout,
        flat_budget,
        rng,
        prior,
        weight=flat_weight(game_id, view),
    )
    return account(raced.choice, raced.worlds)


def flat_weight(game_id: str, view: View) -> Callable[[Game], float] | None:
    """How the flat search weighs its worlds at ``view`` (``Playbook.infer``,
    while inference from play is on); None: it draws them blind."""
    playbook = PLAYBOOKS[game_id]
    if playbook.infer is None or not (inference.ENABLED and inference.FROM_PLAY):
        return None
    return playbook.infer(view)


def needs_thought(game_id: str, view: View, level: str) -> bool:
    """True unless the decision is instant: one legal action, or an easy choice
    that samples nothing (easy bids and contracts sample a few deals)."""
    if len(view["legal"]) == 1:
        return False
    if level != "easy":
        return True
    playbook = PLAYBOOKS[game_id]
    return playbook.sampled is not None and view.get("phase") == playbook.sampled_phase


def check_request(game_id: str, view: View, level: str) -> None:
    """Raise ValueError unless the game, the level and the view's ``legal`` are usable."""
    if game_id not in PLAYBOOKS:
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
    "Decision",
    "check_request",
    "choose",
    "decide",
    "flat_weight",
    "level_budget",
    "needs_thought",
]

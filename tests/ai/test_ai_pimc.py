"""games/ai/pimc.py: each world searched as the truth, the move best over the worlds."""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

import pytest

from games.ai import Budget, ismcts, pimc
from games.ai.compact import INDEX, NAMES, rewards
from games.ai.compact_oh_hell import CompactOhHell, easy_rollout, from_view
from games.ai.inference import Weighted
from games.ai.ismcts import Result, Space
from games.ai.oh_hell import compact_space
from games.base import Game
from tests.support.bench import bench_module, played_to


def two_cards(opponents: list[list[str]]) -> CompactOhHell:
    """Two cards each, no trumps, seat 0 (holding K♠ Q♥, bid 1) to lead; seat 1
    bid 1, seat 2 (the dealer) bid 0; the opponents hold ``opponents``."""
    view: dict[str, Any] = {
        "players": 3,
        "trumps": None,
        "to_move": 0,
        "bids": [1, 1, 0],
        "phase": "play",
        "deal_size": 2,
        "dealer": 2,
        "options": {"hook": False},
        "tricks_won": [0, 0, 0],
        "deal_no": 0,
        "history": [],
        "trick": [],
    }
    return from_view(view, [["KS", "QH"], *opponents])


def only(world: CompactOhHell) -> Space:
    """A space whose every world is ``world``."""

    def sample(rng: random.Random) -> CompactOhHell:
        return world.clone()

    return Space(sample, INDEX.__getitem__, NAMES.__getitem__, easy_rollout, rewards)


def pimc_card(world: CompactOhHell, fallback: str | None = None) -> str:
    """PIMC's card for seat 0 with ``world`` as its only world."""
    found = pimc.search(
        only(world),
        0,
        [INDEX["KS"], INDEX["QH"]],
        random.Random(1),
        iterations=400,
        stop_at=None,
        fallback=None if fallback is None else INDEX[fallback],
    )
    action: int = found.action
    return NAMES[action]


@pytest.mark.parametrize("fallback", [None, "KS", "QH"])
def test_the_world_taken_as_truth_decides_the_double_dummy_card(fallback: str | None) -> None:
    """With A♠ on the left, K♠ loses to it and Q♥ is then the one trick to
    take (lead Q♥, keep K♠ for the ace); with A♥ there, it is the other way
    round. Whatever the rule of thumb says, the one world settles it."""
    ace_of_spades = two_cards([["AS", "3C"], ["2S", "4C"]])
    ace_of_hearts = two_cards([["AH", "3C"], ["2S", "4C"]])
    assert pimc_card(ace_of_spades, fallback) == "QH"
    assert pimc_card(ace_of_hearts, fallback) == "KS"


def midgame() -> tuple[Game, int]:
    """An Oh Hell deal of ten cards one play into its trick play, bids made."""
    game = played_to("oh_hell", 10_005, "play", 1)
    seat = game.to_move
    assert seat is not None and len(game.legal_actions(seat)) > 1
    return game, seat


def test_the_budget_is_split_evenly_over_the_worlds() -> None:
    game, seat = midgame()
    view = game.view(seat)
    space = compact_space(view)
    assert space is not None
    searched: list[tuple[int, int]] = []
    search_worlds = ismcts.search_worlds

    def spy(sample: Any, *args: Any, **kwargs: Any) -> Result:
        first, second = sample(random.Random(0)), sample(random.Random(1))
        assert first.hands == second.hands  # one world, searched as the truth
        found = search_worlds(sample, *args, **kwargs)
        searched.append((found.iterations, kwargs["iterations"]))
        return found

    candidates = [space.encode(card) for card in view["legal"]]
    with mock.patch.object(pimc, "search_worlds", spy):
        found = pimc.search(
            space, seat, candidates, random.Random(2), iterations=330, stop_at=None, worlds=16
        )
    assert len(searched) == 16
    assert sorted({share for _, share in searched}) == [20, 21]  # 330 = 6·20 + 10·21
    assert sum(done for done, _ in searched) == found.iterations <= 330
    assert sum(found.visits.values()) == found.iterations
    assert found.action in candidates


def test_fewer_iterations_than_worlds_search_fewer_worlds() -> None:
    worlds: list[CompactOhHell] = []
    world = two_cards([["AS", "3C"], ["2S", "4C"]])

    def sample(rng: random.Random) -> CompactOhHell:
        worlds.append(world.clone())
        return world.clone()

    space = Space(sample, INDEX.__getitem__, NAMES.__getitem__, easy_rollout, rewards)
    found = pimc.search(
        space, 0, [INDEX["KS"], INDEX["QH"]], random.Random(0), iterations=5, stop_at=None
    )
    assert len(worlds) == 5 and found.iterations <= 5


def test_the_rule_of_thumb_stands_unless_the_worlds_clearly_overrule_it() -> None:
    close = [{"a": 1.0, "b": 0.0}, {"a": -0.5, "b": 0.0}, {"a": 0.0, "b": 0.2}]
    assert pimc._choice(close, ["a", "b"], None) == "a"  # the best mean: 0.5 against 0.2
    assert pimc._choice(close, ["a", "b"], "b") == "b"  # within the noise
    clear = [{"a": 1.0, "b": 0.0}, {"a": 0.9, "b": 0.0}, {"a": 1.1, "b": 0.2}]
    assert pimc._choice(clear, ["a", "b"], "b") == "a"


def test_an_action_a_world_never_tried_counts_as_its_worst() -> None:
    found = Result("a", {"a": 4, "b": 2}, 6, {"a": 8.0, "b": -2.0})
    assert pimc._world_means(found, ["a", "b", "c"]) == {"a": 2.0, "b": -1.0, "c": -1.0}


def pimc_spaces(level: str, game: Game, seat: int) -> list[Space]:
    """The spaces the bench's agent at ``level`` hands to PIMC for its move."""
    computer = bench_module("computer")
    spaces: list[Space] = []
    search = pimc.search

    def spy(space: Space, *args: Any, **kwargs: Any) -> Result:
        spaces.append(space)
        return search(space, *args, **kwargs)

    with mock.patch.object(pimc, "search", spy):
        move = computer.agent(level, "oh_hell", {"strong": Budget(playouts=64)}, 0.0)(game, seat, 5)
    assert move in game.legal_actions(seat)
    return spaces


def test_the_pimc_levels_play_by_pimc_and_only_the_blind_one_draws_unweighted() -> None:
    game, seat = midgame()
    assert pimc_spaces("strong", game, seat) == []  # strong itself plays IS-MCTS
    inferred = pimc_spaces("strong-pimc", game, seat)
    assert len(inferred) == 1
    assert isinstance(getattr(inferred[0].fresh, "__self__", None), Weighted)
    blind = pimc_spaces("strong-pimc-blind", game, seat)
    assert len(blind) == 1
    assert blind[0].fresh is None
    assert not isinstance(getattr(blind[0].sample, "__self__", None), Weighted)
    assert pimc.ENABLED is False  # and the switch is off again afterwards


def test_the_pimc_levels_bid_like_strong() -> None:
    game = played_to("oh_hell", 10_003, "bid", 1)
    seat = game.to_move
    assert seat is not None
    assert pimc_spaces("strong-pimc", game, seat) == []

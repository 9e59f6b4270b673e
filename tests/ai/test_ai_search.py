"""The determinized Monte-Carlo search on a toy game whose right answer is known."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.ai.estimate import clearly_behind
from games.ai.playbook import random_rollout, score_margin
from games.ai.search import MIN_WORLDS, Budget, Playout, search
from games.base import Event
from tests.support.ai import Gamble, gamble_with

PLAYOUT = Playout(rollout=random_rollout, outcome=score_margin, max_moves=10)


def decide(reds: int, budget: Budget, prior: str | None = None, seed: int = 0) -> str:
    game_cls = gamble_with(reds)
    view: dict[str, Any] = game_cls.new(2, seed=seed, dealer=0).view(0)
    return search(game_cls, view, view["legal"], PLAYOUT, budget, random.Random(seed), prior).choice


def test_the_search_plays_safe_against_bad_odds_and_bets_on_good_ones() -> None:
    assert decide(1, Budget(playouts=300)) == "safe"  # bet worth 3·¼ − 3·¾ < 1
    assert decide(4, Budget(playouts=300)) == "gamble"  # a sure +3


def test_the_rule_of_thumb_stands_until_the_samples_show_a_clear_gain() -> None:
    assert decide(4, Budget(playouts=300), prior="safe") == "gamble"  # a sure +3 against 1
    assert decide(2, Budget(playouts=2), prior="gamble") == "gamble"  # one world proves nothing
    # Two reds in four: the gamble is worth 0 against safe's 1, and enough
    # worlds show it whatever the rule of thumb says.
    assert all(decide(2, Budget(playouts=2000), prior="gamble", seed=s) == "safe" for s in range(3))


class Level(Gamble):
    """Both actions score the same: nothing to separate them."""

    def _apply(self, seat: int, action: str) -> list[Event]:
        self.scores[0] += 1
        return [self._finish([0])]


def test_a_clear_decision_stops_early_and_a_close_one_spends_the_budget() -> None:
    view = Gamble.new(2, seed=0, dealer=0).view(0)
    Gamble.samples = 0
    search(gamble_with(0), view, view["legal"], PLAYOUT, Budget(playouts=400), random.Random(0))
    clear = Gamble.samples
    assert clear == MIN_WORLDS  # safe +1 against a sure −3: settled at the first look
    Gamble.samples = 0
    search(gamble_with(3), view, view["legal"], PLAYOUT, Budget(playouts=400), random.Random(0))
    assert Gamble.samples > 4 * clear  # +1.5 ± 2.6 against 1: many worlds before one drops out


def test_equal_candidates_are_settled_for_the_earlier_one() -> None:
    view = Level.new(2, seed=0, dealer=0).view(0)
    Gamble.samples = 0
    chosen = search(
        Level, view, ["gamble", "safe"], PLAYOUT, Budget(playouts=400), random.Random(0)
    ).choice
    assert chosen == "gamble"
    assert Gamble.samples == MIN_WORLDS


def test_a_playout_budget_bounds_the_sampled_worlds() -> None:
    Gamble.samples = 0
    decide(2, Budget(playouts=5))
    assert Gamble.samples == 5  # fewer than MIN_WORLDS: nothing dropped out yet


def test_a_time_budget_stops_the_search() -> None:
    ticks = iter(range(1_000_000))
    game_cls = gamble_with(2)
    view = game_cls.new(2, seed=0, dealer=0).view(0)
    Gamble.samples = 0
    search(
        game_cls,
        view,
        view["legal"],
        PLAYOUT,
        Budget(seconds=0.01),
        random.Random(0),
        clock=lambda: next(ticks) * 0.001,
    )
    assert 1 <= Gamble.samples <= 5


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=30), st.floats(0.5, 10))
def test_a_constant_gain_is_clear_and_no_gain_is_not(values: list[float], gain: float) -> None:
    assert clearly_behind([v + gain for v in values], values)
    assert not clearly_behind([v - gain for v in values], values)
    assert clearly_behind(values, values) == (len(values) >= 8)  # equal for good


@pytest.mark.parametrize("seed", range(3))
def test_the_search_is_reproducible_for_a_seed(seed: int) -> None:
    first = decide(2, Budget(playouts=30), seed=seed)
    assert decide(2, Budget(playouts=30), seed=seed) == first

"""Computer players: the entry point, its contract and the hidden-information guarantee."""

from __future__ import annotations

import itertools
import random
import time
from typing import NoReturn

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games.ai as ai
from games import GAMES as GAMES_IN_MENU_ORDER
from games import REGISTRY
from games.ai import (
    DEFAULT_BUDGETS,
    LEVELS,
    PLAYBOOKS,
    Budget,
    choose,
    decide,
    ismcts,
    level_budget,
    needs_thought,
)
from games.ai.oh_hell import EASY_SAMPLING, sampled_bid
from games.eleven import Eleven
from tests.support.positions import GAMES, TABLE, advanced

QUICK = Budget(playouts=12)


@settings(max_examples=25, deadline=None)
@given(
    game_id=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 40),
    level=st.sampled_from(LEVELS),
)
def test_every_level_chooses_a_legal_action(
    game_id: str, seed: int, moves: int, level: str
) -> None:
    game = advanced(game_id, seed, moves)
    if game.to_move is None:
        return
    view = game.view(game.to_move)
    assert choose(game_id, view, level, seed, QUICK) in view["legal"]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_whole_match_of_easy_players_ends(game_id: str) -> None:
    game = REGISTRY[game_id].new(TABLE[game_id], seed=5)
    for number in range(20_000):
        seat = game.to_move
        if seat is None:
            break
        game.apply(seat, choose(game_id, game.view(seat), "easy", number))
    assert game.finished


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_playout_budget_makes_the_choice_reproducible(game_id: str, level: str) -> None:
    for seed in range(3):
        game = advanced(game_id, seed, 3 + seed)
        if game.to_move is None:
            continue
        view = game.view(game.to_move)
        first = choose(game_id, view, level, seed, QUICK)
        assert all(choose(game_id, view, level, seed, QUICK) == first for _ in range(2))


@pytest.mark.parametrize("game_id", GAMES)
def test_the_choice_ignores_hidden_cards_swapped_in_the_real_state(game_id: str) -> None:
    """Re-deal every card the seat cannot see; its view and its choice stay the same."""
    rng = random.Random(7)
    for seed in range(4):
        game = advanced(game_id, seed, 2 + 3 * seed)
        seat = game.to_move
        if seat is None:
            continue
        view = game.view(seat)
        swapped = type(game).determinize(view, rng)
        assert swapped.view(seat) == view
        zones = swapped.card_zones()
        hidden_moved = any(cards != zones[zone] for zone, cards in game.card_zones().items())
        assert hidden_moved or not game.hidden_cards(seat)
        for level in LEVELS:
            expected = choose(game_id, view, level, seed, QUICK)
            assert choose(game_id, swapped.view(seat), level, seed, QUICK) == expected


def test_swapping_the_opponents_hand_with_the_stock_changes_nothing_for_eleven() -> None:
    game = Eleven.new(2, seed=11, dealer=1)
    seat = game.to_move
    assert seat == 0
    before = game.view(seat)
    choices = {level: choose("eleven", before, level, 3, QUICK) for level in LEVELS}
    opponent_hand, stock = game.hands[1], game.stock
    game.hands[1], game.stock = stock[:6], opponent_hand + stock[6:]
    after = game.view(seat)
    assert after == before
    assert game.hands[1] != opponent_hand
    for level in LEVELS:
        assert choose("eleven", after, level, 3, QUICK) == choices[level]


def test_every_registered_game_has_its_computer_player() -> None:
    # PLAYBOOKS derives from the registry: one list of games, in its order
    assert list(PLAYBOOKS) == list(REGISTRY) == [game.id for game in GAMES_IN_MENU_ORDER]
    assert all(PLAYBOOKS[game_id] is getattr(ai, game_id).PLAYBOOK for game_id in REGISTRY)


def test_unknown_game_level_or_turn_is_refused() -> None:
    game = advanced("eleven", 1, 0)
    assert game.to_move is not None
    view = game.view(game.to_move)
    snapshot = game.to_dict()
    with pytest.raises(ValueError, match="no computer player"):
        choose("poker", view, "easy", 1)
    with pytest.raises(ValueError, match="unknown level"):
        choose("eleven", view, "grandmaster", 1)
    other = game.view(1 - game.to_move)
    with pytest.raises(ValueError, match="no legal action"):
        choose("eleven", other, "strong", 1)
    assert game.to_dict() == snapshot


@pytest.mark.parametrize(
    ("seconds", "playouts"), [(None, None), (0.0, None), (-1.0, None), (None, 0), (9.0, None)]
)
def test_a_budget_needs_a_positive_bounded_amount(
    seconds: float | None, playouts: int | None
) -> None:
    with pytest.raises(ValueError):
        Budget(seconds=seconds, playouts=playouts)


def test_default_budgets_are_the_documented_times() -> None:
    assert DEFAULT_BUDGETS["normal"].seconds == 0.3
    assert DEFAULT_BUDGETS["strong"].seconds == 1.0


def refuse_to_sample(monkeypatch: pytest.MonkeyPatch, game_id: str) -> None:
    """Make every way of thinking about hidden cards fail the test."""

    def sampled(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("easy sampled a world or searched")

    monkeypatch.setattr(ai.ismcts, "search", sampled)
    monkeypatch.setattr(ai, "search", sampled)
    monkeypatch.setattr(REGISTRY[game_id], "determinize", classmethod(sampled))


@pytest.mark.parametrize("game_id", GAMES)
def test_easy_plays_by_its_rules_of_thumb_without_sampling(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = advanced(game_id, 2, 4)
    assert game.to_move is not None
    view = game.view(game.to_move)
    if needs_thought(game_id, view, "easy"):
        pytest.skip("a sampled decision: bounded by its worlds, tested below")
    refuse_to_sample(monkeypatch, game_id)
    for seed in range(20):
        decision = decide(game_id, view, "easy", seed)
        assert decision.action in view["legal"] and decision.samples == 0


#: Positions (seed, moves) with a close decision: uncapped, the race goes on
#: past the game's caps.
CLOSE_DECISIONS = {"mau_mau": (1, 2), "rummy": (0, 6)}


@pytest.mark.parametrize("game_id", ["mau_mau", "rummy"])
def test_normal_stops_at_its_games_samples_in_a_close_decision(game_id: str) -> None:
    seed, moves = CLOSE_DECISIONS[game_id]
    game = advanced(game_id, seed, moves)
    assert game.to_move is not None
    view = game.view(game.to_move)
    budget = level_budget(game_id, "normal")
    assert budget is not None and budget.playouts is not None
    cap = budget.playouts
    uncapped = decide(game_id, view, "normal", seed, Budget(playouts=cap + 20))
    assert uncapped.samples > cap
    assert decide(game_id, view, "normal", seed).samples <= cap


def test_easy_samples_only_a_handful_of_deals_for_a_bid() -> None:
    game = advanced("oh_hell", 2, 0)
    view = game.view(game.to_move)
    assert view["phase"] == "bid"
    assert needs_thought("oh_hell", view, "easy")
    _, worlds = sampled_bid(view, random.Random(1), EASY_SAMPLING)
    assert 0 < worlds <= EASY_SAMPLING.max_worlds <= 12


def test_a_time_budget_stops_the_tree_search_when_its_clock_runs_out() -> None:
    game = advanced("king", 0, 0)
    assert game.to_move is not None
    view = game.view(game.to_move)
    playbook = PLAYBOOKS["king"]
    ticks = itertools.count()
    found = ismcts.search(
        REGISTRY["king"],
        view,
        list(view["legal"]),
        playbook.strong_rollout,
        playbook.rewards,
        random.Random(0),
        iterations=None,
        stop_at=0.1,
        clock=lambda: next(ticks) * 0.001,  # a millisecond a reading
        space=playbook.compact(view) if playbook.compact else None,
    )
    assert found.action in view["legal"]
    assert 1 <= found.iterations < 100  # more than a reading per iteration


def test_decide_gives_the_search_the_budgets_time(monkeypatch: pytest.MonkeyPatch) -> None:
    game = advanced("king", 0, 0)
    assert game.to_move is not None
    view = game.view(game.to_move)
    given: list[float] = []

    def recorded(*args: object, stop_at: float, fallback: str, **kwargs: object) -> ismcts.Result:
        given.append(stop_at - time.perf_counter())
        return ismcts.Result(fallback, {}, 0)

    monkeypatch.setattr(ai.ismcts, "search", recorded)
    decide("king", view, "strong", 0, Budget(seconds=0.1))
    assert len(given) == 1 and 0.0 < given[0] <= 0.1

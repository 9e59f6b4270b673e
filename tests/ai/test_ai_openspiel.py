"""The bench's yardstick: Koloda's Oh Hell maps onto OpenSpiel's ``oh_hell`` one to one.

bench/spiel_oh_hell.py translates cards, bids and whole deals; the mapping is
checked in pure Python, and, where ``pyspiel`` is installed, by playing
Koloda's deals in both engines side by side.
"""

from __future__ import annotations

import random

import pytest

from games.cards import make_deck
from games.oh_hell import OhHell
from tests.support.bench import bench_module


def started(seed: int, size: int) -> OhHell:
    """A 4-player match with the hook on, at its deal of ``size`` cards."""
    game = OhHell.new(4, {"hook": True}, seed=seed, dealer=0)
    game.deal_no = size - 1
    game.dealer = size % 4
    game._deal(game.shuffled_deck())
    return game


def test_cards_and_bids_map_one_to_one() -> None:
    spiel = bench_module("spiel_oh_hell")
    actions = [*make_deck(52), *(f"bid:{n}" for n in range(13))]
    images = [spiel.to_spiel(a) for a in actions]
    assert sorted(images) == list(range(52 + 13))
    assert [spiel.from_spiel(i) for i in images] == actions
    # OpenSpiel's own card order: 2 of clubs, diamonds, spades, hearts, then the threes
    assert [spiel.from_spiel(i) for i in range(5)] == ["2C", "2D", "2S", "2H", "3C"]


def test_a_deal_replays_round_the_table_from_seat_0() -> None:
    spiel = bench_module("spiel_oh_hell")
    game = started(3, 2)
    view = game.view(game.to_move)
    history = spiel.spiel_history(view, game.hands)
    assert history[:2] == [2, game.dealer]
    dealt = history[2:10]
    for i, action in enumerate(dealt):
        assert spiel.from_spiel(action) in game.hands[i % 4]
    assert spiel.from_spiel(history[10]) == game.trump_card
    assert len(history) == 11  # no bid yet


def test_both_engines_offer_the_same_moves_and_scores() -> None:
    pytest.importorskip("pyspiel")
    spiel = bench_module("spiel_oh_hell")
    rng = random.Random(5)
    for seed in range(12):
        size = 1 + seed % 12
        game = started(seed, size)
        deal_no = game.deal_no
        state = None
        while game.deal_no == deal_no:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            state = spiel.spiel_state(view, rng)
            assert state.current_player() == seat
            assert sorted(spiel.from_spiel(a) for a in state.legal_actions()) == sorted(
                view["legal"]
            )
            action = rng.choice(view["legal"])
            events = game.apply(seat, action)
        assert state is not None
        state.apply_action(spiel.to_spiel(action))  # the deal's last card
        end = next(e for e in events if e["type"] == "deal_end")
        assert state.is_terminal()
        # OpenSpiel scores a missed bid by its tricks, Koloda by 0; a made one alike
        for seat, points in enumerate(end["deal_scores"]):
            made = end["bids"][seat] == end["tricks_won"][seat]
            assert state.returns()[seat] == (points if made else end["tricks_won"][seat])


def test_the_bot_moves_legally_in_its_time() -> None:
    pytest.importorskip("pyspiel")
    spiel = bench_module("spiel_oh_hell")
    game = started(7, 3)
    for _ in range(6):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        move = spiel.spiel_move(view, 0.02, 11, 1.5)
        assert move in view["legal"]
        game.apply(seat, move)

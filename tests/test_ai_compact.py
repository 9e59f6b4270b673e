"""The compact Oh Hell search state plays by the engine's rules, and samples fairly."""

from __future__ import annotations

import random

import pytest

from games.ai import compact_oh_hell as compact
from games.oh_hell import OhHell


def play_phase(seed: int, deal_size: int) -> OhHell:
    """A 4-player match at the play of deal ``deal_size``, bids made at random."""
    game = OhHell.new(4, seed=seed, dealer=3)
    game.deal_no = deal_size - 1
    game._deal(game.shuffled_deck())
    rng = random.Random(seed)
    while game.phase == "bid":
        game.apply(game.turn, rng.choice(game.legal_actions(game.turn)))
    return game


@pytest.mark.parametrize("seed", range(30))
def test_the_compact_state_follows_the_engine_move_for_move(seed: int) -> None:
    rng = random.Random(seed)
    game = play_phase(seed, 1 + seed % 12)
    for _ in range(rng.randrange(0, 8)):  # start anywhere in the deal
        game.apply(game.turn, rng.choice(game.legal_actions(game.turn)))
        if game.phase != "play":
            return
    view = game.view(game.turn)
    state = compact.from_view(view, game.hands)
    deal_no = game.deal_no
    while True:
        seat = game.turn
        assert state.to_move == seat
        legal = game.legal_actions(seat)
        assert sorted(compact.NAMES[c] for c in state.legal_actions(seat)) == sorted(legal)
        card = rng.choice(legal)
        events = game.apply(seat, card)
        compact_events = state._apply(seat, compact.INDEX[card])
        if game.deal_no != deal_no or game.finished:
            end = next(e for e in events if e["type"] == "deal_end")
            assert state.to_move is None
            assert compact_events[0]["deal_scores"] == end["deal_scores"]
            return
        assert state.won == game.tricks_won
        clone = state.clone()
        assert clone.hands == state.hands and clone.hands is not state.hands


@pytest.mark.parametrize("seed", range(10))
def test_sampled_worlds_keep_the_seats_hand_and_the_voids_it_saw(seed: int) -> None:
    rng = random.Random(seed)
    game = play_phase(seed, 6)
    for _ in range(9):
        game.apply(game.turn, rng.choice(game.legal_actions(game.turn)))
    seat = game.turn
    view = game.view(seat)
    sampler = compact.Sampler(view)
    tricks = [d["cards"] for d in view["history"]] + [view["trick"]]
    gone = {card for plays in tricks for _, card in plays} | {view["trump_card"]}
    from games.tricks import voids_known

    voids = voids_known(4, tricks)
    for _ in range(50):
        world = sampler.sample(rng)
        assert world.hands[seat] == compact.mask_of(view["hand"])
        dealt = [set(compact.NAMES[c] for c in compact.cards_of(h)) for h in world.hands]
        assert [len(h) for h in dealt] == view["hand_sizes"]
        assert not set().union(*dealt) & gone
        for other, hand in enumerate(dealt):
            assert not {c for c in hand if c[1] in voids[other]}
        assert world.won == view["tricks_won"] and world.to_move == seat


@pytest.mark.parametrize("seed", range(12))
def test_the_compact_state_bids_like_the_engine(seed: int) -> None:
    rng = random.Random(seed)
    game = OhHell.new(4, seed=seed, dealer=seed % 4, options={"hook": seed % 2 == 0})
    game.deal_no = seed % 6
    game._deal(game.shuffled_deck())
    state = compact.from_view(game.view(game.turn), game.hands)
    while game.phase == "bid":
        seat = game.turn
        legal = game.legal_actions(seat)
        assert [f"bid:{a - compact.BID}" for a in state.legal_actions(seat)] == legal
        bid = rng.choice(legal)
        game.apply(seat, bid)
        state._apply(seat, compact.BID + int(bid[4:]))
    assert state.bidding == 0 and state.to_move == game.turn
    assert state.bids == game.bids

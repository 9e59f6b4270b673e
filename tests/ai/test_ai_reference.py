"""The bench's hand-written reference (bench/reference.py) plays for its own score.

In Mau-Mau the score is penalty points, so the reference bench/computer.py
plays must go for the fewest: with its last card playable and ``draw``
allowed beside it, it goes out.
"""

from __future__ import annotations

import random

from games.mau_mau import MauMau
from tests.support.bench import bench_module


def last_card_or_draw() -> MauMau:
    """A two-player deal (``draw_when_able``) played at random, seeded, until the
    seat to move holds one card that fits: its moves are that card and ``draw``."""
    game = MauMau.new(2, {"limit": 1000, "draw_when_able": True}, seed=0, dealer=0)
    rng = random.Random(0)
    while True:
        seat = game.to_move
        assert seat is not None and game.deal_no == 0
        legal = game.legal_actions(seat)
        if len(game.hands[seat]) == 1 and legal == [game.hands[seat][0], "draw"]:
            return game
        game.apply(seat, rng.choice(legal))


def test_mau_mau_reference_goes_out_rather_than_draw() -> None:
    reference = bench_module("computer").agent("reference", "mau_mau", {}, 0.2)
    game = last_card_or_draw()
    seat = game.to_move
    assert seat is not None
    assert reference(game, seat, 7) == game.hands[seat][0]

"""📈 Review after a deal, its worlds: drawn as strong draws its own at that decision,
so weighed by the bids, the trumps named and the play (``games.ai.inference``), and
each consistent with the seat's view and nothing more."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable

import pytest

from games import REGISTRY
from games.ai import PLAYBOOKS, Budget, review
from games.ai.compact import SUIT_MASKS, mask_of
from games.ai.inference import Weighted
from games.ai.review import draw_worlds, review_decision
from games.ai.search import world_sampler
from games.base import Game, View
from games.cards import SUITS
from games.king import King
from games.oh_hell import OhHell
from tests.support.inference_deals import (
    bidding,
    ducked,
    eleven_led_to,
    high_cards,
    king_played_by_rule_of_thumb,
    played_by_rule_of_thumb,
    trump_deal,
    two_ten_jack_after_the_stock,
)

Draw = Callable[[random.Random], Game]


def mean_over_worlds(draw: Draw, count: Callable[[Game], int], worlds: int = 400) -> float:
    rng = random.Random(7)
    return statistics.fmean(count(draw(rng)) for _ in range(worlds))


def blind(game_id: str, view: View) -> Draw:
    """The worlds the review drew before it inferred: ``Game.determinize``."""
    return world_sampler(REGISTRY[game_id], view)


def test_the_review_deals_an_opponent_who_bid_0_fewer_high_cards() -> None:
    game = bidding(11, [0, 3, 1])
    view = game.view(3)  # the dealer, the last to bid
    trump = SUITS.index(view["trumps"])

    def high(seat: int) -> Callable[[Game], int]:
        def count(world: Game) -> int:
            assert isinstance(world, OhHell)
            return high_cards(mask_of(world.hands[seat]), trump)

        return count

    reviewed, blindly = draw_worlds("oh_hell", view), blind("oh_hell", view)
    # 400 worlds each: the standard error of either mean is about 0.05
    assert mean_over_worlds(reviewed, high(0)) < mean_over_worlds(blindly, high(0)) - 0.4
    assert mean_over_worlds(reviewed, high(1)) > mean_over_worlds(blindly, high(1)) + 0.4


def test_the_review_deals_the_opponent_who_named_trumps_more_of_them() -> None:
    game = trump_deal(4, "H")  # seat 0's hearts are not his longest suit
    game.apply(0, game.legal_actions(0)[0])
    view = game.view(1)
    hearts = SUIT_MASKS[SUITS.index("H")]

    def trumps(world: Game) -> int:
        assert isinstance(world, King)
        return (mask_of(world.hands[0]) & hearts).bit_count()

    reviewed, blindly = draw_worlds("king", view), blind("king", view)
    assert mean_over_worlds(reviewed, trumps) > mean_over_worlds(blindly, trumps) + 0.5


@pytest.mark.parametrize(
    ("game_id", "deal"),
    [
        ("oh_hell", played_by_rule_of_thumb),
        ("king", king_played_by_rule_of_thumb),
        ("eleven", eleven_led_to),
        ("two_ten_jack", ducked),
        ("two_ten_jack", two_ten_jack_after_the_stock),
    ],
)
def test_a_review_world_shows_the_seat_exactly_its_view(
    game_id: str, deal: Callable[[int], Game | None]
) -> None:
    game = deal(3)
    assert game is not None
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    # Eleven and Two-Ten-Jack: weighed by the play since the last draw, the world's
    # own stock behind the hands (its face-up top on top)
    worlds = PLAYBOOKS[game_id].worlds
    assert worlds is not None and isinstance(worlds(view), Weighted)
    draw = draw_worlds(game_id, view)
    rng = random.Random(1)
    everything = Counter(card for cards in game.card_zones().values() for card in cards)
    for _ in range(40):
        world = draw(rng)
        assert world.view(seat) == view  # the seat's own hand, the play, the hand sizes
        # every card once: none lost, none doubled (the stock holds what no hand does)
        assert Counter(card for cards in world.card_zones().values() for card in cards) == (
            everything
        )


def test_the_review_judges_in_the_worlds_it_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    game = bidding(11, [0, 3, 1])
    view = game.view(3)
    asked: list[str] = []

    def spy(game_id: str, seen: View) -> Draw:
        asked.append(game_id)
        assert seen is view
        return draw_worlds(game_id, seen)

    monkeypatch.setattr(review, "draw_worlds", spy)
    verdict = review_decision("oh_hell", view, view["legal"][0], 5, Budget(playouts=20))
    assert asked == ["oh_hell"]
    assert verdict.worlds == 20

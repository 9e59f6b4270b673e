"""Deals for the inference tests: bids, trumps named, and play by the rule of thumb
(tests/ai/test_ai_inference.py, tests/ai/test_ai_review_worlds.py,
bench/inference_cost.py)."""

from __future__ import annotations

import itertools

from games.ai import choose
from games.ai.compact import INDEX, SUIT_MASKS
from games.cards import RANKS
from games.eleven import Eleven
from games.king import King
from games.oh_hell import OhHell
from games.two_ten_jack import TwoTenJack
from tests.support.moves import seat_to_move


def bidding(seed: int, bids: list[int], size: int = 6) -> OhHell:
    """A 4-player deal of ``size`` cards, dealer 3, seats 0.. having bid ``bids``."""
    game = OhHell.new(4, {"hook": True}, seed=seed, dealer=3)
    game.deal_no = size - 1
    game.dealer = 3
    game._deal(game.shuffled_deck())
    for seat, bid in enumerate(bids):
        game.apply(seat, f"bid:{bid}")
    return game


def high_cards(hand: int, trump: int) -> int:
    """Aces, kings and trumps in a compact hand."""
    high = sum(1 << c for c in range(52) if c % 13 >= 11)
    return (hand & high).bit_count() + (hand & SUIT_MASKS[trump] & ~high).bit_count()


def trump_deal(seed: int, named: str) -> King:
    """A 4-player King trump deal, dealer 3: seat 0 has named ``named`` trumps."""
    game = King.new(4, seed=seed, dealer=3)
    game.deal_no = 6
    game.dealer = 3
    game._deal(game.shuffled_deck())
    game.apply(0, f"trump:{named}")
    return game


def played_by_rule_of_thumb(seed: int, size: int = 8, left: int = 4) -> OhHell:
    """A 4-player deal of ``size`` cards bid and played by easy until the seat to
    move holds ``left`` cards."""
    game = OhHell.new(4, {"hook": True}, seed=seed, dealer=3)
    game.deal_no = size - 1
    game.dealer = 3
    game._deal(game.shuffled_deck())
    moves = 0
    while game.phase == "bid" or len(game.hands[seat_to_move(game)]) > left:
        seat = seat_to_move(game)
        game.apply(seat, choose("oh_hell", game.view(seat), "easy", moves))
        moves += 1
    return game


def king_played_by_rule_of_thumb(seed: int, tricks: int = 4) -> King:
    """A King match's first deal played by easy until ``tricks`` tricks are done
    and the seat to move has a choice."""
    game = King.new(4, seed=seed, dealer=0)
    moves = 0
    while len(game.history) < tricks or len(game.legal_actions(seat_to_move(game))) < 2:
        seat = seat_to_move(game)
        game.apply(seat, choose("king", game.view(seat), "easy", moves))
        moves += 1
    return game


def eleven_led_to(seed: int, low: bool = True) -> Eleven:
    """An Eleven deal played by easy until, with the stock still there, the
    seat to move answers the opponent's lead — a card that is no master of
    its suit (``low``) or one that is."""
    game = Eleven.new(2, seed=seed, dealer=1)
    moves = 0
    while True:
        seat = seat_to_move(game)
        if game.trick and game.stock and _is_master(game, game.trick[0][1]) != low:
            return game
        game.apply(seat, choose("eleven", game.view(seat), "easy", moves))
        moves += 1


def _is_master(game: Eleven, card: str) -> bool:
    """True if no card above ``card`` in its suit is unplayed outside its leader's hand."""
    leader = game.trick[0][0]
    played = {c for done in game.history for _, c in done["cards"]} | {card}
    above = [r + card[1] for r in RANKS[: RANKS.index(card[0])]]
    return all(c in played or c in game.hands[leader] for c in above)


def ducked(seed: int) -> TwoTenJack | None:
    """A 3-player Two-Ten-Jack deal played by easy until, with the stock still
    there, the second player followed a plain lead with a lower card of its
    suit; None if no such trick comes."""
    game = TwoTenJack.new(3, seed=seed, dealer=0)
    for moves in itertools.count():
        trick = game.trick
        if not game.stock:
            return None
        if len(trick) == 2 and trick[0][1] != "AS" and trick[0][1][1] != "H":
            (_, lead), (_, follow) = trick
            if follow[1] == lead[1] and INDEX[follow] < INDEX[lead]:
                return game
        seat = seat_to_move(game)
        game.apply(seat, choose("two_ten_jack", game.view(seat), "easy", moves))
    return None


def two_ten_jack_after_the_stock(seed: int) -> TwoTenJack:
    """A 4-player Two-Ten-Jack deal played by easy until, the stock gone, the seat
    to move holds 3 cards or fewer and follows."""
    game = TwoTenJack.new(4, seed=seed, dealer=0)
    for moves in itertools.count():
        seat = seat_to_move(game)
        if not game.stock and len(game.hands[seat]) <= 3 and game.trick:
            return game
        game.apply(seat, choose("two_ten_jack", game.view(seat), "easy", moves))
    raise AssertionError("unreachable")

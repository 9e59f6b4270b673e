"""Eleven's rules (docs/rules.md#eleven): deal, the two phases, figure scoring, draws, match end."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, IllegalAction
from games.cards import sort_hand
from games.eleven import Eleven

FIGURES = {rank + suit for rank in "AKQJT" for suit in "SHDC"}

#: Dealer 0: packets of two to seat 1, seat 0, three times; then the stock.
HAND_1 = ["AS", "KS", "AH", "KH", "AD", "KD"]
HAND_0 = ["7S", "8S", "7H", "8H", "7D", "8D"]
STOCK = [
    "QS", "JS", "TS", "9S", "QH", "JH", "TH", "9H", "QD", "JD",
    "TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C",
]  # fmt: skip


def stacked() -> list[str]:
    deck: list[str] = []
    for packet in range(3):
        deck += HAND_1[2 * packet : 2 * packet + 2] + HAND_0[2 * packet : 2 * packet + 2]
    return deck + STOCK


def new_game(**options: Any) -> Eleven:
    game = REGISTRY["eleven"].new(2, options, seed=5, dealer=0, deck=stacked())
    assert isinstance(game, Eleven)
    return game


def rig_last_trick(game: Eleven, figures: list[int], cards: list[str]) -> None:
    """Put the deal at its 16th trick: one card each, ``figures`` already taken."""
    game.hands = [[cards[0]], [cards[1]]]
    game.stock = []
    game.trick = []
    game.history = [{"cards": [], "winner": 0}] * 15
    game.figures = list(figures)
    game.turn = 0


def finish_rigged_deal(game: Eleven, figures: list[int]) -> list[dict[str, Any]]:
    """Play a last trick of two non-figures, seat 1 winning it."""
    rig_last_trick(game, figures, ["7C", "8C"])
    return game.apply(0, "7C") + game.apply(1, "8C")


# ---------------------------------------------------------------- dealing


def test_packets_of_two_non_dealer_first_and_the_stock_in_order() -> None:
    game = new_game()
    assert game.hands[1] == sort_hand(HAND_1)
    assert game.hands[0] == sort_hand(HAND_0)
    assert game.stock == STOCK
    assert game.view(0)["stock"] == 20


def test_non_dealer_leads_unless_dealer_leads_is_set() -> None:
    assert new_game().to_move == 1
    assert new_game(dealer_leads=True).to_move == 0


def test_dealer_alternates() -> None:
    game = new_game()
    finish_rigged_deal(game, [11, 9])
    assert game.dealer == 1
    assert game.to_move == 0


# ---------------------------------------------------------------- phase 1


def test_phase_one_any_card_may_be_played() -> None:
    game = new_game()
    game.apply(1, "AS")
    assert sorted(game.legal_actions(0)) == sorted(HAND_0)


def test_phase_one_off_suit_card_never_wins() -> None:
    game = new_game(dealer_leads=True)
    game.apply(0, "7S")
    events = game.apply(1, "AH")
    trick = next(e for e in events if e["type"] == "trick")
    assert trick["winner"] == 0


def test_higher_card_of_the_suit_led_wins_and_its_winner_draws_first() -> None:
    game = new_game()
    game.apply(1, "KS")
    events = game.apply(0, "8S")
    assert [e["seat"] for e in events if e["type"] == "draw"] == [1, 0]
    assert "QS" in game.hands[1] and "JS" in game.hands[0]
    assert game.to_move == 1
    assert game.view(0)["stock"] == 18
    assert all("card" not in e for e in events if e["type"] == "draw")


def test_hands_and_buttons_stay_sorted_by_suit_then_rank_after_draws() -> None:
    game = new_game()
    game.apply(1, "KS")
    game.apply(0, "8S")
    assert game.hands[1] == ["AS", "QS", "AH", "KH", "AD", "KD"]
    assert game.hands[0] == ["JS", "7S", "8H", "7H", "8D", "7D"]
    assert game.legal_actions(1) == game.hands[1]


# ---------------------------------------------------------------- phase 2


def play_out_phase_one(game: Eleven) -> None:
    """Ten tricks of whatever comes first in hand."""
    for _ in range(20):
        seat = game.to_move
        assert seat is not None
        game.apply(seat, game.legal_actions(seat)[0])
    assert game.view(None)["stock"] == 0


def rig_phase_two(game: Eleven, hands: list[list[str]]) -> None:
    """Put the deal in phase 2 (stock empty) with ``hands``, seat 0 to lead."""
    game.hands = hands
    game.stock = []
    game.trick = []
    game.history = [{"cards": [], "winner": 0}] * (16 - len(hands[0]))
    game.turn = 0


def test_phase_two_must_follow_suit_but_need_not_beat() -> None:
    game = new_game()
    rig_phase_two(game, [["9S", "KD", "7C"], ["7S", "AS", "QH"]])
    game.apply(0, "9S")
    assert sorted(game.legal_actions(1)) == ["7S", "AS"]


def test_phase_two_refuses_a_revoke_and_changes_nothing() -> None:
    game = new_game()
    play_out_phase_one(game)
    leader = game.to_move
    assert leader is not None
    follower = 1 - leader
    led = game.hands[leader][0]
    game.apply(leader, led)
    holding = [c for c in game.hands[follower] if c[1] == led[1]]
    other = [c for c in game.hands[follower] if c[1] != led[1]]
    if not holding or not other:
        pytest.skip("this deal gives no revoke to try")  # pragma: no cover
    before = game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        game.apply(follower, other[0])
    assert refused.value.reason == "must_follow_suit"
    assert game.to_dict() == before


def test_the_tenth_trick_is_still_free_and_the_eleventh_must_follow() -> None:
    game = new_game()
    rig_phase_two(game, [["9S", "KD", "8D"], ["QS", "7S", "AH"]])
    game.stock = ["8C", "7C"]
    game.history = [{"cards": [], "winner": 0}] * 9
    game.apply(0, "9S")
    assert game.legal_actions(1) == ["QS", "7S", "AH"]  # the stock is not empty yet: no duty
    events = game.apply(1, "AH")
    assert [e["seat"] for e in events if e["type"] == "draw"] == [0, 1]
    assert game.stock == [] and game.hands == [["KD", "8D", "8C"], ["QS", "7S", "7C"]]
    game.apply(0, "8C")
    assert game.legal_actions(1) == ["7C"]


def test_phase_two_void_may_play_any_card() -> None:
    game = new_game()
    rig_phase_two(game, [["9S", "7D"], ["KH", "JC"]])
    game.apply(0, "9S")
    assert sorted(game.legal_actions(1)) == ["JC", "KH"]


def test_refusals_name_the_reason() -> None:
    game = new_game()
    with pytest.raises(IllegalAction) as not_held:
        game.apply(1, "7C")
    assert not_held.value.reason == "not_in_hand"
    with pytest.raises(IllegalAction) as nonsense:
        game.apply(1, "bid:3")
    assert nonsense.value.reason == "unknown_action"
    with pytest.raises(IllegalAction) as wrong_turn:
        game.apply(0, "7S")
    assert wrong_turn.value.reason == "not_your_turn"


# ---------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    ("figures", "points"),
    [(11, 1), (12, 1), (13, 1), (14, 2), (15, 2), (16, 3), (17, 3), (18, 4), (19, 4), (20, 5)],
)
def test_figure_table(figures: int, points: int) -> None:
    game = new_game()
    events = finish_rigged_deal(game, [20 - figures, figures])
    deal_end = next(e for e in events if e["type"] == "deal_end")
    assert deal_end["deal_scores"] == [0, points]
    assert game.scores == [0, points]


def test_ten_ten_is_a_draw_doubling_the_next_decisive_deal_then_reset() -> None:
    game = new_game()
    first = finish_rigged_deal(game, [10, 10])
    assert next(e for e in first if e["type"] == "deal_end")["deal_scores"] == [0, 0]
    assert game.scores == [0, 0]
    assert game.view(0)["multiplier"] == 2
    finish_rigged_deal(game, [10, 10])
    assert game.scores == [0, 0]
    assert game.view(0)["multiplier"] == 4
    third = finish_rigged_deal(game, [9, 11])
    deal_end = next(e for e in third if e["type"] == "deal_end")
    assert deal_end["multiplier"] == 4
    assert deal_end["deal_scores"] == [0, 4]
    assert game.view(0)["multiplier"] == 1
    finish_rigged_deal(game, [9, 11])
    assert game.scores == [0, 5]


def test_single_draw_doubles() -> None:
    game = new_game(target=50)
    finish_rigged_deal(game, [10, 10])
    finish_rigged_deal(game, [6, 14])
    assert game.scores == [0, 4]


def test_match_ends_when_target_is_reached() -> None:
    game = new_game(target=3)
    game.scores = [2, 2]
    events = finish_rigged_deal(game, [9, 11])
    assert game.finished
    assert game.result == {"scores": [2, 3], "winners": [1]}
    assert events[-1] == {"type": "match_end", "scores": [2, 3], "winners": [1]}
    assert game.to_move is None


def test_a_draw_never_ends_the_match_and_only_one_seat_scores() -> None:
    game = new_game(target=3)
    game.scores = [2, 2]
    finish_rigged_deal(game, [10, 10])
    assert not game.finished and game.scores == [2, 2]
    finish_rigged_deal(game, [11, 9])
    assert game.result == {"scores": [4, 2], "winners": [0]}


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(
    "options",
    [{"target": 0}, {"target": 51}, {"target": "5"}, {"dealer_leads": "yes"}, {"trumps": "H"}],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions):
        REGISTRY["eleven"].new(2, options)


@pytest.mark.parametrize("players", [1, 3, 4])
def test_only_two_players(players: int) -> None:
    with pytest.raises(BadOptions) as refused:
        REGISTRY["eleven"].new(players)
    assert refused.value.option == "players"


def test_defaults() -> None:
    assert new_game().options == {"target": 5, "dealer_leads": False}


# ---------------------------------------------------------------- seeing


def test_view_hides_the_other_hand_and_the_stock() -> None:
    game = new_game()
    view = game.view(0)
    assert view["hand"] == sort_hand(HAND_0)
    assert view["hand_sizes"] == [6, 6]
    shown = json.dumps(view)
    assert not [card for card in HAND_1 + STOCK if f'"{card}"' in shown]
    assert game.hidden_cards(0) == set(HAND_1) | set(STOCK)
    assert view["phase"] == "play" and view["multiplier"] == 1


def test_history_and_figures_taken_are_public() -> None:
    game = new_game()
    game.apply(1, "AS")
    game.apply(0, "7S")
    view = game.view(None)
    assert view["history"] == [{"cards": [[1, "AS"], [0, "7S"]], "winner": 1}]
    assert view["last_trick"] == view["history"][0]
    assert view["deal_points"] == [0, 1]
    assert view["tricks_won"] == [0, 1]


def test_determinize_in_phase_two_gives_the_opponent_exactly_the_unseen_cards() -> None:
    game = new_game()
    play_out_phase_one(game)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    sample = Eleven.determinize(view, random.Random(3))
    assert sample.view(seat) == view
    assert sorted(sample.hands[1 - seat]) == sorted(game.hands[1 - seat])


# ---------------------------------------------------------------- properties


def play_match(seed: int, target: int) -> list[dict[str, Any]]:
    """Random legal play to the end of a match; returns every event."""
    rng = random.Random(seed)
    game = REGISTRY["eleven"].new(2, {"target": target}, seed=seed)
    events: list[dict[str, Any]] = []
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
    return events


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), target=st.sampled_from([1, 3, 5]))
def test_random_matches_score_by_the_rules(seed: int, target: int) -> None:
    events = play_match(seed, target)
    multiplier = 1
    scores = [0, 0]
    taken = [0, 0]
    for event in events:
        if event["type"] == "trick":
            taken[event["winner"]] += sum(card in FIGURES for _, card in event["cards"])
        if event["type"] != "deal_end":
            continue
        assert event["figures"] == taken and sum(taken) == 20
        assert sum(event["tricks"]) == 16
        assert event["multiplier"] == multiplier
        table = {11: 1, 12: 1, 13: 1, 14: 2, 15: 2, 16: 3, 17: 3, 18: 4, 19: 4, 20: 5}
        expected = [table.get(f, 0) * multiplier for f in taken]
        assert event["deal_scores"] == expected
        multiplier = 1 if any(expected) else multiplier * 2
        scores = [a + b for a, b in zip(scores, expected, strict=True)]
        assert event["scores"] == scores
        taken = [0, 0]
    end = events[-1]
    assert end["type"] == "match_end"
    assert max(end["scores"]) >= target
    assert end["winners"] == [s for s in (0, 1) if end["scores"][s] >= target]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_determinized_samples_match_the_view(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    game = REGISTRY["eleven"].new(2, seed=seed)
    for _ in range(steps):
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.finished:  # a first deal of all 20 figures ends a match to 5
            return
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    sample = Eleven.determinize(view, rng)
    assert sample.view(seat) == view
    placed = [card for zone in sample.card_zones().values() for card in zone]
    assert sorted(placed) == sorted(game.deck_cards())

"""Two-Ten-Jack's rules (docs/rules.md#two-ten-jack): deck, deal, the A♠, values, match end."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, IllegalAction
from games.cards import sort_hand
from games.two_ten_jack import TwoTenJack, _drawn_in_time, _fits, _voids

VALUES = {
    "2H": 10, "TH": 10, "JH": 10, "AH": 5, "KH": 5, "QH": 5,
    "AD": 1, "KD": 1, "QD": 1, "JD": 1,
    "2S": -10, "TS": -10, "JS": -10, "AS": -5, "KS": -5, "QS": -5,
}  # fmt: skip


def new_game(players: int = 2, **options: Any) -> TwoTenJack:
    game = REGISTRY["two_ten_jack"].new(players, options, seed=11, dealer=0)
    assert isinstance(game, TwoTenJack)
    return game


def rig(
    game: TwoTenJack, hands: list[list[str]], leader: int, stock: list[str] | None = None
) -> None:
    """Set the hands (and stock) with ``leader`` to lead a fresh trick."""
    game.hands = [list(hand) for hand in hands]
    game.known = [[] for _ in hands]
    game.stock = list(stock or [])
    game.trick = []
    game.led = None
    game.turn = leader


def play(game: TwoTenJack, *moves: tuple[int, str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for seat, action in moves:
        events += game.apply(seat, action)
    return events


def trick_winner(events: list[dict[str, Any]]) -> int:
    return int(next(e for e in events if e["type"] == "trick")["winner"])


# ---------------------------------------------------------------- deck and deal


@pytest.mark.parametrize(("players", "size"), [(2, 52), (3, 51), (4, 52)])
def test_deck_size(players: int, size: int) -> None:
    game = new_game(players)
    deck = game.deck_cards()
    assert len(deck) == size == len(set(deck))
    assert ("3C" in deck) == (players != 3)


def test_three_player_deal_conserves_51_cards() -> None:
    game = new_game(3)
    placed = [card for zone in game.card_zones().values() for card in zone]
    assert len(placed) == 51 and "3C" not in placed
    assert game.view(None)["stock"] == 51 - 18


def test_one_card_at_a_time_from_the_dealers_left() -> None:
    deck = sorted(new_game(3).deck_cards())
    game = REGISTRY["two_ten_jack"].new(3, seed=1, dealer=1, deck=deck)
    assert isinstance(game, TwoTenJack)
    # seat 2 (dealer's left) gets the 1st, 4th, … card; seat 0 the 2nd, seat 1 the 3rd
    assert game.hands[2] == sort_hand(deck[0:18:3], "H")
    assert game.hands[0] == sort_hand(deck[1:18:3], "H")
    assert game.hands[1] == sort_hand(deck[2:18:3], "H")
    assert game.stock == deck[18:]
    assert game.to_move == 2


def test_face_up_stock_shows_its_top_and_drawn_cards_are_known() -> None:
    game = new_game()
    top, second = game.stock[0], game.stock[1]
    assert game.view(1)["stock_top"] == top
    leader = game.to_move
    assert leader is not None
    events = play(game, (leader, game.legal_actions(leader)[0]))
    follower = 1 - leader
    events += play(game, (follower, game.legal_actions(follower)[0]))
    winner = trick_winner(events)
    draws = [e for e in events if e["type"] == "draw"]
    assert draws == [
        {"type": "draw", "seat": winner, "card": top},
        {"type": "draw", "seat": 1 - winner, "card": second},
    ]
    known = game.view(None)["known_cards"]
    assert known[winner] == [top] and known[1 - winner] == [second]
    assert top not in game.hidden_cards(1 - winner)


def test_face_down_stock_is_secret() -> None:
    game = new_game(stock_face_up=False)
    top = game.stock[0]
    assert game.view(0)["stock_top"] is None
    leader = game.to_move
    assert leader is not None
    events = play(game, (leader, game.legal_actions(leader)[0]))
    events += play(game, (1 - leader, game.legal_actions(1 - leader)[0]))
    assert all("card" not in e for e in events if e["type"] == "draw")
    assert game.view(None)["known_cards"] == [[], []]
    assert top in game.hidden_cards(1 - trick_winner(events))


def test_winner_draws_first_then_the_others_clockwise() -> None:
    game = new_game(4)
    rig(game, [["9C"], ["KC"], ["2C"], ["3C"]], 0, stock=["4D", "5D", "6D", "7D"])
    events = play(game, (0, "9C"), (1, "KC"), (2, "2C"), (3, "3C"))
    assert [e["seat"] for e in events if e["type"] == "draw"] == [1, 2, 3, 0]
    assert game.hands == [["7D"], ["4D"], ["5D"], ["6D"]]
    assert game.to_move == 1


def test_three_players_the_winner_draws_first_then_clockwise() -> None:
    game = new_game(3)
    rig(game, [["9C"], ["KC"], ["AC"]], 0, stock=["4D", "5D", "6D", "7D"])
    events = play(game, (0, "9C"), (1, "KC"), (2, "AC"))
    assert [e["seat"] for e in events if e["type"] == "draw"] == [2, 0, 1]
    assert game.hands == [["5D"], ["6D"], ["4D"]] and game.stock == ["7D"]
    assert game.to_move == 2


def test_hands_sorted_trumps_first_and_drawn_cards_slot_in() -> None:
    game = new_game()
    rig(game, [["9C", "2D"], ["KC", "3D"]], 0, stock=["5H", "AS"])
    events = play(game, (0, "9C"), (1, "KC"))
    assert trick_winner(events) == 1
    assert game.hands == [["AS", "2D"], ["5H", "3D"]]


def test_lead_buttons_keep_hand_order_with_the_spade_ace_declared_in_place() -> None:
    game = new_game()
    rig(game, [["KH", "AS", "2S", "3C"], ["9S"]], 0)
    assert game.legal_actions(0) == ["KH", "AS:spade", "AS:trump", "2S", "3C"]


# ---------------------------------------------------------------- following and the A♠


def test_hearts_led_a_spade_ace_may_replace_a_heart() -> None:
    game = new_game()
    rig(game, [["5H", "2C"], ["9H", "AS", "KC"]], 0)
    game.apply(0, "5H")
    assert sorted(game.legal_actions(1)) == ["9H", "AS"]


def test_hearts_led_and_no_heart_the_spade_ace_must_be_played() -> None:
    game = new_game()
    rig(game, [["5H", "2C"], ["AS", "KC", "4S"]], 0)
    game.apply(0, "5H")
    assert game.legal_actions(1) == ["AS"]
    before = game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, "KC")
    assert refused.value.reason == "must_follow_suit"
    assert game.to_dict() == before


def test_spades_led_the_spade_ace_or_another_spade() -> None:
    game = new_game()
    rig(game, [["5S", "2C"], ["9S", "AS", "KH"]], 0)
    game.apply(0, "5S")
    assert sorted(game.legal_actions(1)) == ["9S", "AS"]


def test_spades_led_the_spade_ace_as_only_spade_must_be_played() -> None:
    game = new_game()
    rig(game, [["5S", "2C"], ["AS", "KH", "3D"]], 0)
    game.apply(0, "5S")
    assert game.legal_actions(1) == ["AS"]
    events = game.apply(1, "AS")
    assert trick_winner(events) == 1


@pytest.mark.parametrize("led", ["7C", "7D"])
def test_minor_suit_led_and_void_the_spade_ace_is_a_trump(led: str) -> None:
    game = new_game()
    rig(game, [[led, "2C"], ["AS", "3H", "KS", "4C" if led == "7D" else "4D"]], 0)
    game.apply(0, led)
    assert sorted(game.legal_actions(1)) == ["3H", "AS"]
    before = game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, "KS")
    assert refused.value.reason == "must_trump"
    assert game.to_dict() == before


def test_minor_suit_led_the_only_trump_is_the_spade_ace() -> None:
    game = new_game()
    rig(game, [["7C", "2C"], ["AS", "KS", "4D"]], 0)
    game.apply(0, "7C")
    assert game.legal_actions(1) == ["AS"]


def test_minor_suit_held_the_spade_ace_may_not_be_played() -> None:
    game = new_game()
    rig(game, [["7C", "2C"], ["AS", "9C", "3H"]], 0)
    game.apply(0, "7C")
    assert game.legal_actions(1) == ["9C"]
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, "AS")
    assert refused.value.reason == "must_follow_suit"


def test_no_suit_and_no_trump_any_card() -> None:
    game = new_game()
    rig(game, [["7C", "2C"], ["KS", "4D", "9S"]], 0)
    game.apply(0, "7C")
    assert sorted(game.legal_actions(1)) == ["4D", "9S", "KS"]


def test_leading_the_spade_ace_needs_a_declaration() -> None:
    game = new_game()
    rig(game, [["AS", "2C"], ["9S", "KH"]], 0)
    legal = game.legal_actions(0)
    assert "AS" not in legal and {"AS:spade", "AS:trump"} <= set(legal)
    before = game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        game.apply(0, "AS")
    assert refused.value.reason == "must_declare"
    assert game.to_dict() == before


def test_spade_ace_led_as_spade_is_followed_in_spades() -> None:
    game = new_game()
    rig(game, [["AS", "2C"], ["9S", "KH", "AH"]], 0)
    events = game.apply(0, "AS:spade")
    assert events[0] == {"type": "play", "seat": 0, "card": "AS", "declared": "spade"}
    assert game.view(1)["led"] == "S"
    assert game.legal_actions(1) == ["9S"]
    assert trick_winner(game.apply(1, "9S")) == 0


def test_spade_ace_led_as_trump_is_followed_in_hearts() -> None:
    game = new_game()
    rig(game, [["AS", "2C"], ["9S", "KH", "AH"]], 0)
    game.apply(0, "AS:trump")
    assert game.view(1)["led"] == "H"
    assert sorted(game.legal_actions(1)) == ["AH", "KH"]
    assert trick_winner(game.apply(1, "AH")) == 0
    assert game.history[-1]["led"] == "H"


def test_a_declaration_when_following_is_refused() -> None:
    game = new_game()
    rig(game, [["5S", "2C"], ["AS", "KH"]], 0)
    game.apply(0, "5S")
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, "AS:trump")
    assert refused.value.reason == "must_declare"


# ---------------------------------------------------------------- trick winner


def test_spade_ace_beats_the_ace_of_hearts() -> None:
    game = new_game(3)
    rig(game, [["AH"], ["AS"], ["2H"]], 0)
    assert trick_winner(play(game, (0, "AH"), (1, "AS"), (2, "2H"))) == 1


def test_highest_heart_trumps_the_suit_led() -> None:
    game = new_game(3)
    rig(game, [["AC"], ["3H"], ["5H"]], 0)
    assert trick_winner(play(game, (0, "AC"), (1, "3H"), (2, "5H"))) == 2


def test_highest_of_the_suit_led_when_no_trump() -> None:
    game = new_game(3)
    rig(game, [["9D"], ["KD"], ["AC"]], 0)
    assert trick_winner(play(game, (0, "9D"), (1, "KD"), (2, "AC"))) == 1


# ---------------------------------------------------------------- scoring and match end


def test_deal_score_is_the_sum_of_card_values_taken() -> None:
    game = new_game()
    rig(game, [["2H", "JS"], ["3C", "QD"]], 0)
    events = play(game, (0, "2H"), (1, "3C"), (0, "JS"), (1, "QD"))
    deal_end = next(e for e in events if e["type"] == "deal_end")
    assert deal_end["deal_scores"] == [10 - 10 + 1, 0]
    assert game.scores == [1, 0]


def finish_with(game: TwoTenJack, scores: list[int], gains: list[int]) -> list[dict[str, Any]]:
    """End a deal where each seat's own last trick is worth ``gains`` (via the deal points)."""
    game.scores = list(scores)
    game.points = list(gains)
    players = game.players
    rig(game, [[f"{rank}C"] for rank in "98765432"[:players]], 0)
    return play(game, *((seat, f"{'98765432'[seat]}C") for seat in range(players)))


def test_first_to_reach_the_target_wins() -> None:
    game = new_game(3)
    events = finish_with(game, [20, 10, 0], [5, 0, 0])
    assert game.finished
    assert game.result == {"scores": [25, 10, 0], "winners": [0]}
    assert events[-1]["type"] == "match_end"


def test_several_reach_it_the_highest_wins() -> None:
    game = new_game(3)
    finish_with(game, [20, 24, 0], [10, 1, 0])
    assert game.result == {"scores": [30, 25, 0], "winners": [0]}


def test_an_equal_top_total_plays_another_deal() -> None:
    game = new_game(3)
    deal = game.deal_no
    events = finish_with(game, [20, 24, 0], [6, 2, 0])
    assert not game.finished
    assert game.scores == [26, 26, 0]
    assert game.deal_no == deal + 1
    assert all(e["type"] != "match_end" for e in events)
    finish_with(game, [26, 26, 0], [0, 1, 0])
    assert game.result == {"scores": [26, 27, 0], "winners": [1]}


def test_below_target_plays_on() -> None:
    game = new_game(2)
    finish_with(game, [20, -30], [4, 0])
    assert not game.finished and game.scores == [24, -30]


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(
    "options",
    [{"target": 0}, {"target": 501}, {"target": 2.5}, {"stock_face_up": "no"}, {"trumps": "S"}],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions):
        REGISTRY["two_ten_jack"].new(2, options)


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players: int) -> None:
    with pytest.raises(BadOptions) as refused:
        REGISTRY["two_ten_jack"].new(players)
    assert refused.value.option == "players"


def test_defaults() -> None:
    assert new_game().options == {"target": 25, "stock_face_up": True}


# ---------------------------------------------------------------- seeing


def test_view_hides_other_hands_and_the_stock_below_its_top() -> None:
    game = new_game(3)
    shown = json.dumps(game.view(0))
    assert not [card for card in game.hidden_cards(0) if f'"{card}"' in shown]
    assert game.hidden_cards(0) == set(game.hands[1] + game.hands[2] + game.stock[1:])
    assert game.view(0)["trumps"] == "H"


# ---------------------------------------------------------------- properties


def random_match(seed: int, players: int, face_up: bool) -> tuple[TwoTenJack, list[Any]]:
    rng = random.Random(seed)
    options = {"target": 10, "stock_face_up": face_up}
    game = REGISTRY["two_ten_jack"].new(players, options, seed=seed)
    assert isinstance(game, TwoTenJack)
    events: list[Any] = []
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game, events


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), face_up=st.booleans())
def test_random_matches_score_by_the_card_values(seed: int, players: int, face_up: bool) -> None:
    game, events = random_match(seed, players, face_up)
    taken = [0] * players
    totals = [0] * players
    for event in events:
        if event["type"] == "trick":
            taken[event["winner"]] += sum(VALUES.get(card, 0) for _, card in event["cards"])
        elif event["type"] == "deal_end":
            assert event["deal_scores"] == taken
            assert sum(taken) == 4  # every deal's cards are worth +4 in all
            totals = [a + b for a, b in zip(totals, taken, strict=True)]
            assert event["scores"] == totals
            taken = [0] * players
    top = max(totals)
    assert top >= 10 and totals.count(top) == 1
    assert game.result == {"scores": totals, "winners": [totals.index(top)]}


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), face_up=st.booleans())
def test_shown_voids_are_true_and_samples_respect_them(
    seed: int, players: int, face_up: bool
) -> None:
    rng = random.Random(seed)
    game = REGISTRY["two_ten_jack"].new(players, {"stock_face_up": face_up}, seed=seed)
    assert isinstance(game, TwoTenJack)
    for _ in range(rng.randrange(10, 80)):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        lacking, since = _voids(view)
        for other in range(players):
            unknown = [c for c in game.hands[other] if c not in game.known[other]]
            if other != seat:
                assert all(_fits(card, lacking[other]) for card in unknown)
                assert _drawn_in_time(unknown, since[other])
        sample = TwoTenJack.determinize(view, rng)
        assert sample.view(seat) == view
        for other in range(players):
            if other != seat:
                unknown = [c for c in sample.hands[other] if c not in sample.known[other]]
                assert all(_fits(card, lacking[other]) for card in unknown)
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.finished:
            break

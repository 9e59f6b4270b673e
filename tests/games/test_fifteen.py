"""Fifteen's rules (docs/rules.md#fifteen): antes, turns, hidden busts, showdown, match end."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, IllegalAction
from games.cards import is_card, make_deck
from games.fifteen import Fifteen, total, value


def new_game(top: list[str], **options: Any) -> Fifteen:
    """Dealer 0, so seat 1 (the non-dealer) gets ``top[0]``, the dealer ``top[1]``,
    and the stock starts with ``top[2:]``."""
    rest = [card for card in make_deck(52) if card not in top]
    game = REGISTRY["fifteen"].new(2, options, seed=3, dealer=0, deck=top + rest)
    assert isinstance(game, Fifteen)
    return game


def refused(game: Fifteen, seat: int, action: str) -> str:
    before = game.to_dict()
    with pytest.raises(IllegalAction) as error:
        game.apply(seat, action)
    assert game.to_dict() == before
    return error.value.reason


def play(game: Fifteen, *moves: tuple[int, str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for seat, action in moves:
        events += game.apply(seat, action)
    return events


def cards_in(data: object) -> set[str]:
    text = repr(data)
    return {token for token in text.replace("'", " ").split() if is_card(token)}


# ---------------------------------------------------------------- dealing


def test_values() -> None:
    assert [value(c) for c in ("AS", "KH", "QD", "JC", "TS", "9H", "2D")] == [
        1, 10, 10, 10, 10, 9, 2,
    ]  # fmt: skip
    assert total(["AS", "5H", "9D"]) == 15


def test_both_ante_one_card_each_non_dealer_first() -> None:
    game = new_game(["5S", "9H", "2C"])
    assert game.hands == [["9H"], ["5S"]]
    assert game.stock[0] == "2C" and len(game.stock) == 50
    assert game.chips == [18, 18] and game.pot == 4 and game.scores == [18, 18]
    assert game.to_move == 1
    view = game.view(1)
    assert view["hand"] == ["5S"] and view["total"] == 5
    assert view["pot"] == 4 and view["chips"] == [18, 18] and view["drawn"] == [0, 0]


def test_bad_tables() -> None:
    with pytest.raises(BadOptions) as error:
        REGISTRY["fifteen"].new(2, {"chips": 3, "stake": 5})
    assert error.value.option == "stake"
    for players in (1, 3):
        with pytest.raises(BadOptions):
            REGISTRY["fifteen"].new(players)


# ---------------------------------------------------------------- standing


def test_stand_only_after_a_draw_on_a_low_first_card() -> None:
    game = new_game(["5S", "9H", "2C"])
    assert game.legal_actions(1) == ["draw"]
    assert refused(game, 1, "stand") == "must_draw"
    assert refused(game, 0, "draw") == "not_your_turn"
    assert refused(game, 1, "hit") == "unknown_action"
    assert game.apply(1, "draw") == [{"type": "draw", "seat": 1}]
    assert game.legal_actions(1) == ["draw", "stand"]


def test_stand_at_once_on_a_ten_value_card() -> None:
    game = new_game(["QS", "9H"])
    assert game.legal_actions(1) == ["draw", "stand"]
    assert game.apply(1, "stand") == [{"type": "stand", "seat": 1}]
    assert game.to_move == 0 and game.legal_actions(0) == ["draw"]


def test_stand_on_any_card() -> None:
    game = new_game(["5S", "9H"], stand_on_any_card=True)
    assert game.legal_actions(1) == ["draw", "stand"]
    game.apply(1, "stand")
    assert game.legal_actions(0) == ["draw", "stand"]


def test_the_dealer_plays_by_the_same_rules() -> None:
    game = new_game(["QS", "KH", "2C"])
    game.apply(1, "stand")
    assert game.legal_actions(0) == ["draw", "stand"]
    game = new_game(["QS", "4H", "2C"])
    game.apply(1, "stand")
    assert game.legal_actions(0) == ["draw"]


# ---------------------------------------------------------------- hidden bust


def test_going_over_fifteen_leaves_only_stand() -> None:
    game = new_game(["9S", "2H", "8C"])
    game.apply(1, "draw")
    assert total(game.hands[1]) == 17
    assert game.legal_actions(1) == ["stand"]
    assert refused(game, 1, "draw") == "turn_over"


def test_the_dealer_is_not_told_of_a_bust() -> None:
    bust = new_game(["9S", "2H", "8C", "3D"])  # the non-dealer goes to 17
    safe = new_game(["9D", "2H", "5C", "3D"])  # the non-dealer stops at 14
    for game in (bust, safe):
        play(game, (1, "draw"), (1, "stand"))
    assert bust.view(0) == safe.view(0)
    assert not cards_in(bust.view(0)) & set(bust.hands[1])
    assert bust.view(0)["drawn"] == [0, 1] and bust.view(0)["stood"] == [False, True]
    play(bust, (0, "draw"))  # the dealer draws on; still nothing told
    play(safe, (0, "draw"))
    assert bust.view(0) == safe.view(0)
    assert not cards_in(bust.view(0)) & set(bust.hands[1])


# ---------------------------------------------------------------- showdown


def test_nearer_fifteen_takes_the_pot() -> None:
    game = new_game(["9S", "TH", "5C", "4D"])
    events = play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    showdown = next(e for e in events if e["type"] == "showdown")
    assert showdown == {
        "type": "showdown",
        "hands": [["TH", "4D"], ["9S", "5C"]],
        "totals": [14, 14],
        "winner": None,
        "pot": 4,
        "carried": True,
    }
    game = new_game(["9S", "TH", "5C", "3D"])
    events = play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    showdown = next(e for e in events if e["type"] == "showdown")
    assert showdown["totals"] == [13, 14] and showdown["winner"] == 1
    assert game.view(0)["last_showdown"]["winner"] == 1
    # winner took 4; both ante 2 for the next deal
    assert game.chips == [16, 20] and game.pot == 4


def test_one_bust_the_other_wins() -> None:
    game = new_game(["9S", "TH", "8C", "2D"])
    play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert game.last_showdown is not None
    assert game.last_showdown["totals"] == [12, 17] and game.last_showdown["winner"] == 0
    assert game.chips == [20, 16]


def test_double_bust_carries_the_pot_and_both_ante_again() -> None:
    game = new_game(["9S", "TH", "8C", "7D"])
    play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert game.last_showdown is not None
    assert game.last_showdown["winner"] is None and game.last_showdown["carried"]
    assert game.pot == 8 and game.chips == [16, 16]
    assert game.deal_no == 1 and game.dealer == 1 and game.to_move == 0


@pytest.mark.parametrize(
    ("elder_wins_ties", "chips", "pot"), [(False, [16, 16], 8), (True, [16, 20], 4)]
)
def test_equal_totals(elder_wins_ties: bool, chips: list[int], pot: int) -> None:
    game = new_game(["9S", "TH", "5C", "4D"], elder_wins_ties=elder_wins_ties)
    play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert game.chips == chips and game.pot == pot


def test_dealer_alternates() -> None:
    game = new_game(["QS", "QH"], stand_on_any_card=True)
    dealers = []
    for _ in range(4):
        dealers.append(game.dealer)
        elder = game.to_move
        assert elder == 1 - game.dealer
        play(game, (elder, "stand"), (1 - elder, "stand"))
    assert dealers == [0, 1, 0, 1]


# ---------------------------------------------------------------- match end


def test_a_player_who_cannot_ante_loses() -> None:
    game = new_game(["9S", "TH", "5C", "3D"], chips=3, stake=2)
    events = play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert events[-1] == {"type": "match_end", "scores": [1, 5], "winners": [1]}
    assert game.finished and game.view(0)["phase"] == "over"


def test_deals_limit_more_chips_wins() -> None:
    game = new_game(["9S", "TH", "5C", "3D"], deals=1)
    play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert game.result == {"scores": [18, 22], "winners": [1]}


def test_deals_limit_equal_chips_share_and_a_standing_pot_is_returned() -> None:
    game = new_game(["9S", "TH", "8C", "7D"], deals=1)
    play(game, (1, "draw"), (1, "stand"), (0, "draw"), (0, "stand"))
    assert game.result == {"scores": [20, 20], "winners": [0, 1]}
    assert game.pot == 0


# ---------------------------------------------------------------- inference


def test_determinize_respects_a_stand_on_one_card_and_the_draw_limit() -> None:
    game = new_game(["QS", "4H"])
    game.apply(1, "stand")
    view = game.view(0)
    for seed in range(40):
        sample = Fifteen.determinize(view, random.Random(seed))
        assert sample.view(0) == view
        assert value(sample.hands[1][0]) == 10
    game = new_game(["5S", "4H", "5C", "4C", "TD"])
    play(game, (1, "draw"), (1, "draw"), (1, "draw"), (1, "stand"))
    view = game.view(0)
    for seed in range(40):
        sample = Fifteen.determinize(view, random.Random(seed))
        assert sample.view(0) == view
        assert len(sample.hands[1]) == 4 and total(sample.hands[1][:-1]) <= 15


# ---------------------------------------------------------------- invariants


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    chips=st.sampled_from([3, 10, 20]),
    stake=st.sampled_from([1, 2, 3]),
    deals=st.sampled_from([1, 5, 10]),
    flags=st.lists(st.booleans(), min_size=2, max_size=2),
)
def test_random_play_conserves_chips_and_ends(
    seed: int, chips: int, stake: int, deals: int, flags: list[bool]
) -> None:
    options = {
        "chips": chips,
        "stake": stake,
        "deals": deals,
        "stand_on_any_card": flags[0],
        "elder_wins_ties": flags[1],
    }
    game = REGISTRY["fifteen"].new(2, options, seed=seed)
    assert isinstance(game, Fifteen)
    rng = random.Random(seed)
    for _ in range(2_000):
        if game.finished:
            break
        assert sum(game.chips) + game.pot == 2 * chips
        assert sorted(c for cards in game.card_zones().values() for c in cards) == sorted(
            game.deck_cards()
        )
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert game.deal_no < deals
    assert game.finished and game.result is not None
    assert sum(game.scores) == 2 * chips and game.pot == 0
    assert game.result["winners"]

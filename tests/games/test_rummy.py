"""Rummy («Рамми», docs/rules.md#rummy): the rules, the action codes and random-play invariants."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, IllegalAction
from games.cards import make_deck, sort_hand
from games.rummy import Rummy

#: Card values written out again from docs/rules.md#rummy-scoring, independent of the engine.
VALUES = {"A": 1, "K": 10, "Q": 10, "J": 10, "T": 10}
ACE_LOW = "A23456789TJQK"

#: Ten cards worth 96 that never meet a meld of the scenarios below.
JUNK = ["KC", "QD", "JS", "TC", "KD", "QS", "JC", "TD", "8D", "8S"]


def value(cards: list[str]) -> int:
    """What ``cards`` left in a hand are worth: A 1, K Q J 10 10, others pip."""
    return sum(VALUES.get(card[0], 0) or int(card[0]) for card in cards)


def stacked(
    hands: list[list[str]],
    up: str,
    stock: list[str] | tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
) -> Rummy:
    """A match whose first deal gives ``hands`` (seat 0 to play first), turns up
    ``up`` and has ``stock`` on top of the stock."""
    players = len(hands)
    order = [hands[seat][i] for i in range(len(hands[0])) for seat in range(players)]
    order += [up, *stock]
    rest = [card for card in make_deck(52) if card not in order]
    return Rummy.new(players, options, seed=1, dealer=players - 1, deck=order + rest)


def play(game: Rummy, seat: int, *actions: str) -> list[dict[str, Any]]:
    """Apply ``actions`` for ``seat`` in turn; all their events."""
    events: list[dict[str, Any]] = []
    for action in actions:
        events += game.apply(seat, action)
    return events


def refused(game: Rummy, seat: int, action: str) -> str:
    """The reason ``action`` is refused; checks the state did not change."""
    before = game.to_dict()
    with pytest.raises(IllegalAction) as error:
        game.apply(seat, action)
    assert game.to_dict() == before
    return error.value.reason


def melds_of(legal: list[str]) -> set[str]:
    """The set and run actions among ``legal``."""
    return {a for a in legal if a.startswith(("set:", "run:"))}


# ----------------------------------------------------------------- dealing


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_sizes_per_player_count(players: int, size: int) -> None:
    game = Rummy.new(players, seed=5, dealer=0)
    view = game.view(None)
    assert view["hand_sizes"] == [size] * players
    assert view["stock"] == 52 - players * size - 1
    assert len(view["discard"]) == 1
    assert view["to_move"] == 1 and view["phase"] == "draw"


def test_stacked_deck_deals_one_at_a_time_from_the_dealers_left() -> None:
    deck = make_deck(52)
    game = Rummy.new(3, seed=0, dealer=1, deck=list(deck))
    assert game.view(2)["hand"] == deck[0:21:3]
    assert game.view(0)["hand"] == deck[1:21:3]
    assert game.view(1)["hand"] == deck[2:21:3]
    assert game.view(None)["discard_top"] == deck[21]
    assert game.to_move == 2
    game.apply(2, "draw")
    assert game.view(2)["hand"][-1] == deck[22]


def test_options() -> None:
    assert Rummy.new(2).options == {"target": 100}
    assert Rummy.new(2, {"target": 150}).options["target"] == 150
    with pytest.raises(BadOptions):
        Rummy.new(2, {"target": 5})
    with pytest.raises(BadOptions):
        Rummy.new(7)
    assert REGISTRY["rummy"] is Rummy


# ----------------------------------------------------------------- melds


def test_ace_is_low_a23_is_a_run_qka_is_not() -> None:
    hand = ["AH", "2H", "3H", "QH", "KH", "4S", "2C", "5D", "8C", "6S"]
    game = stacked([hand, JUNK], "4C", ["9D"])
    game.apply(0, "draw")
    assert melds_of(game.legal_actions(0)) == {"run:H:A-3"}
    assert refused(game, 0, "run:H:Q-A") == "bad_meld"
    assert refused(game, 0, "run:H:Q-K") == "bad_meld"
    game.apply(0, "run:H:A-3")
    assert game.view(0)["melds"] == [{"owner": 0, "cards": ["AH", "2H", "3H"]}]


def test_sets_of_three_and_of_four() -> None:
    hand = ["7S", "7H", "7D", "7C", "2C", "5D", "8C", "JD", "KH", "4S"]
    game = stacked([hand, JUNK], "3C", ["9D"])
    game.apply(0, "draw")
    assert melds_of(game.legal_actions(0)) == {
        "set:7:SHD",
        "set:7:SHC",
        "set:7:SDC",
        "set:7:HDC",
        "set:7:SHDC",
    }
    game.apply(0, "set:7:SHDC")
    assert game.view(None)["melds"] == [{"owner": 0, "cards": ["7S", "7H", "7D", "7C"]}]
    game2 = stacked([hand, JUNK], "3C", ["9D"])
    play(game2, 0, "draw", "set:7:HDC")
    assert game2.view(0)["melds"][0]["cards"] == ["7H", "7D", "7C"]
    assert "7S" in game2.view(0)["hand"]


def test_every_sub_run_of_a_long_run_is_offered() -> None:
    hand = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "2C", "JD", "KS"]
    game = stacked([hand, JUNK], "4C", ["QC"])
    game.apply(0, "draw")
    expected = {
        f"run:H:{ACE_LOW[lo]}-{ACE_LOW[hi]}" for lo in range(2, 9) for hi in range(lo + 2, 9)
    }
    assert len(expected) == 15
    assert melds_of(game.legal_actions(0)) == expected


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_legal_melds_are_exactly_the_valid_subsets_of_the_hand(seed: int, players: int) -> None:
    game = Rummy.new(players, seed=seed)
    seat = game.to_move
    assert seat is not None
    game.apply(seat, "draw")
    hand = game.view(seat)["hand"]
    expected = set()
    for size in range(3, len(hand) + 1):
        for cards in combinations(hand, size):
            ranks = {c[0] for c in cards}
            if len(ranks) == 1:
                suits = "".join(s for s in "SHDC" if any(c[1] == s for c in cards))
                expected.add(f"set:{cards[0][0]}:{suits}")
            elif len({c[1] for c in cards}) == 1:
                spots = sorted(ACE_LOW.index(c[0]) for c in cards)
                if spots[-1] - spots[0] == size - 1:
                    expected.add(f"run:{cards[0][1]}:{ACE_LOW[spots[0]]}-{ACE_LOW[spots[-1]]}")
    assert melds_of(game.legal_actions(seat)) == expected


def test_every_action_fits_24_bytes_even_a_13_card_run() -> None:
    game = Rummy.new(2, seed=3, dealer=1)
    game.apply(0, "draw")
    # Seat 0 holds all thirteen hearts; the other cards go to seat 1, the pile and the stock.
    others = [card for card in make_deck(52) if card[1] != "H"]
    game.hands = [[r + "H" for r in ACE_LOW], others[:10]]
    game.discard, game.stock = others[10:11], others[11:]
    legal = game.legal_actions(0)
    assert "run:H:A-K" in legal
    assert len(melds_of(legal)) == 11 * 12 // 2
    assert max(len(action.encode()) for action in legal) <= 24
    game.apply(0, "run:H:A-K")
    assert game.finished or game.deal_no == 1


def test_lay_off_onto_an_opponents_run_at_both_ends_and_to_complete_a_set() -> None:
    first = ["5H", "6H", "7H", "9S", "9H", "9D", "2C", "4D", "6C", "8S"]
    second = ["4H", "8H", "9C", "KC", "QD", "JS", "TC", "KD", "QS", "JC"]
    game = stacked([first, second], "2D", ["3D", "5C"])
    play(game, 0, "draw", "run:H:5-7", "set:9:SHD", "3D")
    game.apply(1, "draw")
    legal = game.legal_actions(1)
    assert {"lay:4H:0", "lay:8H:0", "lay:9C:1"} <= set(legal)
    events = play(game, 1, "lay:4H:0", "lay:8H:0", "lay:9C:1")
    assert events[0] == {"type": "lay_off", "seat": 1, "card": "4H", "meld": 0}
    assert game.view(1)["melds"] == [
        {"owner": 0, "cards": ["4H", "5H", "6H", "7H", "8H"]},
        {"owner": 0, "cards": ["9S", "9H", "9D", "9C"]},
    ]
    assert not any(a.startswith("lay:") for a in game.legal_actions(1))
    assert game.view(None)["laid_this_turn"] is True


def test_lay_off_refusals() -> None:
    first = ["5H", "6H", "7H", "9S", "9H", "9D", "2C", "4D", "6C", "8S"]
    second = ["4H", "8H", "9C", "KC", "QD", "JS", "TC", "KD", "QS", "JC"]
    game = stacked([first, second], "2D", ["3D", "5C"])
    play(game, 0, "draw", "run:H:5-7", "3D")
    game.apply(1, "draw")
    assert refused(game, 1, "lay:KC:0") == "does_not_fit"
    assert refused(game, 1, "lay:4H:1") == "no_such_meld"
    assert refused(game, 1, "lay:3H:0") == "not_in_hand"
    assert refused(game, 1, "lay:4H") == "unknown_action"


# ----------------------------------------------------------------- the turn


def test_turn_order_failures_change_nothing() -> None:
    clubs = ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    game = stacked([["7S", "7H", "7D", *JUNK[:7]], [*JUNK[7:], *clubs]], "AD", ["9D"])
    assert refused(game, 0, "2C") == "not_in_hand"
    assert refused(game, 0, "7S") == "must_draw"
    assert refused(game, 0, "set:7:SHD") == "must_draw"
    assert refused(game, 1, "draw") == "not_your_turn"
    assert refused(game, 0, "ZZ") == "unknown_action"
    assert refused(game, 0, "set:7:HSD") == "bad_meld"
    game.apply(0, "draw")
    assert refused(game, 0, "draw") == "already_drew"
    assert refused(game, 0, "take") == "already_drew"
    assert refused(game, 0, "set:8:SHD") == "not_in_hand"
    assert refused(game, 0, "run:C:2-4") == "not_in_hand"


def test_the_card_just_taken_may_not_be_discarded_this_turn() -> None:
    game = stacked([JUNK, ["2C", "3D", "4S", "5H", "6C", "7D", "8H", "9C", "AS", "AH"]], "KH")
    events = game.apply(0, "take")
    assert events == [{"type": "take", "seat": 0, "card": "KH"}]
    assert "KH" not in game.legal_actions(0)
    assert refused(game, 0, "KH") == "discard_just_taken"
    assert game.view(1)["known_cards"][0] == ["KH"]
    assert "KH" not in game.hidden_cards(1)
    play(game, 0, "KC")
    play(game, 1, "draw", game.view(1)["hand"][-1])
    game.apply(0, "draw")
    assert "KH" in game.legal_actions(0)  # a turn later it is an ordinary card
    game.apply(0, "KH")
    assert game.view(1)["known_cards"][0] == []


def test_a_meld_that_would_strand_the_taken_card_is_refused() -> None:
    hand = ["AH", "2H", "3H", "4H", "4S", "5S", "6S", "7C", "8C", "9C"]
    game = stacked([hand, JUNK], "KH")
    play(game, 0, "take", "run:S:4-6", "run:C:7-9")
    legal = game.legal_actions(0)
    assert "run:H:A-3" in legal and "run:H:2-4" in legal
    assert "run:H:A-4" not in legal
    assert refused(game, 0, "run:H:A-4") == "taken_card_stranded"


def test_a_taken_card_that_can_be_laid_off_last_goes_out() -> None:
    hand = ["AH", "2H", "3H", "4H", "4S", "5S", "6S", "7C", "8C", "9C"]
    game = stacked([hand, JUNK], "5H")
    play(game, 0, "take", "run:S:4-6", "run:C:7-9", "run:H:A-4")
    events = game.apply(0, "lay:5H:2")
    assert {"type": "go_out", "seat": 0, "rummy": True} in events


# ----------------------------------------------------------------- going out


def deal_end(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``deal_end`` event among ``events``."""
    return next(e for e in events if e["type"] == "deal_end")


def test_going_out_without_a_discard_in_one_turn_is_skatert_and_doubles() -> None:
    hand = ["AH", "2H", "3H", "4S", "5S", "6S", "7S", "9C", "9D", "9H"]
    game = stacked([hand, JUNK], "2C", ["9S"])
    events = play(game, 0, "draw", "run:H:A-3", "run:S:4-7", "set:9:SHDC")
    end = deal_end(events)
    assert end["winner"] == 0 and end["rummy"] is True
    assert end["scores"] == [2 * value(JUNK), 0] == [192, 0]
    assert game.scores == [192, 0]
    assert game.finished and game.result == {"scores": [192, 0], "winners": [0]}


def test_going_out_with_a_final_discard_also_counts_as_skatert() -> None:
    hand = ["AH", "2H", "3H", "4S", "5S", "6S", "7S", "9C", "9D", "KH"]
    game = stacked([hand, JUNK], "2C", ["9H"], {"target": 200})
    events = play(game, 0, "draw", "run:H:A-3", "run:S:4-7", "set:9:HDC")
    assert game.legal_actions(0) == ["KH"]
    events = game.apply(0, "KH")
    assert events[0] == {"type": "discard", "seat": 0, "card": "KH"}
    assert deal_end(events)["scores"] == [192, 0]
    assert not game.finished and game.deal_no == 1 and game.dealer == 0


def test_a_player_who_melded_in_an_earlier_turn_scores_single() -> None:
    hand = ["AH", "2H", "3H", "4S", "5S", "6S", "7S", "9C", "9D", "9H"]
    game = stacked([hand, JUNK], "5D", ["2D", "3C", "9S"], {"target": 150})
    play(game, 0, "draw", "run:H:A-3", "2D")
    assert game.view(None)["opened"] == [True, False]
    play(game, 1, "draw", "3C")
    events = play(game, 0, "draw", "run:S:4-7", "set:9:SHDC")
    end = deal_end(events)
    assert end["rummy"] is False and end["scores"] == [value(JUNK), 0] == [96, 0]
    assert end["penalties"] == [0, 96]
    assert game.scores == [96, 0]
    assert not game.finished
    assert game.view(None)["last_deal"] == {
        "winner": 0,
        "rummy": False,
        "points": [96, 0],
        "penalties": [0, 96],
    }
    assert game.view(None)["deal_points"] == [0, 0]


def test_a_lay_off_in_an_earlier_turn_also_spoils_skatert() -> None:
    first = ["5H", "6H", "7H", "KC", "QD", "JS", "TC", "KD", "QS", "JC"]
    second = ["4H", "8C", "9C", "TD", "2S", "3S", "4S", "AD", "AC", "AS"]
    game = stacked([first, second], "2D", ["3D", "7C", "5C", "JD"])
    play(game, 0, "draw", "run:H:5-7", "3D")
    play(game, 1, "draw", "lay:4H:0", "TD")
    play(game, 0, "draw", "5C")
    assert game.view(None)["opened"] == [True, True]
    events = play(game, 1, "draw", "set:A:SDC", "run:S:2-4", "run:C:7-9", "JD")
    end = deal_end(events)
    assert end["winner"] == 1 and end["rummy"] is False
    assert end["scores"] == [0, value(first[3:])] == [0, 70]


def test_the_match_ends_at_the_target() -> None:
    hand = ["AH", "2H", "3H", "4S", "5S", "6S", "7S", "9C", "9D", "9H"]
    game = stacked([hand, JUNK], "5D", ["2D", "3C", "9S"], {"target": 96})
    play(game, 0, "draw", "run:H:A-3", "2D")
    play(game, 1, "draw", "3C")
    events = play(game, 0, "draw", "run:S:4-7", "set:9:SHDC")  # 96: reaching it is enough
    assert events[-1] == {"type": "match_end", "scores": [96, 0], "winners": [0]}
    assert game.finished and game.to_move is None
    assert game.legal_actions(0) == game.legal_actions(1) == []
    assert refused(game, 1, "draw") == "finished"


# ----------------------------------------------------------------- the stock runs out


def test_the_pile_turns_over_unshuffled_and_the_third_time_voids_the_deal() -> None:
    game = Rummy.new(2, seed=11, dealer=1)
    turnovers = 0
    while game.deal_no == 0:
        seat = game.to_move
        assert seat is not None
        pile = game.view(None)["discard"]
        events = game.apply(seat, "draw")
        drawn = game.view(seat)["hand"][-1]
        if turnovers:
            assert events == [{"type": "draw", "seat": seat, "card": drawn}]
            assert drawn in game.view(1 - seat)["known_cards"][seat]
        else:
            assert events == [{"type": "draw", "seat": seat}]
        events = game.apply(seat, drawn)
        kinds = [e["type"] for e in events]
        if "turnover" in kinds:
            turnovers += 1
            view = game.view(1 - seat)
            assert view["stock_cards"] == [*pile, drawn]  # the first discard on top
            assert view["discard"] == [] and view["legal"] == ["draw"]
            assert view["turnovers"] == turnovers
            assert not game.hidden_cards(1 - seat) & set(view["stock_cards"])
    assert turnovers == 2
    assert kinds == ["discard", "deal_void"]
    assert game.scores == [0, 0] and game.dealer == 0
    assert game.view(None)["last_deal"]["winner"] is None
    assert game.view(None)["turnovers"] == 0 and game.view(None)["stock_cards"] is None


def test_determinize_keeps_known_cards_and_a_public_stock() -> None:
    game = Rummy.new(3, seed=4, dealer=2)
    rng = random.Random(0)
    while game.view(None)["turnovers"] == 0 or game.to_move != 1:
        seat = game.to_move
        assert seat is not None
        legal = [a for a in game.legal_actions(seat) if not a.startswith(("set", "run", "lay"))]
        game.apply(seat, rng.choice(legal))
    view = game.view(1)
    for sample_seed in range(5):
        sample = Rummy.determinize(view, random.Random(sample_seed))
        assert sample.view(1) == view
        for seat in (0, 2):
            assert set(view["known_cards"][seat]) <= set(sample.hands[seat])


# ----------------------------------------------------------------- invariants


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_random_play_conserves_cards_ends_and_scores_by_the_rules(seed: int, players: int) -> None:
    game = Rummy.new(players, {"target": 50}, seed=seed)
    rng = random.Random(seed)
    deck = sorted(make_deck(52))
    for _ in range(20_000):
        if game.finished:
            break
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions(seat)
        assert legal and all(len(a.encode()) <= 24 for a in legal)
        before = game.clone()
        # Random play, but melding whenever it can: pure random play rarely goes out,
        # and a match of void deals can outlast any step budget.
        melds = [a for a in legal if a.startswith(("set", "run", "lay"))]
        events = game.apply(seat, rng.choice(melds or legal))
        assert sorted(c for cards in game.card_zones().values() for c in cards) == deck
        for event in events:
            if event["type"] == "deal_end":
                others = value(
                    [c for s, hand in enumerate(before.hands) if s != seat for c in hand]
                )
                points = others * (1 if before.opened[seat] else 2)
                assert event["winner"] == seat
                assert event["scores"] == [points if s == seat else 0 for s in range(players)]
                gained = [a - b for a, b in zip(game.scores, before.scores, strict=True)]
                assert gained == event["scores"]
            if event["type"] == "deal_void":
                assert game.scores == before.scores
        if game.deal_no != before.deal_no and not game.finished:
            view = game.view(None)
            size = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}[players]
            assert game.dealer == (before.dealer + 1) % players
            assert game.to_move == (game.dealer + 1) % players  # the dealer's left starts
            assert view["hand_sizes"] == [size] * players
            assert len(view["discard"]) == 1 and view["stock"] == 52 - size * players - 1
    assert game.finished, "the match did not end"
    assert game.result is not None
    (winner,) = game.result["winners"]
    assert game.scores[winner] >= 50
    assert all(score < 50 for s, score in enumerate(game.scores) if s != winner)


# ----------------------------------------------------------------- more rule checks


def test_skatert_ignores_the_other_players_melds() -> None:
    """Only the winner's own earlier melds spoil «скатерть»; an opponent's do not."""
    first = ["5H", "6H", "7H", "AC", "AD", "2S", "3D", "4C", "9S", "KD"]
    second = ["AH", "2H", "3H", "4S", "5S", "6S", "7S", "9C", "9D", "KH"]
    game = stacked([first, second], "QC", ["JC", "9H"], {"target": 500})
    play(game, 0, "draw", "run:H:5-7", "JC")
    assert game.view(None)["opened"] == [True, False]
    events = play(game, 1, "draw", "run:H:A-3", "run:S:4-7", "set:9:HDC", "KH")
    end = deal_end(events)
    left = ["AC", "AD", "2S", "3D", "4C", "9S", "KD"]
    assert value(left) == 1 + 1 + 2 + 3 + 4 + 9 + 10 == 30  # aces count 1
    assert end["winner"] == 1 and end["rummy"] is True
    assert end["scores"] == [0, 60] and end["penalties"] == [30, 0]


def test_a_meld_in_the_going_out_turn_itself_keeps_skatert() -> None:
    """Melding, laying off and discarding all in the one turn is still «скатерть»."""
    first = ["5H", "6H", "7H", "QD", "JS", "TC", "KD", "QS", "JC", "KC"]
    second = ["4H", "9C", "9D", "9S", "2S", "3S", "4S", "AD", "AC", "TD"]
    game = stacked([first, second], "2D", ["3D", "AS"])
    play(game, 0, "draw", "run:H:5-7", "3D")
    events = play(game, 1, "draw", "lay:4H:0", "set:9:SDC", "set:A:SDC", "run:S:2-4", "TD")
    end = deal_end(events)
    assert end["rummy"] is True and end["scores"] == [0, 2 * value(first[3:])] == [0, 140]


def test_ace_low_lay_offs() -> None:
    """An ace extends A-less runs only downwards: onto 2-3-4, never onto J-Q-K."""
    first = ["2H", "3H", "4H", "JS", "QS", "KS", "7D", "8C", "9C", "5D"]
    second = ["AH", "AS", "TS", "2C", "6D", "KC", "QD", "JD", "TC", "8D"]
    game = stacked([first, second], "3C", ["4C", "5C"])
    play(game, 0, "draw", "run:H:2-4", "run:S:J-K", "4C")
    game.apply(1, "draw")
    legal = game.legal_actions(1)
    assert "lay:AH:0" in legal and "lay:TS:1" in legal
    assert "lay:AS:1" not in legal
    assert refused(game, 1, "lay:AS:1") == "does_not_fit"
    game.apply(1, "lay:AH:0")
    assert game.view(None)["melds"][0]["cards"] == ["AH", "2H", "3H", "4H"]
    assert not any(a.startswith("lay:") and a.endswith(":0") for a in game.legal_actions(1))


def test_the_discard_pile_top_is_the_card_after_the_hands_and_take_gives_it() -> None:
    deck = make_deck(52)
    game = Rummy.new(2, seed=0, dealer=0, deck=list(deck))
    assert game.view(None)["discard"] == [deck[20]]
    events = game.apply(1, "take")
    assert events == [{"type": "take", "seat": 1, "card": deck[20]}]
    assert deck[20] in game.view(1)["hand"] and game.view(None)["discard"] == []
    assert game.view(0)["stock"] == 31


def test_discard_buttons_are_sorted_by_suit_then_rank() -> None:
    hand = ["3C", "KH", "AS", "6D", "2H", "QC", "5S", "9D", "7H", "4S"]
    game = stacked([hand, JUNK], "4D", ["6C"])
    game.apply(0, "draw")
    discards = [a for a in game.legal_actions(0) if len(a) == 2]
    assert discards == ["AS", "5S", "4S", "KH", "7H", "2H", "9D", "6D", "QC", "6C", "3C"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_legal_actions_do_not_depend_on_the_order_cards_were_drawn(
    seed: int, data: st.DataObject
) -> None:
    """Buttons stay put however the hand is ordered: the list is a function of its cards."""
    game = Rummy.new(2, seed=seed, dealer=1)
    game.apply(0, "draw")
    legal = game.legal_actions(0)
    shuffled = game.clone()
    shuffled.hands[0] = data.draw(st.permutations(game.hands[0]))
    assert shuffled.legal_actions(0) == legal
    melds = [a for a in legal if a.startswith(("set:", "run:"))]
    sets = [a for a in melds if a.startswith("set:")]
    assert melds == sets + [a for a in melds if a.startswith("run:")]
    assert [a for a in legal if len(a) == 2] == sort_hand(game.hands[0])


def test_determinize_from_the_public_view_samples_every_hand() -> None:
    game = Rummy.new(3, seed=8, dealer=0)
    rng = random.Random(8)
    for _ in range(12):
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    view = game.view(None)
    for n in range(10):
        sample = Rummy.determinize(view, random.Random(n))
        assert sample.view(None) == view
        cards = sorted(c for zone in sample.card_zones().values() for c in zone)
        assert cards == sorted(make_deck(52))

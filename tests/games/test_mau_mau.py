"""Mau-Mau's rules (docs/rules.md#mau-mau): deal, matching, wild jacks, drawing, options, score."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, IllegalAction
from games.cards import insert_sorted, make_deck, sort_hand
from games.mau_mau import MauMau, excluded, penalty


def new_game(players: int = 2, **options: Any) -> MauMau:
    game = REGISTRY["mau_mau"].new(players, options, seed=11, dealer=players - 1)
    assert isinstance(game, MauMau)
    return game


def rig(
    game: MauMau, hands: list[list[str]], pile: list[str], stock: list[str], turn: int = 0
) -> MauMau:
    """Lay out a position: the seat ``turn`` to play on ``pile`` (top last)."""
    game.hands = [sort_hand(hand) for hand in hands]  # the engine keeps hands sorted
    game.pile = list(pile)
    game.stock = list(stock)
    game.suit = pile[-1][1]
    game.turn = turn
    return game


def refused(game: MauMau, seat: int, action: str) -> str:
    before = game.to_dict()
    with pytest.raises(IllegalAction) as error:
        game.apply(seat, action)
    assert game.to_dict() == before
    return error.value.reason


# ---------------------------------------------------------------- dealing


def test_deal_one_at_a_time_from_the_dealers_left_then_the_starter() -> None:
    deck = make_deck(32)
    game = REGISTRY["mau_mau"].new(3, {}, seed=0, dealer=2, deck=deck)
    assert isinstance(game, MauMau)
    assert sorted(game.hands[0]) == sorted(deck[0:15:3])
    assert sorted(game.hands[1]) == sorted(deck[1:15:3])
    assert sorted(game.hands[2]) == sorted(deck[2:15:3])
    assert game.pile == [deck[15]]
    assert game.stock == deck[16:]
    assert game.to_move == 0
    assert game.view(0)["suit"] == deck[15][1]


def test_seven_card_hands_and_the_deck_options() -> None:
    game = new_game(4, hand_size=7, deck=32)
    assert [len(hand) for hand in game.hands] == [7, 7, 7, 7]
    assert len(game.stock) == 32 - 28 - 1
    assert len(new_game(2, deck=52).deck_cards()) == 52
    assert len(new_game(2, deck=36).deck_cards()) == 36


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (5, {"hand_size": 7}),
        (5, {"hand_size": 7, "deck": 36}),
        (1, {}),
        (6, {}),  # 6 × 5 + 2 cards would fit 32, but the small deck seats five
        (7, {"deck": 36}),
        (8, {"deck": 52}),
    ],
)
def test_tables_that_do_not_fit_are_refused(players: int, options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions) as error:
        REGISTRY["mau_mau"].new(players, options)
    assert error.value.option == "players"


def test_bad_option_values_are_refused() -> None:
    for options in ({"deck": 40}, {"hand_size": 6}, {"limit": 5}, {"seven_draws": 1}):
        with pytest.raises(BadOptions):
            REGISTRY["mau_mau"].new(2, options)
    assert new_game(5, hand_size=7, deck=52).players == 5


@pytest.mark.parametrize(
    ("players", "deck", "hand_size"), [(6, 36, 5), (7, 52, 5), (7, 52, 7), (5, 32, 5)]
)
def test_a_bigger_deck_seats_more_players(players: int, deck: int, hand_size: int) -> None:
    game = new_game(players, deck=deck, hand_size=hand_size)
    assert [len(hand) for hand in game.hands] == [hand_size] * players
    assert len(game.stock) == deck - players * hand_size - 1 >= 1


# ---------------------------------------------------------------- matching


def test_play_matches_suit_or_rank() -> None:
    game = rig(new_game(), [["9H", "KS", "TC"], ["8C", "7C"]], ["9S"], ["AD"])
    assert game.legal_actions(0) == ["KS", "9H"]
    assert refused(game, 0, "TC") == "must_match_suit_or_rank"
    assert refused(game, 0, "AD") == "not_in_hand"
    assert refused(game, 1, "8C") == "not_your_turn"
    events = game.apply(0, "9H")
    assert events == [{"type": "play", "seat": 0, "card": "9H"}]
    assert game.pile == ["9S", "9H"] and game.suit == "H" and game.to_move == 1


def test_a_jack_on_anything_with_the_named_suit_in_one_action() -> None:
    game = rig(new_game(), [["JD", "TC"], ["8C", "7C", "AH"]], ["9S"], ["AD"])
    assert game.legal_actions(0) == ["JD:S", "JD:H", "JD:D", "JD:C"]
    assert refused(game, 0, "JD") == "must_name_suit"
    events = game.apply(0, "JD:H")
    assert events == [{"type": "play", "seat": 0, "card": "JD", "suit": "H"}]
    assert game.view(1)["suit"] == "H"
    assert game.view(1)["discard_top"] == "JD"


def test_the_named_suit_binds_the_next_player() -> None:
    game = rig(new_game(), [["JD", "TC"], ["8D", "7C", "AH"]], ["9S"], ["AD"])
    game.apply(0, "JD:C")
    assert game.legal_actions(1) == ["7C"]
    assert refused(game, 1, "8D") == "must_match_suit_or_rank"


def test_the_named_suit_stays_after_a_draw_and_pass() -> None:
    game = rig(new_game(), [["JD", "TC", "9C"], ["8D", "AH"]], ["9S"], ["QD", "KD"])
    game.apply(0, "JD:C")
    assert game.legal_actions(1) == ["draw"]
    game.apply(1, "draw")
    assert game.legal_actions(1) == ["pass"]
    game.apply(1, "pass")
    assert game.suit == "C"
    assert game.legal_actions(0) == ["TC", "9C"]


def test_a_jack_on_a_jack() -> None:
    game = rig(new_game(), [["JD", "TC"], ["JS", "7C", "AH"]], ["9S"], ["AD"])
    game.apply(0, "JD:H")
    assert game.legal_actions(1)[:4] == ["JS:S", "JS:H", "JS:D", "JS:C"]
    game.apply(1, "JS:C")
    assert game.suit == "C" and game.legal_actions(0) == ["TC"]


def test_a_last_jack_is_played_plain() -> None:
    game = rig(new_game(), [["JD"], ["9H", "AH"]], ["9S"], ["AD"])
    assert game.legal_actions(0) == ["JD"]
    assert refused(game, 0, "JD:S") == "no_suit_to_name"


def test_a_turned_up_jack_names_nothing() -> None:
    deck = make_deck(32)
    deck.remove("JC")
    deck.insert(10, "JC")  # the starter of a 2-player, 5-card deal
    game = REGISTRY["mau_mau"].new(2, {}, seed=0, dealer=1, deck=deck)
    assert isinstance(game, MauMau)
    assert game.pile == ["JC"] and game.view(0)["suit"] == "C"


# ---------------------------------------------------------------- drawing


def test_draw_only_when_unable_then_play_the_drawn_card() -> None:
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], ["9S"], ["9C", "KD"])
    assert refused(game, 0, "pass") == "must_draw"
    game = rig(new_game(), [["TS", "8D"], ["7C", "AH"]], ["9S"], ["9C", "KD"])
    assert refused(game, 0, "draw") == "must_play"
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], ["9S"], ["9C", "KD"])
    events = game.apply(0, "draw")
    assert events == [{"type": "draw", "seat": 0}]
    assert game.hands[0] == ["8D", "TC", "9C"]
    assert game.view(0)["phase"] == "drawn" and game.view(0)["drawn_card"] == "9C"
    assert game.view(1)["drawn_card"] is None
    assert game.legal_actions(0) == ["9C", "pass"]
    assert refused(game, 0, "draw") == "already_drew"
    game.apply(0, "9C")
    assert game.pile[-1] == "9C" and game.to_move == 1 and game.phase == "play"


def test_draw_then_pass_when_the_drawn_card_does_not_fit() -> None:
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], ["9S"], ["KD", "9C"])
    game.apply(0, "draw")
    assert game.legal_actions(0) == ["pass"]
    assert refused(game, 0, "TC") == "must_play_drawn_card"
    assert refused(game, 0, "KD") == "must_match_suit_or_rank"
    assert game.apply(0, "pass") == [{"type": "pass", "seat": 0}]
    assert game.to_move == 1 and game.hands[0] == ["KD", "8D", "TC"]


def test_the_drawn_card_may_be_kept_even_if_it_fits() -> None:
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], ["9S"], ["AS"])
    game.apply(0, "draw")
    game.apply(0, "pass")
    assert game.hands[0] == ["AS", "8D", "TC"] and game.to_move == 1


@pytest.mark.parametrize("players", [2, 3])
def test_draw_when_able(players: int) -> None:
    hands = [["TS", "8D"], ["7C", "AH"], ["7D", "8H"]][:players]
    game = rig(new_game(players, draw_when_able=True), hands, ["9S"], ["AD", "KC"])
    assert game.legal_actions(0) == ["TS", "draw"]
    game.apply(0, "draw")
    assert game.legal_actions(0) == ["pass"]  # the drawn AD does not fit; TS may not follow
    game.apply(0, "pass")
    assert game.to_move == 1
    plain = rig(new_game(players), hands, ["9S"], ["AD", "KC"])
    assert plain.legal_actions(0) == ["TS"]


def test_the_pile_is_reshuffled_when_the_stock_runs_out() -> None:
    pile = ["7H", "8H", "9H", "KH", "KS"]
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], pile, [])
    twin = game.clone()
    events = game.apply(0, "draw")
    assert events == [{"type": "restock", "cards": 4}, {"type": "draw", "seat": 0}]
    assert game.pile == ["KS"]
    assert sorted([*game.stock, game.drawn or ""]) == sorted(pile[:-1])
    assert len(game.stock) == 3
    assert twin.apply(0, "draw") == events and twin == game  # deterministic


def test_with_stock_and_pile_empty_the_player_passes() -> None:
    game = rig(new_game(), [["TC", "8D"], ["7C", "AH"]], ["KS"], [])
    assert game.legal_actions(0) == ["pass"]
    assert refused(game, 0, "draw") == "nothing_to_draw"
    game.apply(0, "pass")
    assert game.to_move == 1


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(("players", "after"), [(2, 0), (3, 2)])
def test_seven_draws(players: int, after: int) -> None:
    hands = [["7S", "8D"], ["TC", "AH"], ["7D", "8H"]][:players]
    game = rig(new_game(players, seven_draws=True), hands, ["9S"], ["AD", "KC"])
    events = game.apply(0, "7S")
    assert events[1:] == [
        {"type": "draw", "seat": 1, "penalty": True},
        {"type": "skip", "seat": 1},
    ]
    assert game.hands[1] == ["AH", "AD", "TC"]
    assert game.to_move == after
    plain = rig(new_game(players), hands, ["9S"], ["AD", "KC"])
    plain.apply(0, "7S")
    assert plain.to_move == 1 and plain.hands[1] == ["AH", "TC"]


def test_a_seven_on_an_empty_stock_draws_from_the_reshuffled_pile() -> None:
    game = rig(new_game(3, seven_draws=True), [["7S", "8D"], ["TC"], ["8H"]], ["9S"], [])
    events = game.apply(0, "7S")
    assert events[1:] == [
        {"type": "restock", "cards": 1},
        {"type": "draw", "seat": 1, "penalty": True},
        {"type": "skip", "seat": 1},
    ]
    assert game.hands[1] == ["9S", "TC"] and game.pile == ["7S"] and game.to_move == 2


@pytest.mark.parametrize(("players", "after"), [(2, 0), (3, 2)])
def test_eight_skips(players: int, after: int) -> None:
    hands = [["8S", "7D"], ["TC", "AH"], ["7H", "8H"]][:players]
    game = rig(new_game(players, eight_skips=True), hands, ["9S"], ["AD"])
    events = game.apply(0, "8S")
    assert events[1:] == [{"type": "skip", "seat": 1}]
    assert game.to_move == after
    plain = rig(new_game(players), hands, ["9S"], ["AD"])
    plain.apply(0, "8S")
    assert plain.to_move == 1


def test_a_turned_up_seven_or_eight_has_no_effect() -> None:
    for starter in ("7C", "8C"):
        deck = make_deck(32)
        deck.remove(starter)
        deck.insert(10, starter)
        game = REGISTRY["mau_mau"].new(
            2, {"seven_draws": True, "eight_skips": True}, seed=0, dealer=1, deck=deck
        )
        assert isinstance(game, MauMau)
        assert game.pile == [starter] and game.to_move == 0
        assert [len(hand) for hand in game.hands] == [5, 5]


@pytest.mark.parametrize("players", [2, 3])
def test_queen_restricted(players: int) -> None:
    hands = [["QS", "8D"], ["9S", "QH", "KH", "KS"], ["JD", "7S"]][:players]
    game = rig(new_game(players, queen_restricted=True), hands, ["9S"], ["AD"])
    game.apply(0, "QS")
    assert game.legal_actions(1) == ["KS"]
    assert refused(game, 1, "9S") == "queen_restricted"
    assert refused(game, 1, "KH") == "queen_restricted"
    assert game.view(1)["queen_lock"] is True
    plain = rig(new_game(players), hands, ["9S"], ["AD"])
    plain.apply(0, "QS")
    assert plain.legal_actions(1) == ["KS", "9S", "QH"]


def test_queen_restricted_allows_any_jack_and_not_on_a_turned_up_queen() -> None:
    game = rig(new_game(queen_restricted=True), [["QS", "8D"], ["JD", "9S"]], ["9S"], ["AD"])
    game.apply(0, "QS")
    assert game.legal_actions(1) == ["JD:S", "JD:H", "JD:D", "JD:C"]
    turned = rig(new_game(queen_restricted=True), [["9S", "QD"], ["JD"]], ["QS"], ["AD"])
    assert turned.legal_actions(0) == ["9S", "QD"]


@pytest.mark.parametrize("players", [2, 3])
def test_jack_finish_doubles(players: int) -> None:
    hands = [["JS"], ["AH", "7C"], ["KD", "QD", "9H"]][:players]
    game = rig(new_game(players, jack_finish_doubles=True), hands, ["9S"], ["AD"])
    events = game.apply(0, "JS")
    expected = [0, 36, 32][:players]
    assert events[1]["type"] == "deal_end"
    assert events[1]["scores"] == expected and events[1]["doubled"] is True
    assert game.scores == expected
    plain = rig(new_game(players), hands, ["9S"], ["AD"])
    plain.apply(0, "JS")
    assert plain.scores == [0, 18, 16][:players]
    other = rig(new_game(players, jack_finish_doubles=True), [["9H"], *hands[1:]], ["9S"], [])
    other.apply(0, "9H")
    assert other.scores == [0, 18, 16][:players]


# ---------------------------------------------------------------- scoring


def test_penalty_values() -> None:
    assert [penalty(c) for c in ("AS", "KS", "QS", "JS", "TS", "9S", "7S", "2S")] == [
        11, 4, 3, 2, 10, 9, 7, 2,
    ]  # fmt: skip


def test_deal_end_scores_penalties_and_deals_again() -> None:
    game = rig(new_game(3), [["9H"], ["AH", "KC", "TD"], []], ["9S"], ["AD"])
    game.hands[2] = ["2S", "QS"]
    events = game.apply(0, "9H")
    assert events[0] == {"type": "play", "seat": 0, "card": "9H"}
    assert events[1] == {
        "type": "deal_end",
        "hands": [[], ["AH", "TD", "KC"], ["2S", "QS"]],
        "scores": [0, 25, 5],
        "match_scores": [0, 25, 5],
        "finisher": 0,
        "doubled": False,
    }
    assert events[2]["type"] == "deal" and events[2]["deal_no"] == 1
    assert game.dealer == 0 and game.to_move == 1
    assert game.view(2)["last_deal"] == {
        "finisher": 0,
        "penalties": [0, 25, 5],
        "doubled": False,
        "hands": [[], ["AH", "TD", "KC"], ["2S", "QS"]],
    }


def test_match_ends_at_limit_and_lowest_total_wins() -> None:
    game = rig(new_game(3, limit=50), [["9H"], ["AH", "KC"], ["2S"]], ["9S"], ["AD"])
    game.scores = [40, 35, 2]
    events = game.apply(0, "9H")
    assert game.scores == [40, 50, 4]
    assert events[-1] == {"type": "match_end", "scores": [40, 50, 4], "winners": [2]}
    assert game.finished and game.view(0)["phase"] == "over"


def test_equal_lowest_totals_share_the_win() -> None:
    game = rig(new_game(3, limit=50), [["9H"], ["AH", "KC"], ["2S"]], ["9S"], ["AD"])
    game.scores = [6, 35, 4]
    game.apply(0, "9H")
    assert game.result == {"scores": [6, 50, 6], "winners": [0, 2]}


# ---------------------------------------------------------------- inference


def test_a_forced_draw_shows_the_hand_lacks_what_fits() -> None:
    game = rig(new_game(), [["TS", "8D"], ["7C", "AH"]], ["9S"], ["KD", "QD", "7H"])
    game.apply(0, "TS")
    game.apply(1, "draw")
    assert game.view(0)["lacks"][1] == {"suits": "S", "ranks": "JT", "kings": ""}
    game.apply(1, "pass")  # the unseen KD stays in the hand: nothing is known any more
    assert game.view(0)["lacks"][1] == {"suits": "", "ranks": "", "kings": ""}


def test_playing_the_drawn_card_keeps_what_the_hand_lacks() -> None:
    game = rig(new_game(), [["TS", "8D"], ["7C", "AH"]], ["9S"], ["KS", "QD", "7H"])
    game.apply(0, "TS")
    game.apply(1, "draw")
    game.apply(1, "KS")
    assert game.view(0)["lacks"][1] == {"suits": "S", "ranks": "JT", "kings": ""}


def test_draw_when_able_shows_nothing() -> None:
    game = rig(new_game(draw_when_able=True), [["TS", "8D"], ["7C", "AH"]], ["9S"], ["KS"])
    game.apply(0, "TS")
    game.apply(1, "draw")
    game.apply(1, "KS")
    assert game.view(0)["lacks"][1] == {"suits": "", "ranks": "", "kings": ""}


def test_determinize_honours_what_a_seat_showed_it_lacks() -> None:
    game = rig(new_game(), [["TC", "8D", "AS"], ["KH", "QH", "7D"]], ["9S"], make_deck(32)[:8])
    game.stock = [c for c in make_deck(32) if c not in {"TC", "8D", "AS", "KH", "QH", "7D", "9S"}]
    game.apply(0, "AS")
    game.lacks[1] = {"suits": "S", "ranks": "AJ", "kings": ""}
    view = game.view(0)
    for seed in range(30):
        sample = MauMau.determinize(view, random.Random(seed))
        assert sample.view(0) == view
        assert not any(excluded(card, view["lacks"][1]) for card in sample.hands[1])


def tight_position(phase: str) -> MauMau:
    """Seat 1 showed it lacks ♥ ♦ ♣: its cards can only be the four unseen spades."""
    game = new_game(3)
    spades = ["TS", "9S", "8S", "7S"]
    pile = ["JS", "7H", "9H"]
    own = ["AS", "KS", "QS", "8H"]
    rest = [c for c in make_deck(32) if c not in {*spades, *pile, *own}]
    rig(game, [own, spades, rest[:4]], pile, rest[4:], turn=1)
    game.lacks[1] = {"suits": "CDH", "ranks": "", "kings": ""}
    if phase == "drawn":  # seat 1 has just drawn an unseen card: it may be anything
        game.phase, game.drawn = "drawn", game.stock[0]
        insert_sorted(game.hands[1], game.stock.pop(0))
    return game


def test_determinize_honours_tight_lacks_exactly() -> None:
    view = tight_position("play").view(0)
    for seed in range(20):
        sample = MauMau.determinize(view, random.Random(seed))
        assert sample.view(0) == view
        assert sample.hands[1] == ["TS", "9S", "8S", "7S"]


def test_determinize_exempts_only_the_card_just_drawn() -> None:
    view = tight_position("drawn").view(0)
    drawn_cards = set()
    for seed in range(40):
        sample = MauMau.determinize(view, random.Random(seed))
        assert sample.view(0) == view
        assert sample.drawn in sample.hands[1]
        assert sorted(c for c in sample.hands[1] if c != sample.drawn) == ["7S", "8S", "9S", "TS"]
        assert sample.hands[1] == sort_hand(sample.hands[1])
        drawn_cards.add(sample.drawn)
    assert len(drawn_cards) > 5  # the drawn card is sampled, not fixed


def test_determinize_spreads_the_allowed_cards_evenly() -> None:
    game = tight_position("play")
    game.lacks[1] = {"suits": "H", "ranks": "", "kings": ""}
    view = game.view(0)
    rng = random.Random(3)
    counts: dict[str, int] = {}
    for _ in range(300):
        for card in MauMau.determinize(view, rng).hands[1]:
            counts[card] = counts.get(card, 0) + 1
    unseen = set(make_deck(32)) - set(view["hand"]) - set(view["discard"])
    allowed = {card for card in unseen if card[1] != "H"}
    assert set(counts) == allowed  # never a heart, every other unseen card sometimes
    mean = 300 * 4 / len(allowed)
    assert all(0.6 * mean < n < 1.4 * mean for n in counts.values()), counts


def test_drawn_cards_slot_into_the_sorted_hand() -> None:
    game = rig(new_game(), [["KS", "8D"], ["7C", "AH"]], ["9C"], ["QH", "TS"])
    game.apply(0, "draw")
    game.apply(0, "pass")
    assert game.hands[0] == ["KS", "QH", "8D"]
    game.apply(1, "7C")
    game.apply(0, "draw")
    assert game.hands[0] == ["KS", "TS", "QH", "8D"]


# ---------------------------------------------------------------- invariants


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 7),
    seed=st.integers(0, 2**32),
    deck=st.sampled_from([32, 36, 52]),
    hand_size=st.sampled_from([5, 7]),
    flags=st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_random_play_conserves_cards_and_ends(
    players: int, seed: int, deck: int, hand_size: int, flags: list[bool]
) -> None:
    names = ["jack_finish_doubles", "seven_draws", "eight_skips", "queen_restricted"]
    options: dict[str, Any] = dict(zip([*names, "draw_when_able"], flags, strict=True))
    options |= {"deck": deck, "hand_size": hand_size, "limit": 50}
    if players * hand_size + 2 > deck or (deck == 32 and players > 5):
        with pytest.raises(BadOptions):
            REGISTRY["mau_mau"].new(players, options, seed=seed)
        return
    game = REGISTRY["mau_mau"].new(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(20_000):
        if game.finished:
            break
        zones = game.card_zones()
        assert sorted(c for cards in zones.values() for c in cards) == sorted(game.deck_cards())
        seat = game.to_move
        assert seat is not None
        before = list(game.scores)
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert all(new >= old for new, old in zip(game.scores, before, strict=True))
    assert game.finished
    assert game.result is not None
    assert max(game.scores) >= 50
    lowest = min(game.scores)
    assert game.result["winners"] == [s for s in range(players) if game.scores[s] == lowest]


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 60),
    flags=st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_lacks_are_true_and_samples_honour_them(
    players: int, seed: int, steps: int, flags: list[bool]
) -> None:
    names = ["seven_draws", "queen_restricted", "draw_when_able"]
    game = REGISTRY["mau_mau"].new(players, dict(zip(names, flags, strict=True)), seed=seed)
    assert isinstance(game, MauMau)
    rng = random.Random(seed)
    for _ in range(steps):
        seat = game.to_move
        if seat is None:
            break
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    if game.finished:
        return

    def bound(sample: MauMau, seat: int) -> list[str]:
        """The cards of ``seat`` its lacks speak for (not a card just drawn)."""
        drawn = sample.drawn if sample.phase == "drawn" and seat == sample.turn else None
        return [card for card in sample.hands[seat] if card != drawn]

    for seat in range(players):
        assert not [c for c in bound(game, seat) if excluded(c, game.lacks[seat])]
    viewer = rng.randrange(players)
    view = game.view(viewer)
    sample = MauMau.determinize(view, rng)
    assert sample.view(viewer) == view
    for seat in range(players):
        assert not [c for c in bound(sample, seat) if excluded(c, view["lacks"][seat])]

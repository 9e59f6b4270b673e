"""The easy level's rules of thumb, game by game (docs/rules.md), on real game states."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.ai import choose
from games.ai.eleven import shortlist as eleven_shortlist
from games.ai.fifteen import dealer_spread, exact, stood_hand_spread, unseen_counts
from games.ai.king import name_trumps
from games.ai.oh_hell import likely_tricks
from games.ai.rummy import builds, shortlist
from games.eleven import Eleven
from games.fifteen import Fifteen, total
from games.king import King
from games.mau_mau import MauMau
from games.oh_hell import OhHell
from games.rummy import Rummy
from games.two_ten_jack import TwoTenJack
from tests.support.moves import first_move, seat_to_move


def easy(game_id: str, view: dict[str, object]) -> str:
    return choose(game_id, view, "easy", 0)


# ------------------------------------------------------------------ Eleven


def eleven_following(led: str, hand: list[str]) -> Eleven:
    game = Eleven.new(2, seed=1, dealer=1)
    game.hands = [[led, "7D", "8D", "9D", "7C", "8C"], hand]
    game.apply(0, led)
    return game


def test_eleven_takes_a_figure_cheaply() -> None:
    game = eleven_following("KH", ["AH", "8S", "9S", "JC", "TC", "QD"])
    assert easy("eleven", game.view(1)) == "AH"


def test_eleven_wins_a_plain_lead_with_a_plain_card() -> None:
    game = eleven_following("7H", ["AH", "8H", "9H", "JC", "TC", "QD"])
    assert easy("eleven", game.view(1)) == "8H"


def test_eleven_ducks_low_rather_than_spend_a_figure_on_nothing() -> None:
    game = eleven_following("7H", ["AH", "9S", "8S", "JC", "TC", "QD"])
    assert easy("eleven", game.view(1)) == "8S"


def test_eleven_search_throws_no_figure_onto_a_lost_trick_while_a_blank_would_do() -> None:
    lost = eleven_following("QC", ["JC", "7D", "8H", "9S", "KS", "TD"])
    assert eleven_shortlist(lost.view(1), "7D") == ["7D", "8H", "9S"]
    # The cheapest winner stays (the A keeps), and so do the blanks; the
    # figures that would lose go.
    winnable = eleven_following("QC", ["KC", "AC", "JC", "7D", "TD", "QH"])
    assert eleven_shortlist(winnable.view(1), "KC") == ["KC", "7D"]
    # A winning figure and a winning blank are of different kinds: both stay.
    kinds = eleven_following("8C", ["9C", "KC", "AC", "7C", "TD", "7H"])
    assert eleven_shortlist(kinds.view(1), "9C") == ["9C", "KC", "7C", "7H"]
    # Nothing but figures to lose with: every card is weighed.
    figures = eleven_following("AC", ["KC", "JD", "TD", "QH", "KS", "AS"])
    view = figures.view(1)
    assert eleven_shortlist(view, "JD") == view["legal"]
    # Leading, every card is weighed.
    leading = Eleven.new(2, seed=1, dealer=1).view(0)
    assert eleven_shortlist(leading, leading["legal"][0]) == leading["legal"]


def test_eleven_leads_a_master_card() -> None:
    game = Eleven.new(2, seed=1, dealer=1)
    game.hands[0] = ["AS", "7H", "8C", "9D", "TD", "JC"]
    assert easy("eleven", game.view(0)) == "AS"


# ------------------------------------------------------------------ Two-Ten-Jack


def ttj_following(led: str, hand: list[str]) -> TwoTenJack:
    game = TwoTenJack.new(3, seed=2, dealer=2)
    game.hands[0] = [led, "3D", "4D", "5D", "6D", "7D"]
    game.hands[1] = hand
    game.known = [[], [], []]
    game.apply(0, led)
    return game


def test_two_ten_jack_leaves_a_minus_trick_to_others() -> None:
    game = ttj_following("TS", ["KS", "3S", "5D", "6C", "7C", "8C"])
    assert easy("two_ten_jack", game.view(1)) == "3S"


def test_two_ten_jack_forced_to_win_a_minus_trick_keeps_its_own_minus_cards_out() -> None:
    game = ttj_following("2S", ["KS", "3S", "5D", "6C", "7C", "8C"])
    assert easy("two_ten_jack", game.view(1)) == "3S"


def test_two_ten_jack_takes_a_valuable_trick() -> None:
    game = ttj_following("TH", ["JH", "3H", "5D", "6C", "7C", "8C"])
    assert easy("two_ten_jack", game.view(1)) == "JH"


# ------------------------------------------------------------------ Oh Hell


def test_oh_hell_counts_sure_winners_for_its_bid() -> None:
    assert likely_tricks(["AS", "KS", "2D"], "S", 4) >= 1.5
    assert likely_tricks(["2S", "3D", "4C"], "H", 4) == 0
    game = OhHell.new(3, seed=3, dealer=2)
    while game.deal_size < 3:
        first_move(game)
    assert game.trumps is not None
    trumps = game.trumps
    game.hands[seat_to_move(game)] = ["A" + trumps, "K" + trumps, "Q" + trumps]
    assert game.phase == "bid"
    assert easy("oh_hell", game.view(game.turn)) == "bid:3"


def test_oh_hell_ducks_once_the_bid_is_made() -> None:
    game = OhHell.new(3, seed=3, dealer=2)
    while game.deal_size < 2:
        first_move(game)
    for _ in range(3):
        game.apply(seat_to_move(game), "bid:0")
    seat = seat_to_move(game)
    follower = (seat + 1) % 3
    game.hands[seat] = ["9C", "2D"]
    game.hands[follower] = ["AC", "5C"]
    game.apply(seat, "9C")
    assert easy("oh_hell", game.view(follower)) == "5C"


# ------------------------------------------------------------------ King


def test_king_sheds_a_queen_when_void_in_no_queens() -> None:
    game = King.new(4, seed=4, dealer=3, options={"swap_3_4": False})
    while game.contract != "no_queens":
        seat = seat_to_move(game)
        game.apply(seat, choose("king", game.view(seat), "easy", 1))
    leader = seat_to_move(game)
    follower = (leader + 1) % 4
    led = next(c for c in game.hands[leader] if c[1] != "S")
    void_suit = led[1]
    others = [c for c in game.hands[follower] if c[1] != void_suit]
    game.hands[follower] = sorted({*others, "QS"} - {led})
    game.hands[leader] = [c for c in game.hands[leader] if c != "QS"]
    game.apply(leader, led)
    assert easy("king", game.view(follower))[0] == "Q"


def test_king_counts_its_longest_suit_first_for_trumps() -> None:
    assert name_trumps(["2D", "3D", "4D", "5D", "AS", "KS", "AH", "AC"]) == "trump:D"


# ------------------------------------------------------------------ Mau-Mau


def mau_mau_table(top: str, hand: list[str]) -> MauMau:
    game = MauMau.new(3, seed=5, dealer=2)
    game.pile = [top]
    game.suit = top[1]
    game.hands[0] = hand
    return game


def test_mau_mau_plays_off_its_most_expensive_card_and_keeps_the_jack() -> None:
    game = mau_mau_table("9H", ["JC", "AH", "7H", "8S"])
    assert easy("mau_mau", game.view(0)) == "AH"


def test_mau_mau_plays_a_jack_when_nothing_else_fits_naming_its_longest_suit() -> None:
    game = mau_mau_table("9H", ["JC", "7S", "8S", "KD"])
    assert easy("mau_mau", game.view(0)) == "JC:S"


# ------------------------------------------------------------------ Rummy


def rummy_turn(hand: list[str], discard: str) -> Rummy:
    game = Rummy.new(2, seed=6, dealer=1)
    game.hands[0] = hand
    game.discard = [discard]
    return game


def test_rummy_takes_the_discard_only_when_it_melds() -> None:
    game = rummy_turn(["7H", "8H", "KS", "2C", "4D", "QC", "9S", "3S", "5C", "JD"], "9H")
    assert easy("rummy", game.view(0)) == "take"
    game = rummy_turn(["7H", "8H", "KS", "2C", "4D", "QC", "9S", "3S", "5C", "JD"], "2H")
    assert easy("rummy", game.view(0)) == "draw"


def test_rummy_melds_then_discards_its_highest_unmatched_card() -> None:
    game = rummy_turn(["7H", "8H", "9H", "KS", "2C", "3C", "4D", "QD", "5S", "5C"], "AD")
    game.apply(0, "draw")
    drawn = game.hands[0][-1]
    assert easy("rummy", game.view(0)) == "run:H:7-9"
    game.apply(0, "run:H:7-9")
    hand = game.hands[0]
    choice = easy("rummy", game.view(0))
    unmatched = [c for c in hand if not builds(hand, c)]
    assert choice in unmatched
    assert choice in ("KS", drawn) or drawn[0] in "KQJT"


# ------------------------------------------------------------------ Fifteen


def fifteen_turn(hand: list[str], **options: object) -> Fifteen:
    game = Fifteen.new(2, seed=7, dealer=1, options=dict(options))
    game.hands[0] = hand
    return game


def test_fifteen_easy_stands_at_twelve_and_draws_below() -> None:
    assert easy("fifteen", fifteen_turn(["5S", "7H"]).view(0)) == "stand"
    assert easy("fifteen", fifteen_turn(["5S", "6H"]).view(0)) == "draw"


def test_fifteen_exact_stands_on_fifteen_and_draws_when_no_card_can_bust() -> None:
    assert exact(fifteen_turn(["5S", "TH"]).view(0)) == "stand"
    assert exact(fifteen_turn(["2S", "3H"]).view(0)) == "draw"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["AS", "2H", "3D", "4C", "5S", "6H", "7D", "KC"]),
        min_size=1,
        max_size=4,
        unique=True,
    )
)
def test_fifteen_spreads_are_probability_distributions(hand: list[str]) -> None:
    unseen = unseen_counts(hand)
    for spread in (stood_hand_spread(unseen, 2, False), dealer_spread(unseen, False)):
        assert abs(sum(spread.values()) - 1) < 1e-9
        assert all(0 <= chance <= 1 for chance in spread.values())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_fifteen_exact_never_stands_when_a_draw_cannot_bust(seed: int) -> None:
    game = Fifteen.new(2, seed=seed)
    rng = random.Random(seed)
    while game.to_move is not None and game.deal_no == 0:
        seat = game.to_move
        view = game.view(seat)
        decided = exact(view) if len(view["legal"]) == 2 else view["legal"][0]
        assert decided is not None, view["legal"]
        if len(view["legal"]) == 2 and total(game.hands[seat]) <= 5:
            assert decided == "draw"
        game.apply(seat, decided if rng.random() < 0.8 else rng.choice(view["legal"]))


def test_rummy_search_weighs_only_the_likeliest_discards_and_melds_at_once() -> None:
    game = rummy_turn(["7H", "8H", "9H", "KS", "2C", "3C", "4D", "QD", "5S", "5C"], "AD")
    # The discard against the stock only where the rule of thumb would use it at once.
    assert shortlist(game.view(0), "draw") == ["draw"]
    assert shortlist(game.view(0), "take") == ["draw", "take"]
    game.apply(0, "draw")
    assert shortlist(game.view(0), "run:H:7-9") == ["run:H:7-9"]
    game.apply(0, "run:H:7-9")
    view = game.view(0)
    weighed = shortlist(view, easy("rummy", view))
    assert len(weighed) == 4
    assert weighed[0] == easy("rummy", view)
    assert set(weighed) <= set(view["legal"])

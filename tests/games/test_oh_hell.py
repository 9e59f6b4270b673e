"""Oh Hell (docs/rules.md#oh-hell): the cycle of deals, bidding with the hook, play, scoring."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, Event, IllegalAction
from games.cards import make_deck
from games.oh_hell import OhHell, deal_score, deals_in_cycle


def stacked(hands: list[list[str]], first: int, rest: list[str] | None = None) -> list[str]:
    """A deck that deals ``hands`` one card at a time from seat ``first``, then ``rest``.

    ``rest`` defaults to the other cards of the deck in a fixed order, so its
    first card is the one turned up for trumps.
    """
    players, size = len(hands), len(hands[0])
    top = [hands[(first + i) % players][i // players] for i in range(players * size)]
    if rest is None:
        rest = [card for card in make_deck() if card not in top]
    return top + rest


def deal_stacked(dealer: int, hands: list[list[str]], turned: str | None) -> OhHell:
    """A match moved to the deal whose size is the hands', dealt from a stacked deck."""
    players = len(hands)
    game = OhHell.new(players, seed=1, dealer=dealer)
    game.deal_no = len(hands[0]) - 1
    used = {card for hand in hands for card in hand} | {turned}
    rest = [card for card in make_deck() if card not in used]
    game._deal(stacked(hands, (dealer + 1) % players, [turned, *rest] if turned else rest))
    return game


def play_randomly(game: OhHell, rng: random.Random) -> list[Event]:
    """Random legal play to the end of the match; every event, in order."""
    events: list[Event] = []
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        events += game.apply(seat, rng.choice(game.legal_actions(seat)))
    return events


def bid_all(game: OhHell, bids: list[int]) -> None:
    """Make the bids, given in bidding order (the dealer's left first)."""
    for bid in bids:
        seat = game.to_move
        assert seat is not None
        game.apply(seat, f"bid:{bid}")


def test_registered_with_its_table() -> None:
    assert REGISTRY["oh_hell"] is OhHell
    assert (OhHell.min_players, OhHell.max_players) == (2, 7)
    assert OhHell.validate_options(4, None) == {"hook": False}
    with pytest.raises(BadOptions):
        OhHell.new(4, {"hook": "yes"})


@pytest.mark.parametrize(("players", "deals"), [(2, 26), (3, 17), (4, 13), (5, 10), (6, 8), (7, 7)])
def test_the_cycle_deals_one_more_card_each_time(players: int, deals: int) -> None:
    assert deals_in_cycle(players) == deals
    game = OhHell.new(players, seed=players)
    sizes = [len(game.view(0)["hand"])]
    rng = random.Random(players)
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        for event in game.apply(seat, rng.choice(game.legal_actions(seat))):
            if event["type"] == "deal_end" and not game.finished:
                sizes.append(len(game.view(0)["hand"]))
    assert sizes == list(range(1, deals + 1))
    assert game.deal_no == deals - 1


@pytest.mark.parametrize("players", range(2, 8))
def test_every_deal_has_trumps_but_the_last(players: int) -> None:
    game = OhHell.new(players, seed=11)
    rng = random.Random(3)
    trumps_seen: list[str | None] = []
    while not game.finished:
        view = game.view(None)
        if view["phase"] == "bid" and not any(b is not None for b in view["bids"]):
            card = view["trump_card"]
            assert view["trumps"] == (card[1] if card else None)
            trumps_seen.append(card)
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert trumps_seen[-1] is None
    assert all(trumps_seen[:-1])


def test_cards_are_dealt_one_at_a_time_from_the_dealers_left() -> None:
    hands = [["2S", "3S"], ["4H", "5H"], ["6D", "7D"]]
    deck = stacked(hands, first=1)
    assert deck[:6] == ["4H", "6D", "2S", "5H", "7D", "3S"]
    game = OhHell.new(3, seed=1, dealer=2, deck=deck)
    # Deal 1 (k = 1) starts at the dealer's left, seat 0: 4H, 6D, 2S; 5H turns up.
    assert [game.view(s)["hand"] for s in range(3)] == [["4H"], ["6D"], ["2S"]]
    view = game.view(None)
    assert (view["trump_card"], view["trumps"], view["deal_size"]) == ("5H", "H", 1)
    assert game.card_zones()["stock"] == deck[4:]
    assert view["phase"] == "bid" and game.to_move == 0


def test_bids_are_zero_to_k_from_the_dealers_left_dealer_last() -> None:
    game = OhHell.new(4, seed=5, dealer=3)
    assert game.to_move == 0
    assert game.legal_actions(0) == ["bid:0", "bid:1"]
    for seat in (0, 1, 2, 3):
        assert game.to_move == seat
        game.apply(seat, "bid:1")
    view = game.view(None)
    assert view["bids"] == [1, 1, 1, 1]
    assert view["phase"] == "play" and game.to_move == 0


@pytest.mark.parametrize("action", ["bid:2", "bid:-1", "bid:x", "AS"])
def test_bad_bids_are_refused_and_change_nothing(action: str) -> None:
    game = OhHell.new(3, seed=2, dealer=0)
    before = game.to_dict()
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, action)
    expected = "must_bid" if action == "AS" else "bid_out_of_range"
    assert refused.value.reason == expected
    assert game.to_dict() == before


def test_a_bid_during_play_is_refused() -> None:
    game = OhHell.new(2, seed=2, dealer=0)
    bid_all(game, [0, 0])
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, "bid:0")
    assert refused.value.reason == "bidding_over"


def reach_deal(game: OhHell, size: int, rng: random.Random) -> None:
    """Play randomly until deal ``size`` starts."""
    while game.view(None)["deal_size"] < size:
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 7),
    seed=st.integers(0, 2**32),
    size=st.integers(1, 5),
    data=st.data(),
)
def test_the_hook_forbids_exactly_the_dealers_closing_bid(
    players: int, seed: int, size: int, data: st.DataObject
) -> None:
    rng = random.Random(seed)
    hooked = OhHell.new(players, {"hook": True}, seed=seed)
    reach_deal(hooked, size, rng)
    free = OhHell.from_dict({**hooked.to_dict()})
    free.options = {"hook": False}
    all_bids = [f"bid:{n}" for n in range(size + 1)]
    made = 0
    for _ in range(players - 1):
        seat = hooked.to_move
        assert seat is not None and seat != hooked.dealer
        assert hooked.legal_actions(seat) == all_bids
        bid = data.draw(st.integers(0, size))
        made += bid
        hooked.apply(seat, f"bid:{bid}")
        free.apply(seat, f"bid:{bid}")
    dealer = hooked.dealer
    assert hooked.to_move == dealer
    assert free.legal_actions(dealer) == all_bids
    assert hooked.legal_actions(dealer) == [b for b in all_bids if b != f"bid:{size - made}"]
    if 0 <= size - made <= size:
        before = hooked.to_dict()
        with pytest.raises(IllegalAction) as refused:
            hooked.apply(dealer, f"bid:{size - made}")
        assert refused.value.reason == "hook"
        assert hooked.to_dict() == before
        free.apply(dealer, f"bid:{size - made}")


def test_follow_suit_but_no_duty_to_trump_or_beat() -> None:
    # Dealer 0, so seat 1 gets the first card; 3 cards each, then 2C turns up.
    hands = [["AS", "2H", "3C"], ["KS", "QS", "4D"], ["9D", "8H", "7C"]]
    game = deal_stacked(0, hands, "2C")
    assert game.view(None)["trumps"] == "C"
    bid_all(game, [1, 1, 0])
    assert game.legal_actions(1) == ["KS", "QS", "4D"]
    game.apply(1, "QS")
    assert sorted(game.legal_actions(2)) == ["7C", "8H", "9D"]  # void: anything, no duty to trump
    game.apply(2, "8H")
    assert game.legal_actions(0) == ["AS"]  # must follow, ace or not
    for card in ("2H", "3C"):
        before = game.to_dict()
        with pytest.raises(IllegalAction) as refused:
            game.apply(0, card)
        assert refused.value.reason == "must_follow_suit"
        assert game.to_dict() == before
    with pytest.raises(IllegalAction) as refused:
        game.apply(0, "KS")
    assert refused.value.reason == "not_in_hand"
    events = game.apply(0, "AS")
    assert events[-1] == {"type": "trick", "winner": 0, "cards": [[1, "QS"], [2, "8H"], [0, "AS"]]}
    assert game.to_move == 0
    game.apply(0, "2H")
    game.apply(1, "4D")
    game.apply(2, "7C")  # the low trump takes the trick
    assert game.view(None)["tricks_won"] == [1, 0, 1]
    assert game.to_move == 2


def test_exact_bids_score_bid_plus_ten_others_nothing() -> None:
    assert [deal_score(0, 0), deal_score(7, 7), deal_score(2, 1), deal_score(0, 1)] == [
        10,
        17,
        0,
        0,
    ]
    # Deal 1, 3 players, spades trumps: seat 1 leads the AS and takes the trick.
    hands = [["2D"], ["AS"], ["KD"]]
    deck = stacked(hands, 1, ["3S", *[c for c in make_deck() if c not in {"2D", "AS", "KD", "3S"}]])
    game = OhHell.new(3, seed=9, dealer=0, deck=deck)
    bid_all(game, [1, 1, 0])  # seats 1, 2, 0
    game.apply(1, "AS")
    game.apply(2, "KD")
    events = game.apply(0, "2D")
    deal_end = next(e for e in events if e["type"] == "deal_end")
    assert deal_end["deal_scores"] == [10, 11, 0]
    assert deal_end["tricks_won"] == [0, 1, 0]
    assert game.scores == [10, 11, 0]
    assert game.view(None)["deal_size"] == 2 and game.dealer == 1


def test_the_match_is_one_cycle_and_ties_share_the_win() -> None:
    game = OhHell.new(7, seed=4)
    events = play_randomly(game, random.Random(4))
    assert sum(1 for e in events if e["type"] == "deal_end") == 7
    result = game.result
    assert result is not None
    best = max(result["scores"])
    assert result["winners"] == [s for s, total in enumerate(result["scores"]) if total == best]
    assert events[-1]["type"] == "match_end"


def test_a_shared_best_score_makes_every_holder_a_winner() -> None:
    # The last deal (no trumps, 26 cards each): seat 0 holds the majors, seat 1
    # the minors, so seat 0 leads and wins all 26 tricks.
    deck = make_deck()
    game = deal_stacked(1, [deck[:26], deck[26:]], None)
    assert game.view(None)["trumps"] is None
    game.scores = [0, 26]
    bid_all(game, [26, 0])
    events = play_randomly(game, random.Random(0))
    assert events[-2]["deal_scores"] == [36, 10]
    assert game.result == {"scores": [36, 36], "winners": [0, 1]}


def test_the_view_shows_bids_tricks_and_this_deals_history() -> None:
    game = OhHell.new(4, seed=8, dealer=0)
    rng = random.Random(8)
    reach_deal(game, 3, rng)
    bid_all(game, [0, 1, 2, 1])
    for _ in range(5):
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    view = game.view(2)
    assert view["bids"] == [1, 2, 1, 0] and view["phase"] == "play"
    assert len(view["history"]) == 1 and len(view["trick"]) == 1
    assert view["last_trick"] == view["history"][-1]
    assert sum(view["tricks_won"]) == 1
    assert view["hand_sizes"] == [len(game.card_zones()[f"hand{s}"]) for s in range(4)]
    assert view["hand"] == game.card_zones()["hand2"]
    assert view["legal"] == game.legal_actions(2)


def test_determinize_never_deals_a_suit_to_a_seat_that_showed_it_void() -> None:
    # 2 players, deal 4 (k = 4). Seat 1 will show it has no spades.
    hands = [["AS", "KS", "QS", "JS"], ["2H", "3H", "4H", "5D"]]
    game = deal_stacked(1, hands, "2C")
    bid_all(game, [4, 0])
    game.apply(0, "AS")
    game.apply(1, "2H")
    view = game.view(0)
    for n in range(30):
        sample = OhHell.determinize(view, random.Random(n))
        assert sample.view(0) == view
        assert not any(card[1] == "S" for card in sample.hands[1])
        assert len(sample.hands[1]) == 3 and "2C" not in sample.hands[1]


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 7), hook=st.booleans(), seed=st.integers(0, 2**32))
def test_tricks_of_each_deal_add_up_to_the_deal_size(players: int, hook: bool, seed: int) -> None:
    game = OhHell.new(players, {"hook": hook}, seed=seed)
    totals: list[int] = []
    deal_ends: list[dict[str, Any]] = [
        e for e in play_randomly(game, random.Random(seed)) if e["type"] == "deal_end"
    ]
    for size, deal_end in enumerate(deal_ends, start=1):
        assert sum(deal_end["tricks_won"]) == size
        points = [
            deal_score(b, t) for b, t in zip(deal_end["bids"], deal_end["tricks_won"], strict=True)
        ]
        assert deal_end["deal_scores"] == points
        if hook:
            assert sum(deal_end["bids"]) != size
        totals = [sum(x) for x in zip(totals or [0] * players, points, strict=True)]
    assert len(deal_ends) == deals_in_cycle(players)
    assert game.scores == totals


# ----------------------------------------------------------------- more rule checks


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 7), seed=st.integers(0, 2**32), first_dealer=st.data())
def test_every_deal_bids_from_the_dealers_left_dealer_last_then_his_left_leads(
    players: int, seed: int, first_dealer: st.DataObject
) -> None:
    dealer0 = first_dealer.draw(st.integers(0, players - 1))
    game = OhHell.new(players, seed=seed, dealer=dealer0)
    rng = random.Random(seed)
    for deal in range(deals_in_cycle(players)):
        dealer = (dealer0 + deal) % players
        left = (dealer + 1) % players
        view = game.view(None)
        assert (view["dealer"], view["deal_size"], view["phase"]) == (dealer, deal + 1, "bid")
        assert view["hand_sizes"] == [deal + 1] * players
        assert (view["trump_card"] is None) == (deal == deals_in_cycle(players) - 1)
        bidders = []
        while game.view(None)["phase"] == "bid":
            seat = game.to_move
            assert seat is not None
            bidders.append(seat)
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert bidders == [(left + i) % players for i in range(players)]  # the dealer bids last
        assert game.to_move == left  # and the dealer's left leads
        trick_leader = left
        while game.deal_no == deal and not game.finished:
            seat = game.to_move
            assert seat is not None
            if not game.view(None)["trick"]:
                assert seat == trick_leader
            for event in game.apply(seat, rng.choice(game.legal_actions(seat))):
                if event["type"] == "trick":
                    trick_leader = event["winner"]  # the trick winner leads next
    assert game.finished


def test_the_trump_card_is_the_card_after_the_hands_in_a_bigger_deal() -> None:
    hands = [["AS", "2H", "3C"], ["KS", "QS", "4D"], ["9D", "8H", "7C"]]
    game = deal_stacked(2, hands, "TH")
    view = game.view(1)
    assert (view["trump_card"], view["trumps"]) == ("TH", "H")
    assert view["hand"] == ["KS", "QS", "4D"]
    assert game.view(0)["hand"] == ["2H", "AS", "3C"]  # trumps first: sorted for the buttons
    assert "TH" not in game.hidden_cards(0) and "TH" not in game.card_zones()["stock"]


def test_determinize_does_not_read_anything_into_the_bids() -> None:
    # Deal 2 for 3 players; seat 0 bids 2 and leads. A bid is a wish, not a fact.
    hands = [["2S", "3S"], ["AS", "KS"], ["4D", "5D"]]
    game = deal_stacked(2, hands, "6C")
    bid_all(game, [2, 0, 0])
    view = game.view(2)
    holders = set()
    for n in range(60):
        sample = OhHell.determinize(view, random.Random(n))
        assert sample.view(2) == view
        holders.add("AS" in sample.hands[1])
    assert holders == {True, False}


def test_determinize_from_the_public_view_samples_every_hand() -> None:
    game = OhHell.new(4, seed=21, dealer=0)
    rng = random.Random(21)
    reach_deal(game, 4, rng)
    for _ in range(9):  # the bids and a trick and a bit
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    view = game.view(None)
    for n in range(10):
        sample = OhHell.determinize(view, random.Random(n))
        assert sample.view(None) == view
        assert sorted(c for cards in sample.card_zones().values() for c in cards) == sorted(
            make_deck()
        )

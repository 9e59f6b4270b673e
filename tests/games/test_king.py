"""King (docs/rules.md#king): the negative deals, their penalties and leads, the trump
deals, the lottery, and a match that always sums to zero."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, Event, IllegalAction
from games.cards import SUITS, make_deck
from games.king import King
from games.king_contracts import (
    NEGATIVE,
    contracts_for,
    penalty_for,
    penalty_total,
    trick_penalty,
)

DEFAULTS: dict[str, Any] = King.validate_options(4, None)
ALL_OPTIONS = st.fixed_dictionaries(
    {opt.name: st.sampled_from(opt.choices) for opt in King.options_schema}
)


def by_suit() -> list[list[str]]:
    """Seat 0 holds the spades, 1 the hearts, 2 the diamonds, 3 the clubs."""
    deck = make_deck()
    return [deck[i * 13 : i * 13 + 13] for i in range(4)]


def swap(hands: list[list[str]], a: str, b: str) -> list[list[str]]:
    """The hands with cards ``a`` and ``b`` exchanged between their holders."""
    return [[b if c == a else a if c == b else c for c in hand] for hand in hands]


def deal_contract(
    contract: str, hands: list[list[str]] | None = None, dealer: int = 0, **options: Any
) -> King:
    """A match moved to the first deal of ``contract``, dealt from stacked hands.

    Without ``hands`` the deal is shuffled from the seed.
    """
    players = len(hands) if hands else int(options.pop("players", 4))
    game = King.new(players, options, seed=5, dealer=dealer)
    game.deal_no = contracts_for(players, game.options).index(contract)
    if hands is None:
        game._deal(game.shuffled_deck())
    else:
        first = (dealer + 1) % players
        size = len(hands[0])
        game._deal([hands[(first + i) % players][i // players] for i in range(players * size)])
    return game


def step(game: King, rng: random.Random) -> list[Event]:
    """One random legal action of the seat to move."""
    seat = game.to_move
    assert seat is not None
    return game.apply(seat, rng.choice(game.legal_actions(seat)))


def play_deal(game: King, rng: random.Random) -> list[Event]:
    """Random legal play until the current deal ends; its events."""
    events: list[Event] = []
    while not any(e["type"] == "deal_end" for e in events):
        events += step(game, rng)
    return events


def refused(game: King, seat: int, action: str) -> str:
    """The reason ``action`` is refused; checks that nothing changed."""
    before = game.to_dict()
    with pytest.raises(IllegalAction) as error:
        game.apply(seat, action)
    assert game.to_dict() == before
    return error.value.reason


# ----------------------------------------------------------------- the table


def test_registered_with_its_options() -> None:
    assert REGISTRY["king"] is King
    assert (King.min_players, King.max_players) == (3, 4)
    assert DEFAULTS == {
        "king_forced": False,
        "last_tricks": "last",
        "swap_3_4": False,
        "robber": False,
        "positive": "trump",
        "lottery_rounds": "single",
    }
    with pytest.raises(BadOptions):
        King.new(4, {"last_tricks": "first"})
    with pytest.raises(BadOptions):
        King.new(5)


def test_three_players_play_without_the_two_of_clubs() -> None:
    game = King.new(3, seed=2)
    assert len(game.deck_cards()) == 51 and "2C" not in game.deck_cards()
    assert [len(game.view(s)["hand"]) for s in range(3)] == [17, 17, 17]


def test_the_programme_of_deals() -> None:
    players_4 = contracts_for(4, DEFAULTS)
    assert players_4 == [*NEGATIVE, "trump", "trump", "trump", "trump"]
    swapped = contracts_for(4, {**DEFAULTS, "swap_3_4": True})
    assert swapped[2:4] == ["no_kings_jacks", "no_queens"]
    assert swapped[:2] + swapped[4:] == players_4[:2] + players_4[4:]
    assert contracts_for(3, {**DEFAULTS, "positive": "lottery"}) == [*NEGATIVE, "lottery"]
    per_player = {**DEFAULTS, "positive": "lottery", "lottery_rounds": "per_player"}
    assert contracts_for(3, per_player)[6:] == ["lottery"] * 3
    robber = contracts_for(4, {**per_player, "robber": True})
    assert robber[6:] == ["robber", *["trump"] * 4, *["lottery"] * 4]


@pytest.mark.parametrize("swap_3_4", [False, True])
def test_deals_are_played_in_order_and_the_dealer_rotates(swap_3_4: bool) -> None:
    game = King.new(4, {"swap_3_4": swap_3_4}, seed=3, dealer=2)
    rng = random.Random(3)
    played, dealers = [], []
    while not game.finished:
        dealers.append(game.dealer)
        played.append(game.view(None)["contract"])
        assert game.to_move == (game.dealer + 1) % 4  # the dealer's left starts
        play_deal(game, rng)
    assert played == contracts_for(4, game.options)
    assert played[2:4] == (
        ["no_kings_jacks", "no_queens"] if swap_3_4 else ["no_queens", "no_kings_jacks"]
    )
    assert dealers == [(2 + n) % 4 for n in range(len(played))]


# ----------------------------------------------------------------- penalties


@pytest.mark.parametrize(
    ("players", "totals", "robber"),
    [(4, [260, 260, 240, 240, 150, 150], 1300), (3, [255, 260, 240, 240, 140, 140], 1275)],
)
@pytest.mark.parametrize("last_tricks", ["last", "last_two", "seventh_and_last"])
def test_each_negative_deal_has_its_penalty_total(
    players: int, totals: list[int], robber: int, last_tricks: str
) -> None:
    for contract, total in zip(NEGATIVE, totals, strict=True):
        penalty = penalty_for(contract, players, last_tricks)
        assert penalty is not None
        assert penalty_total(penalty, players) == total
    robber_penalty = penalty_for("robber", players, last_tricks)
    assert robber_penalty is not None
    assert penalty_total(robber_penalty, players) == robber == sum(totals)
    assert penalty_for("trump", players, last_tricks) is None


def test_the_penalty_items_per_player_count() -> None:
    assert penalty_for("no_tricks", 4, "last") == {"trick": 20}
    assert penalty_for("no_tricks", 3, "last") == {"trick": 15}
    assert penalty_for("no_hearts", 3, "last") == {"heart": 20}
    assert penalty_for("no_queens", 3, "last") == {"queen": 60}
    assert penalty_for("no_kings_jacks", 4, "last") == {"king_jack": 30}
    assert penalty_for("no_king_of_hearts", 4, "last") == {"king_of_hearts": 150}
    assert penalty_for("no_king_of_hearts", 3, "last") == {"king_of_hearts": 140}
    assert penalty_for("no_last_tricks", 4, "last") == {"trick_13": 150}
    assert penalty_for("no_last_tricks", 3, "last_two") == {"trick_16": 70, "trick_17": 70}
    assert penalty_for("no_last_tricks", 4, "seventh_and_last") == {"trick_7": 75, "trick_13": 75}


def test_a_robber_trick_counts_every_penalty_at_once() -> None:
    robber = penalty_for("robber", 4, "last")
    assert robber is not None
    # 13th trick (150) + a trick (20) + K♥: heart 20, king 30, the K♥ 150 + Q♠ 60 + J♦ 30.
    assert trick_penalty(robber, 13, ["KH", "QS", "JD", "2C"]) == 150 + 20 + 200 + 60 + 30
    assert trick_penalty(robber, 5, ["QH", "3C", "4C", "5C"]) == 20 + 20 + 60


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("last_tricks", ["last", "last_two", "seventh_and_last"])
def test_the_last_tricks_variants(players: int, last_tricks: str) -> None:
    tricks = 52 // players
    numbers = {"last": [tricks], "last_two": [tricks - 1, tricks], "seventh_and_last": [7, tricks]}[
        last_tricks
    ]
    each = (150 if players == 4 else 140) // len(numbers)
    for seed in range(3):
        game = deal_contract("no_last_tricks", players=players, last_tricks=last_tricks)
        game.seed = seed
        game._deal(game.shuffled_deck())
        events = play_deal(game, random.Random(seed))
        points = [e["points"] for e in events if e["type"] == "trick"]
        assert len(points) == tricks
        assert [n for n, p in enumerate(points, start=1) if p] == numbers
        assert all(p == -each for p in points if p)


# ----------------------------------------------------------------- leads and follows


@pytest.mark.parametrize("contract", ["no_hearts", "no_king_of_hearts", "robber"])
def test_hearts_may_not_be_led_while_holding_another_suit(contract: str) -> None:
    hands = swap(by_suit(), "AH", "2S")  # the leader, seat 1: twelve hearts and the 2S
    game = deal_contract(contract, hands, robber=True)
    assert game.to_move == 1
    assert game.legal_actions(1) == ["2S"]
    assert refused(game, 1, "KH") == "hearts_lead_banned"


@pytest.mark.parametrize("contract", ["no_hearts", "no_king_of_hearts", "robber"])
def test_hearts_may_be_led_by_a_player_holding_only_hearts(contract: str) -> None:
    game = deal_contract(contract, by_suit(), robber=True)
    assert game.legal_actions(1) == by_suit()[1]


@pytest.mark.parametrize("contract", ["no_tricks", "no_queens", "no_kings_jacks", "no_last_tricks"])
def test_hearts_may_be_led_in_the_other_negative_deals(contract: str) -> None:
    hands = swap(by_suit(), "AH", "2S")
    game = deal_contract(contract, hands)
    assert sorted(game.legal_actions(1)) == sorted(hands[1])


def king_forced_hands() -> list[list[str]]:
    """Seat 1 leads the 2S (its only non-heart); seat 2, void in spades, holds the K♥."""
    return swap(swap(by_suit(), "KH", "2D"), "2D", "2S")


def test_king_forced_makes_a_void_holder_play_the_king_of_hearts() -> None:
    hands = king_forced_hands()
    assert "KH" in hands[2] and "2S" in hands[1] and "2D" in hands[0]
    game = deal_contract("no_king_of_hearts", hands, king_forced=True)
    game.apply(1, "2S")
    assert game.legal_actions(2) == ["KH"]
    assert refused(game, 2, "5D") == "must_play_king_of_hearts"
    game.apply(2, "KH")
    game.apply(3, "2C")
    events = game.apply(0, "3S")  # the only higher spade wins the K♥ and the deal is over
    deal_end = next(e for e in events if e["type"] == "deal_end")
    assert deal_end["deal_scores"] == [-150, 0, 0, 0]
    assert game.scores == [-150, 0, 0, 0]
    assert game.view(None)["contract"] == "no_last_tricks"


def test_without_king_forced_the_holder_may_keep_the_king() -> None:
    hands = king_forced_hands()
    game = deal_contract("no_king_of_hearts", hands)
    game.apply(1, "2S")
    assert sorted(game.legal_actions(2)) == sorted(hands[2])


def test_king_forced_only_binds_a_player_who_cannot_follow() -> None:
    hands = swap(by_suit(), "KH", "2S")  # seat 0 holds the spades and the K♥
    game = deal_contract("no_king_of_hearts", hands, king_forced=True)
    game.apply(1, "2S")
    game.apply(2, "2D")
    game.apply(3, "2C")
    assert sorted(game.legal_actions(0)) == sorted(c for c in hands[0] if c[1] == "S")
    assert refused(game, 0, "KH") == "must_follow_suit"


def test_follow_suit_in_the_negative_deals() -> None:
    game = deal_contract("no_tricks", swap(by_suit(), "AS", "2H"))
    game.apply(1, "AS")  # seat 1 holds the AS; seat 2 has no spades: any card
    assert sorted(game.legal_actions(2)) == sorted(by_suit()[2])
    game.apply(2, "5D")
    game.apply(3, "5C")
    assert "2H" in game.view(0)["hand"]
    assert refused(game, 0, "2H") == "must_follow_suit"
    assert refused(game, 0, "AD") == "not_in_hand"
    assert refused(game, 0, "bid:1") == "unknown_action"


def test_a_negative_deal_ends_once_its_penalties_are_all_taken() -> None:
    for seed in range(5):
        game = deal_contract("no_queens")
        game.seed = seed
        game._deal(game.shuffled_deck())
        events = play_deal(game, random.Random(seed))
        tricks = [e for e in events if e["type"] == "trick"]
        queens = [card for t in tricks for _, card in t["cards"] if card[0] == "Q"]
        assert len(queens) == 4
        assert any(card[0] == "Q" for _, card in tricks[-1]["cards"])
        assert sum(t["points"] for t in tricks) == -240


def test_no_tricks_is_played_to_the_last_trick() -> None:
    game = deal_contract("no_tricks")
    events = play_deal(game, random.Random(1))
    assert [e["points"] for e in events if e["type"] == "trick"] == [-20] * 13


# ----------------------------------------------------------------- the trump deals


def test_a_trump_deal_names_trumps_then_pays_per_trick() -> None:
    game = deal_contract("trump", by_suit(), dealer=3)
    view = game.view(0)
    assert (view["phase"], view["trumps"], view["prize"]) == ("trump_choice", None, {"trick": 25})
    assert game.to_move == 0
    assert game.legal_actions(0) == ["trump:S", "trump:H", "trump:D", "trump:C"]
    assert refused(game, 0, "AS") == "must_name_trumps"
    assert refused(game, 0, "trump:N") == "unknown_action"
    assert game.apply(0, "trump:C") == [{"type": "trump", "seat": 0, "suit": "C"}]
    assert game.view(None)["trumps"] == "C" and game.to_move == 0
    game.apply(0, "AS")
    game.apply(1, "AH")
    game.apply(2, "AD")
    events = game.apply(3, "2C")  # the lowest trump beats the ace led
    assert events[-1]["winner"] == 3 and events[-1]["points"] == 25
    assert game.view(None)["deal_points"] == [0, 0, 0, 25]


@pytest.mark.parametrize("players", [3, 4])
def test_a_trump_deal_pays_every_trick(players: int) -> None:
    game = deal_contract("trump", players=players)
    deal_end = play_deal(game, random.Random(players))[-1]
    assert deal_end["type"] == "deal_end"
    assert sum(deal_end["deal_scores"]) == 25 * (52 // players)


# ----------------------------------------------------------------- the lottery


def test_the_lottery_opens_with_an_eight_or_passes() -> None:
    hands = swap(by_suit(), "8H", "2S")  # the leader, seat 1, has no 8
    game = deal_contract("lottery", hands, positive="lottery")
    view = game.view(1)
    assert view["phase"] == "lottery" and view["rows"] == dict.fromkeys(SUITS)
    assert game.legal_actions(1) == ["pass"]
    assert refused(game, 1, "9H") == "not_playable"
    assert game.apply(1, "pass") == [{"type": "pass", "seat": 1}]
    assert game.legal_actions(2) == ["8D"]
    assert refused(game, 2, "pass") == "must_play"
    game.apply(2, "8D")
    assert game.legal_actions(3) == ["8C"]
    game.apply(3, "8C")
    assert sorted(game.legal_actions(0)) == ["8H", "8S"]  # any 8 of a new suit
    game.apply(0, "8H")
    assert sorted(game.legal_actions(1)) == ["7H", "9H"]  # next up or down of a row
    assert game.view(None)["rows"] == {
        "S": None,
        "H": ["8H", "8H"],
        "D": ["8D", "8D"],
        "C": ["8C", "8C"],
    }


def test_lottery_rows_grow_up_to_the_ace_and_down_to_the_two() -> None:
    game = deal_contract("lottery", by_suit(), positive="lottery")
    rng = random.Random(0)
    events: list[Event] = []
    for _ in range(4 * 12 + 1):  # seat 1 plays its 13th heart last
        events += step(game, rng)
    view = game.view(None)
    assert view["rows"]["H"] == ["2H", "AH"]
    assert view["out"] == [1]
    assert events[-1] == {"type": "out", "seat": 1, "place": 1, "prize": 800}
    assert view["deal_points"] == [0, 800, 0, 0]
    assert game.legal_actions(2) in (["2D"], ["AD"])
    events = game.apply(2, game.legal_actions(2)[0])
    assert [e["type"] for e in events] == ["play", "out", "deal_end", "match_end"]
    assert events[1]["prize"] == 500
    assert game.finished and game.scores == [0, 800, 500, 0]


@pytest.mark.parametrize(
    ("players", "rounds", "prizes"),
    [
        (4, "single", (800, 500)),
        (4, "per_player", (200, 125)),
        (3, "single", (790, 485)),
        (3, "per_player", (250, 175)),
    ],
)
def test_lottery_prizes(players: int, rounds: str, prizes: tuple[int, int]) -> None:
    game = deal_contract("lottery", players=players, positive="lottery", lottery_rounds=rounds)
    assert game.view(None)["prize"] == {"first": prizes[0], "second": prizes[1]}
    for seed in range(3):
        events = play_deal(game.clone(), random.Random(seed))
        outs = [e for e in events if e["type"] == "out"]
        assert [(e["place"], e["prize"]) for e in outs] == [(1, prizes[0]), (2, prizes[1])]
        deal_scores = next(e for e in events if e["type"] == "deal_end")["deal_scores"]
        assert sorted(deal_scores, reverse=True)[:3] == [*prizes, 0]
        assert [deal_scores[e["seat"]] for e in outs] == list(prizes)


def test_lottery_pass_is_only_for_a_player_who_cannot_play() -> None:
    for seed in range(4):
        game = deal_contract("lottery", positive="lottery")
        game.seed = seed
        game._deal(game.shuffled_deck())
        rng = random.Random(seed)
        while game.view(None)["contract"] == "lottery" and not game.finished:
            seat = game.to_move
            assert seat is not None
            playable = [
                c for c in game.view(seat)["hand"] if c in lottery_fits(game.view(None)["rows"])
            ]
            assert game.legal_actions(seat) == (playable or ["pass"])
            step(game, rng)


def lottery_fits(rows: dict[str, list[str] | None]) -> set[str]:
    """The cards that fit the rows, worked out independently of the engine."""
    ladder = "23456789TJQKA"
    fits = set()
    for suit_, row in rows.items():
        if row is None:
            fits.add("8" + suit_)
            continue
        low, high = ladder.index(row[0][0]), ladder.index(row[1][0])
        fits.update(ladder[i] + suit_ for i in (low - 1, high + 1) if 0 <= i < 13)
    return fits


# ----------------------------------------------------------------- what a seat knows


def test_determinize_knows_a_pass_shows_no_playable_card() -> None:
    hands = swap(swap(by_suit(), "8H", "2S"), "8S", "3D")  # seat 1 without an 8
    game = deal_contract("lottery", hands, positive="lottery")
    game.apply(1, "pass")
    view = game.view(2)
    for n in range(30):
        sample = King.determinize(view, random.Random(n))
        assert sample.view(2) == view
        assert not any(card[0] == "8" for card in sample.hands[1])


def test_determinize_knows_a_banned_heart_lead_shows_only_hearts() -> None:
    game = deal_contract("no_hearts", by_suit())
    game.apply(1, "2H")
    view = game.view(2)
    for n in range(20):
        sample = King.determinize(view, random.Random(n))
        assert sample.view(2) == view
        assert all(card[1] == "H" for card in sample.hands[1])


def test_determinize_knows_who_cannot_hold_the_forced_king() -> None:
    hands = swap(king_forced_hands(), "KH", "4H")  # seat 1 holds the K♥, seat 2 none
    game = deal_contract("no_king_of_hearts", hands, king_forced=True)
    game.apply(1, "2S")
    game.apply(2, "5D")  # void in spades with the K♥ unplayed: seat 2 has none
    view = game.view(0)
    for n in range(20):
        sample = King.determinize(view, random.Random(n))
        assert sample.view(0) == view
        assert "KH" not in sample.hands[2]
        assert not any(card[1] == "S" for card in sample.hands[2])


# ----------------------------------------------------------------- whole matches


def positive_total(contract: str, players: int, rounds: str) -> int:
    if contract == "trump":
        return 25 * (52 // players)
    first, second = {
        (4, "single"): (800, 500),
        (4, "per_player"): (200, 125),
        (3, "single"): (790, 485),
        (3, "per_player"): (250, 175),
    }[players, rounds]
    return first + second


def negative_total(contract: str, players: int, last_tricks: str) -> int:
    penalty = penalty_for(contract, players, last_tricks)
    assert penalty is not None
    return penalty_total(penalty, players)


@settings(max_examples=30, deadline=None)
@given(players=st.sampled_from([3, 4]), options=ALL_OPTIONS, seed=st.integers(0, 2**32))
def test_every_deal_distributes_exactly_and_the_match_sums_to_zero(
    players: int, options: dict[str, Any], seed: int
) -> None:
    game = King.new(players, options, seed=seed)
    rng = random.Random(seed)
    contracts = contracts_for(players, game.options)
    deal_ends: list[Event] = []
    while not game.finished:
        deal_ends += [e for e in step(game, rng) if e["type"] == "deal_end"]
    assert [e["contract"] for e in deal_ends] == contracts
    negative = positive = 0
    for deal_end in deal_ends:
        contract, taken = deal_end["contract"], sum(deal_end["deal_scores"])
        if contract in (*NEGATIVE, "robber"):
            total = negative_total(contract, players, game.options["last_tricks"])
            assert taken == -total
            assert all(points <= 0 for points in deal_end["deal_scores"])
            negative += total
        else:
            assert taken == positive_total(contract, players, game.options["lottery_rounds"])
            assert all(points >= 0 for points in deal_end["deal_scores"])
            positive += taken
    assert negative == (1300 if players == 4 else 1275) * (2 if options["robber"] else 1)
    assert positive == negative
    assert sum(game.scores) == 0
    assert game.result is not None
    best = max(game.scores)
    assert game.result["winners"] == [s for s, p in enumerate(game.scores) if p == best]


# ----------------------------------------------------------------- more rule checks


def rules_penalty(
    contract: str, players: int, last_tricks: str, number: int, cards: list[str]
) -> int:
    """The penalty for taking trick ``number`` (from 1) of ``cards``, written out
    again from docs/rules.md#king-negative-deals, independent of the engine's tables."""
    four = players == 4
    tricks = 52 // players
    numbered = {"last": [tricks], "last_two": [tricks - 1, tricks], "seventh_and_last": [7, tricks]}
    last_cost = (150 if four else 140) // len(numbered[last_tricks])
    parts = {
        "no_tricks": 20 if four else 15,
        "no_hearts": 20 * sum(card[1] == "H" for card in cards),
        "no_queens": 60 * sum(card[0] == "Q" for card in cards),
        "no_kings_jacks": 30 * sum(card[0] in "KJ" for card in cards),
        "no_king_of_hearts": (150 if four else 140) * ("KH" in cards),
        "no_last_tricks": last_cost * (number in numbered[last_tricks]),
    }
    return sum(parts.values()) if contract == "robber" else parts[contract]


def items_left(contract: str, cards: list[str]) -> bool:
    """True if ``cards`` still hold something a card-penalty contract punishes."""
    punished: dict[str, Callable[[str], bool]] = {
        "no_hearts": lambda c: c[1] == "H",
        "no_queens": lambda c: c[0] == "Q",
        "no_kings_jacks": lambda c: c[0] in "KJ",
        "no_king_of_hearts": lambda c: c == "KH",
    }
    return any(punished[contract](card) for card in cards)


@settings(max_examples=20, deadline=None)
@given(players=st.sampled_from([3, 4]), options=ALL_OPTIONS, seed=st.integers(0, 2**32))
def test_each_trick_charges_its_winner_exactly_what_the_rules_say(
    players: int, options: dict[str, Any], seed: int
) -> None:
    game = King.new(players, options, seed=seed)
    rng = random.Random(seed)
    deck = game.deck_cards()
    while not game.finished:
        contract, dealer = game.view(None)["contract"], game.dealer
        expected = [0] * players
        played: list[str] = []
        tricks = 0
        events = play_deal(game, rng)
        for event in events:
            if event["type"] == "trick":
                tricks += 1
                cards = [card for _, card in event["cards"]]
                played += cards
                if contract == "trump":
                    points = 25
                else:
                    points = -rules_penalty(
                        contract, players, options["last_tricks"], tricks, cards
                    )
                assert event["points"] == points
                expected[event["winner"]] += points
            if event["type"] == "out":
                expected[event["seat"]] += event["prize"]
        deal_end = events[-1] if events[-1]["type"] == "deal_end" else events[-2]
        assert deal_end["type"] == "deal_end" and deal_end["deal_scores"] == expected
        left = [card for card in deck if card not in played]
        if contract in ("no_hearts", "no_queens", "no_kings_jacks", "no_king_of_hearts"):
            # It ends as soon as, and only when, nothing punished is left to take.
            assert not items_left(contract, left)
            assert tricks == 52 // players or items_left(contract, left + cards)
        elif contract != "lottery":
            assert tricks == 52 // players
        if not game.finished:
            assert game.dealer == (dealer + 1) % players


def test_the_trump_maker_is_the_dealers_left_and_others_wait() -> None:
    game = deal_contract("trump", by_suit(), dealer=1)
    assert game.to_move == 2
    assert game.legal_actions(2) == ["trump:S", "trump:H", "trump:D", "trump:C"]
    assert all(game.legal_actions(s) == [] for s in (0, 1, 3))
    assert refused(game, 3, "trump:S") == "not_your_turn"
    game.apply(2, "trump:H")
    assert game.to_move == 2 and game.view(2)["hand"] == by_suit()[2]  # he leads
    assert game.view(1)["hand"] == by_suit()[1]


def test_a_heart_trump_sorts_the_hands_trumps_first() -> None:
    hands = swap(by_suit(), "AH", "2S")
    game = deal_contract("trump", hands, dealer=3)
    game.apply(0, "trump:H")
    assert game.view(0)["hand"][0] == "AH"
    assert game.legal_actions(0) == game.view(0)["hand"]


def test_the_lottery_stops_when_two_are_out_with_three_players() -> None:
    game = deal_contract("lottery", players=3, positive="lottery")
    events = play_deal(game, random.Random(7))
    outs = [e["seat"] for e in events if e["type"] == "out"]
    assert len(outs) == 2 and len(set(outs)) == 2
    assert [e["prize"] for e in events if e["type"] == "out"] == [790, 485]
    assert game.finished and sorted(game.scores[s] for s in outs) == [485, 790]


def test_seventh_and_last_with_three_players_charges_tricks_seven_and_seventeen() -> None:
    penalty = penalty_for("no_last_tricks", 3, "seventh_and_last")
    assert penalty == {"trick_7": 70, "trick_17": 70}
    robber = penalty_for("robber", 3, "seventh_and_last")
    assert robber is not None
    assert trick_penalty(robber, 7, ["3C", "4C", "5C"]) == 15 + 70
    assert trick_penalty(robber, 17, ["KH", "3C", "4C"]) == 15 + 70 + 20 + 30 + 140


@pytest.mark.parametrize("contract", ["no_hearts", "trump", "lottery"])
def test_determinize_from_the_public_view_samples_every_hand(contract: str) -> None:
    game = deal_contract(contract, positive="lottery", robber=True)
    rng = random.Random(4)
    for _ in range(11):
        step(game, rng)
    view = game.view(None)
    for n in range(10):
        sample = King.determinize(view, random.Random(n))
        assert sample.view(None) == view
        cards = sorted(c for zone in sample.card_zones().values() for c in zone)
        assert cards == sorted(game.deck_cards())

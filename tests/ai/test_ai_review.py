"""📈 Review after a deal, the engine: a planted losing move is listed, a perfect deal
lists none, and a verdict depends on the seat's own view only."""

from __future__ import annotations

from games.ai import Budget
from games.ai.review import THRESHOLDS, Grade, decision_points, grade, review_decision
from games.cards import make_deck
from games.oh_hell import OhHell

GAME = "oh_hell"
PLAYERS = 4
DEALER = 3  # seat 0 bids first and leads
BUDGET = Budget(playouts=60)


def dealt(deck: list[str]) -> OhHell:
    """The match dealt from ``deck`` (a copy)."""
    return OhHell.new(PLAYERS, {}, 0, dealer=DEALER, deck=list(deck))


def stacked(seat_zero: str, trump: str, swap: bool = False) -> list[str]:
    """A deck whose first (one-card) deal gives seat 0 ``seat_zero`` and turns up
    ``trump``; ``swap`` exchanges seats 2 and 3's cards (hidden from seat 0)."""
    deck = make_deck(52)
    probe = dealt(deck)
    spots = {card: deck.index(card) for card in deck}
    where_zero = spots[probe.hands[0][0]]
    assert probe.trump_card is not None
    where_trump = spots[probe.trump_card]
    for card, place in ((seat_zero, where_zero), (trump, where_trump)):
        here = deck.index(card)
        deck[here], deck[place] = deck[place], deck[here]
    if swap:
        hands = dealt(deck).hands
        two, three = deck.index(hands[2][0]), deck.index(hands[3][0])
        deck[two], deck[three] = deck[three], deck[two]
    return deck


def play_first_deal(deck: list[str], bid: str) -> list[tuple[int, str]]:
    """Seat 0 bids ``bid``; everyone else bids 0; the one card each is played."""
    game = dealt(deck)
    moves: list[tuple[int, str]] = []
    while game.deal_no == 0:
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions(seat)
        action = bid if seat == 0 and game.phase == "bid" else legal[0]
        moves.append((seat, action))
        game.apply(seat, action)
    return moves


Found = list[tuple[str, str, float, Grade | None]]


def review(deck: list[str], moves: list[tuple[int, str]]) -> Found:
    points = decision_points(GAME, PLAYERS, {}, 0, moves, 0, 0, dealer=DEALER, deck=list(deck))
    found: Found = []
    for point in points:
        verdict = review_decision(GAME, point.view, point.chosen, 5, BUDGET)
        found.append((point.chosen, verdict.best, verdict.cost, grade(GAME, verdict)))
    return found


def test_a_planted_losing_bid_is_a_blunder_with_the_better_bid_and_its_cost() -> None:
    deck = stacked("AS", "2S")  # the ace of trumps: it takes the one trick whatever happens
    found = review(deck, play_first_deal(deck, "bid:0"))
    [(chosen, best, cost, graded)] = found  # one decision: the bid (the card is forced)
    assert (chosen, best, graded) == ("bid:0", "bid:1", "blunder")
    # bid 1 makes 11 points instead of 0, and the others' deals do not depend on it:
    # 11 points more against the table's average, in every sampled world
    assert abs(cost - 11.0) < 1e-9
    assert cost >= THRESHOLDS[GAME][1]


def test_a_perfect_deal_lists_no_mistake() -> None:
    deck = stacked("AS", "2S")
    found = review(deck, play_first_deal(deck, "bid:1"))
    assert [(chosen, graded) for chosen, _, _, graded in found] == [("bid:1", None)]
    assert found[0][2] == 0.0


def test_a_verdict_depends_only_on_what_the_seat_saw() -> None:
    deck = stacked("KH", "3D")  # a king off trumps: the others' cards decide
    other = stacked("KH", "3D", swap=True)
    games = [dealt(d) for d in (deck, other)]
    assert games[0].hands[2] != games[1].hands[2]  # the deals differ in hidden cards
    views = [
        decision_points(GAME, PLAYERS, {}, 0, play_first_deal(d, "bid:1"), 0, 0,
                        dealer=DEALER, deck=list(d))[0].view
        for d in (deck, other)
    ]
    assert views[0] == views[1] == games[0].view(0)  # exactly the seat's own view
    assert "hands" not in views[0]
    verdicts = [review_decision(GAME, view, "bid:1", 5, BUDGET) for view in views]
    assert verdicts[0] == verdicts[1]


def test_decisions_with_no_choice_and_moves_a_computer_made_are_left_out() -> None:
    deck = stacked("AS", "2S")
    moves = play_first_deal(deck, "bid:0")
    points = decision_points(GAME, PLAYERS, {}, 0, moves, 0, 0, dealer=DEALER, deck=list(deck))
    assert [p.chosen for p in points] == ["bid:0"]  # the one card was forced
    assert decision_points(GAME, PLAYERS, {}, 0, moves, 0, 0, skip={0},
                           dealer=DEALER, deck=list(deck)) == []
    assert decision_points(GAME, PLAYERS, {}, 0, moves, 1, 0,
                           dealer=DEALER, deck=list(deck)) == []  # not played yet

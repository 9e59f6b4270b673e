"""The book's illustrative game of Eleven (Evgenia and Sergey), replayed through the API.

Evgenia (seat 0) deals and, as in the book, leads (``dealer_leads=True``).
Packets of two go to Sergey, Evgenia, three times; the stock order is
reconstructed from the narrated draws, the trick winner drawing first.

The two misprints are corrected as docs/rules.md#eleven-the-books-sample-game says:

- Evgenia "plays 7♠" at tricks 2 and 7 but holds only one 7♠. She draws the J♠
  after trick 1, so at trick 2 she holds both and gives the 7♠ to Sergey's K♠;
  at trick 7 only the J♠ is left to put on his A♠ (either way Sergey wins both
  tricks, so the result does not depend on the choice).
- At trick 14 she leads 8♥ (the 10♥ was Sergey's card, taken at trick 3).
"""

from __future__ import annotations

from typing import Any

from games import REGISTRY

EVGENIA, SERGEY = 0, 1

SERGEY_HAND = ["8S", "9H", "KC", "KS", "TH", "AH"]
EVGENIA_HAND = ["TD", "8H", "7S", "AD", "JC", "7C"]

#: Stock, top first: the winner of each of the first ten tricks draws first.
STOCK = [
    "AS", "JS",  # trick 1, Sergey wins
    "8C", "KH",  # trick 2, Sergey wins
    "QH", "9S",  # trick 3, Evgenia wins
    "7D", "AC",  # trick 4, Evgenia wins
    "9D", "9C",  # trick 5, Sergey wins
    "QD", "KD",  # trick 6, Sergey wins
    "7H", "JH",  # trick 7, Sergey wins
    "8D", "TS",  # trick 8, Evgenia wins
    "QC", "QS",  # trick 9, Evgenia wins
    "JD", "TC",  # trick 10, Evgenia wins
]  # fmt: skip

#: Each trick as (leader's card, follower's card) with the narrated leader.
TRICKS = [
    (EVGENIA, "7C", "KC"),
    (SERGEY, "KS", "7S"),
    (SERGEY, "TH", "KH"),
    (EVGENIA, "AD", "8C"),
    (EVGENIA, "QH", "AH"),
    (SERGEY, "AC", "9C"),
    (SERGEY, "AS", "JS"),  # misprint: the book says 7♠ again
    (SERGEY, "QD", "KD"),
    (EVGENIA, "TD", "9D"),
    (EVGENIA, "JC", "7H"),
    (EVGENIA, "JD", "8S"),
    (EVGENIA, "JH", "9H"),
    (EVGENIA, "QC", "TC"),
    (EVGENIA, "8H", "9S"),  # misprint: the book says 10♥
    (EVGENIA, "8D", "TS"),
    (EVGENIA, "7D", "QS"),
]

WINNERS = [SERGEY, SERGEY, EVGENIA, EVGENIA, SERGEY, SERGEY, SERGEY, EVGENIA] + [EVGENIA] * 8


def stacked_deck() -> list[str]:
    """The book's deal: packets of two to Sergey, Evgenia, three times, then the stock."""
    deck: list[str] = []
    for packet in range(3):
        deck += SERGEY_HAND[2 * packet : 2 * packet + 2]
        deck += EVGENIA_HAND[2 * packet : 2 * packet + 2]
    return deck + STOCK


def replay() -> tuple[Any, list[dict[str, Any]]]:
    """Play the sample game; returns the game and every event."""
    game = REGISTRY["eleven"].new(
        2, {"dealer_leads": True}, seed=0, dealer=EVGENIA, deck=stacked_deck()
    )
    events: list[dict[str, Any]] = []
    for number, (leader, led, answer) in enumerate(TRICKS, start=1):
        assert game.to_move == leader, f"trick {number}: wrong leader"
        events += game.apply(leader, led)
        events += game.apply(1 - leader, answer)
    return game, events


def test_the_deal_gives_the_narrated_hands() -> None:
    game = REGISTRY["eleven"].new(
        2, {"dealer_leads": True}, seed=0, dealer=EVGENIA, deck=stacked_deck()
    )
    assert sorted(game.view(EVGENIA)["hand"]) == sorted(EVGENIA_HAND)
    assert sorted(game.view(SERGEY)["hand"]) == sorted(SERGEY_HAND)
    assert game.view(None)["stock"] == 20
    assert game.to_move == EVGENIA


def test_every_trick_goes_to_the_narrated_winner() -> None:
    _, events = replay()
    winners = [event["winner"] for event in events if event["type"] == "trick"]
    assert winners == WINNERS


def test_the_corrected_result() -> None:
    game, events = replay()
    deal_end = next(event for event in events if event["type"] == "deal_end")
    assert deal_end["tricks"] == [11, 5]
    assert deal_end["figures"] == [13, 7]
    assert deal_end["deal_scores"] == [1, 0]
    assert game.scores == [1, 0]
    assert not game.finished
    assert game.deal_no == 1
    assert game.dealer == SERGEY

"""King's contracts (docs/rules.md#king): the match programme and what each penalty costs.

Six negative deals (no tricks, no hearts, no queens, no kings and jacks, no
K♥, no last tricks), then the positive ones: trumps, the lottery, or the
robber that gathers every penalty into one deal. 3 players play without the 2♣.
"""

from __future__ import annotations

from typing import Any

from games.cards import make_deck

NEGATIVE = (
    "no_tricks",
    "no_hearts",
    "no_queens",
    "no_kings_jacks",
    "no_king_of_hearts",
    "no_last_tricks",
)
ROBBER = "robber"
TRUMP = "trump"
LOTTERY = "lottery"
#: Contracts in which hearts may not be led while holding another suit.
HEART_LEAD_BANNED = frozenset({"no_hearts", "no_king_of_hearts", ROBBER})
KING_OF_HEARTS = "KH"
#: Points per trick in a trump deal.
TRUMP_TRICK = 25


def deck_for(players: int) -> list[str]:
    """52 cards for 4 players; without the 2♣ for 3."""
    deck = make_deck(52)
    if players == 3:
        deck.remove("2C")
    return deck


def contracts_for(players: int, options: dict[str, Any]) -> list[str]:
    """The match programme: one contract per deal, in the order played."""
    programme = list(NEGATIVE)
    if options["swap_3_4"]:
        programme[2], programme[3] = programme[3], programme[2]
    lotteries = [LOTTERY] * (players if options["lottery_rounds"] == "per_player" else 1)
    if options["robber"]:
        return [*programme, ROBBER, *[TRUMP] * players, *lotteries]
    if options["positive"] == TRUMP:
        return [*programme, *[TRUMP] * players]
    return [*programme, *lotteries]


def penalty_for(contract: str, players: int, last_tricks: str) -> dict[str, int] | None:
    """What each penalized item costs in ``contract`` (None for a positive deal)."""
    four = players == 4
    tricks = 52 // players
    whole = 150 if four else 140  # the K♥, or the last trick
    half = whole // 2  # each of two penalized tricks
    last = {
        "last": {f"trick_{tricks}": whole},
        "last_two": {f"trick_{tricks - 1}": half, f"trick_{tricks}": half},
        "seventh_and_last": {"trick_7": half, f"trick_{tricks}": half},
    }[last_tricks]
    table: dict[str, dict[str, int]] = {
        "no_tricks": {"trick": 20 if four else 15},
        "no_hearts": {"heart": 20},
        "no_queens": {"queen": 60},
        "no_kings_jacks": {"king_jack": 30},
        "no_king_of_hearts": {"king_of_hearts": whole},
        "no_last_tricks": last,
    }
    if contract == ROBBER:
        return {item: cost for costs in table.values() for item, cost in costs.items()}
    return table.get(contract)


def card_penalty(penalty: dict[str, int], card: str) -> int:
    """What taking ``card`` costs under ``penalty`` (a heart, a queen, a king …)."""
    points = penalty.get("heart", 0) if card[1] == "H" else 0
    if card[0] == "Q":
        points += penalty.get("queen", 0)
    elif card[0] in "KJ":
        points += penalty.get("king_jack", 0)
    if card == KING_OF_HEARTS:
        points += penalty.get("king_of_hearts", 0)
    return points


def trick_penalty(penalty: dict[str, int], number: int, cards: list[str]) -> int:
    """The penalty for taking the ``number``-th trick (from 1) made of ``cards``."""
    points = penalty.get("trick", 0) + penalty.get(f"trick_{number}", 0)
    return points + sum(card_penalty(penalty, card) for card in cards)


def penalty_total(penalty: dict[str, int], players: int) -> int:
    """Everything a negative deal's penalties add up to: all tricks, all cards."""
    per_trick = penalty.get("trick", 0) * (52 // players)
    numbered = sum(cost for item, cost in penalty.items() if item.startswith("trick_"))
    return per_trick + numbered + sum(card_penalty(penalty, card) for card in deck_for(players))


def king_forced(contract: str, options: dict[str, Any]) -> bool:
    """True if the K♥'s holder who cannot follow suit must play it (``king_forced``, deal 5)."""
    return bool(options["king_forced"]) and contract == "no_king_of_hearts"

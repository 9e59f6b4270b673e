"""Rummy's melds (docs/rules.md#rummy): what sets and runs are, their action codes, lay-offs.

A set is 3–4 cards of one rank, suits in ``S H D C`` order (``set:7:SHD``); a
run is 3+ consecutive cards of one suit, ace low (``run:H:3-K``). A meld is a
list of cards: a run's low to high, a set's in suit order.
"""

from __future__ import annotations

from itertools import combinations

from games.cards import SUITS

#: Ranks in run order: the ace is low only.
RUN_RANKS = "A23456789TJQK"
RUN_POSITION = {rank: index for index, rank in enumerate(RUN_RANKS)}
#: What a card left in hand is worth to the player who goes out.
CARD_POINTS = {"A": 1, "K": 10, "Q": 10, "J": 10, "T": 10} | {str(n): n for n in range(2, 10)}


def hand_points(cards: list[str]) -> int:
    """The value of cards left in a hand: A 1, K Q J 10 10, others pip."""
    return sum(CARD_POINTS[card[0]] for card in cards)


def is_set(cards: list[str]) -> bool:
    """True if the meld ``cards`` is a set (one rank), False for a run."""
    return cards[0][0] == cards[1][0]


def set_code(rank: str, suits: str) -> str:
    """The action melding a set: ``set:7:SHD``."""
    return f"set:{rank}:{suits}"


def run_code(suit: str, low: int, high: int) -> str:
    """The action melding the run of ``suit`` from run position ``low`` to ``high``."""
    return f"run:{suit}:{RUN_RANKS[low]}-{RUN_RANKS[high]}"


def meld_cards(action: str) -> list[str] | None:
    """The cards of a ``set:`` or ``run:`` action, or None if it is no valid meld."""
    parts = action.split(":")
    if len(parts) != 3:
        return None
    kind, first, second = parts
    if kind == "set" and first in RUN_POSITION and 3 <= len(second) <= 4:
        if second != "".join(s for s in SUITS if s in second):
            return None
        return [first + s for s in second]
    if kind == "run" and len(first) == 1 and first in SUITS and len(second) == 3:
        low, dash, high = second[0], second[1], second[2]
        if dash != "-" or low not in RUN_POSITION or high not in RUN_POSITION:
            return None
        start, end = RUN_POSITION[low], RUN_POSITION[high]
        if end - start < 2:
            return None
        return [RUN_RANKS[i] + first for i in range(start, end + 1)]
    return None


def meld_size(action: str) -> int:
    """How many cards a well-formed ``set:`` or ``run:`` action melds."""
    if action.startswith("set:"):
        return len(action) - 6
    return RUN_POSITION[action[-1]] - RUN_POSITION[action[-3]] + 1


def layoff_cards(cards: list[str]) -> list[str]:
    """The cards that could be laid off onto the meld ``cards``."""
    if is_set(cards):
        if len(cards) == 4:
            return []
        return [cards[0][0] + s for s in SUITS if cards[0][0] + s not in cards]
    suit = cards[0][1]
    low, high = RUN_POSITION[cards[0][0]], RUN_POSITION[cards[-1][0]]
    ends = [low - 1] if low > 0 else []
    if high < len(RUN_RANKS) - 1:
        ends.append(high + 1)
    return [RUN_RANKS[i] + suit for i in ends]


def lay_off(cards: list[str], card: str) -> list[str]:
    """The meld ``cards`` with ``card`` added in its place (a new list)."""
    if is_set(cards):
        return [card[0] + s for s in SUITS if card[0] + s in cards or s == card[1]]
    if RUN_POSITION[card[0]] < RUN_POSITION[cards[0][0]]:
        return [card, *cards]
    return [*cards, card]


def set_codes(hand: list[str]) -> list[str]:
    """Every set the hand can meld: each 3-suit choice, and the 4-card set, ace first."""
    suits_by_rank: dict[str, str] = {}
    for card in hand:
        suits_by_rank[card[0]] = suits_by_rank.get(card[0], "") + card[1]
    codes: list[str] = []
    for rank in RUN_RANKS:
        held = suits_by_rank.get(rank, "")
        if len(held) >= 3:
            suits = "".join(s for s in SUITS if s in held)
            codes.extend(set_code(rank, "".join(three)) for three in combinations(suits, 3))
            if len(suits) == 4:
                codes.append(set_code(rank, suits))
    return codes


def run_codes(hand: list[str]) -> list[str]:
    """Every run the hand can meld: every stretch of 3+ consecutive cards of a suit.

    Suits in ``S H D C`` order, then by the run's low card, then its length.
    """
    positions: dict[str, set[int]] = {}
    for card in hand:
        positions.setdefault(card[1], set()).add(RUN_POSITION[card[0]])
    codes: list[str] = []
    for suit in SUITS:
        held = positions.get(suit, set())
        if len(held) < 3:
            continue
        for low in sorted(held):
            high = low + 1
            while high in held:
                if high - low >= 2:
                    codes.append(run_code(suit, low, high))
                high += 1
    return codes

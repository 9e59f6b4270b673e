"""Cards, decks and their display names, shared by every game.

A card is a two-character code: rank then suit. Ranks are ``A K Q J T 9 … 2``
(``T`` is the ten), suits ``S H D C`` (spades, hearts, diamonds, clubs):
``QS`` is the queen of spades, ``TH`` the ten of hearts. Codes are plain
strings so that game states stay JSON-able and cheap to copy.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Iterable

SUITS = "SHDC"
RANKS = "AKQJT98765432"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: Rank strength, high to low: A=14 … 2=2.
RANK_STRENGTH = {rank: 14 - index for index, rank in enumerate(RANKS)}

_RANK_NAMES = {
    "en": {"A": "A", "K": "K", "Q": "Q", "J": "J", "T": "10"},
    "ru": {"A": "Т", "K": "К", "Q": "Д", "J": "В", "T": "10"},
}

_DECK_RANKS = {32: "AKQJT987", 36: "AKQJT9876", 52: RANKS}


def rank(card: str) -> str:
    """The rank character of ``card`` (``"Q"`` for ``"QS"``)."""
    return card[0]


def suit(card: str) -> str:
    """The suit character of ``card`` (``"S"`` for ``"QS"``)."""
    return card[1]


def strength(card: str) -> int:
    """How high the card ranks, A=14 down to 2=2."""
    return RANK_STRENGTH[card[0]]


def make_deck(size: int = 52) -> list[str]:
    """An ordered deck of 32, 36 or 52 cards, suit by suit, high to low."""
    try:
        ranks = _DECK_RANKS[size]
    except KeyError:
        raise ValueError(f"no {size}-card deck: choose 32, 36 or 52") from None
    return [r + s for s in SUITS for r in ranks]


def is_card(text: str) -> bool:
    """True if ``text`` is a well-formed card code such as ``"TH"``."""
    return len(text) == 2 and text[0] in RANK_STRENGTH and text[1] in SUIT_SYMBOLS


def deal_rng(seed: int, deal_no: int) -> random.Random:
    """The random source for one deal of a match: fixed by seed and deal number."""
    return random.Random(f"koloda:{seed}:{deal_no}")


def shuffled(cards: Iterable[str], seed: int, deal_no: int) -> list[str]:
    """``cards`` shuffled deterministically for deal ``deal_no`` of match ``seed``."""
    order = list(cards)
    deal_rng(seed, deal_no).shuffle(order)
    return order


def deal_one_at_a_time(deck: list[str], players: int, count: int, first: int) -> list[list[str]]:
    """Deal ``count`` cards to each seat one at a time, starting with seat ``first``.

    Cards leave the top of ``deck`` (its first element), which is consumed.
    Returns the hands indexed by seat.
    """
    hands: list[list[str]] = [[] for _ in range(players)]
    for i in range(count * players):
        hands[(first + i) % players].append(deck[i])
    del deck[: count * players]
    return hands


def _hand_order(trumps: str | None) -> Callable[[str], tuple[int, int]]:
    """The sort key of :func:`sort_hand`: suit (trumps first, then ♠ ♥ ♦ ♣), then high to low."""
    order = {s: i + 1 for i, s in enumerate(SUITS)}
    if trumps:
        order[trumps] = 0
    return lambda c: (order[c[1]], -RANK_STRENGTH[c[0]])


def sort_hand(cards: Iterable[str], trumps: str | None = None) -> list[str]:
    """Cards grouped by suit (trumps first, then ♠ ♥ ♦ ♣), each suit high to low."""
    return sorted(cards, key=_hand_order(trumps))


def insert_sorted(hand: list[str], card: str, trumps: str | None = None) -> None:
    """Put ``card`` into ``hand``, a list kept in :func:`sort_hand` order (a drawn card)."""
    bisect.insort(hand, card, key=_hand_order(trumps))


def display(card: str, lang: str = "en") -> str:
    """A card as people write it: ``Q♠`` in English, ``Д♠`` in Russian, ``10♥``."""
    names = _RANK_NAMES.get(lang, _RANK_NAMES["en"])
    return names.get(card[0], card[0]) + SUIT_SYMBOLS[card[1]]

"""Trick-taking machinery shared by the trick games.

A trick is a list of plays ``[seat, card]`` in the order they were made (lists,
not tuples, so that states stay JSON-able). The first play's suit is the suit led.
"""

from __future__ import annotations

from typing import Any

from games.cards import RANK_STRENGTH

Play = list[Any]  # [seat: int, card: str]


def trick_winner(plays: list[Play], trumps: str | None = None, led: str | None = None) -> int:
    """The seat that wins the trick.

    The highest trump wins if any trump was played; otherwise the highest card
    of the suit led. A card of another suit never wins. ``led`` overrides the
    suit led (for a card led "as" another suit, like Two-Ten-Jack's A♠).
    """
    led_suit = led or plays[0][1][1]
    best_seat, best_card = plays[0][0], plays[0][1]
    best_key = _key(best_card, led_suit, trumps)
    for seat, card in plays[1:]:
        key = _key(card, led_suit, trumps)
        if key > best_key:
            best_seat, best_card, best_key = seat, card, key
    return int(best_seat)


def _key(card: str, led_suit: str, trumps: str | None) -> int:
    if trumps is not None and card[1] == trumps:
        return 200 + RANK_STRENGTH[card[0]]
    if card[1] == led_suit:
        return 100 + RANK_STRENGTH[card[0]]
    return 0


def follow_suit(hand: list[str], led_suit: str | None) -> list[str]:
    """The cards of ``hand`` that may be played when following ``led_suit``.

    Cards of the suit led if the hand has any; otherwise the whole hand (and the
    whole hand when leading, ``led_suit`` None). No duty to beat or to trump.
    """
    if led_suit is None:
        return list(hand)
    same = [c for c in hand if c[1] == led_suit]
    return same if same else list(hand)


def voids_shown(plays: list[Play], led_suit: str) -> list[tuple[int, str]]:
    """``(seat, suit)`` pairs revealed by the trick: who failed to follow ``led_suit``."""
    return [(int(seat), led_suit) for seat, card in plays[1:] if card[1] != led_suit]


def voids_known(players: int, tricks: list[list[Play]]) -> list[set[str]]:
    """The suits each seat has shown it lacks in ``tricks`` (lists of plays).

    Only meaningful where following suit is compulsory. The tricks are read
    in order; an incomplete trick (the one on the table) may be the last.
    """
    voids: list[set[str]] = [set() for _ in range(players)]
    for plays in tricks:
        if plays:
            for seat, lacking in voids_shown(plays, plays[0][1][1]):
                voids[seat].add(lacking)
    return voids

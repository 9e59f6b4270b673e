"""Trick-taking machinery shared by the trick games.

A trick is a list of plays ``[seat, card]`` in the order they were made (lists,
not tuples, so that states stay JSON-able). The first play's suit is the suit led.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Game, View, copy_state
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


def deal_unseen(
    unseen: list[str], sizes: list[int], barred: list[set[str]], rng: random.Random
) -> list[list[str]]:
    """Deal ``unseen`` cards at random into zones of ``sizes``, never a barred card.

    A zone is a hand (or a stock); ``barred[z]`` holds the cards zone ``z`` is
    known not to hold (suits it showed void, cards it could not have kept).
    For determinization: a plain shuffle is tried first, which is exactly
    uniform over the valid deals; when constraints make that unlikely, the
    most constrained cards are placed first, each in a random zone that keeps
    the rest placeable. Raises ValueError if no such deal exists.
    """
    if sum(sizes) != len(unseen):
        raise ValueError("zone sizes must add up to the unseen cards")
    cards = list(unseen)
    for _ in range(30):
        rng.shuffle(cards)
        zones = _cut(cards, sizes)
        if all(not (set(zone) & barred[z]) for z, zone in enumerate(zones)):
            return zones
    return _deal_constrained(cards, sizes, barred, rng)


def _cut(cards: list[str], sizes: list[int]) -> list[list[str]]:
    zones, start = [], 0
    for size in sizes:
        zones.append(cards[start : start + size])
        start += size
    return zones


def _deal_constrained(
    cards: list[str], sizes: list[int], barred: list[set[str]], rng: random.Random
) -> list[list[str]]:
    """Place cards one by one, checking Hall's condition so no dead end is met."""
    every = (1 << len(sizes)) - 1
    allowed = {c: every & ~sum(1 << z for z, bar in enumerate(barred) if c in bar) for c in cards}
    order = sorted(cards, key=lambda c: allowed[c].bit_count())
    room = list(sizes)
    zones: list[list[str]] = [[] for _ in sizes]
    left = {mask: 0 for mask in allowed.values()}
    for card in order:
        left[allowed[card]] += 1
    for card in order:
        left[allowed[card]] -= 1
        choices = [z for z in range(len(sizes)) if room[z] and allowed[card] >> z & 1]
        rng.shuffle(choices)
        for zone in choices:
            room[zone] -= 1
            if _placeable(left, room):
                zones[zone].append(card)
                break
            room[zone] += 1
        else:
            raise ValueError("no deal of the unseen cards fits the constraints")
    return zones


def _placeable(left: dict[int, int], room: list[int]) -> bool:
    """Hall's condition: every set of zones has room for the cards confined to it."""
    for subset in range(1, 1 << len(room)):
        confined = sum(n for mask, n in left.items() if n and mask & ~subset == 0)
        if confined > sum(r for z, r in enumerate(room) if subset >> z & 1):
            return False
    return True


def restore_base(game: Game, view: View, rng: random.Random) -> None:
    """Fill in a determinized game's base state from ``view``.

    Future deals are shuffled from a seed drawn from ``rng``.
    """
    game.players = view["players"]
    game.options = dict(view["options"])
    game.seed = rng.randrange(2**31)
    game.dealer = view["dealer"]
    game.deal_no = view["deal_no"]
    game.turn = view["to_move"]
    game.scores = list(view["scores"])
    game.result = copy_state(view["result"])

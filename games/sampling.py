"""Determinization helpers: sampling a full game from what one seat can see.

Every game's ``determinize(view, rng)`` starts from :func:`sampled_game`
(the base state the view shows) and deals the cards the seat cannot see with
:func:`deal_unseen`, which honours what the seat knows about each hand.
"""

from __future__ import annotations

import random
from typing import TypeVar

from games.base import Game, View, copy_state

G = TypeVar("G", bound=Game)


def sampled_game(cls: type[G], view: View, rng: random.Random) -> G:
    """A bare ``cls`` game carrying the base state of ``view`` (for ``determinize``).

    Future deals are shuffled from a seed drawn from ``rng``; the caller fills
    in the game's own state.
    """
    game = cls.__new__(cls)
    game.players = view["players"]
    game.options = dict(view["options"])
    game.seed = rng.randrange(2**31)
    game.dealer = view["dealer"]
    game.deal_no = view["deal_no"]
    game.turn = view["to_move"]
    game.scores = list(view["scores"])
    game.result = copy_state(view["result"])
    return game


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

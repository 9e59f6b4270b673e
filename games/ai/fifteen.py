"""Fifteen: draw towards 15 without going over, nearer 15 takes the pot.

Easy stands at 12 or more (as the dealer against a lone card stood on, a
10, at 10 or more). Normal and strong decide exactly: the unseen cards
(the 52 less the seat's own) give the opponent's final total as an exact
distribution — for the dealer, over the hands his opponent could hold with
the count of cards he drew; for the non-dealer, over the dealer's hands if he
draws to 12 — and the seat's own stand-or-draw choice is solved by full
recursion over the cards it could draw, maximizing P(win) − P(lose).
"""

from __future__ import annotations

import random
from functools import cache

from games.ai.playbook import Playbook, policy_rollout, random_rollout
from games.base import View
from games.fifteen import TARGET, value

#: Easy stands on this total or more; it is also the dealer model of the exact search.
STAND_AT = 12
BUST = TARGET + 1
#: How many cards of each value a full deck holds (index = value - 1).
FULL_DECK = (4, 4, 4, 4, 4, 4, 4, 4, 4, 16)

Counts = tuple[int, ...]
Spread = dict[int, float]  # final total (BUST for any total over 15) -> probability


def easy(view: View, rng: random.Random) -> str:
    """Stand on 12 or more (when standing is allowed), otherwise draw.

    The dealer whose opponent stood on his first card alone knows that card
    is a 10 (unless any card may be stood on): he stands on 10 or more (11
    wins the pot for sure, 10 keeps it for a tie) and draws below.
    """
    legal: list[str] = view["legal"]
    stand_at = STAND_AT
    opponent = 1 - int(view["seat"])
    if (
        view["seat"] == view["dealer"]
        and view["stood"][opponent]
        and view["hand_sizes"][opponent] == 1
        and not view["options"]["stand_on_any_card"]
    ):
        stand_at = 10
    if "stand" in legal and (view["total"] >= stand_at or "draw" not in legal):
        return "stand"
    return "draw" if "draw" in legal else legal[0]


def exact(view: View) -> str | None:
    """The stand-or-draw choice with the best P(win) − P(lose), computed exactly."""
    legal: list[str] = view["legal"]
    if sorted(legal) != ["draw", "stand"]:
        return None
    seat = view["seat"]
    opponent = 1 - seat
    unseen = unseen_counts(view["hand"])
    elder = 1 - view["dealer"]
    options = view["options"]
    if view["stood"][opponent]:
        size = view["hand_sizes"][opponent]
        spread = stood_hand_spread(unseen, size, bool(options["stand_on_any_card"]))
    else:
        spread = dealer_spread(unseen, bool(options["stand_on_any_card"]))
    ties_win = bool(options["elder_wins_ties"]) and seat == elder
    ties_lose = bool(options["elder_wins_ties"]) and seat != elder
    table = _showdown_table(tuple(sorted(spread.items())), ties_win, ties_lose)
    mine = view["total"]
    stand = table[mine]
    draw = _draw_value(mine, unseen, table)
    return "stand" if stand >= draw else "draw"


def unseen_counts(hand: list[str]) -> Counts:
    """Cards of each value the seat has not seen."""
    counts = list(FULL_DECK)
    for card in hand:
        counts[value(card) - 1] -= 1
    return tuple(counts)


def _capped(points: int) -> int:
    return points if points <= TARGET else BUST


def stood_hand_spread(unseen: Counts, size: int, any_card: bool) -> Spread:
    """The total of a hand of ``size`` cards that stood, over every way it could have come.

    Every card but the last was drawn on 15 or less; a lone card stood on is a
    10 unless any card may be stood on.
    """
    spread: Spread = {}

    def deal(counts: Counts, left: int, points: int, weight: float) -> None:
        if left == 0:
            spread[_capped(points)] = spread.get(_capped(points), 0.0) + weight
            return
        remaining = sum(counts)
        for index, count in enumerate(counts):
            card_value = index + 1
            if not count or (size == 1 and not any_card and card_value != 10):
                continue
            if left > 1 and points + card_value > TARGET:
                continue
            after = (*counts[:index], count - 1, *counts[index + 1 :])
            deal(after, left - 1, points + card_value, weight * count / remaining)

    deal(unseen, size, 0, 1.0)
    return _normalized(spread)


def dealer_spread(unseen: Counts, any_card: bool) -> Spread:
    """The dealer's final total if he draws until he has :data:`STAND_AT` or more."""
    spread: Spread = {}

    def draw(counts: Counts, points: int, cards: int, weight: float) -> None:
        may_stand = cards > 1 or any_card or points == 10
        if points > TARGET or (points >= STAND_AT and may_stand):
            spread[_capped(points)] = spread.get(_capped(points), 0.0) + weight
            return
        remaining = sum(counts)
        for index, count in enumerate(counts):
            if count:
                after = (*counts[:index], count - 1, *counts[index + 1 :])
                draw(after, points + index + 1, cards + 1, weight * count / remaining)

    draw(unseen, 0, 0, 1.0)
    return _normalized(spread)


def _normalized(spread: Spread) -> Spread:
    mass = sum(spread.values())
    return {points: weight / mass for points, weight in spread.items()}


def _showdown_table(
    spread: tuple[tuple[int, float], ...], ties_win: bool, ties_lose: bool
) -> dict[int, float]:
    """P(win) − P(lose) of standing on each total (BUST included) against ``spread``."""
    table: dict[int, float] = {}
    for mine in [*range(1, TARGET + 1), BUST]:
        result = 0.0
        for theirs, chance in spread:
            if mine == BUST:
                result -= 0.0 if theirs == BUST else chance
            elif theirs == BUST or theirs < mine:
                result += chance
            elif theirs > mine:
                result -= chance
            else:
                result += chance if ties_win else -chance if ties_lose else 0.0
        table[mine] = result
    return table


def _draw_value(points: int, unseen: Counts, table: dict[int, float]) -> float:
    """The value of drawing now and then playing on perfectly."""

    @cache
    def best(points: int, counts: Counts) -> float:
        if points > TARGET:
            return table[BUST]
        return max(table[points], drawing(points, counts))

    def drawing(points: int, counts: Counts) -> float:
        remaining = sum(counts)
        result = 0.0
        for index, count in enumerate(counts):
            if count:
                after = (*counts[:index], count - 1, *counts[index + 1 :])
                result += count / remaining * best(_capped(points + index + 1), after)
        return result

    return drawing(points, unseen)


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=policy_rollout(easy),
    exact=exact,
)

"""Rummy: draw, meld sets and runs, lay off, discard; go out first.

Easy takes the discard only when it completes a meld or can be laid off at
once onto a meld on the table, melds and lays off whenever it can (the
biggest meld first), and discards its highest card that belongs to no meld
in the making (no pair, no near neighbour of its suit).

Normal and strong *infer* (``games.ai.inference``) from what the opponents
did with the discard pile (:func:`play_weight`): an opponent who took a card
from it and still holds it probably holds cards that build with it, and the
card the seat before threw is one the rule of thumb would throw from his hand
— seldom a card that builds with the rest.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.ai.playbook import Playbook, policy_rollout, score_margin
from games.base import Event, Game, View
from games.melds import (
    CARD_POINTS,
    RUN_POSITION,
    hand_points,
    layoff_cards,
    meld_cards,
    run_codes,
    set_codes,
)
from games.rummy import Rummy, hand_size

#: A truncated playout scores the hands' card values at this fraction.
UNFINISHED_WEIGHT = 0.5
#: The search weighs this many of the discards the rule of thumb likes best.
SHORTLIST_DISCARDS = 4
#: Normal's worlds per decision (strong has its whole second;
#: docs/computer-players.md, measured).
NORMAL_SAMPLES = 24
#: A world is this much less likely for each card the rule of thumb would have
#: thrown before the one the seat before threw (from his hand in that world).
DISCARD_SOFTNESS = 0.6
#: The weight of a world in which a card an opponent took from the pile, and
#: still holds, builds nothing with the rest of his hand.
IDLE_PICKUP = 0.3


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb action for the seat to move."""
    legal: list[str] = view["legal"]
    hand: list[str] = view["hand"]
    if view["phase"] == "draw":
        pile: list[str] = view["discard"]
        melds: list[dict[str, Any]] = view["melds"]
        wanted = bool(pile) and (completes_meld(hand, pile[-1]) or lays_off(melds, pile[-1]))
        return "take" if "take" in legal and wanted else "draw"
    return meld_or_discard(legal, hand)


def lays_off(melds: list[dict[str, Any]], card: str) -> bool:
    """True if ``card`` could be laid off onto one of the ``melds`` on the table."""
    return any(card in layoff_cards(meld["cards"]) for meld in melds)


def completes_meld(hand: list[str], card: str) -> bool:
    """True if ``card`` added to ``hand`` makes a meld that uses it."""
    together = [*hand, card]
    codes = set_codes(together) + run_codes(together)
    return any(card in (meld_cards(code) or []) for code in codes)


def meld_or_discard(legal: list[str], hand: list[str]) -> str:
    """The biggest meld, else a lay-off, else the highest card that builds nothing."""
    melds = [a for a in legal if a.startswith(("set:", "run:"))]
    if melds:
        return max(melds, key=lambda a: len(meld_cards(a) or []))
    lay_offs = [a for a in legal if a.startswith("lay:")]
    if lay_offs:
        return lay_offs[0]
    discards = ranked_discards(legal, hand)
    return discards[0] if discards else legal[0]


def ranked_discards(legal: list[str], hand: list[str]) -> list[str]:
    """The legal discards, best first: cards that build nothing, then the highest."""
    discards = [a for a in legal if len(a) == 2]
    return sorted(
        discards,
        key=lambda c: (not builds(hand, c), CARD_POINTS[c[0]], RUN_POSITION[c[0]]),
        reverse=True,
    )


def shortlist(view: View, easy_choice: str) -> list[str]:
    """What the search weighs: draw or take, and the few best discards (never a
    card of a meld in the making worth no more than a card that builds nothing).

    The discard is weighed against the stock only when it can be used at once
    (the rule of thumb takes it): taking a card only to throw another back can
    go round for ever, and two computers down to a card each did, with the
    stock never touched. Melding and laying off as soon as possible is kept
    from the rule of thumb (holding melds back rarely pays in a two-handed deal
    and splits the budget over many equivalent orders).
    """
    legal: list[str] = view["legal"]
    if view["phase"] == "draw":
        return legal if easy_choice == "take" else ["draw"]
    if easy_choice.startswith(("set:", "run:", "lay:")):
        return [easy_choice]
    hand: list[str] = view["hand"]
    ranked = ranked_discards(legal, hand)
    idle = [CARD_POINTS[c[0]] for c in ranked if not builds(hand, c)]
    # Breaking a meld in the making to discard a card worth no more than a card
    # that builds nothing is dominated: the idle card is both useless and dearer.
    worth = [c for c in ranked if not builds(hand, c) or not idle or CARD_POINTS[c[0]] > max(idle)]
    return worth[:SHORTLIST_DISCARDS]


def builds(hand: list[str], card: str) -> bool:
    """True if ``card`` is half of a meld in the making: a pair, or a suit neighbour within two."""
    for other in hand:
        if other == card:
            continue
        if other[0] == card[0]:
            return True
        if other[1] == card[1] and abs(RUN_POSITION[other[0]] - RUN_POSITION[card[0]]) <= 2:
            return True
    return False


def last_discard(view: View) -> tuple[int, str] | None:
    """The seat before and the card it threw last, if the pile's top is that card:
    on the seat's turn, unless it took the top this turn or nobody has thrown yet
    (the top is the card turned up at the deal)."""
    pile: list[str] = view["discard"]
    seat, players = int(view["seat"]), int(view["players"])
    if not pile or view["to_move"] != seat or view["taken"] is not None:
        return None
    dealt = 52 - players * hand_size(players) - 1
    drawn = dealt - int(view["stock"]) - (1 if view["phase"] == "meld" else 0)
    untouched = not view["melds"] and not any(view["known_cards"]) and not view["turnovers"]
    if seat == (int(view["dealer"]) + 1) % players and untouched and drawn == 0:
        return None
    return (seat - 1) % players, pile[-1]


def pickups(view: View) -> list[tuple[int, str]]:
    """The cards opponents took from the pile and still hold (before any turnover:
    after one, cards drawn from the turned-over stock are known as well)."""
    if view["turnovers"]:
        return []
    seat = int(view["seat"])
    known: list[list[str]] = view["known_cards"]
    return [(other, card) for other, cards in enumerate(known) if other != seat for card in cards]


def play_weight(view: View) -> Callable[[Game], float] | None:
    """How likely a sampled world makes what the opponents did with the pile, by
    the rule of thumb softened (None: nothing seen to weigh by).

    The seat before threw the pile's top: in a world where the rule of thumb
    (:func:`ranked_discards`) puts r cards of his hand before it, the weight is
    :data:`DISCARD_SOFTNESS` ** r. A card an opponent took and still holds that
    builds nothing with the rest of his hand there: :data:`IDLE_PICKUP`.
    """
    thrown = last_discard(view)
    taken = pickups(view)
    if thrown is None and not taken:
        return None

    def weight(world: Game) -> float:
        hands: list[list[str]] = getattr(world, "hands")  # noqa: B009 - every card game has hands
        chance = 1.0
        if thrown is not None:
            other, card = thrown
            before = [*hands[other], card]
            chance *= DISCARD_SOFTNESS ** ranked_discards(before, before).index(card)
        for other, card in taken:
            if not builds(hands[other], card):
                chance *= IDLE_PICKUP
        return chance

    return weight


def greedy_rollout(game: Game, seat: int, legal: list[str], rng: random.Random) -> str:
    """A fast playout move from the legal list alone: draw, meld, lay off, shed high cards."""
    if "draw" in legal:
        return "draw"
    for action in legal:
        if action.startswith(("set:", "run:", "lay:")):
            return action
    discards = [a for a in legal if len(a) == 2]
    return max(discards, key=lambda c: (CARD_POINTS[c[0]], rng.random())) if discards else legal[0]


def outcome(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """The deal's score margin; a playout cut short scores the cards still held."""
    if end.finished or end.deal_no != start.deal_no or not isinstance(end, Rummy):
        return score_margin(start, end, events, seat)
    held = [hand_points(hand) for hand in end.hands]
    best_other = min(h for s, h in enumerate(held) if s != seat)
    return UNFINISHED_WEIGHT * (best_other - held[seat])


PLAYBOOK = Playbook(
    easy=easy,
    rollout=greedy_rollout,
    strong_rollout=policy_rollout(easy, ("phase", "discard", "melds")),
    outcome=outcome,
    shortlist=shortlist,
    max_moves=300,
    normal_samples=NORMAL_SAMPLES,
    infer=play_weight,
)

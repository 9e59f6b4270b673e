"""Mau-Mau: shed your hand matching suit or rank; jacks are wild.

Easy plays off its most expensive matching card (the one that would cost most
left in hand), preferring to stay in the suit it holds most of; it keeps its
jacks for when nothing else fits and then names its longest suit; drawn cards
are played when they fit (jacks kept).
"""

from __future__ import annotations

import random

from games.ai.playbook import Playbook, penalty_margin, policy_rollout, random_rollout
from games.base import Event, Game, View
from games.cards import SUITS
from games.mau_mau import MauMau, penalty

#: Playouts stop after this many moves and compare the hands' burdens: a whole
#: deal of Mau-Mau is mostly luck, which drowns the effect of one decision.
HORIZON = 12
#: The burden of each card left to shed, beside its penalty points.
CARD_PRICE = 5.0


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb action for the seat to move."""
    legal: list[str] = view["legal"]
    hand: list[str] = view["hand"]
    plain = [a for a in legal if _is_card(a) and a[0] != "J"]
    if plain:
        return max(plain, key=lambda c: (penalty(c), _suit_length(hand, c[1])))
    jacks = [a for a in legal if a[0] == "J"]
    if jacks and (view["phase"] != "drawn" or len(hand) == 1):
        return max(jacks, key=lambda a: _suit_length(hand, a[3]) if len(a) == 4 else 99)
    for fallback in ("draw", "pass"):
        if fallback in legal:
            return fallback
    return legal[0]


def _is_card(action: str) -> bool:
    return len(action) == 2


def _suit_length(hand: list[str], suit: str) -> int:
    """Cards of ``suit`` in hand, jacks not counted (they fit anything)."""
    return sum(1 for c in hand if c[1] == suit and c[0] != "J") if suit in SUITS else 0


def burden(hand: list[str]) -> float:
    """What a hand is likely to cost: its penalty points plus a price per card still to shed."""
    return sum(penalty(c) for c in hand) + CARD_PRICE * len(hand)


def outcome(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """The deal's penalty margin; a playout cut short compares the hands' burdens."""
    if end.finished or end.deal_no != start.deal_no or not isinstance(end, MauMau):
        return penalty_margin(start, end, events, seat)
    burdens = [burden(hand) for hand in end.hands]
    return min(b for s, b in enumerate(burdens) if s != seat) - burdens[seat]


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=policy_rollout(easy, ("phase",)),
    outcome=outcome,
    max_moves=HORIZON,
)

"""Mau-Mau: shed your hand matching suit or rank; jacks are wild.

Easy plays off its most expensive matching card (the one that would cost most
left in hand), preferring to stay in the suit it holds most of — but when
the next player is down to his last card, first a card that keeps him from
going out (a 7 or 8 that takes his turn, a restricting queen, as the table
options allow, or a suit he was seen to lack); it keeps its jacks for when
nothing else fits and then names its longest suit; drawn cards are played
when they fit (jacks kept).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.ai.playbook import Playbook, penalty_margin, policy_rollout, random_rollout
from games.base import Event, Game, View
from games.cards import SUITS
from games.mau_mau import MauMau, penalty

#: Playouts stop after this many moves and compare the hands' burdens: a whole
#: deal of Mau-Mau is mostly luck, which drowns the effect of one decision.
HORIZON = 12
#: The burden of each card left to shed, beside its penalty points.
CARD_PRICE = 5.0
#: Normal's worlds per decision. The search has nothing left to find by about
#: 200 (strong was level with a normal of 200); at 24 normal sits between easy
#: and strong (docs/computer-players.md, measured over 1,120 deals each).
NORMAL_SAMPLES = 24


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb action for the seat to move."""
    legal: list[str] = view["legal"]
    hand: list[str] = view["hand"]
    plain = [a for a in legal if _is_card(a) and a[0] != "J"]
    if plain:
        stop = _hindering(view) if view["phase"] == "play" else None
        return max(
            plain,
            key=lambda c: (stop is not None and stop(c), penalty(c), _suit_length(hand, c[1])),
        )
    jacks = [a for a in legal if a[0] == "J"]
    if jacks and (view["phase"] != "drawn" or len(hand) == 1):
        return max(jacks, key=lambda a: _suit_length(hand, a[3]) if len(a) == 4 else 99)
    for fallback in ("draw", "pass"):
        if fallback in legal:
            return fallback
    return legal[0]


def _hindering(view: View) -> Callable[[str], bool] | None:
    """With the next player on his last card: which cards keep him from going out.

    A 7 (``seven_draws``) or an 8 (``eight_skips``) takes his turn, a queen
    (``queen_restricted``) lets only its king or a jack follow, and a card of
    a suit he was seen to lack leaves him only its rank or a jack. None when
    he holds more than one card.
    """
    seat = int(view["seat"])
    following = (seat + 1) % int(view["players"])
    sizes = view["hand_sizes"] if "hand_sizes" in view else [len(h) for h in view["hands"]]
    if sizes[following] != 1:
        return None
    options = view["options"]
    lacks: str = view["lacks"][following]["suits"]

    def hinders(card: str) -> bool:
        return (
            (card[0] == "7" and bool(options["seven_draws"]))
            or (card[0] == "8" and bool(options["eight_skips"]))
            or (card[0] == "Q" and bool(options["queen_restricted"]))
            or card[1] in lacks
        )

    return hinders


def _is_card(action: str) -> bool:
    return len(action) == 2


def _suit_length(hand: list[str], suit: str) -> int:
    """Cards of ``suit`` in hand, jacks not counted (they fit anything)."""
    return sum(1 for c in hand if c[1] == suit and c[0] != "J") if suit in SUITS else 0


def burden(hand: list[str], factor: int = 1) -> float:
    """What a hand is likely to cost: its penalty points (times ``factor``) plus a
    price per card still to shed."""
    return factor * sum(penalty(c) for c in hand) + CARD_PRICE * len(hand)


def outcome(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """The best opponent's burden minus the seat's, at the deal's end or the horizon.

    A finished deal is scored on the same scale as a playout cut short (the
    finisher's burden is 0; a doubled deal doubles the penalty points): scored
    by penalty points alone, an opponent going out at once would look better
    than a deal still going on with the seat's cards in hand.
    """
    for event in events:
        if event["type"] == "deal_end":
            factor = 2 if event["doubled"] else 1
            return _margin([burden(hand, factor) for hand in event["hands"]], seat)
    if end.finished or end.deal_no != start.deal_no or not isinstance(end, MauMau):
        return penalty_margin(start, end, events, seat)
    return _margin([burden(hand) for hand in end.hands], seat)


def _margin(burdens: list[float], seat: int) -> float:
    return min(b for s, b in enumerate(burdens) if s != seat) - burdens[seat]


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=policy_rollout(easy, ("phase", "hands", "options", "lacks")),
    outcome=outcome,
    max_moves=HORIZON,
    normal_samples=NORMAL_SAMPLES,
)

"""A compact King state for search: the trick deals (negative and trump) as ints.

On the shared :class:`~games.ai.compact.TrickState`; it plays by exactly the
rules of ``games.king`` (tests/ai/test_ai_compact.py plays both side by side):
the hearts-lead ban, the forced K♥, penalties per trick and per card, the
deal ending once every penalty is taken, +25 a trick in a trump deal. The
lottery is not trick play and stays on the engine.

:class:`Sampler` deals the hidden hands honouring what the play showed
(``games.king.known_absent``); :func:`easy_rollout` is the easy policy's
trick play (``games.ai.king``) on this state, the same choices.
"""

from __future__ import annotations

import random
from typing import Any

from games.ai import compact
from games.ai.compact import (
    INDEX,
    NAMES,
    NO_SUIT,
    POWERS,
    SUIT_MASKS,
    TrickState,
    Unseen,
    avoid,
    cards_of,
    lead_low,
    lead_strong,
    mask_of,
    seen_cards,
    suit_cards,
    take_if_worth,
)
from games.base import Event, View
from games.cards import SUITS
from games.king import known_absent
from games.king_contracts import (
    HEART_LEAD_BANNED,
    KING_OF_HEARTS,
    TRUMP_TRICK,
    card_penalty,
    deck_for,
    king_forced,
)

HEARTS = SUITS.index("H")
KH = INDEX[KING_OF_HEARTS]


class Contract:
    """What one deal's contract makes of the cards, fixed for the deal (shared by clones)."""

    __slots__ = ("card_cost", "cost_mask", "forced_king", "heart_ban", "negative", "trick_cost")

    def __init__(self, view: View) -> None:
        penalty: dict[str, int] | None = view["penalty"]
        players = int(view["players"])
        self.negative = penalty is not None
        costs = penalty or {}
        #: What taking each card costs; what taking the n-th trick costs (index n, from 1).
        self.card_cost = [card_penalty(costs, name) for name in NAMES]
        self.trick_cost = [
            costs.get("trick", 0) + costs.get(f"trick_{n}", 0) for n in range(52 // players + 2)
        ]
        self.cost_mask = sum(1 << c for c, cost in enumerate(self.card_cost) if cost)
        self.heart_ban = view["contract"] in HEART_LEAD_BANNED
        self.forced_king = king_forced(view["contract"], view["options"])


class CompactKing(TrickState):
    """One King trick deal in play, as ints. ``scores`` are the deal's points so far
    (penalties negative), as the engine's ``deal_points``."""

    __slots__ = ("contract", "penalty_left", "table_cost", "tricks_done")

    SHARED = ("contract", "penalty_left", "tricks_done", "table_cost")

    contract: Contract
    penalty_left: int
    #: Completed tricks this deal.
    tricks_done: int
    #: What the cards on the table cost their taker.
    table_cost: int

    def legal_actions(self, seat: int) -> list[int]:
        """The legal cards, as indexes (``King._trick_cards``)."""
        if seat != self.turn:
            return []
        hand = self.hands[seat]
        if self.in_trick == 0:
            if self.contract.heart_ban and hand & ~SUIT_MASKS[HEARTS]:
                return cards_of(hand & ~SUIT_MASKS[HEARTS])
            return cards_of(hand)
        led = self.led
        if hand & SUIT_MASKS[led]:
            return suit_cards(hand, led)
        if self.contract.forced_king and led != HEARTS and hand >> KH & 1:
            return [KH]
        return cards_of(hand)

    def _apply(self, seat: int, card: int) -> list[Event]:
        """Play ``card`` (legal) for the seat to move; the only event is a deal end."""
        contract = self.contract
        self.table_cost += contract.card_cost[card]
        if not self._lay(seat, card):
            return []
        winner = self.best_seat
        self.tricks_done += 1
        if contract.negative:
            points = -(contract.trick_cost[self.tricks_done] + self.table_cost)
            self.penalty_left += points
        else:
            points = TRUMP_TRICK
        self.scores[winner] += points
        self.table_cost = 0
        if self.hands[winner] and (self.penalty_left or not contract.negative):
            return []
        self.turn = None
        return [{"type": "deal_end", "deal_scores": list(self.scores)}]


def from_view(view: View, hands: list[list[str]]) -> CompactKing:
    """The compact state of a trick-play ``view`` with every hand filled in."""
    state = CompactKing.__new__(CompactKing)
    trumps = view["trumps"]
    state._start(
        int(view["players"]),
        [mask_of(hand) for hand in hands],
        SUITS.index(trumps) if trumps else NO_SUIT,
        view["to_move"],
    )
    state.contract = contract = Contract(view)
    state.scores = list(view["deal_points"])
    state.deal_no = int(view["deal_no"])
    state.penalty_left = int(view["penalty_left"])
    state.tricks_done = len(view["history"])
    state.table_cost = sum(contract.card_cost[INDEX[card]] for _, card in view["trick"])
    state._replay(view["history"], view["trick"])
    return state


class Sampler(compact.Sampler[CompactKing]):
    """Deals the hands one seat cannot see into compact states, honouring what
    the play showed (``games.king.known_absent``)."""

    def __init__(self, view: View) -> None:
        seat = int(view["seat"])
        players = int(view["players"])
        seen = seen_cards(view)
        unseen = [card for card in deck_for(players) if card not in seen]
        absent = known_absent(view, unseen)
        others = [s for s in range(players) if s != seat]
        super().__init__(
            from_view(view, [view["hand"] if s == seat else [] for s in range(players)]),
            others,
            Unseen(
                unseen, [int(view["hand_sizes"][o]) for o in others], [absent[o] for o in others]
            ),
        )


def easy_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """The easy policy's trick play (``games.ai.king``) on a compact state."""
    contract = state.contract
    if not contract.negative:
        if state.in_trick == 0:
            return lead_strong(state, seat, legal)
        return take_if_worth(state, legal, None, None)
    can_cost = (
        contract.trick_cost[state.tricks_done + 1]
        or state.table_cost
        or contract.cost_mask & ~state.gone
    )
    if not can_cost:
        return max(legal, key=POWERS[NO_SUIT].__getitem__)
    if state.in_trick == 0:
        return lead_low(state, legal, contract.card_cost.__getitem__)
    return avoid(state, legal, contract.card_cost.__getitem__)

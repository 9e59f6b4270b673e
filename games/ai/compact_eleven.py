"""A compact Eleven state for search: hands and figures as ints, the stock as a list.

On the shared :class:`~games.ai.compact.TrickState`; it plays by exactly the
rules of ``games.eleven`` (tests/ai/test_ai_compact.py plays both side by side):
any card while the stock lasts, then follow suit; the higher card of the suit
led wins; the winner draws first. ``scores`` counts the figures each seat has
taken this deal. The stock is shared by clones: it is only read, at ``drawn``.

:class:`Sampler` deals the unseen cards to the opponent's hand and the stock
(only phase 2 shows voids, and then every unseen card is in that hand);
:func:`easy_rollout` is the easy policy (``games.ai.eleven``) on this state;
``games.ai.eleven.compact_rewards`` scores it.
"""

from __future__ import annotations

import random
from typing import Any

from games.ai import compact
from games.ai.compact import (
    INDEX,
    NO_SUIT,
    SUIT_MASKS,
    TrickState,
    Unseen,
    cards_of,
    lead_strong,
    mask_of,
    seen_cards,
    suit_cards,
    take_if_worth,
)
from games.base import Event, View
from games.cards import make_deck
from games.eleven import FIGURE_RANKS, deal_points_for

FIGURES = mask_of([rank + suit for rank in FIGURE_RANKS for suit in "SHDC"])


class CompactEleven(TrickState):
    """One Eleven deal in play, as ints."""

    __slots__ = ("drawn", "multiplier", "stock", "table_figures")

    SHARED = ("stock", "drawn", "multiplier", "table_figures")

    #: The stock at the deal's search root, top first; cards before ``drawn`` are gone.
    stock: list[int]
    drawn: int
    #: What this deal's points are multiplied by.
    multiplier: int
    #: Figures in the trick on the table.
    table_figures: int

    def legal_actions(self, seat: int) -> list[int]:
        """Any card while the stock lasts; in phase 2 the follower follows suit."""
        if seat != self.turn:
            return []
        hand = self.hands[seat]
        led = self.led
        if led != NO_SUIT and self.drawn == len(self.stock) and hand & SUIT_MASKS[led]:
            return suit_cards(hand, led)
        return cards_of(hand)

    def _apply(self, seat: int, card: int) -> list[Event]:
        """Play ``card`` (legal) for the seat to move; the only event is a deal end."""
        self.table_figures += FIGURES >> card & 1
        if not self._lay(seat, card):
            return []
        winner = self.best_seat
        self.scores[winner] += self.table_figures
        self.table_figures = 0
        drawn = self.drawn
        if drawn < len(self.stock):
            self.hands[winner] |= 1 << self.stock[drawn]
            self.hands[1 - winner] |= 1 << self.stock[drawn + 1]
            self.drawn = drawn + 2
        if self.hands[winner]:
            return []
        self.turn = None
        return [
            {"type": "deal_end", "deal_scores": deal_scores(self), "figures": list(self.scores)}
        ]


def deal_scores(state: CompactEleven) -> list[int]:
    """Each seat's points for a finished deal (``Eleven._score_deal``)."""
    return [deal_points_for(figures) * state.multiplier for figures in state.scores]


def from_view(view: View, hands: list[list[str]], stock: list[str]) -> CompactEleven:
    """The compact state of ``view`` with both hands and the stock (top first) filled in."""
    state = CompactEleven.__new__(CompactEleven)
    state._start(2, [mask_of(hand) for hand in hands], NO_SUIT, view["to_move"])
    state.scores = list(view["deal_points"])
    state.deal_no = int(view["deal_no"])
    state.stock = [INDEX[card] for card in stock]
    state.drawn = 0
    state.multiplier = int(view["multiplier"])
    state.table_figures = sum(FIGURES >> INDEX[card] & 1 for _, card in view["trick"])
    state._replay(view["history"], view["trick"])
    return state


class Sampler(compact.Sampler[CompactEleven]):
    """Deals the cards one seat cannot see to the opponent's hand and the stock."""

    def __init__(self, view: View) -> None:
        seat = int(view["seat"])
        seen = seen_cards(view)
        unseen = [card for card in make_deck(32) if card not in seen]
        super().__init__(
            from_view(view, [view["hand"] if s == seat else [] for s in (0, 1)], []),
            [1 - seat],
            Unseen(unseen, [int(view["hand_sizes"][1 - seat])], [set()]),
        )

    def rest(self, state: CompactEleven, cards: list[int]) -> None:
        """The cards left over are the stock, in dealt order."""
        state.stock = cards


def easy_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """The easy policy (``games.ai.eleven``) on a compact state."""
    if state.in_trick == 0:
        return lead_strong(state, seat, legal)
    return take_if_worth(state, legal, _pays, _figure_value)


def _pays(state: CompactEleven, card: int) -> bool:
    """The led card is a figure, or the winning card is not."""
    return bool(FIGURES >> state.best & 1) or not FIGURES >> card & 1


def _figure_value(card: int) -> float:
    return float(FIGURES >> card & 1)

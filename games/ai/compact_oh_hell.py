"""A compact Oh Hell state for search: hands as bit sets, cards as small ints.

One deal's play (and bidding) in ints, on the shared
:class:`~games.ai.compact.TrickState`; it plays by exactly the rules of
``games.oh_hell`` (tests/ai/test_ai_compact.py plays both side by side).

:class:`Sampler` deals the cards a seat cannot see into this form, honouring
the voids it has seen; :func:`easy_rollout` is the easy policy's trick play,
the same choices as ``games.ai.oh_hell`` makes on a view.
"""

from __future__ import annotations

import random
from typing import Any

from games.ai import compact
from games.ai.compact import (
    NO_SUIT,
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
from games.cards import SUITS, make_deck
from games.oh_hell import BONUS
from games.tricks import voids_known

#: A bid of n is the action BID + n (above every card index).
BID = 100


class CompactOhHell(TrickState):
    """One Oh Hell deal in play, as ints. ``scores`` counts this deal's points only."""

    __slots__ = ("bidding", "bids", "deal_size", "dealer", "hook", "won")

    SHARED = ("bidding", "deal_size", "dealer", "hook")
    LISTS = ("bids", "won")

    bids: list[int]
    won: list[int]
    #: Bids still to be made (0 in the play); bids are actions BID + n.
    bidding: int
    deal_size: int
    dealer: int
    hook: bool

    def legal_actions(self, seat: int) -> list[int]:
        """The legal cards, as indexes (bids as BID + n while bidding)."""
        if seat != self.turn:
            return []
        if self.bidding:
            forbidden = -1
            if self.hook and seat == self.dealer:
                forbidden = self.deal_size - sum(b for s, b in enumerate(self.bids) if s != seat)
            return [BID + n for n in range(self.deal_size + 1) if n != forbidden]
        led = self.led
        if led != NO_SUIT and self.hands[seat] & SUIT_MASKS[led]:
            return suit_cards(self.hands[seat], led)
        return cards_of(self.hands[seat])

    def _apply(self, seat: int, card: int) -> list[Event]:
        """Bid, or play ``card`` (legal), for the seat to move; the only event is a deal end."""
        if self.bidding:
            self.bids[seat] = card - BID
            self.bidding -= 1
            self.turn = (seat + 1) % self.players
            return []
        if not self._lay(seat, card):
            return []
        winner = self.best_seat
        self.won[winner] += 1
        if self.hands[winner]:
            return []
        self.turn = None
        self.scores = [
            bid + BONUS if won == bid else 0 for bid, won in zip(self.bids, self.won, strict=True)
        ]
        return [{"type": "deal_end", "deal_scores": list(self.scores)}]


def from_view(view: View, hands: list[list[str]]) -> CompactOhHell:
    """The compact state of a ``view`` (bidding or play) with every hand filled in."""
    state = CompactOhHell.__new__(CompactOhHell)
    players = int(view["players"])
    trumps = view["trumps"]
    state._start(
        players,
        [mask_of(hand) for hand in hands],
        SUITS.index(trumps) if trumps else NO_SUIT,
        view["to_move"],
    )
    state.bids = [int(bid or 0) for bid in view["bids"]]
    state.bidding = sum(1 for bid in view["bids"] if bid is None) if view["phase"] == "bid" else 0
    state.deal_size = int(view["deal_size"])
    state.dealer = int(view["dealer"])
    state.hook = bool(view["options"]["hook"])
    state.won = list(view["tricks_won"])
    state.deal_no = int(view["deal_no"])
    state._replay(view["history"], view["trick"])
    return state


class Sampler(compact.Sampler[CompactOhHell]):
    """Deals the cards one seat cannot see into compact states, never a suit a
    seat showed void."""

    def __init__(self, view: View) -> None:
        seat = int(view["seat"])
        players = int(view["players"])
        seen = seen_cards(view)
        if view["trump_card"]:
            seen.add(view["trump_card"])
        unseen = [card for card in make_deck(52) if card not in seen]
        tricks = [done["cards"] for done in view["history"]] + [view["trick"]]
        voids = voids_known(players, tricks)
        others = [s for s in range(players) if s != seat]
        super().__init__(
            from_view(view, [view["hand"] if s == seat else [] for s in range(players)]),
            others,
            Unseen(
                unseen,
                [int(view["hand_sizes"][o]) for o in others],
                [{c for c in unseen if c[1] in voids[o]} for o in others],
                leftover=False,
            ),
        )


def easy_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """The easy policy's trick play (``games.ai.oh_hell``) on a compact state."""
    if state.bids[seat] - state.won[seat] > 0:
        if state.in_trick == 0:
            return lead_strong(state, seat, legal)
        return take_if_worth(state, legal, None, None)
    if state.in_trick == 0:
        return lead_low(state, legal, None)
    return avoid(state, legal, None)


def random_deal(players: int, size: int, rng: random.Random) -> CompactOhHell:
    """A freshly shuffled deal of ``size`` cards each, bids still to make (for the bench)."""
    deck = list(range(52))
    rng.shuffle(deck)
    state = CompactOhHell.__new__(CompactOhHell)
    hands = [0] * players
    for seat in range(players):
        for card in deck[seat * size : (seat + 1) * size]:
            hands[seat] |= 1 << card
    trump = deck[players * size] // 13 if players * size < 52 else NO_SUIT
    state._start(players, hands, trump, 0)
    state.bids = [0] * players
    state.won = [0] * players
    state.deal_no = size - 1
    state.bidding = 0
    state.deal_size = size
    state.dealer = players - 1
    state.hook = False
    return state

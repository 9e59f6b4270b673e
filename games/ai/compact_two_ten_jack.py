"""A compact Two-Ten-Jack state for search: hands as bit sets, the stock as a list.

On the shared :class:`~games.ai.compact.TrickState`; it plays by exactly the
rules of ``games.two_ten_jack`` (tests/ai/test_ai_compact.py plays both side by
side): hearts are trumps and the A♠ wins every trick it is played to; follow
the suit led, else trump, else anything (the A♠ answers spades and hearts);
the winner draws first, then the others clockwise. ``scores`` are the card
values taken this deal. The A♠ led as a spade is its card index; led as a
trump it is the action :data:`AS_TRUMP`.

:class:`Sampler` deals the cards a seat cannot see under the constraints of the
engine's ``determinize`` (known draws stay put, voids are honoured);
:func:`easy_rollout` is the easy policy (``games.ai.two_ten_jack``) on this
state, the same choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.ai import compact
from games.ai.compact import (
    INDEX,
    NAMES,
    SUIT_MASKS,
    TrickState,
    Unseen,
    cards_of,
    mask_of,
    seen_cards,
    take_if_worth,
)
from games.base import Event, View
from games.cards import SUITS
from games.two_ten_jack import (
    CARD_VALUES,
    LEAD_AS_SPADE,
    LEAD_AS_TRUMP,
    SAMPLE_TRIES,
    SPECULATION,
    TRUMPS,
    _drawn_in_time,
    _fits,
    _voids,
    deck_for,
)

HEARTS = SUITS.index(TRUMPS)
AS = INDEX[SPECULATION]
#: The A♠ led as a trump.
AS_TRUMP = 52
#: Hearts and the A♠.
TRUMP_MASK = SUIT_MASKS[HEARTS] | 1 << AS
#: What each card is worth in the tricks taken.
VALUES: list[int] = [CARD_VALUES.get(name, 0) for name in NAMES]


class CompactTwoTenJack(TrickState):
    """One Two-Ten-Jack deal in play, as ints."""

    __slots__ = ("drawn", "stock", "table_value")

    SHARED = ("stock", "drawn", "table_value")

    #: The stock at the search root, top first; cards before ``drawn`` are gone.
    stock: list[int]
    drawn: int
    #: What the cards on the table are worth to their taker.
    table_value: int

    def legal_actions(self, seat: int) -> list[int]:
        """Lead anything (the A♠ also as :data:`AS_TRUMP`); follow as the rules say.

        The rules: docs/rules.md#two-ten-jack-play.
        """
        if seat != self.turn:
            return []
        hand = self.hands[seat]
        if self.in_trick == 0:
            cards = cards_of(hand)
            if hand >> AS & 1:
                cards.append(AS_TRUMP)
            return cards
        answering = hand & SUIT_MASKS[self.led]
        if self.led == HEARTS:
            answering |= hand & 1 << AS
        return cards_of(answering or hand & TRUMP_MASK or hand)

    def beating_mask(self, best: int) -> int:
        """The cards that beat ``best`` once it wins the trick: as in any trick game and
        the A♠; none once the A♠ wins it."""
        return 0 if best == AS else TrickState.beating_mask(self, best) | 1 << AS

    def _apply(self, seat: int, action: int) -> list[Event]:
        """Play ``action``'s card (legal) for the seat to move; the only event is a deal end."""
        card = card_of(action)
        self.table_value += VALUES[card]
        if not self._lay(seat, card):
            if action == AS_TRUMP:
                self.led = HEARTS
            return []
        winner = self.best_seat
        self.scores[winner] += self.table_value
        self.table_value = 0
        players, stock = self.players, self.stock
        for offset in range(players):
            if self.drawn == len(stock):
                break
            self.hands[(winner + offset) % players] |= 1 << stock[self.drawn]
            self.drawn += 1
        if self.hands[winner]:
            return []
        self.turn = None
        return [{"type": "deal_end", "deal_scores": list(self.scores)}]


def encode(action: str) -> int:
    """A view's action as a compact one."""
    return AS_TRUMP if action == LEAD_AS_TRUMP else INDEX[action[:2]]


def card_of(action: int) -> int:
    """The card an action puts down (the A♠ led as a trump is the A♠)."""
    return AS if action == AS_TRUMP else action


def lead_action(card: str, led: str | None) -> int:
    """The action that led a trick with ``card``, the trick following ``led``
    (the A♠ leading a trick that follows hearts was led as a trump)."""
    return AS_TRUMP if card == SPECULATION and led == TRUMPS else INDEX[card]


def decoder(leading: bool) -> Callable[[int], str]:
    """The compact actions' names for a seat that leads (the A♠ declared) or follows."""
    names = [*NAMES, LEAD_AS_TRUMP]
    if leading:
        names[AS] = LEAD_AS_SPADE
    return names.__getitem__


def from_view(view: View, hands: list[list[str]], stock: list[str]) -> CompactTwoTenJack:
    """The compact state of ``view`` with every hand and the stock (top first) filled in."""
    state = CompactTwoTenJack.__new__(CompactTwoTenJack)
    state._start(int(view["players"]), [mask_of(h) for h in hands], HEARTS, view["to_move"])
    state.scores = list(view["deal_points"])
    state.deal_no = int(view["deal_no"])
    state.stock = [INDEX[card] for card in stock]
    state.drawn = 0
    state.table_value = sum(VALUES[INDEX[card]] for _, card in view["trick"])
    state._replay(view["history"], view["trick"])
    if view["led"] is not None:
        state.led = SUITS.index(view["led"])
    return state


class Sampler(compact.Sampler[CompactTwoTenJack]):
    """Deals the cards one seat cannot see into compact states, as
    ``TwoTenJack.determinize`` does.

    Cards drawn face up stay with their seat, the stock's top stays on top,
    unseen cards avoid the suits a seat showed it lacks; a void shown before
    later face-down draws is honoured by rejection (the last try stands if
    every try breaks it).
    """

    def __init__(self, view: View) -> None:
        seat = int(view["seat"])
        players = int(view["players"])
        known: list[list[str]] = view["known_cards"]
        top: str | None = view["stock_top"]
        seen = seen_cards(view) | {card for cards in known for card in cards}
        if top is not None:
            seen.add(top)
        unseen = [card for card in deck_for(players) if card not in seen]
        others = [s for s in range(players) if s != seat]
        lacking, self.since = _voids(view)
        self.top = [] if top is None else [INDEX[top]]
        super().__init__(
            from_view(view, [view["hand"] if s == seat else [] for s in range(players)], []),
            others,
            Unseen(
                unseen,
                [int(view["hand_sizes"][o]) - len(known[o]) for o in others],
                [{card for card in unseen if not _fits(card, lacking[o])} for o in others],
            ),
            [mask_of(known[o]) for o in others],
        )

    def deal(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """As ``Unseen.deal``, redealt while a seat holds cards it cannot have drawn in time."""
        for _ in range(SAMPLE_TRIES):
            masks, cards = self.unseen.deal(rng)
            if self._in_time(masks):
                break
        return masks, cards

    def rest(self, state: CompactTwoTenJack, cards: list[int]) -> None:
        """The cards left over are the stock below its known top, in dealt order."""
        state.stock = self.top + cards

    def _in_time(self, masks: list[int]) -> bool:
        """True if every seat could have drawn its dealt cards since the voids it showed."""
        return all(
            not self.since[other] or _drawn_in_time(_names(mask), self.since[other])
            for other, mask in zip(self.others, masks, strict=True)
        )


def _names(mask: int) -> list[str]:
    return [NAMES[c] for c in cards_of(mask)]


def easy_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """The easy policy (``games.ai.two_ten_jack``) on a compact state."""
    if state.in_trick == 0:
        return _lead(legal)
    return take_if_worth(state, legal, _pays, VALUES.__getitem__)


def _pays(state: CompactTwoTenJack, card: int) -> bool:
    return state.table_value + VALUES[card] >= 0


def _lead(legal: list[int]) -> int:
    """The lowest plain card worth nothing to its taker; the A♠ (as a trump) last."""
    cards = [c for c in legal if c != AS and c != AS_TRUMP]
    if not cards:
        return AS_TRUMP
    return min(cards, key=lambda c: (c // 13 == HEARTS, VALUES[c] > 0, c % 13))

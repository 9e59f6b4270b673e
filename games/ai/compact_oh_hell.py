"""A compact Oh Hell state for search: hands as bit sets, cards as small ints.

The rules engine (``games.oh_hell``) keeps plain JSON-like data — right for
storing and showing a game, slow for a search that clones a state and lists
its moves tens of thousands of times a second. This state holds one deal's
play (and bidding) in ints: card ``c`` is bit ``c`` (``suit * 13 + rank``,
rank 0 = the two … 12 = the ace), so a hand is one int, following suit is one
``&``, and cloning copies three short lists. It plays by exactly the rules of
``games.oh_hell`` (tests/test_ai_compact.py plays both side by side).

:class:`Sampler` deals the cards a seat cannot see into this form, honouring
the voids it has seen; :func:`easy_rollout` is the easy policy's trick play,
the same choices as ``games.ai.oh_hell`` makes on a view.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, View
from games.cards import RANK_STRENGTH, SUITS, make_deck
from games.oh_hell import BONUS
from games.sampling import deal_unseen
from games.tricks import voids_known

#: Card names by index and back: index = suit * 13 + (strength - 2).
NAMES: list[str] = [
    rank + suit for suit in SUITS for rank in sorted(RANK_STRENGTH, key=RANK_STRENGTH.__getitem__)
]
INDEX: dict[str, int] = {name: index for index, name in enumerate(NAMES)}
SUIT_MASKS: list[int] = [((1 << 13) - 1) << (13 * s) for s in range(4)]
#: Every card above card c in its suit, as a mask.
ABOVE: list[int] = [SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52)]
NO_SUIT = -1
#: A bid of n is the action BID + n (above every card index).
BID = 100


def mask_of(cards: list[str]) -> int:
    """The bit set of card names."""
    mask = 0
    for card in cards:
        mask |= 1 << INDEX[card]
    return mask


#: For each suit, the card indexes of every 13-bit pattern of that suit.
_SUIT_CARDS: list[list[tuple[int, ...]]] = [
    [tuple(13 * s + r for r in range(13) if pattern >> r & 1) for pattern in range(1 << 13)]
    for s in range(4)
]


def cards_of(mask: int) -> list[int]:
    """The card indexes in a bit set, lowest first (a table lookup per suit)."""
    out: list[int] = []
    for s in range(4):
        pattern = mask >> (13 * s) & 0x1FFF
        if pattern:
            out.extend(_SUIT_CARDS[s][pattern])
    return out


class CompactOhHell:
    """One Oh Hell deal in play, as ints. ``scores`` counts this deal's points only."""

    __slots__ = (
        "best",
        "best_seat",
        "bidding",
        "bids",
        "deal_no",
        "deal_size",
        "dealer",
        "gone",
        "hands",
        "hook",
        "in_trick",
        "led",
        "players",
        "scores",
        "trump",
        "turn",
        "won",
    )

    players: int
    hands: list[int]
    bids: list[int]
    won: list[int]
    scores: list[int]
    trump: int
    turn: int | None
    led: int
    best: int
    best_seat: int
    in_trick: int
    gone: int
    deal_no: int
    #: Bids still to be made (0 in the play); bids are actions BID + n.
    bidding: int
    deal_size: int
    dealer: int
    hook: bool

    @property
    def to_move(self) -> int | None:
        """The seat to play; None once the deal is over."""
        return self.turn

    def clone(self) -> CompactOhHell:
        """An independent copy (three short lists and ints)."""
        copy = CompactOhHell.__new__(CompactOhHell)
        copy.players = self.players
        copy.hands = self.hands[:]
        copy.bids = self.bids[:]
        copy.won = self.won[:]
        copy.scores = self.scores[:]
        copy.trump = self.trump
        copy.turn = self.turn
        copy.led = self.led
        copy.best = self.best
        copy.best_seat = self.best_seat
        copy.in_trick = self.in_trick
        copy.gone = self.gone
        copy.deal_no = self.deal_no
        copy.bidding = self.bidding
        copy.deal_size = self.deal_size
        copy.dealer = self.dealer
        copy.hook = self.hook
        return copy

    def legal_mask(self, seat: int) -> int:
        """The cards ``seat`` may play: the suit led if it has any, else its hand."""
        hand = self.hands[seat]
        if self.led != NO_SUIT:
            same = hand & SUIT_MASKS[self.led]
            if same:
                return same
        return hand

    def legal_actions(self, seat: int) -> list[int]:
        """The legal cards, as indexes (bids as BID + n while bidding)."""
        if seat != self.turn:
            return []
        led = self.led
        if led != NO_SUIT and not self.bidding:
            pattern = self.hands[seat] >> (13 * led) & 0x1FFF
            if pattern:
                return list(_SUIT_CARDS[led][pattern])
        if self.bidding:
            forbidden = -1
            if self.hook and seat == self.dealer:
                forbidden = self.deal_size - sum(b for s, b in enumerate(self.bids) if s != seat)
            return [BID + n for n in range(self.deal_size + 1) if n != forbidden]
        return cards_of(self.legal_mask(seat))

    def beats(self, card: int) -> bool:
        """True if ``card`` would win the trick as it stands."""
        if self.in_trick == 0:
            return True
        suit, best_suit = card // 13, self.best // 13
        if suit == best_suit:
            return card > self.best
        return suit == self.trump

    def _apply(self, seat: int, card: int) -> list[Event]:
        """Bid, or play ``card`` (legal), for the seat to move; the only event is a deal end."""
        if self.bidding:
            self.bids[seat] = card - BID
            self.bidding -= 1
            self.turn = (seat + 1) % self.players
            return []
        bit = 1 << card
        self.hands[seat] ^= bit
        self.gone |= bit
        if self.in_trick == 0:
            self.led = card // 13
            self.best, self.best_seat = card, seat
        else:
            best = self.best
            suit = card // 13
            if (card > best and suit == best // 13) or (suit == self.trump != best // 13):
                self.best, self.best_seat = card, seat
        self.in_trick += 1
        if self.in_trick < self.players:
            self.turn = (seat + 1) % self.players
            return []
        winner = self.best_seat
        self.won[winner] += 1
        self.in_trick = 0
        self.led = NO_SUIT
        self.turn = winner
        if self.hands[winner]:
            return []
        self.turn = None
        self.scores = [
            bid + BONUS if won == bid else 0 for bid, won in zip(self.bids, self.won, strict=True)
        ]
        return [{"type": "deal_end", "deal_scores": list(self.scores)}]


def from_view(view: View, hands: list[list[str]]) -> CompactOhHell:
    """The compact state of a play-phase ``view`` with every hand filled in."""
    state = CompactOhHell.__new__(CompactOhHell)
    players = int(view["players"])
    state.players = players
    state.hands = [mask_of(hand) for hand in hands]
    state.bids = [int(bid or 0) for bid in view["bids"]]
    state.bidding = sum(1 for bid in view["bids"] if bid is None) if view["phase"] == "bid" else 0
    state.deal_size = int(view["deal_size"])
    state.dealer = int(view["dealer"])
    state.hook = bool(view["options"]["hook"])
    state.won = list(view["tricks_won"])
    state.scores = [0] * players
    trumps = view["trumps"]
    state.trump = SUITS.index(trumps) if trumps else NO_SUIT
    state.turn = view["to_move"]
    state.deal_no = int(view["deal_no"])
    gone = 0
    for done in view["history"]:
        gone |= mask_of([card for _, card in done["cards"]])
    state.led, state.best, state.best_seat, state.in_trick = NO_SUIT, 0, 0, 0
    for seat, card in view["trick"]:
        index = INDEX[card]
        if state.beats(index):
            state.best, state.best_seat = index, seat
        if state.in_trick == 0:
            state.led = index // 13
        state.in_trick += 1
        gone |= 1 << index
    state.gone = gone
    return state


class Sampler:
    """Deals the cards one seat cannot see, over and over, into compact states.

    Everything the view fixes (the seat's hand, the cards gone, the voids
    shown) is worked out once; each sample shuffles the unseen cards and
    deals them to the other hands, never a suit a seat showed void (those
    rare deals that would break a void are redealt by ``deal_unseen``).
    """

    def __init__(self, view: View) -> None:
        seat = int(view["seat"])
        hand: list[str] = view["hand"]
        tricks = [done["cards"] for done in view["history"]] + [view["trick"]]
        seen = set(hand) | {card for plays in tricks for _, card in plays}
        if view["trump_card"]:
            seen.add(view["trump_card"])
        self.unseen = [card for card in make_deck(52) if card not in seen]
        self.others = [s for s in range(int(view["players"])) if s != seat]
        voids = voids_known(int(view["players"]), tricks)
        self.void_masks = [sum(SUIT_MASKS[SUITS.index(s)] for s in voids[o]) for o in self.others]
        self.barred = [{c for c in self.unseen if c[1] in voids[o]} for o in self.others]
        self.sizes = [int(view["hand_sizes"][o]) for o in self.others]
        self.rest = len(self.unseen) - sum(self.sizes)
        self.indexes = [INDEX[card] for card in self.unseen]
        self.base = from_view(view, [hand if s == seat else [] for s in range(view["players"])])
        self.seat = seat

    def sample(self, rng: random.Random) -> CompactOhHell:
        """One world consistent with the view."""
        state = self.base.clone()
        cards = self.indexes[:]
        for _ in range(20):
            rng.shuffle(cards)
            start, fits = 0, True
            masks = []
            for size, void in zip(self.sizes, self.void_masks, strict=True):
                mask = 0
                for card in cards[start : start + size]:
                    mask |= 1 << card
                if mask & void:
                    fits = False
                    break
                masks.append(mask)
                start += size
            if fits:
                break
        else:
            dealt = deal_unseen(self.unseen, [*self.sizes, self.rest], [*self.barred, set()], rng)
            masks = [mask_of(zone) for zone in dealt[:-1]]
        for other, mask in zip(self.others, masks, strict=True):
            state.hands[other] = mask
        return state


def power(card: int, trump: int) -> int:
    """Trick-taking power for ordering: rank, trumps above every plain card."""
    return card % 13 + (100 if card // 13 == trump else 0)


def easy_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """The easy policy's trick play (``games.ai.oh_hell``) on a compact state."""
    trump = state.trump
    if state.bids[seat] - state.won[seat] > 0:
        if state.in_trick == 0:
            return _lead_strong(state, seat, legal, trump)
        winners = [c for c in legal if state.beats(c)]
        if winners:
            last = state.in_trick == state.players - 1
            pick = min if last else max
            return pick(winners, key=lambda c: power(c, trump))
        return min(legal, key=lambda c: power(c, trump))
    if state.in_trick == 0:
        return min(legal, key=lambda c: power(c, trump))
    losers = [c for c in legal if not state.beats(c)]
    if losers:
        return max(losers, key=lambda c: power(c, trump))
    return min(legal, key=lambda c: power(c, trump))


def _lead_strong(state: CompactOhHell, seat: int, legal: list[int], trump: int) -> int:
    """A master card (none higher left out) if any, plain before trump; else the
    lowest card of the longest plain suit."""
    known = state.gone | state.hands[seat]
    masters = [c for c in legal if ABOVE[c] & ~known == 0]
    if masters:
        return max(masters, key=lambda c: (c // 13 != trump, power(c, trump)))
    hand = state.hands[seat]
    lengths = [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]
    return min(legal, key=lambda c: (c // 13 == trump, -lengths[c // 13], power(c, trump)))


def random_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """A uniformly random legal card."""
    return legal[rng.randrange(len(legal))]


def rewards(start: Any, end: Any, events: list[Event]) -> list[float]:
    """Each seat's deal score minus the mean of the others' (as ``score_rewards``)."""
    scores = end.scores
    total = sum(scores)
    others = len(scores) - 1
    return [s - (total - s) / others for s in scores]


def random_deal(players: int, size: int, rng: random.Random) -> CompactOhHell:
    """A freshly shuffled deal of ``size`` cards each, bids still to make (for the bench)."""
    deck = list(range(52))
    rng.shuffle(deck)
    state = CompactOhHell.__new__(CompactOhHell)
    state.players = players
    state.hands = [0] * players
    for seat in range(players):
        for card in deck[seat * size : (seat + 1) * size]:
            state.hands[seat] |= 1 << card
    state.trump = deck[players * size] // 13 if players * size < 52 else NO_SUIT
    state.bids = [0] * players
    state.won = [0] * players
    state.scores = [0] * players
    state.turn = 0
    state.led, state.best, state.best_seat, state.in_trick = NO_SUIT, 0, 0, 0
    state.gone = 0
    state.deal_no = size - 1
    state.bidding = 0
    state.deal_size = size
    state.dealer = players - 1
    state.hook = False
    return state

"""Compact trick-game states for search: the pieces every game's state shares.

The rules engines keep plain JSON-like data — right for storing and showing a
game, slow for a search that clones a state and lists its moves tens of
thousands of times a second. A compact state holds one deal's play in ints:
card ``c`` is bit ``c`` (``suit * 13 + rank``, suits ``S H D C``, rank 0 = the
two … 12 = the ace), so a hand is one int, following suit is one ``&``, and
cloning copies a few short lists. Each game's module (``compact_<game>.py``)
plays by exactly its engine's rules; tests/ai/test_ai_compact.py plays both side
by side.

Here: the card indexing, :class:`TrickState` (the trick in play, hands as bit
sets), :class:`Unseen` (dealing the cards a seat cannot see, honouring what it
knows), and the rules of thumb of ``games.ai.trickplay`` on compact states.
Legal cards are listed suit by suit in ``S H D C`` order, as the engines sort
plain suits, so the rules of thumb break ties exactly as on a view.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Generic, Self, TypeVar

from games.ai.inference import Weighted
from games.ai.ismcts import Rewards, Rollout, Space
from games.base import Event, Game, View
from games.cards import RANK_STRENGTH, SUITS, sort_hand
from games.sampling import deal_unseen

#: Card names by index and back: index = suit * 13 + (strength - 2).
NAMES: list[str] = [
    rank + suit for suit in SUITS for rank in sorted(RANK_STRENGTH, key=RANK_STRENGTH.__getitem__)
]
INDEX: dict[str, int] = {name: index for index, name in enumerate(NAMES)}
SUIT_MASKS: list[int] = [((1 << 13) - 1) << (13 * s) for s in range(4)]
#: Every card above card c in its suit, as a mask.
ABOVE: list[int] = [SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52)]
NO_SUIT = -1
#: Shuffles tried before :class:`Unseen` deals card by card under the constraints.
QUICK_TRIES = 20


def mask_of(cards: list[str] | set[str]) -> int:
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


def suit_cards(mask: int, suit: int) -> list[int]:
    """The card indexes of ``suit`` in a bit set, lowest first."""
    return list(_SUIT_CARDS[suit][mask >> (13 * suit) & 0x1FFF])


def power(card: int, trump: int) -> int:
    """Trick-taking power for ordering: rank, trumps above every plain card."""
    return card % 13 + (100 if card // 13 == trump else 0)


#: :func:`power` by trump suit and card (``POWERS[NO_SUIT]`` is the last row: no trumps).
POWERS: list[list[int]] = [[power(c, trump) for c in range(52)] for trump in (0, 1, 2, 3, -1)]
#: Every card: what beats the empty trick.
EVERY_CARD = (1 << 52) - 1


class TrickState:
    """The part of a compact trick-game deal every game shares.

    ``best``/``best_seat`` is the card winning the trick so far and
    ``beating`` the cards that would win it now, ``gone`` every card played
    this deal (the trick on the table included), ``scores`` what each seat
    has scored this deal so far (the game's own meaning).
    """

    __slots__ = (
        "beating",
        "best",
        "best_seat",
        "deal_no",
        "gone",
        "hands",
        "in_trick",
        "led",
        "players",
        "scores",
        "trump",
        "turn",
    )

    players: int
    hands: list[int]
    scores: list[int]
    trump: int
    turn: int | None
    led: int
    best: int
    best_seat: int
    beating: int
    in_trick: int
    gone: int
    deal_no: int

    @property
    def to_move(self) -> int | None:
        """The seat to play; None once the deal is over."""
        return self.turn

    #: A game's own fields, copied as they are (ints, and data clones share) or as lists.
    SHARED: tuple[str, ...] = ()
    LISTS: tuple[str, ...] = ()

    def clone(self) -> Self:
        """An independent copy: a few short lists and ints."""
        copy = self.__class__.__new__(self.__class__)
        copy.players = self.players
        copy.hands = self.hands[:]
        copy.scores = self.scores[:]
        copy.trump = self.trump
        copy.turn = self.turn
        copy.led = self.led
        copy.best = self.best
        copy.best_seat = self.best_seat
        copy.beating = self.beating
        copy.in_trick = self.in_trick
        copy.gone = self.gone
        copy.deal_no = self.deal_no
        for name in self.SHARED:
            setattr(copy, name, getattr(self, name))
        for name in self.LISTS:
            setattr(copy, name, getattr(self, name)[:])
        return copy

    def _start(self, players: int, hands: list[int], trump: int, turn: int | None) -> None:
        """Set the shared fields for a deal with no card on the table."""
        self.players = players
        self.hands = hands
        self.scores = [0] * players
        self.trump = trump
        self.turn = turn
        self.led, self.best, self.best_seat, self.in_trick = NO_SUIT, 0, 0, 0
        self.beating = EVERY_CARD
        self.gone = 0
        self.deal_no = 0

    def _replay(self, history: list[dict[str, Any]], trick: list[list[Any]]) -> None:
        """Mark the cards of ``history`` gone and lay the trick on the table as it stands."""
        for done in history:
            self.gone |= mask_of([card for _, card in done["cards"]])
        for seat, card in trick:
            self._place(seat, INDEX[card])

    def beats(self, card: int) -> bool:
        """True if ``card`` would win the trick as it stands."""
        return bool(self.beating >> card & 1)

    def beating_mask(self, best: int) -> int:
        """The cards that beat ``best`` once it wins the trick: higher ones of its
        suit, and every trump if it is not one."""
        suit = best // 13
        if suit == self.trump or self.trump == NO_SUIT:
            return ABOVE[best]
        return ABOVE[best] | SUIT_MASKS[self.trump]

    def _place(self, seat: int, card: int) -> None:
        """Put ``seat``'s ``card`` on the table (it is gone; it may lead or win the trick)."""
        self.gone |= 1 << card
        if self.beating >> card & 1:
            self.best, self.best_seat = card, seat
            self.beating = self.beating_mask(card)
        if self.in_trick == 0:
            self.led = card // 13
        self.in_trick += 1

    def _lay(self, seat: int, card: int) -> bool:
        """Play ``seat``'s ``card`` to the trick; True once the trick is complete
        (``best_seat`` took it and leads next), else the turn passes left."""
        self.hands[seat] ^= 1 << card
        self._place(seat, card)
        if self.in_trick < self.players:
            self.turn = (seat + 1) % self.players
            return False
        self.in_trick = 0
        self.led = NO_SUIT
        self.beating = EVERY_CARD
        self.turn = self.best_seat
        return True


def seen_cards(view: View) -> set[str]:
    """The cards a trick-game view shows: the seat's hand, the tricks played, the table."""
    seen = set(view["hand"])
    for done in view["history"]:
        seen.update(card for _, card in done["cards"])
    seen.update(card for _, card in view["trick"])
    return seen


class Unseen:
    """The cards one seat cannot see and the zones they are dealt to, over and over.

    Zones are the other hands in order; ``barred[z]`` holds the cards zone
    ``z`` is known not to hold. Cards beyond the zones' sizes are left over
    (a stock). Each deal shuffles and cuts, which is exactly uniform over the
    valid deals; when :data:`QUICK_TRIES` shuffles break a constraint,
    ``games.sampling.deal_unseen`` places the constrained cards first.
    """

    def __init__(
        self,
        unseen: list[str],
        sizes: list[int],
        barred: list[set[str]],
        leftover: bool = True,
    ) -> None:
        self.unseen = unseen
        self.sizes = sizes
        self.barred = barred
        self.barred_masks = [mask_of(cards) for cards in barred]
        self.indexes = [INDEX[card] for card in unseen]
        self.rest = len(unseen) - sum(sizes)
        #: False where nobody needs the leftover cards (Oh Hell's undealt
        #: deck): only the zones' cards are drawn, a third of the shuffling
        #: in a 5-card deal (``random.sample`` is as uniform as a shuffle).
        self.leftover = leftover

    def deal(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """The zones' bit sets, and the cards in dealt order (zone after zone,
        then the leftover cards, unless ``leftover`` is False)."""
        cards = self.indexes[:]
        zones = len(cards) - self.rest
        for _ in range(QUICK_TRIES):
            if self.leftover:
                rng.shuffle(cards)
            else:
                cards = rng.sample(self.indexes, zones)
            start = 0
            masks = []
            for size, barred in zip(self.sizes, self.barred_masks, strict=True):
                mask = 0
                for card in cards[start : start + size]:
                    mask |= 1 << card
                if mask & barred:
                    break
                masks.append(mask)
                start += size
            else:
                return masks, cards
        dealt = deal_unseen(self.unseen, [*self.sizes, self.rest], [*self.barred, set()], rng)
        return [mask_of(zone) for zone in dealt[:-1]], [INDEX[c] for zone in dealt for c in zone]


S = TypeVar("S", bound=TrickState)
G = TypeVar("G", bound=Game)


class Sampler(Generic[S]):
    """Deals the cards one seat cannot see, over and over, into copies of ``base``.

    Everything the view fixes is worked out once: ``base`` holds the seat's
    hand and the play so far, ``unseen`` the cards to deal to the ``others``
    (whose ``held`` cards, known to the seat, stay with them). Each sample
    deals the unseen cards and gives the leftover ones to :meth:`rest`.
    """

    def __init__(
        self, base: S, others: list[int], unseen: Unseen, held: list[int] | None = None
    ) -> None:
        self.base = base
        self.others = others
        self.unseen = unseen
        self.held = held or [0] * len(others)
        self.dealt = sum(unseen.sizes)

    def sample(self, rng: random.Random) -> S:
        """One world consistent with the view."""
        state = self.base.clone()
        masks, cards = self.deal(rng)
        for other, mask, held in zip(self.others, masks, self.held, strict=True):
            state.hands[other] = mask | held
        self.rest(state, cards[self.dealt :])
        return state

    def deal(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """The other hands' unseen cards and every unseen card in dealt order (as ``Unseen``)."""
        return self.unseen.deal(rng)

    def rest(self, state: S, cards: list[int]) -> None:
        """Place the cards left over after the hands (a stock); none by default."""


def to_game(game_cls: type[G], view: View, world: TrickState, rng: random.Random) -> G:
    """The full game of ``view`` whose hidden hands are those of the compact
    ``world`` (drawn for that view): ``Game.determinize`` with the other seats'
    hands replaced, and the stock the world's own if it keeps one (Eleven,
    Two-Ten-Jack), else the cards they no longer hold back in the engine's.
    For the 📈 review, which plays its worlds on the rules engine."""
    game = game_cls.determinize(view, rng)
    seat = int(view["seat"])
    hands: list[list[str]] = getattr(game, "hands")  # noqa: B009 - a trick game's hands
    trumps: str | None = getattr(game, "trumps", None)
    others = [s for s in range(len(hands)) if s != seat]
    pool = [card for s in others for card in hands[s]] + list(getattr(game, "stock", []))
    for s in others:
        hands[s] = sort_hand([NAMES[c] for c in cards_of(world.hands[s])], trumps)
    stock: list[int] | None = getattr(world, "stock", None)
    if stock is not None:  # the world's own stock, in its order (a face-up top stays on top)
        drawn: int = getattr(world, "drawn")  # noqa: B009 - a stock game's compact state
        setattr(game, "stock", [NAMES[c] for c in stock[drawn:]])  # noqa: B010
    elif hasattr(game, "stock"):
        held = {card for s in others for card in hands[s]}
        setattr(game, "stock", [card for card in pool if card not in held])  # noqa: B010
    return game


# ------------------------------------------------------------------ rules of thumb
#
# ``games.ai.trickplay`` on compact states: ``state`` is a TrickState, ``legal``
# the seat's legal cards in index order.

#: Whether winning the trick with a card pays: (state, card) -> bool.
Pays = Callable[[Any, int], bool]
#: A card's value or danger for ordering.
Value = Callable[[int], float]


def lead_strong(state: Any, seat: int, legal: list[int]) -> int:
    """A master card (none higher left out) if any, plain before trump; else the
    lowest card of the longest plain suit (``trickplay.lead_strong``)."""
    trump = state.trump
    powers = POWERS[trump]
    known = state.gone | state.hands[seat]
    masters = [c for c in legal if ABOVE[c] & ~known == 0]
    if masters:
        return max(masters, key=lambda c: (c // 13 != trump, powers[c]))
    hand = state.hands[seat]
    lengths = [(hand & SUIT_MASKS[s]).bit_count() for s in range(4)]
    return min(legal, key=lambda c: (c // 13 == trump, -lengths[c // 13], powers[c]))


def take_if_worth(state: Any, legal: list[int], pays: Pays | None, value: Value | None) -> int:
    """Follow to a trick worth winning (``trickplay.take_if_worth``); ``pays`` None:
    every winning card pays; ``value`` None: a card is worth its power."""
    powers = POWERS[state.trump]
    beating = state.beating
    winners = [c for c in legal if beating >> c & 1]
    paying = winners if pays is None else [c for c in winners if pays(state, c)]
    if paying:
        pick = min if state.in_trick == state.players - 1 else max
        return pick(paying, key=powers.__getitem__)
    losers = [c for c in legal if not beating >> c & 1]
    if value is None:
        return min(losers, key=powers.__getitem__) if losers else max(legal, key=powers.__getitem__)
    if losers:
        return min(losers, key=lambda c: (value(c), powers[c]))
    return min(legal, key=lambda c: (-value(c), powers[c]))


def avoid(state: Any, legal: list[int], danger: Value | None) -> int:
    """Follow to a trick better lost (``trickplay.avoid``); ``danger`` None: a card
    is as dangerous as it is powerful."""
    powers = POWERS[state.trump]
    beating = state.beating
    losers = [c for c in legal if not beating >> c & 1]
    if danger is None:
        return max(losers, key=powers.__getitem__) if losers else min(legal, key=powers.__getitem__)
    if losers:
        return max(losers, key=lambda c: (danger(c), powers[c]))
    return max(legal, key=lambda c: (-danger(c), powers[c]))


def lead_low(state: Any, legal: list[int], danger: Value | None) -> int:
    """The lowest safe card (``trickplay.lead_low``); ``danger`` None: no card is dangerous."""
    powers = POWERS[state.trump]
    if danger is None:
        return min(legal, key=powers.__getitem__)
    return min(legal, key=lambda c: (danger(c), powers[c]))


def random_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """A uniformly random legal card."""
    return legal[rng.randrange(len(legal))]


def rewards(start: Any, end: Any, events: list[Event]) -> list[float]:
    """Each seat's deal score minus the mean of the others' (as ``score_rewards``)."""
    scores = end.scores
    total = sum(scores)
    others = len(scores) - 1
    return [s - (total - s) / others for s in scores]


def card_space(
    sampler: Sampler[Any] | Weighted[Any],
    rollout: Rollout,
    rewards: Rewards = rewards,
    encode: Callable[[str], int] = INDEX.__getitem__,
    decode: Callable[[int], str] = NAMES.__getitem__,
) -> Space:
    """The search space of a compact state: worlds from ``sampler`` (weighted by
    inference or not), actions as
    card indexes (``encode``/``decode`` from and to the view's actions)."""
    fresh = sampler.fresh if isinstance(sampler, Weighted) else None
    return Space(sampler.sample, encode, decode, rollout, rewards, fresh)

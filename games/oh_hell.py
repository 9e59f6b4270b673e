"""Oh Hell («Пекло», docs/rules.md#oh-hell): 2–7 players, 52 cards, exact bids.

Deal k gives everybody k cards (k = 1 … ⌊52/n⌋, one cycle is the match); the
next card is turned up for trumps, except in the last deal, which is always
no-trump. From the dealer's left, dealer last, each player bids the exact
number of tricks he will take; with the ``hook`` option the dealer may not
make the bids add up to k. Then the dealer's left leads; follow suit if able,
no duty to beat or to trump. A bid made exactly scores bid + 10, a missed one 0.

View keys (besides ``base_view``):

- ``phase``: ``"bid"`` or ``"play"``.
- ``hand``: the viewer's cards (None for the public view).
- ``hand_sizes``: cards held by each seat.
- ``deal_size``: k, the cards each player got this deal.
- ``deals``: deals in the match (the cycle length ⌊52/n⌋).
- ``trump_card``: the turned-up card, or None in the no-trump last deal.
- ``trumps``: its suit, or None.
- ``bids``: each seat's bid, None while not yet made.
- ``tricks_won``: tricks taken this deal per seat.
- ``trick``: the trick on the table, ``[[seat, card], …]``.
- ``last_trick``: the latest completed trick of this deal, or None.
- ``history``: this deal's completed tricks, oldest first.

Actions: ``bid:N`` in the bidding, a card code (``QS``) in the play.
Reason codes for refused actions: ``unknown_action``, ``must_bid`` (a card
during the bidding), ``bidding_over`` (a bid during the play),
``bid_out_of_range``, ``hook`` (the dealer's bid would make the bids add up
to the deal size), ``not_in_hand``, ``must_follow_suit``.

Events: ``bid`` (seat, bid), ``play`` (seat, card), ``trick`` (winner, cards),
``deal_end`` (``deal_scores``, match ``scores``, ``bids``, ``tricks_won``), ``match_end``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, Game, Option, View, copy_state, other_hands
from games.cards import deal_one_at_a_time, is_card, make_deck, sort_hand
from games.sampling import deal_unseen, sampled_game
from games.tricks import follow_suit, trick_winner, voids_known

DECK_SIZE = 52
#: Points for making a bid exactly, on top of the bid itself.
BONUS = 10


def deals_in_cycle(players: int) -> int:
    """How many deals one cycle has: as many as the deck allows, ⌊52/n⌋."""
    return DECK_SIZE // players


def deal_score(bid: int, tricks: int) -> int:
    """A seat's score for the deal: bid + 10 if made exactly, else 0."""
    return bid + BONUS if tricks == bid else 0


class OhHell(Game):
    """One match (one full cycle of deals) of Oh Hell."""

    id = "oh_hell"
    min_players = 2
    max_players = 7
    options_schema = (Option("hook", False, (False, True)),)

    hands: list[list[str]]
    stock: list[str]
    trump_card: str | None
    phase: str
    bids: list[int | None]
    tricks_won: list[int]
    trick: list[list[Any]]
    history: list[dict[str, Any]]

    # ----------------------------------------------------------------- dealing

    def deck_cards(self) -> list[str]:
        """The full 52-card deck."""
        return make_deck(DECK_SIZE)

    @property
    def deal_size(self) -> int:
        """k: the cards each player gets in this deal."""
        return self.deal_no + 1

    @property
    def is_last_deal(self) -> bool:
        """True in the cycle's last deal, which is always played without trumps."""
        return self.deal_size == deals_in_cycle(self.players)

    @property
    def trumps(self) -> str | None:
        """The trump suit: the turned-up card's suit, None in the no-trump deal."""
        return self.trump_card[1] if self.trump_card else None

    def _deal(self, deck: list[str]) -> None:
        """Deal k cards each from the dealer's left, then turn up the trump card."""
        first = self._left_of(self.dealer)
        hands = deal_one_at_a_time(deck, self.players, self.deal_size, first)
        self.trump_card = None if self.is_last_deal else deck.pop(0)
        self.hands = [sort_hand(hand, self.trumps) for hand in hands]
        self.stock = deck
        self.phase = "bid"
        self.bids = [None] * self.players
        self.tricks_won = [0] * self.players
        self.trick = []
        self.history = []
        self.turn = first

    def _left_of(self, seat: int) -> int:
        return (seat + 1) % self.players

    # ----------------------------------------------------------------- bidding

    def _hooked_bid(self, seat: int) -> int | None:
        """The one bid the hook forbids the dealer (None if none is forbidden)."""
        if not self.options["hook"] or seat != self.dealer:
            return None
        made = sum(bid for bid in self.bids if bid is not None)
        return self.deal_size - made

    def _legal_bids(self, seat: int) -> list[str]:
        forbidden = self._hooked_bid(seat)
        return [f"bid:{n}" for n in range(self.deal_size + 1) if n != forbidden]

    def _bid(self, seat: int, bid: int) -> list[Event]:
        self.bids[seat] = bid
        if seat == self.dealer:
            self.phase = "play"
        self.turn = self._left_of(seat)
        return [{"type": "bid", "seat": seat, "bid": bid}]

    # ----------------------------------------------------------------- playing

    def legal_actions(self, seat: int) -> list[str]:
        """Bids 0..k (less the hooked one) or the cards that follow suit."""
        if self.result is not None or seat != self.turn:
            return []
        if self.phase == "bid":
            return self._legal_bids(seat)
        led = self.trick[0][1][1] if self.trick else None
        return follow_suit(self.hands[seat], led)

    def _why_illegal(self, seat: int, action: str) -> str:
        if action.startswith("bid:"):
            if self.phase != "bid":
                return "bidding_over"
            number = action[4:]
            if not number.isdigit() or int(number) > self.deal_size:
                return "bid_out_of_range"
            return "hook" if int(number) == self._hooked_bid(seat) else "illegal"
        if not is_card(action):
            return "unknown_action"
        if self.phase == "bid":
            return "must_bid"
        if action not in self.hands[seat]:
            return "not_in_hand"
        return "must_follow_suit"

    def _apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "bid":
            return self._bid(seat, int(action[4:]))
        self.hands[seat].remove(action)
        self.trick.append([seat, action])
        events: list[Event] = [{"type": "play", "seat": seat, "card": action}]
        if len(self.trick) < self.players:
            self.turn = self._left_of(seat)
            return events
        return events + self._take_trick()

    def _take_trick(self) -> list[Event]:
        winner = trick_winner(self.trick, self.trumps)
        done = {"cards": self.trick, "winner": winner}
        self.history.append(done)
        self.tricks_won[winner] += 1
        self.trick = []
        self.turn = winner
        events: list[Event] = [
            {"type": "trick", "winner": winner, "cards": copy_state(done["cards"])}
        ]
        if not self.hands[winner]:
            events += self._score_deal()
        return events

    def _score_deal(self) -> list[Event]:
        points = [
            deal_score(bid or 0, won) for bid, won in zip(self.bids, self.tricks_won, strict=True)
        ]
        self.scores = [total + gain for total, gain in zip(self.scores, points, strict=True)]
        events: list[Event] = [
            {
                "type": "deal_end",
                "deal_scores": points,
                "scores": list(self.scores),
                "bids": list(self.bids),
                "tricks_won": list(self.tricks_won),
            }
        ]
        if self.is_last_deal:
            events.append(self._finish_best())
        else:
            self._next_deal()
        return events

    # ----------------------------------------------------------------- seeing

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know; see the module docstring for the keys."""
        view = self.base_view(seat)
        view.update(
            phase=self.phase,
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            deal_size=self.deal_size,
            deals=deals_in_cycle(self.players),
            trump_card=self.trump_card,
            trumps=self.trumps,
            bids=list(self.bids),
            tricks_won=list(self.tricks_won),
            trick=copy_state(self.trick),
            last_trick=copy_state(self.history[-1]) if self.history else None,
            history=copy_state(self.history),
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """The undealt stock and every hand but the viewer's."""
        return set(self.stock) | other_hands(self.hands, seat)

    def card_zones(self) -> dict[str, list[str]]:
        """Hands, the undealt stock, the trump card, the trick and the taken tricks."""
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["stock"] = list(self.stock)
        zones["trump_card"] = [self.trump_card] if self.trump_card else []
        zones["trick"] = [card for _, card in self.trick]
        zones["taken"] = [card for done in self.history for _, card in done["cards"]]
        return zones

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> OhHell:
        """A full game matching ``view``: unseen cards dealt at random to the
        other hands and the stock, never a suit to a seat that showed it void."""
        seat = view["seat"]
        game = sampled_game(cls, view, rng)
        game.trump_card = view["trump_card"]
        game.phase = view["phase"]
        game.bids = list(view["bids"])
        game.tricks_won = list(view["tricks_won"])
        game.trick = copy_state(view["trick"])
        game.history = copy_state(view["history"])
        tricks = [done["cards"] for done in game.history] + [game.trick]
        hand = view["hand"] or []  # none for the public view: every hand is sampled
        seen = set(hand) | {card for plays in tricks for _, card in plays}
        if game.trump_card:
            seen.add(game.trump_card)
        unseen = [card for card in make_deck(DECK_SIZE) if card not in seen]
        others = [s for s in range(game.players) if s != seat]
        voids = voids_known(game.players, tricks)
        barred = [{c for c in unseen if c[1] in voids[s]} for s in others] + [set()]
        sizes = [view["hand_sizes"][s] for s in others]
        dealt = deal_unseen(unseen, [*sizes, len(unseen) - sum(sizes)], barred, rng)
        game.hands = [[] for _ in range(game.players)]
        if seat is not None:
            game.hands[seat] = list(hand)
        for other, cards in zip(others, dealt, strict=False):
            game.hands[other] = sort_hand(cards, game.trumps)
        game.stock = dealt[-1]
        return game

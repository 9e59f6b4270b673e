"""Eleven («Одиннадцать», docs/rules.md#eleven): two players, 32 cards, no trumps.

Each player tries to take 11 of the 20 figures (A K Q J 10). While the stock
lasts any card may be played and the higher card of the suit led wins; the
winner draws first. Once the stock is empty the last six tricks require
following suit (no duty to beat). A 10–10 deal is drawn and doubles the next
decisive deal (×2, ×4 after two draws in a row, …); the multiplier then resets.

View keys (besides ``base_view``):

- ``phase``: always ``"play"``.
- ``hand``: the viewer's cards, sorted by suit then rank (None for the public
  view); ``legal`` lists them in the same order.
- ``hand_sizes``: cards held by each seat.
- ``trick``: the trick on the table, ``[[seat, card], …]``.
- ``last_trick``: the latest completed trick of this deal or None.
- ``history``: this deal's completed tricks, oldest first. Taken tricks lie
  face up in our bot, so they are public; in phase 2 (tricks 11–16) a failure
  to follow suit shows a void.
- ``tricks_won``: tricks taken this deal per seat.
- ``stock``: cards left in the face-down stock.
- ``deal_points``: figures taken so far this deal per seat (public, as the
  tricks are).
- ``multiplier``: what this deal's points are multiplied by (1, 2, 4, …).

Actions: a card code such as ``QS``. Reason codes for refused cards:
``unknown_action`` (not a card), ``not_in_hand``, ``must_follow_suit``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, Game, Option, View, other_hands
from games.cards import insert_sorted, is_card, make_deck, sort_hand
from games.sampling import sampled_game
from games.tricks import follow_suit, trick_winner

FIGURE_RANKS = "AKQJT"
HAND_SIZE = 6
TRICKS_PER_DEAL = 16
#: Tricks played while the stock lasts (20 stock cards, two drawn per trick).
PHASE_ONE_TRICKS = 10
#: Points for the figures taken, from 11 upwards (index = figures - 11).
POINTS_FOR_FIGURES = (1, 1, 1, 2, 2, 3, 3, 4, 4, 5)


def is_figure(card: str) -> bool:
    """True for the A, K, Q, J and 10: the cards that count."""
    return card[0] in FIGURE_RANKS


def deal_points_for(figures: int) -> int:
    """Points (before the multiplier) for ``figures`` figures; 0 below 11."""
    return POINTS_FOR_FIGURES[figures - 11] if figures >= 11 else 0


class Eleven(Game):
    """One match of Eleven."""

    id = "eleven"
    min_players = 2
    max_players = 2
    options_schema = (
        Option("target", 5, choices=(3, 5, 7, 10), low=1, high=50),
        Option("dealer_leads", False),
    )

    hands: list[list[str]]
    stock: list[str]
    trick: list[list[Any]]
    history: list[dict[str, Any]]
    tricks_won: list[int]
    figures: list[int]
    draws_in_row: int

    # ------------------------------------------------------------------ dealing

    def deck_cards(self) -> list[str]:
        """The 32-card deck, A down to 7."""
        return make_deck(32)

    def _start_match(self) -> None:
        self.draws_in_row = 0

    def _deal(self, deck: list[str]) -> None:
        """Packets of two: non-dealer, dealer, three times; the rest is the stock."""
        non_dealer = 1 - self.dealer
        hands: list[list[str]] = [[], []]
        for packet in range(HAND_SIZE):
            seat = non_dealer if packet % 2 == 0 else self.dealer
            hands[seat].extend(deck[2 * packet : 2 * packet + 2])
        self.hands = [sort_hand(hand) for hand in hands]
        self.stock = deck[2 * HAND_SIZE :]
        self.trick = []
        self.history = []
        self.tricks_won = [0, 0]
        self.figures = [0, 0]
        self.turn = self.dealer if self.options["dealer_leads"] else non_dealer

    @property
    def multiplier(self) -> int:
        """What the next decisive deal's points are multiplied by."""
        return int(2**self.draws_in_row)

    # ------------------------------------------------------------------ playing

    def legal_actions(self, seat: int) -> list[str]:
        """Any card while the stock lasts; in phase 2 the follower follows suit."""
        if seat != self.turn or self.result is not None:
            return []
        hand = self.hands[seat]
        if not self.trick or self.stock:
            return list(hand)
        return follow_suit(hand, self.trick[0][1][1])

    def _why_illegal(self, seat: int, action: str) -> str:
        if not is_card(action):
            return "unknown_action"
        if action not in self.hands[seat]:
            return "not_in_hand"
        return "must_follow_suit"

    def _apply(self, seat: int, action: str) -> list[Event]:
        self.hands[seat].remove(action)
        self.trick.append([seat, action])
        events: list[Event] = [{"type": "play", "seat": seat, "card": action}]
        if len(self.trick) == 1:
            self.turn = 1 - seat
            return events
        return events + self._take_trick()

    def _take_trick(self) -> list[Event]:
        """Give the full trick to its winner, draw from the stock, maybe end the deal."""
        cards = self.trick
        winner = trick_winner(cards)
        self.history.append({"cards": cards, "winner": winner})
        self.tricks_won[winner] += 1
        self.figures[winner] += sum(1 for _, card in cards if is_figure(card))
        self.trick = []
        self.turn = winner
        events: list[Event] = [
            {"type": "trick", "winner": winner, "cards": [list(play) for play in cards]}
        ]
        if self.stock:
            for seat in (winner, 1 - winner):
                insert_sorted(self.hands[seat], self.stock.pop(0))
                events.append({"type": "draw", "seat": seat})
        if len(self.history) == TRICKS_PER_DEAL:
            events += self._score_deal()
        return events

    def _score_deal(self) -> list[Event]:
        """Score the finished deal, then end the match or deal again."""
        multiplier = self.multiplier
        deal_scores = [deal_points_for(f) * multiplier for f in self.figures]
        if any(deal_scores):
            self.draws_in_row = 0
        else:
            self.draws_in_row += 1
        for seat in (0, 1):
            self.scores[seat] += deal_scores[seat]
        events: list[Event] = [
            {
                "type": "deal_end",
                "deal_scores": deal_scores,
                "scores": list(self.scores),
                "figures": list(self.figures),
                "tricks": list(self.tricks_won),
                "multiplier": multiplier,
                "drawn": not any(deal_scores),
            }
        ]
        target = self.options["target"]
        winners = [seat for seat in (0, 1) if self.scores[seat] >= target]
        if winners:
            events.append(self._finish(winners))
        else:
            self._next_deal()
        return events

    # ------------------------------------------------------------------ seeing

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know; see the module docstring for the keys."""
        view = self.base_view(seat)
        view.update(
            phase="play",
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            trick=[list(play) for play in self.trick],
            last_trick=_copy_trick(self.history[-1]) if self.history else None,
            history=[_copy_trick(done) for done in self.history],
            tricks_won=list(self.tricks_won),
            stock=len(self.stock),
            deal_points=list(self.figures),
            multiplier=self.multiplier,
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """The stock and every hand but the viewer's."""
        return set(self.stock) | other_hands(self.hands, seat)

    def card_zones(self) -> dict[str, list[str]]:
        """Hands, stock, the trick on the table and each seat's taken tricks."""
        taken: list[list[str]] = [[], []]
        for done in self.history:
            taken[done["winner"]].extend(card for _, card in done["cards"])
        return {
            "hand0": list(self.hands[0]),
            "hand1": list(self.hands[1]),
            "stock": list(self.stock),
            "trick": [card for _, card in self.trick],
            "taken0": taken[0],
            "taken1": taken[1],
        }

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> Eleven:
        """A full game matching ``view``; the unseen cards are shuffled at random.

        Only phase 2 reveals voids, and by then every unseen card is in the
        opponent's hand, so a uniform shuffle of the unseen cards already
        respects everything the viewer knows.
        """
        seat = view["seat"]
        opponent = 1 - seat
        game = sampled_game(cls, view, rng)
        game.draws_in_row = view["multiplier"].bit_length() - 1
        game.trick = [list(play) for play in view["trick"]]
        game.history = [_copy_trick(done) for done in view["history"]]
        game.tricks_won = list(view["tricks_won"])
        game.figures = list(view["deal_points"])
        seen = set(view["hand"])
        seen.update(card for _, card in game.trick)
        for done in game.history:
            seen.update(card for _, card in done["cards"])
        unseen = [card for card in make_deck(32) if card not in seen]
        rng.shuffle(unseen)
        hands: list[list[str]] = [[], []]
        hands[seat] = list(view["hand"])
        size = view["hand_sizes"][opponent]
        hands[opponent] = sort_hand(unseen[:size])
        game.hands = hands
        game.stock = unseen[size:]
        return game


def _copy_trick(done: dict[str, Any]) -> dict[str, Any]:
    """A copy of a completed trick record."""
    return {"cards": [list(play) for play in done["cards"]], "winner": done["winner"]}

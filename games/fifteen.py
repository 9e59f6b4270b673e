"""Fifteen («Пятнадцать», docs/rules.md#fifteen): draw towards 15 without going over.

Two players, 52 cards; values A = 1, K Q J = 10, others their pips. Each deal
both ante ``stake`` into the pot; the non-dealer gets one face-down card, then
the dealer. The non-dealer plays his turn, then the dealer; then the showdown.

Actions: ``draw`` (take the top stock card, face down) and ``stand`` (end the
turn).

Details the book leaves open, as docs/rules.md#fifteen decides them
------------------------------------------------------------------
- ``stand`` is allowed once at least one card has been drawn, at once on a
  10-value first card, or at once on any card with ``stand_on_any_card``.
- ``draw`` is allowed while the total is at most 15. Going over 15 ends the
  drawing: the only action left is ``stand``, so the opponent sees exactly
  the same thing (a count of cards, then a stand) whether or not he went
  bust — nothing is told until the showdown.
- Both bust, or equal totals: the pot stays for the next deal, where both
  ante again (``elder_wins_ties``: equal totals go to the non-dealer).
- The match ends when a player cannot ante at the start of a deal (the other
  wins; if neither can, more chips wins, equal chips share) or after
  ``deals`` deals (more chips wins; equal chips: both are winners). A pot
  left standing at the end goes back to the players in equal halves — both
  paid it in equally — so the chips always add up to twice ``chips``.

View keys (besides ``base_view``)
---------------------------------
``phase`` (``draw`` during the turns, ``over`` after the match), ``hand``
(own cards, in the order received), ``total`` (own hand's value), ``drawn``
(cards drawn per seat), ``hand_sizes``, ``stood`` (per seat: has ended his
turn), ``stock`` (count), ``pot``, ``chips`` (per seat; also ``scores``),
``last_showdown`` (the previous deal's showdown, see the event, or None).

Events: ``ante`` (stake, pot), ``draw`` (seat, no card), ``stand`` (seat),
``showdown`` (``hands``: both hands shown, ``totals``, ``winner`` or None,
``pot`` won or carried, ``carried``), ``match_end``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import BadOptions, Event, Game, Option, View, copy_state, other_hands
from games.cards import make_deck
from games.sampling import sampled_game

TARGET = 15


def value(card: str) -> int:
    """Points of ``card``: A = 1, K Q J T = 10, others their pips."""
    rank = card[0]
    if rank == "A":
        return 1
    return 10 if rank in "KQJT" else int(rank)


def total(cards: list[str]) -> int:
    """Points of a hand."""
    return sum(value(card) for card in cards)


class Fifteen(Game):
    """Fifteen for exactly 2 players, played for chips."""

    id = "fifteen"
    min_players = 2
    max_players = 2
    options_schema = (
        Option("chips", 20, (10, 20, 50, 100), low=1, high=10000),
        Option("stake", 2, (1, 2, 5), low=1, high=1000),
        Option("stand_on_any_card", False),
        Option("elder_wins_ties", False),
        Option("deals", 10, (5, 10, 20), low=1, high=1000),
    )

    hands: list[list[str]]
    stock: list[str]
    pot: int
    chips: list[int]
    stood: list[bool]
    last_showdown: dict[str, Any] | None

    # ----------------------------------------------------------------- table

    @classmethod
    def _check_options(cls, players: int, options: dict[str, Any]) -> None:
        """Both players must be able to ante for the first deal."""
        if options["stake"] > options["chips"]:
            raise BadOptions(
                f"the stake ({options['stake']}) cannot exceed the chips ({options['chips']})",
                "stake",
                options["stake"],
            )

    def deck_cards(self) -> list[str]:
        """The full 52-card deck."""
        return make_deck(52)

    def _start_match(self) -> None:
        self.chips = [self.options["chips"]] * 2
        self.scores = list(self.chips)
        self.pot = 0
        self.last_showdown = None

    @property
    def elder(self) -> int:
        """The non-dealer, who plays first."""
        return 1 - self.dealer

    def _deal(self, deck: list[str]) -> None:
        """Both ante; one card to the non-dealer, one to the dealer."""
        stake = self.options["stake"]
        self.chips = [chips - stake for chips in self.chips]
        self.scores = list(self.chips)
        self.pot += 2 * stake
        self.hands = [[], []]
        self.hands[self.elder].append(deck[0])
        self.hands[self.dealer].append(deck[1])
        self.stock = deck[2:]
        self.stood = [False, False]
        self.turn = self.elder

    # ----------------------------------------------------------------- rules

    def may_stand(self, seat: int) -> bool:
        """True if ``seat`` may end his turn now."""
        hand = self.hands[seat]
        return len(hand) > 1 or value(hand[0]) == 10 or bool(self.options["stand_on_any_card"])

    def legal_actions(self, seat: int) -> list[str]:
        """``draw`` while at most 15, ``stand`` when :meth:`may_stand`."""
        if self.result is not None or seat != self.turn:
            return []
        actions = ["draw"] if total(self.hands[seat]) <= TARGET else []
        if self.may_stand(seat):
            actions.append("stand")
        return actions

    def _why_illegal(self, seat: int, action: str) -> str:
        if action == "draw":
            return "turn_over"
        if action == "stand":
            return "must_draw"
        return "unknown_action"

    def _apply(self, seat: int, action: str) -> list[Event]:
        if action == "draw":
            self.hands[seat].append(self.stock.pop(0))
            return [{"type": "draw", "seat": seat}]
        self.stood[seat] = True
        events: list[Event] = [{"type": "stand", "seat": seat}]
        if seat == self.elder:
            self.turn = self.dealer
            return events
        return events + self._showdown()

    def _showdown(self) -> list[Event]:
        """Show both hands, pay or carry the pot, then deal again or end the match."""
        totals = [total(hand) for hand in self.hands]
        winner = self._pot_winner(totals)
        pot = self.pot
        if winner is not None:
            self.chips[winner] += self.pot
            self.pot = 0
        self.scores = list(self.chips)
        self.last_showdown = {
            "hands": copy_state(self.hands),
            "totals": totals,
            "winner": winner,
            "pot": pot,
            "carried": winner is None,
        }
        events: list[Event] = [{"type": "showdown", **copy_state(self.last_showdown)}]
        if self.deal_no + 1 >= self.options["deals"]:
            events.append(self._end_match(self._more_chips()))
            return events
        broke = [seat for seat in range(2) if self.chips[seat] < self.options["stake"]]
        if broke:
            winners = [1 - broke[0]] if len(broke) == 1 else self._more_chips()
            events.append(self._end_match(winners))
            return events
        self._next_deal()
        events.append({"type": "ante", "stake": self.options["stake"], "pot": self.pot})
        return events

    def _pot_winner(self, totals: list[int]) -> int | None:
        """Who takes the pot (None: it stays for the next deal)."""
        bust = [points > TARGET for points in totals]
        if bust[0] and bust[1]:
            return None
        if bust[0] or bust[1]:
            return 1 if bust[0] else 0
        if totals[0] != totals[1]:
            return 0 if totals[0] > totals[1] else 1
        return self.elder if self.options["elder_wins_ties"] else None

    def _more_chips(self) -> list[int]:
        """The seat with more chips, or both when equal."""
        most = max(self.chips)
        return [seat for seat in range(2) if self.chips[seat] == most]

    def _end_match(self, winners: list[int]) -> Event:
        """Return a standing pot in halves and finish."""
        self.chips = [chips + self.pot // 2 for chips in self.chips]
        self.pot = 0
        self.scores = list(self.chips)
        return self._finish(winners)

    # ----------------------------------------------------------------- seeing

    def view(self, seat: int | None) -> View:
        """The table as ``seat`` sees it (keys in the module docstring)."""
        view = self.base_view(seat)
        view.update(
            phase="over" if self.result is not None else "draw",
            hand=list(self.hands[seat]) if seat is not None else None,
            total=total(self.hands[seat]) if seat is not None else None,
            drawn=[len(hand) - 1 for hand in self.hands],
            hand_sizes=[len(hand) for hand in self.hands],
            stood=list(self.stood),
            stock=len(self.stock),
            pot=self.pot,
            chips=list(self.chips),
            last_showdown=copy_state(self.last_showdown),
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """The opponent's cards and the stock."""
        return set(self.stock) | other_hands(self.hands, seat)

    def card_zones(self) -> dict[str, list[str]]:
        """Both hands and the stock."""
        return {
            "hand0": list(self.hands[0]),
            "hand1": list(self.hands[1]),
            "stock": list(self.stock),
        }

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> Fifteen:
        """A full game matching ``view``; hidden hands follow what their moves showed.

        A hand that drew k cards was at most 15 before its last draw; a hand
        that stood on its first card alone holds a 10-value card (unless
        ``stand_on_any_card``).
        """
        game = sampled_game(cls, view, rng)
        game.pot = view["pot"]
        game.chips = list(view["chips"])
        game.stood = list(view["stood"])
        game.last_showdown = copy_state(view["last_showdown"])
        seat = view["seat"]
        known = {s: list(view["hand"]) for s in range(2) if s == seat}
        pool = [card for card in game.deck_cards() if card not in set(view["hand"] or [])]
        rng.shuffle(pool)
        for other in range(2):
            if other not in known:
                size = view["hand_sizes"][other]
                tens_only = (
                    size == 1 and game.stood[other] and not game.options["stand_on_any_card"]
                )
                known[other] = _sample_hand(pool, size, tens_only, rng)
                pool = [card for card in pool if card not in known[other]]
        game.hands = [known[0], known[1]]
        game.stock = pool
        return game


def _sample_hand(pool: list[str], size: int, tens_only: bool, rng: random.Random) -> list[str]:
    """``size`` cards from ``pool`` that could have been played so.

    Every card but the last was drawn on a total of at most 15 (the sum of all
    but the last card is at most 15); ``tens_only``: a lone 10-value card.
    Tries uniform samples first, then builds from the lowest cards.
    """
    if tens_only:
        return [rng.choice([card for card in pool if value(card) == 10])]
    for _ in range(200):
        hand = rng.sample(pool, size)
        if total(hand[:-1]) <= TARGET:
            return hand
    low = sorted(pool, key=value)[: size - 1]
    rest = [card for card in pool if card not in low]
    return [*low, rng.choice(rest)]

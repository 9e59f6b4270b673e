"""Rummy («Рамми», docs/rules.md#rummy): 2–6 players, 52 cards, ace low.

Deal one card at a time from the dealer's left: 10 each with 2 players, 7 with
3–4, 6 with 5–6; the next card is turned up to start the discard pile and the
rest is the face-down stock. In turn (the dealer's left first) a player draws
the top stock card or takes the top discard, then melds and lays off as he
likes, then discards one card (never the card he just took from the pile). A
player whose hand empties — by a meld, a lay-off or the discard — goes out and
receives the value of every opponent's remaining cards (A 1, K Q J 10 10,
others pip), doubled for «скатерть»: going out in a single turn having melded
and laid off nothing in an earlier turn of the deal. First to ``target`` wins.

Melds: a set is 3–4 cards of one rank; a run is 3+ consecutive cards of one
suit, ace low (A-2-3 is a run, Q-K-A is not). A lay-off adds one card from the
hand to any meld on the table (anybody's): a run grows at either end, a set of
three becomes four.

Actions (each ≤ 24 bytes, even for a 13-card run):

- ``draw`` — the top stock card; ``take`` — the top discard.
- ``set:<rank>:<suits>`` — meld a set, suits in ``S H D C`` order:
  ``set:7:SHD``, ``set:K:SHDC``.
- ``run:<suit>:<low>-<high>`` — meld a run, ranks in ace-low order:
  ``run:H:3-K``, ``run:S:A-3``, ``run:C:A-K`` (all thirteen).
- ``lay:<card>:<meld>`` — lay a card off onto the meld at index ``<meld>`` of
  ``melds`` (table order, 0 first): ``lay:8H:2``.
- a card code (``QS``) — discard it, ending the turn.

``legal_actions`` lists, in this order, every set (all 3- and 4-card choices
of suits; ranks ace first), every run (every stretch of 3+ cards the hand
holds, so all sub-runs of a long one; suits ``S H D C``, low card first), every
lay-off (melds in table order) and every allowed discard (the hand sorted by
suit, then rank high to low, as ``games.cards.sort_hand`` orders it).

Details the book leaves open, as docs/rules.md#rummy decides them (the most
faithful reading):

- **Turn-over**: when the turn passes and the stock is empty (the next player
  must draw and cannot), the whole discard pile is turned face down, unshuffled,
  as the new stock: the first card discarded (the bottom of the pile) becomes
  the top of the stock. The discard pile is then empty, so that player must
  ``draw``. The third time the stock runs out the deal is void instead: nobody
  scores and the deal passes left. Everybody saw the pile, so a turned-over
  stock is public: its order is in the view and cards drawn from it are known.
- **The taken card**: it may not be discarded this turn, so a meld or lay-off
  that would leave it as the only card in hand, with no meld to lay it off
  onto, is refused (``taken_card_stranded``): that player could not end his turn.
- **«Скатерть»** also counts when the single turn ends with a discard.

View keys (besides ``base_view``):

- ``phase``: ``"draw"`` (draw or take) or ``"meld"`` (meld, lay off, discard).
- ``hand``: the viewer's cards (None for the public view); ``hand_sizes``.
- ``stock``: cards in the stock; ``stock_cards``: its cards top first once it
  is a turned-over (public) pile, else None.
- ``discard``: the discard pile, bottom first; ``discard_top``: its top or None.
- ``melds``: ``[{"owner": seat, "cards": [...]}, …]`` in table order; a run's
  cards low to high, a set's in ``S H D C`` order.
- ``known_cards``: per seat, the cards everybody knows it holds (taken from the
  discard pile or drawn from a turned-over stock, and still held).
- ``taken``: the card the player to move took from the pile this turn, or None.
- ``opened``: per seat, whether it melded or laid off in an earlier turn of
  this deal; ``laid_this_turn``: whether the player to move has this turn.
- ``turnovers``: turn-overs of the discard pile so far this deal (0–2).
- ``deal_points``: points scored in this deal (zeros until somebody goes out).
- ``last_deal``: the previous deal's outcome, ``{"winner": seat or None,
  "rummy": bool, "points": [...], "penalties": [...]}`` (``winner`` None: a
  void deal), or None before the first deal ends.

Reason codes for refused actions: ``unknown_action``, ``must_draw`` (a meld,
lay-off or discard before drawing), ``already_drew``, ``discard_empty``,
``bad_meld`` (not a set or run), ``not_in_hand``, ``no_such_meld``,
``does_not_fit``, ``discard_just_taken``, ``taken_card_stranded``.

Events: ``draw`` (seat; ``card`` only from a turned-over stock), ``take``
(seat, card), ``meld`` (seat, cards, meld index), ``lay_off`` (seat, card,
meld index), ``discard`` (seat, card), ``turnover`` (turnovers), ``go_out``
(seat, rummy), ``deal_end`` (scores: the deal's points, match_scores, winner,
rummy, penalties: each hand's card value), ``deal_void``, ``match_end``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, Game, Option, View, copy_state, other_hands
from games.cards import deal_one_at_a_time, is_card, make_deck, sort_hand
from games.melds import (
    hand_points,
    lay_off,
    layoff_cards,
    meld_cards,
    meld_size,
    run_codes,
    set_codes,
)
from games.sampling import deal_unseen, sampled_game

#: Each card's place in a hand sorted by ``sort_hand`` (suit, then rank high to low):
#: sorting on it is the same order, and cheap enough for every ``legal_actions`` call.
HAND_ORDER = {card: index for index, card in enumerate(sort_hand(make_deck(52)))}
#: The deal is void the third time the stock runs out.
VOID_AT_TURNOVER = 3


def hand_size(players: int) -> int:
    """Cards dealt to each player: 10 with two, 7 with three or four, 6 with five or six."""
    return 10 if players == 2 else 7 if players <= 4 else 6


class Rummy(Game):
    """Rummy for 2–6 players: draw, meld and lay off, discard; go out first."""

    id = "rummy"
    min_players = 2
    max_players = 6
    options_schema = (Option("target", 100, (50, 100, 150, 200), low=10, high=1000),)

    hands: list[list[str]]
    stock: list[str]  # face down, top card LAST (cheap to draw)
    discard: list[str]  # face up, top card last
    melds: list[dict[str, Any]]
    phase: str
    taken: str | None
    known: list[list[str]]
    opened: list[bool]
    laid_this_turn: bool
    turnovers: int
    deal_points: list[int]
    last_deal: dict[str, Any] | None

    # ----------------------------------------------------------------- dealing

    def deck_cards(self) -> list[str]:
        """The full 52-card deck."""
        return make_deck(52)

    def _start_match(self) -> None:
        self.last_deal = None

    def _deal(self, deck: list[str]) -> None:
        """Hands one card at a time from the dealer's left, one card up, the rest the stock."""
        first = (self.dealer + 1) % self.players
        self.hands = deal_one_at_a_time(deck, self.players, hand_size(self.players), first)
        self.discard = [deck[0]]
        self.stock = deck[:0:-1]
        self.melds = []
        self.phase = "draw"
        self.taken = None
        self.known = [[] for _ in range(self.players)]
        self.opened = [False] * self.players
        self.laid_this_turn = False
        self.turnovers = 0
        self.deal_points = [0] * self.players
        self.turn = first

    # ----------------------------------------------------------------- legal moves

    def legal_actions(self, seat: int | None) -> list[str]:
        """Drawing choices, or every meld, lay-off and discard open to the seat."""
        if seat is None or self.result is not None or seat != self.turn:
            return []
        if self.phase == "draw":
            return ["draw", "take"] if self.discard else ["draw"]
        hand = self.hands[seat]
        held = set(hand)
        melds = set_codes(hand) + run_codes(hand)
        lays = [
            f"lay:{card}:{index}"
            for index, meld in enumerate(self.melds)
            for card in layoff_cards(meld["cards"])
            if card in held
        ]
        discards = sorted(hand, key=HAND_ORDER.__getitem__)
        if self.taken in held:
            melds = [code for code in melds if not self._strands(seat, code)]
            lays = [code for code in lays if not self._strands(seat, code)]
            discards.remove(self.taken)
        return melds + lays + discards

    def _strands(self, seat: int, action: str) -> bool:
        """True if the meld or lay-off would leave only the just-taken card, unplayable.

        The card taken from the pile may not be discarded, so a turn cannot end
        with it alone in hand unless it can still be laid off.
        """
        hand = self.hands[seat]
        if self.taken is None or self.taken not in hand:
            return False
        if action.startswith("lay:"):
            if len(hand) != 2:
                return False
            card, index = action[4:6], int(action[7:])
            removed = [card]
            melds = [m["cards"] for m in self.melds]
            melds[index] = lay_off(melds[index], card)
        else:
            if len(hand) - meld_size(action) != 1:
                return False
            removed = meld_cards(action) or []
            melds = [m["cards"] for m in self.melds] + [removed]
        if self.taken in removed:
            return False
        return not any(self.taken in layoff_cards(cards) for cards in melds)

    def _why_illegal(self, seat: int, action: str) -> str:
        if action in ("draw", "take"):
            return "already_drew" if self.phase == "meld" else "discard_empty"
        if action.startswith(("set:", "run:")):
            cards = meld_cards(action)
            if cards is None:
                return "bad_meld"
            problem = self._meld_problem(seat, cards)
        elif action.startswith("lay:"):
            problem = self._lay_off_problem(seat, action)
        elif is_card(action):
            problem = "not_in_hand" if action not in self.hands[seat] else "discard_just_taken"
        else:
            return "unknown_action"
        if problem in ("unknown_action", "not_in_hand") or self.phase == "meld":
            return problem
        return "must_draw"

    def _meld_problem(self, seat: int, cards: list[str]) -> str:
        if any(card not in self.hands[seat] for card in cards):
            return "not_in_hand"
        return "taken_card_stranded"

    def _lay_off_problem(self, seat: int, action: str) -> str:
        parts = action.split(":")
        if len(parts) != 3 or not is_card(parts[1]) or not parts[2].isdecimal():
            return "unknown_action"
        card, index = parts[1], int(parts[2])
        if card not in self.hands[seat]:
            return "not_in_hand"
        if index >= len(self.melds) or parts[2] != str(index):
            return "no_such_meld"
        if card not in layoff_cards(self.melds[index]["cards"]):
            return "does_not_fit"
        return "taken_card_stranded"

    # ----------------------------------------------------------------- playing

    def _apply(self, seat: int, action: str) -> list[Event]:
        if action == "draw":
            return self._draw(seat)
        if action == "take":
            return self._take(seat)
        if action.startswith("lay:"):
            return self._lay_off(seat, action[4:6], int(action[7:]))
        cards = meld_cards(action)
        if cards is not None:
            return self._meld(seat, cards)
        return self._discard(seat, action)

    def _draw(self, seat: int) -> list[Event]:
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.phase = "meld"
        if self.turnovers:
            self.known[seat].append(card)
            return [{"type": "draw", "seat": seat, "card": card}]
        return [{"type": "draw", "seat": seat}]

    def _take(self, seat: int) -> list[Event]:
        card = self.discard.pop()
        self.hands[seat].append(card)
        self.known[seat].append(card)
        self.taken = card
        self.phase = "meld"
        return [{"type": "take", "seat": seat, "card": card}]

    def _give_up(self, seat: int, card: str) -> None:
        """Take ``card`` out of the seat's hand (and out of its known cards)."""
        self.hands[seat].remove(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def _meld(self, seat: int, cards: list[str]) -> list[Event]:
        for card in cards:
            self._give_up(seat, card)
        self.melds.append({"owner": seat, "cards": cards})
        self.laid_this_turn = True
        event = {"type": "meld", "seat": seat, "cards": list(cards), "meld": len(self.melds) - 1}
        return [event, *self._go_out_if_empty(seat)]

    def _lay_off(self, seat: int, card: str, index: int) -> list[Event]:
        self._give_up(seat, card)
        meld = self.melds[index]
        meld["cards"] = lay_off(meld["cards"], card)
        self.laid_this_turn = True
        event = {"type": "lay_off", "seat": seat, "card": card, "meld": index}
        return [event, *self._go_out_if_empty(seat)]

    def _discard(self, seat: int, card: str) -> list[Event]:
        self._give_up(seat, card)
        self.discard.append(card)
        events: list[Event] = [{"type": "discard", "seat": seat, "card": card}]
        if not self.hands[seat]:
            return events + self._go_out(seat)
        self.opened[seat] = self.opened[seat] or self.laid_this_turn
        self.laid_this_turn = False
        self.taken = None
        self.phase = "draw"
        self.turn = (seat + 1) % self.players
        if not self.stock:
            events.extend(self._turn_over())
        return events

    def _turn_over(self) -> list[Event]:
        """The stock ran out: turn the discard pile over as the new stock, or void the deal."""
        self.turnovers += 1
        if self.turnovers >= VOID_AT_TURNOVER:
            self.last_deal = {
                "winner": None,
                "rummy": False,
                "points": [0] * self.players,
                "penalties": [hand_points(hand) for hand in self.hands],
            }
            events: list[Event] = [{"type": "deal_void", "turnovers": self.turnovers}]
            self._next_deal()
            return events
        self.stock = self.discard[::-1]
        self.discard = []
        return [{"type": "turnover", "turnovers": self.turnovers}]

    def _go_out_if_empty(self, seat: int) -> list[Event]:
        return self._go_out(seat) if not self.hands[seat] else []

    def _go_out(self, seat: int) -> list[Event]:
        """Score the deal for the seat that went out; end the match or deal again."""
        rummy = not self.opened[seat]
        penalties = [hand_points(hand) for hand in self.hands]
        points = sum(penalties) * (2 if rummy else 1)
        self.deal_points[seat] = points
        self.scores[seat] += points
        self.last_deal = {
            "winner": seat,
            "rummy": rummy,
            "points": list(self.deal_points),
            "penalties": penalties,
        }
        events: list[Event] = [
            {"type": "go_out", "seat": seat, "rummy": rummy},
            {
                "type": "deal_end",
                "scores": list(self.deal_points),
                "match_scores": list(self.scores),
                "winner": seat,
                "rummy": rummy,
                "penalties": penalties,
            },
        ]
        if self.scores[seat] >= self.options["target"]:
            events.append(self._finish([seat]))
        else:
            self._next_deal()
        return events

    # ----------------------------------------------------------------- seeing

    def view(self, seat: int | None) -> View:
        """The table as ``seat`` sees it (see the module docstring for the keys)."""
        view = self.base_view(seat)
        view.update(
            phase=self.phase,
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            stock=len(self.stock),
            stock_cards=self.stock[::-1] if self.turnovers else None,
            discard=list(self.discard),
            discard_top=self.discard[-1] if self.discard else None,
            melds=copy_state(self.melds),
            known_cards=copy_state(self.known),
            taken=self.taken,
            opened=list(self.opened),
            laid_this_turn=self.laid_this_turn,
            turnovers=self.turnovers,
            deal_points=list(self.deal_points),
            last_deal=copy_state(self.last_deal),
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """Other hands' cards not publicly known, and a stock never turned over."""
        hidden = set() if self.turnovers else set(self.stock)
        return hidden | other_hands(self.hands, seat, self.known)

    def card_zones(self) -> dict[str, list[str]]:
        """Hands, stock, discard pile and the melds on the table."""
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["stock"] = list(self.stock)
        zones["discard"] = list(self.discard)
        zones["melds"] = [card for meld in self.melds for card in meld["cards"]]
        return zones

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> Rummy:
        """A full game matching ``view``: the unknown cards of the other hands
        (and of a stock never turned over) dealt at random."""
        seat = view["seat"]
        game = sampled_game(cls, view, rng)
        game.melds = copy_state(view["melds"])
        game.discard = list(view["discard"])
        game.known = copy_state(view["known_cards"])
        game.phase = view["phase"]
        game.taken = view["taken"]
        game.opened = list(view["opened"])
        game.laid_this_turn = view["laid_this_turn"]
        game.turnovers = view["turnovers"]
        game.deal_points = list(view["deal_points"])
        game.last_deal = copy_state(view["last_deal"])
        seen = set(game.discard) | {card for meld in game.melds for card in meld["cards"]}
        seen.update(card for cards in game.known for card in cards)
        if seat is not None:
            seen.update(view["hand"])
        if view["stock_cards"] is not None:
            seen.update(view["stock_cards"])
        unseen = [card for card in make_deck(52) if card not in seen]
        blind = [s for s in range(game.players) if s != seat]
        sizes = [view["hand_sizes"][s] - len(game.known[s]) for s in blind]
        zones = [*sizes, len(unseen) - sum(sizes)]
        dealt = deal_unseen(unseen, zones, [set() for _ in zones], rng)
        game.hands = [[] for _ in range(game.players)]
        if seat is not None:
            game.hands[seat] = list(view["hand"])
        for other, cards in zip(blind, dealt, strict=False):
            game.hands[other] = game.known[other] + cards
        stock = dealt[-1] if view["stock_cards"] is None else view["stock_cards"]
        game.stock = stock[::-1]
        return game

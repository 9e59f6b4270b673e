"""Two-Ten-Jack («Двойка — десятка — валет»): 2–4 players, each for himself.

The rules: docs/rules.md#two-ten-jack.

Hearts are always trumps, and the A♠ («спекуляция», speculation) is the highest
trump: it wins every trick it is played to. It counts as a spade when spades
are led and as a trump when hearts are led or when trumping; its leader
declares which (``AS:spade`` or ``AS:trump``). Cards are worth points in the
tricks taken (2♥ 10♥ J♥ +10, A♥ K♥ Q♥ +5, A♦ K♦ Q♦ J♦ +1, 2♠ 10♠ J♠ −10,
A♠ K♠ Q♠ −5); the first to reach ``target`` wins the match.

View keys (besides ``base_view``):

- ``phase``: always ``"play"``.
- ``hand``: the viewer's cards, hearts (trumps) first, then ♠ ♦ ♣, each suit
  high to low (None for the public view); ``legal`` keeps that order, a
  leader's A♠ standing as ``AS:spade``, ``AS:trump``.
- ``hand_sizes``: cards held by each seat.
- ``trick``: the trick on the table, ``[[seat, card], …]`` (a led A♠ is ``AS``).
- ``led``: the suit the current trick follows (``H`` for an A♠ led as a trump,
  ``S`` for it led as a spade), None before the lead.
- ``last_trick``: the latest completed trick of this deal or None.
- ``history``: this deal's completed tricks, oldest first, each
  ``{"cards", "winner", "led"}`` — failures to follow show voids.
- ``tricks_won``: tricks taken this deal per seat.
- ``trumps``: always ``"H"``.
- ``stock``: cards left in the stock.
- ``stock_top``: the next card to be drawn when the stock lies face up, else None.
- ``known_cards``: per seat, cards drawn from the face-up stock and still held.
- ``deal_points``: card values taken so far this deal per seat.

Actions: a card code (``QS``); the A♠ is led as ``AS:spade`` or ``AS:trump``
and followed as plain ``AS``. Reason codes for refused actions:
``unknown_action``, ``not_in_hand``, ``must_declare`` (``AS`` led without a
declaration, or a declaration when following), ``must_follow_suit``,
``must_trump``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, Game, Option, View, copy_state, other_hands
from games.cards import deal_one_at_a_time, insert_sorted, is_card, make_deck, sort_hand
from games.sampling import deal_unseen, sampled_game
from games.tricks import trick_winner

SPECULATION = "AS"
LEAD_AS_SPADE = "AS:spade"
LEAD_AS_TRUMP = "AS:trump"
TRUMPS = "H"
HAND_SIZE = 6
#: Rejection rounds for the draw-time limits of a face-down stock before giving up.
SAMPLE_TRIES = 50
#: What each valued card is worth in the tricks taken; all others are worth 0.
CARD_VALUES = {
    "2H": 10, "TH": 10, "JH": 10,
    "AH": 5, "KH": 5, "QH": 5,
    "AD": 1, "KD": 1, "QD": 1, "JD": 1,
    "2S": -10, "TS": -10, "JS": -10,
    "AS": -5, "KS": -5, "QS": -5,
}  # fmt: skip


def deck_for(players: int) -> list[str]:
    """52 cards; with three players the 3♣ is taken out (51)."""
    deck = make_deck(52)
    if players == 3:
        deck.remove("3C")
    return deck


def is_trump(card: str) -> bool:
    """Hearts and the A♠ are trumps."""
    return card[1] == TRUMPS or card == SPECULATION


def follows(card: str, led: str) -> bool:
    """True if ``card`` answers the suit ``led`` (the A♠ answers spades and hearts)."""
    if card == SPECULATION:
        return led in "SH"
    return card[1] == led


def playable(hand: list[str], led: str) -> list[str]:
    """The cards a follower may play: the suit led, else a trump, else anything."""
    answering = [card for card in hand if follows(card, led)]
    if answering:
        return answering
    trumps = [card for card in hand if is_trump(card)]
    return trumps if trumps else list(hand)


def winner_of(plays: list[list[Any]], led: str) -> int:
    """The A♠ if present; else the highest heart; else the highest card of the suit led."""
    for seat, card in plays:
        if card == SPECULATION:
            return int(seat)
    return trick_winner(plays, TRUMPS, led)


class TwoTenJack(Game):
    """One match of Two-Ten-Jack."""

    id = "two_ten_jack"
    min_players = 2
    max_players = 4
    options_schema = (
        Option("target", 25, choices=(25, 50, 100), low=1, high=500),
        Option("stock_face_up", True),
    )

    hands: list[list[str]]
    known: list[list[str]]
    stock: list[str]
    trick: list[list[Any]]
    led: str | None
    history: list[dict[str, Any]]
    tricks_won: list[int]
    points: list[int]

    # ------------------------------------------------------------------ dealing

    def deck_cards(self) -> list[str]:
        """52 cards; with three players the 3♣ is taken out (51)."""
        return deck_for(self.players)

    def _deal(self, deck: list[str]) -> None:
        """One card at a time from the dealer's left, six each; the rest is the stock."""
        first = (self.dealer + 1) % self.players
        hands = deal_one_at_a_time(deck, self.players, HAND_SIZE, first)
        self.hands = [sort_hand(hand, TRUMPS) for hand in hands]
        self.known = [[] for _ in range(self.players)]
        self.stock = deck
        self.trick = []
        self.led = None
        self.history = []
        self.tricks_won = [0] * self.players
        self.points = [0] * self.players
        self.turn = first

    # ------------------------------------------------------------------ playing

    def legal_actions(self, seat: int) -> list[str]:
        """Lead anything (the A♠ with a declaration); follow as the rules say.

        The rules: docs/rules.md#two-ten-jack-play.
        """
        if seat != self.turn or self.result is not None:
            return []
        hand = self.hands[seat]
        if self.led is None:
            if SPECULATION not in hand:
                return list(hand)
            at = hand.index(SPECULATION)
            return [*hand[:at], LEAD_AS_SPADE, LEAD_AS_TRUMP, *hand[at + 1 :]]
        return playable(hand, self.led)

    def _why_illegal(self, seat: int, action: str) -> str:
        card = action[:2]
        if not is_card(card) or action not in (card, LEAD_AS_SPADE, LEAD_AS_TRUMP):
            return "unknown_action"
        hand = self.hands[seat]
        if card not in hand:
            return "not_in_hand"
        leading = self.led is None
        if (leading and action == SPECULATION) or (not leading and action != card):
            return "must_declare"
        assert self.led is not None
        if any(follows(held, self.led) for held in hand):
            return "must_follow_suit"
        return "must_trump"

    def _apply(self, seat: int, action: str) -> list[Event]:
        card = action[:2]
        if self.led is None:
            self.led = TRUMPS if action == LEAD_AS_TRUMP else card[1]
        self.hands[seat].remove(card)
        known = self.known[seat]
        if card in known:
            known.remove(card)
        self.trick.append([seat, card])
        event: Event = {"type": "play", "seat": seat, "card": card}
        if card == SPECULATION and len(self.trick) == 1:
            event["declared"] = "trump" if self.led == TRUMPS else "spade"
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return [event]
        return [event, *self._take_trick()]

    def _take_trick(self) -> list[Event]:
        """Give the full trick to its winner, draw from the stock, maybe end the deal."""
        cards, led = self.trick, self.led
        assert led is not None
        winner = winner_of(cards, led)
        self.history.append({"cards": cards, "winner": winner, "led": led})
        self.tricks_won[winner] += 1
        self.points[winner] += sum(CARD_VALUES.get(card, 0) for _, card in cards)
        self.trick = []
        self.led = None
        self.turn = winner
        events: list[Event] = [
            {"type": "trick", "winner": winner, "cards": [list(play) for play in cards]}
        ]
        events += self._draw_round(winner)
        if not self.hands[winner]:
            events += self._score_deal()
        return events

    def _draw_round(self, winner: int) -> list[Event]:
        """The winner draws first, then the others clockwise, while the stock lasts."""
        events: list[Event] = []
        face_up = self.options["stock_face_up"]
        for offset in range(self.players):
            if not self.stock:
                break
            seat = (winner + offset) % self.players
            card = self.stock.pop(0)
            insert_sorted(self.hands[seat], card, TRUMPS)
            event: Event = {"type": "draw", "seat": seat}
            if face_up:
                self.known[seat].append(card)
                event["card"] = card
            events.append(event)
        return events

    def _score_deal(self) -> list[Event]:
        """Add the deal's card values; end the match or deal again."""
        for seat, points in enumerate(self.points):
            self.scores[seat] += points
        events: list[Event] = [
            {
                "type": "deal_end",
                "deal_scores": list(self.points),
                "scores": list(self.scores),
                "tricks": list(self.tricks_won),
            }
        ]
        winners = self.match_winners()
        if len(winners) == 1:
            events.append(self._finish(winners))
        else:
            self._next_deal()
        return events

    def match_winners(self) -> list[int]:
        """Seats with the top total, if it reaches ``target``; one seat means the match is won.

        Several seats returned (an equal top total) or none mean another deal.
        """
        top = max(self.scores)
        if top < self.options["target"]:
            return []
        return [seat for seat, score in enumerate(self.scores) if score == top]

    # ------------------------------------------------------------------ seeing

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know; see the module docstring for the keys."""
        face_up = self.options["stock_face_up"]
        view = self.base_view(seat)
        view.update(
            phase="play",
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            trick=[list(play) for play in self.trick],
            led=self.led,
            last_trick=copy_state(self.history[-1]) if self.history else None,
            history=copy_state(self.history),
            tricks_won=list(self.tricks_won),
            trumps=TRUMPS,
            stock=len(self.stock),
            stock_top=self.stock[0] if face_up and self.stock else None,
            known_cards=[list(cards) for cards in self.known],
            deal_points=list(self.points),
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """Other seats' unknown cards and the stock below its visible top."""
        face_up = self.options["stock_face_up"]
        hidden = set(self.stock[1:] if face_up else self.stock)
        return hidden | other_hands(self.hands, seat, self.known)

    def card_zones(self) -> dict[str, list[str]]:
        """Hands, stock, the trick on the table and each seat's taken tricks."""
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        taken: list[list[str]] = [[] for _ in range(self.players)]
        for done in self.history:
            taken[done["winner"]].extend(card for _, card in done["cards"])
        zones.update({f"taken{seat}": cards for seat, cards in enumerate(taken)})
        zones["stock"] = list(self.stock)
        zones["trick"] = [card for _, card in self.trick]
        return zones

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> TwoTenJack:
        """A full game matching ``view``, the unseen cards dealt at random.

        Known cards stay where they are; each other seat's unseen cards avoid
        every suit it showed it lacks (see :func:`_voids`). With a face-down
        stock, a void shown before later draws is honoured by rejection; if
        that keeps failing the last sample keeps only the strict voids.
        """
        seat = view["seat"]
        players = view["players"]
        game = sampled_game(cls, view, rng)
        game.trick = [list(play) for play in view["trick"]]
        game.led = view["led"]
        game.history = copy_state(view["history"])
        game.tricks_won = list(view["tricks_won"])
        game.points = list(view["deal_points"])
        game.known = [list(cards) for cards in view["known_cards"]]
        stock_top = view["stock_top"]
        seen = set(view["hand"])
        seen.update(card for _, card in game.trick)
        for done in game.history:
            seen.update(card for _, card in done["cards"])
        for cards in game.known:
            seen.update(cards)
        if stock_top is not None:
            seen.add(stock_top)
        unseen = [card for card in game.deck_cards() if card not in seen]
        sizes = [
            0 if other == seat else view["hand_sizes"][other] - len(game.known[other])
            for other in range(players)
        ]
        sizes.append(len(unseen) - sum(sizes))
        lacking, since = _voids(view)
        barred = [{card for card in unseen if not _fits(card, lacking[s])} for s in range(players)]
        for _ in range(SAMPLE_TRIES):
            dealt = deal_unseen(unseen, sizes, [*barred, set()], rng)
            if all(_drawn_in_time(dealt[s], since[s]) for s in range(players)):
                break
        game.hands = [
            list(view["hand"])
            if other == seat
            else sort_hand(game.known[other] + dealt[other], TRUMPS)
            for other in range(players)
        ]
        game.stock = ([stock_top] if stock_top is not None else []) + dealt[players]
        return game


def _void_cards(card: str, led: str) -> set[str]:
    """What a follower showed he lacks by playing ``card`` to a trick led in ``led``.

    Returned as card-shape keys: a suit letter for "no card of that suit", and
    ``AS`` for "no A♠".
    """
    if follows(card, led):
        return set()
    lacking = {led}
    if led == TRUMPS or led == "S":
        lacking.add(SPECULATION)
    if not is_trump(card):
        lacking.update({TRUMPS, SPECULATION})
    return lacking


def _voids(view: View) -> tuple[list[set[str]], list[list[tuple[int, set[str]]]]]:
    """What each seat's unseen cards cannot be, and what they had to be drawn for.

    A void covers every card held when it was shown. Cards drawn from a face-up
    stock are known, so there every void is a hard ban on the unseen cards (the
    first list). From a face-down stock a void shown before some draws only
    limits how many such cards the seat can hold now: each must have come in one
    of the draws since (the second list: per seat, ``(draws since, lacking)``).
    """
    players = view["players"]
    face_up = view["options"]["stock_face_up"]
    deck_size = 51 if players == 3 else 52
    done = len(view["history"])
    draws_made = min(done, (deck_size - HAND_SIZE * players) // players)
    hard: list[set[str]] = [set() for _ in range(players)]
    soft: list[list[tuple[int, set[str]]]] = [[] for _ in range(players)]
    tricks = [(trick["cards"], trick["led"], i) for i, trick in enumerate(view["history"])]
    if view["trick"]:
        tricks.append((view["trick"], view["led"], done))
    for plays, led, index in tricks:
        draws_since = max(0, draws_made - index)
        for seat, card in plays[1:]:
            lacking = _void_cards(card, led)
            if not lacking:
                continue
            if face_up or draws_since == 0:
                hard[seat] |= lacking
            else:
                soft[seat].append((draws_since, lacking))
    return hard, soft


def _drawn_in_time(cards: list[str], since: list[tuple[int, set[str]]]) -> bool:
    """True if ``cards`` can all be held given the voids in ``since``.

    A card the seat lacked when ``d`` draws ago must be among its last ``d``
    draws; that is possible iff, for every ``d``, at most ``d`` cards need one
    of the last ``d`` draws (Hall's condition on the draw slots).
    """
    if not since:
        return True
    latest = [
        min((draws for draws, lacking in since if not _fits(card, lacking)), default=None)
        for card in cards
    ]
    needed = sorted(draws for draws in latest if draws is not None)
    return all(count <= draws for count, draws in enumerate(needed, start=1))


def _fits(card: str, banned: set[str]) -> bool:
    """True if a seat that lacks ``banned`` may hold ``card``."""
    if card == SPECULATION:
        return SPECULATION not in banned
    return card[1] not in banned

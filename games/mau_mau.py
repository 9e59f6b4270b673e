"""Mau-Mau («Мау-мау», docs/rules.md#mau-mau): shed your hand by matching suit or rank.

Actions
-------
- a card, ``"9H"``: put it on the pile; it must match the suit to follow
  (``suit``) or the rank of the top card;
- a jack with the suit its player names, one action (one button press):
  ``"JH:S"`` — the jack of hearts, next player must match spades. A jack that
  is the player's last card ends the deal and names nothing: plain ``"JH"``;
- ``draw``: take the top stock card, allowed only when no card fits (any time
  with ``draw_when_able``); the phase becomes ``drawn``, where the player may
  play the drawn card if it fits, or ``pass``;
- ``pass``: after a draw; or when no card fits and there is nothing to draw.

Details the book leaves open, as docs/rules.md#mau-mau decides them
-------------------------------------------------------------------
- Players: 2–5 with the 32-card deck; "more with a bigger deck" reads as up
  to :data:`MOST_PLAYERS` (7, the largest table of any Koloda game) with the
  36- or 52-card deck. Always the hands, the starter and at least one stock
  card must fit the deck (``players * hand_size + 2 <= deck``): 32 cards seat
  5 with 5-card hands but only 4 with 7; 36 cards seat 6 or 4; 52 cards
  seat 7 either way.
- After a draw only the drawn card may be played (or ``pass``), also with
  ``draw_when_able``.
- The turned-up starter is a plain card: a 7 or 8 does nothing, a jack names
  nothing (its own suit is followed), a queen does not restrict.
- The suit named with a jack binds every following player until a card is put
  on the jack (a player who draws and passes leaves it in force). On a jack
  only the named suit or another jack fits (no rank match).
- ``queen_restricted``: on a played queen only the king of its suit or a jack
  fits; the restriction lasts until a card is put on the queen.
- ``seven_draws``/``eight_skips``: the next player is hit and the turn goes
  on past him; with 2 players that is the same player again. A 7 or 8 that is
  the player's last card ends the deal and has no effect. The victim of a 7
  always has a card to draw: if the stock is empty, the pile under the 7 is
  reshuffled (it holds at least the card the 7 was put on).
- Restocking: when a card must be drawn and the stock is empty, the pile
  except its top card is shuffled (from the seed, deal number and a counter)
  into a new stock.

View keys (besides ``base_view``)
---------------------------------
``phase`` (``play``, ``drawn``, ``over``), ``hand`` (own cards sorted by
suit then rank, drawn cards slotted in; ``legal`` keeps that order),
``hand_sizes``, ``stock`` (count),
``discard_top``, ``discard`` (the pile, top last — every card on it was seen
played), ``suit`` (the suit to follow: the top card's, or the one named with
a jack), ``queen_lock`` (a played queen restricts, ``queen_restricted``),
``drawn_card`` (the card the viewer just drew, in phase ``drawn``; else None),
``lacks`` (per seat, what the table saw it could not play:
``{"suits": "H", "ranks": "7J", "kings": ""}`` — it holds no heart, no 7, no
jack, no king of the suits in ``kings``; cleared when it takes an unseen
card; in phase ``drawn`` the drawer's new card is exempt), and ``last_deal``
(``{"finisher", "penalties", "doubled", "hands"}`` of the last finished deal,
hands shown, or None).

Events: ``play`` (seat, card, ``suit`` when named), ``draw`` (seat,
``penalty`` for a 7), ``skip`` (seat), ``pass`` (seat), ``restock`` (cards),
``deal_end`` (``hands`` shown, ``scores`` = penalties, ``match_scores``,
``finisher``, ``doubled``), ``deal`` (deal_no, dealer, starter),
``match_end``.

``determinize`` deals the unseen cards (not in the viewer's hand, not on the
pile) at random to the other hands and the stock, honouring ``lacks`` exactly
(uniform over the deals that do, see :func:`games.tricks.deal_unseen`). It
does not use the fact that a restocked stock holds only cards once played:
the view may not name those cards, as they are hidden again.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import BadOptions, Event, Game, Option, View, copy_state, other_hands
from games.cards import SUITS, deal_one_at_a_time, insert_sorted, is_card, make_deck, sort_hand
from games.sampling import deal_unseen, sampled_game

#: Seats with the 32-card deck, and with a bigger one (docs/rules.md#mau-mau-players-and-deck).
SMALL_DECK_PLAYERS = 5
MOST_PLAYERS = 7
#: Penalty points for a card left in hand, by rank (others count their pips).
PENALTY = {"A": 11, "K": 4, "Q": 3, "J": 2, "T": 10}

Lacks = dict[str, str]


def penalty(card: str) -> int:
    """Penalty points for ``card`` left in hand at the end of a deal."""
    return PENALTY.get(card[0]) or int(card[0])


def no_lacks() -> Lacks:
    """Nothing known to be missing from a hand."""
    return {"suits": "", "ranks": "", "kings": ""}


def merge_lacks(first: Lacks, second: Lacks) -> Lacks:
    """Both things known missing at once (each field as a sorted string)."""
    return {key: "".join(sorted(set(first[key]) | set(second[key]))) for key in first}


def excluded(card: str, lacks: Lacks) -> bool:
    """True if ``lacks`` says the hand cannot hold ``card``."""
    return (
        card[1] in lacks["suits"]
        or card[0] in lacks["ranks"]
        or (card[0] == "K" and card[1] in lacks["kings"])
    )


class MauMau(Game):
    """Mau-Mau for 2–5 players: first to empty the hand; penalties for the rest."""

    id = "mau_mau"
    min_players = 2
    max_players = MOST_PLAYERS
    lowest_wins = True
    options_schema = (
        Option("deck", 32, (32, 36, 52)),
        Option("hand_size", 5, (5, 7)),
        Option("limit", 100, (50, 100, 150, 200), low=10, high=1000),
        Option("jack_finish_doubles", False),
        Option("seven_draws", False),
        Option("eight_skips", False),
        Option("queen_restricted", False),
        Option("draw_when_able", False),
    )

    hands: list[list[str]]
    stock: list[str]
    pile: list[str]
    suit: str
    queen_lock: bool
    phase: str
    drawn: str | None
    lacks: list[Lacks]
    restocks: int
    last_deal: dict[str, Any] | None

    # ----------------------------------------------------------------- table

    @classmethod
    def _check_options(cls, players: int, options: dict[str, Any]) -> None:
        """Five players at most with 32 cards; the hands, starter and a stock card must fit."""
        if options["deck"] == 32 and players > SMALL_DECK_PLAYERS:
            raise BadOptions(f"{players} players need the 36- or 52-card deck", "players", players)
        need = players * options["hand_size"] + 2
        if need > options["deck"]:
            raise BadOptions(
                f"{players} players with {options['hand_size']} cards each need a deck "
                f"of at least {need} cards",
                "players",
                players,
            )

    def deck_cards(self) -> list[str]:
        """The 32, 36 or 52 cards of the ``deck`` option."""
        return make_deck(self.options["deck"])

    def _start_match(self) -> None:
        self.last_deal = None

    def _deal(self, deck: list[str]) -> None:
        """One card at a time from the dealer's left; the next card starts the pile."""
        first = self._left(self.dealer)
        hands = deal_one_at_a_time(deck, self.players, self.options["hand_size"], first)
        self.hands = [sort_hand(hand) for hand in hands]
        self.pile = [deck.pop(0)]
        self.stock = deck
        self.suit = self.pile[0][1]
        self.queen_lock = False
        self.phase = "play"
        self.drawn = None
        self.lacks = [no_lacks() for _ in range(self.players)]
        self.restocks = 0
        self.turn = first

    def _left(self, seat: int) -> int:
        return (seat + 1) % self.players

    # ----------------------------------------------------------------- rules

    def fits(self, card: str) -> bool:
        """True if ``card`` may be put on the pile now."""
        if card[0] == "J":
            return True
        if self.queen_lock:
            return card == "K" + self.pile[-1][1]
        return card[1] == self.suit or card[0] == self.pile[-1][0]

    def _playable(self) -> Lacks:
        """What would fit now, in the shape of :data:`Lacks` (for inference)."""
        if self.queen_lock:
            return {"suits": "", "ranks": "J", "kings": self.suit}
        return {"suits": self.suit, "ranks": "".join(sorted({"J", self.pile[-1][0]})), "kings": ""}

    def _card_actions(self, seat: int, card: str) -> list[str]:
        """The actions playing ``card``: a jack names a suit unless it is the last card."""
        if card[0] != "J" or len(self.hands[seat]) == 1:
            return [card]
        return [f"{card}:{named}" for named in SUITS]

    def _can_draw(self) -> bool:
        return bool(self.stock) or len(self.pile) > 1

    def legal_actions(self, seat: int) -> list[str]:
        """Cards that fit (jacks with a named suit), ``draw`` or ``pass``."""
        if self.result is not None or seat != self.turn:
            return []
        if self.phase == "drawn":
            assert self.drawn is not None
            plays = self._card_actions(seat, self.drawn) if self.fits(self.drawn) else []
            return [*plays, "pass"]
        actions = [a for c in self.hands[seat] if self.fits(c) for a in self._card_actions(seat, c)]
        if self._can_draw() and (not actions or self.options["draw_when_able"]):
            actions.append("draw")
        if not actions:
            actions.append("pass")
        return actions

    def _why_illegal(self, seat: int, action: str) -> str:
        if action == "draw":
            if self.phase == "drawn":
                return "already_drew"
            return "must_play" if self._can_draw() else "nothing_to_draw"
        if action == "pass":
            return "must_play" if any(self.fits(c) for c in self.hands[seat]) else "must_draw"
        card, _, named = action.partition(":")
        if not is_card(card) or (named and (card[0] != "J" or named not in SUITS)):
            return "unknown_action"
        if card not in self.hands[seat]:
            return "not_in_hand"
        if self.phase == "drawn" and card != self.drawn:
            return "must_play_drawn_card"
        if card[0] == "J":
            return "no_suit_to_name" if named else "must_name_suit"
        if self.queen_lock:
            return "queen_restricted"
        return "must_match_suit_or_rank"

    def _apply(self, seat: int, action: str) -> list[Event]:
        if action == "draw":
            return self._take_draw(seat)
        if action == "pass":
            return self._pass(seat)
        card, _, named = action.partition(":")
        return self._play(seat, card, named or None)

    def _draw_card(self, seat: int, events: list[Event]) -> str:
        """Move the top stock card to ``seat``'s hand, restocking first if needed.

        Callers make sure there is a card (:meth:`_can_draw`).
        """
        if not self.stock and len(self.pile) > 1:
            self.stock = self.pile[:-1]
            self.pile = self.pile[-1:]
            rng = random.Random(f"koloda:{self.seed}:{self.deal_no}:restock:{self.restocks}")
            rng.shuffle(self.stock)
            self.restocks += 1
            events.append({"type": "restock", "cards": len(self.stock)})
        card = self.stock.pop(0)
        insert_sorted(self.hands[seat], card)
        return card

    def _take_draw(self, seat: int) -> list[Event]:
        if not self.options["draw_when_able"]:
            # Drawing was forced: the whole hand showed it had nothing that fits.
            self.lacks[seat] = merge_lacks(self.lacks[seat], self._playable())
        events: list[Event] = []
        self.drawn = self._draw_card(seat, events)
        self.phase = "drawn"
        events.append({"type": "draw", "seat": seat})
        return events

    def _pass(self, seat: int) -> list[Event]:
        if self.phase == "drawn":
            self.lacks[seat] = no_lacks()  # the unseen drawn card stays in the hand
        else:
            self.lacks[seat] = merge_lacks(self.lacks[seat], self._playable())
        self.phase = "play"
        self.drawn = None
        self.turn = self._left(seat)
        return [{"type": "pass", "seat": seat}]

    def _play(self, seat: int, card: str, named: str | None) -> list[Event]:
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.suit = named or card[1]
        self.queen_lock = self.options["queen_restricted"] and card[0] == "Q"
        self.phase = "play"
        self.drawn = None
        event: Event = {"type": "play", "seat": seat, "card": card}
        if named:
            event["suit"] = named
        if not self.hands[seat]:
            return [event, *self._end_deal(seat, card)]
        events = [event]
        following = self._left(seat)
        if card[0] == "7" and self.options["seven_draws"]:
            self._draw_card(following, events)
            self.lacks[following] = no_lacks()
            events.append({"type": "draw", "seat": following, "penalty": True})
            events.append({"type": "skip", "seat": following})
            following = self._left(following)
        elif card[0] == "8" and self.options["eight_skips"]:
            events.append({"type": "skip", "seat": following})
            following = self._left(following)
        self.turn = following
        return events

    def _end_deal(self, finisher: int, card: str) -> list[Event]:
        """Score the penalties; end the match at ``limit`` or deal again."""
        doubled = bool(self.options["jack_finish_doubles"]) and card[0] == "J"
        factor = 2 if doubled else 1
        penalties = [factor * sum(penalty(c) for c in hand) for hand in self.hands]
        self.scores = [total + points for total, points in zip(self.scores, penalties, strict=True)]
        self.last_deal = {
            "finisher": finisher,
            "penalties": penalties,
            "doubled": doubled,
            "hands": copy_state(self.hands),
        }
        events: list[Event] = [
            {
                "type": "deal_end",
                "hands": copy_state(self.hands),
                "scores": list(penalties),
                "match_scores": list(self.scores),
                "finisher": finisher,
                "doubled": doubled,
            }
        ]
        if max(self.scores) >= self.options["limit"]:
            events.append(self._finish_best(min))
            return events
        self._next_deal()
        events.append(
            {
                "type": "deal",
                "deal_no": self.deal_no,
                "dealer": self.dealer,
                "starter": self.pile[0],
            }
        )
        return events

    # ----------------------------------------------------------------- seeing

    def view(self, seat: int | None) -> View:
        """The table as ``seat`` sees it (keys in the module docstring)."""
        view = self.base_view(seat)
        view.update(
            phase="over" if self.result is not None else self.phase,
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            stock=len(self.stock),
            discard_top=self.pile[-1],
            discard=list(self.pile),
            suit=self.suit,
            queen_lock=self.queen_lock,
            drawn_card=self.drawn if seat is not None and seat == self.turn else None,
            lacks=copy_state(self.lacks),
            last_deal=copy_state(self.last_deal),
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """The other hands and the stock."""
        return set(self.stock) | other_hands(self.hands, seat)

    def card_zones(self) -> dict[str, list[str]]:
        """Each hand, the stock and the pile."""
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["stock"] = list(self.stock)
        zones["pile"] = list(self.pile)
        return zones

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> MauMau:
        """A full game matching ``view``: unseen cards dealt at random, honouring ``lacks``."""
        game = sampled_game(cls, view, rng)
        game.pile = list(view["discard"])
        game.suit = view["suit"]
        game.queen_lock = view["queen_lock"]
        game.phase = "play" if view["phase"] == "over" else view["phase"]
        game.lacks = copy_state(view["lacks"])
        game.last_deal = copy_state(view["last_deal"])
        game.restocks = 0
        seat = view["seat"]
        own = list(view["hand"]) if seat is not None else []
        seen = set(own) | set(game.pile)
        unseen = [card for card in game.deck_cards() if card not in seen]
        drawer = game.turn if game.phase == "drawn" and game.turn != seat else None
        hands, game.stock = _sample_hands(unseen, view["hand_sizes"], seat, game.lacks, drawer, rng)
        game.hands = [own if s == seat else hands[s] for s in range(game.players)]
        if game.phase != "drawn":
            game.drawn = None
        elif drawer is None:
            game.drawn = view["drawn_card"]
        else:
            game.drawn = hands[drawer].pop()
            insert_sorted(game.hands[drawer], game.drawn)
        return game


def _sample_hands(
    unseen: list[str],
    sizes: list[int],
    seat: int | None,
    lacks: list[Lacks],
    drawer: int | None,
    rng: random.Random,
) -> tuple[list[list[str]], list[str]]:
    """Deal ``unseen`` cards to every seat but ``seat``, the rest to the stock.

    Each hand gets only cards its ``lacks`` allow, except the card ``drawer``
    has just drawn (unseen, so anything): it is dealt as a zone of its own and
    returned as the last card of the drawer's hand. Hands come back sorted,
    apart from that last card.
    """
    players = len(sizes)
    held = [0 if s == seat else sizes[s] - (1 if s == drawer else 0) for s in range(players)]
    extra = 1 if drawer is not None else 0
    zones = [*held, extra, len(unseen) - sum(held) - extra]
    barred = [{c for c in unseen if excluded(c, lacks[s])} for s in range(players)]
    dealt = deal_unseen(unseen, zones, [*barred, set(), set()], rng)
    hands = [sort_hand(dealt[s]) for s in range(players)]
    if drawer is not None:
        hands[drawer] += dealt[players]
    return hands, dealt[players + 1]

"""King («Кинг», docs/rules.md#king): 4 players (or 3 without the 2♣), 52 cards.

A match is a fixed programme of deals, the dealer passing left every deal.
First the negative deals, where every trick or card of the contract costs
penalty points; no trumps, follow suit if able, no duty to beat:

1. ``no_tricks`` — each trick; 2. ``no_hearts`` — each heart;
3. ``no_queens`` — each queen; 4. ``no_kings_jacks`` — each king or jack;
5. ``no_king_of_hearts`` — the K♥; 6. ``no_last_tricks`` — the last trick
(or the last two, or the seventh and the last: option ``last_tricks``);
7. with option ``robber``, ``robber`` — every penalty of deals 1–6 at once.

Hearts may not be led while the leader holds another suit in deals 2, 5 and
7. With ``king_forced`` the holder of the K♥ who cannot follow suit must
play it in deal 5 (only there: docs/rules.md#king-negative-deals states the option for deal 5).
``swap_3_4`` plays deal 4 before deal 3.

Then the positive part, which hands out exactly as many points as the
negative deals took, so the match scores sum to zero (option ``positive``;
with ``robber`` both parts are played, the trump deals first):

- ``trump``, one deal per player: the dealer's left looks at his hand, names
  trumps and leads; +25 per trick.
- ``lottery`` (Fan Tan built on the eights): the first two players to shed
  their cards win the prizes; one lottery, or one per player with
  ``lottery_rounds`` = ``per_player``.

A negative deal ends as soon as all its penalties have been taken: the
remaining tricks could not change any score (the book is silent on this; the
totals stay exact either way). ``no_tricks``, ``no_last_tricks`` and
``robber`` therefore run to the last trick, as do the trump deals; the lottery
stops when two players are out.

View keys (besides ``base_view``):

- ``phase``: ``"play"``, ``"trump_choice"`` or ``"lottery"``.
- ``contract``: this deal's contract (``no_tricks`` … ``robber``, ``trump``,
  ``lottery``); ``contracts``: the whole match programme, one per deal.
- ``penalty``: for a negative deal, what each penalized item costs:
  ``trick`` (every trick), ``heart``, ``queen``, ``king_jack`` (each such card
  taken), ``king_of_hearts``, ``trick_<n>`` (the n-th trick of the deal,
  counted from 1); None in the positive deals.
- ``penalty_left``: penalty points still to be taken this deal (0 when positive).
- ``prize``: for a positive deal, ``{"trick": 25}`` or the lottery's
  ``{"first": …, "second": …}``; None in the negative deals.
- ``deal_points``: points scored so far this deal per seat, signed (penalties
  negative, prizes positive); they join ``scores`` when the deal ends.
- ``hand``, ``hand_sizes``, ``trick``, ``last_trick``, ``history`` (this deal's
  tricks), ``tricks_won``, ``trumps`` (the named suit in a trump deal, else None).
- The lottery's (empty in the other deals): ``rows`` — per suit ``S H D C``
  the ``[lowest, highest]`` card on the table, or None before its 8 is
  played; ``out`` — seats that shed all their cards, in order; ``moves`` —
  this lottery's moves in order, ``[seat, card or "pass"]`` (a pass shows the
  seat held none of the playable cards).

Actions: a card code; ``trump:S|H|D|C`` (naming trumps); ``pass`` (lottery,
only when no card can be played). Reason codes for refused actions:
``unknown_action``, ``not_in_hand``, ``must_follow_suit``,
``hearts_lead_banned``, ``must_play_king_of_hearts``, ``must_name_trumps``,
``not_playable`` (a lottery card that fits no row), ``must_play`` (a pass
while able to play).

Events: ``play`` (seat, card), ``trick`` (winner, cards, points), ``trump``
(seat, suit), ``pass`` (seat), ``out`` (seat, place, prize), ``deal_end``
(contract, ``deal_scores``, match ``scores``), ``match_end``.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import Event, Game, Option, View, copy_state, other_hands
from games.cards import RANKS, SUITS, deal_one_at_a_time, is_card, sort_hand
from games.king_contracts import (
    HEART_LEAD_BANNED,
    KING_OF_HEARTS,
    LOTTERY,
    TRUMP,
    TRUMP_TRICK,
    contracts_for,
    deck_for,
    king_forced,
    penalty_for,
    penalty_total,
    trick_penalty,
)
from games.sampling import deal_unseen, sampled_game
from games.tricks import follow_suit, trick_winner, voids_known

#: Lottery prizes (first out, second out) by player count and lottery_rounds.
LOTTERY_PRIZES = {
    (4, "single"): (800, 500),
    (4, "per_player"): (200, 125),
    (3, "single"): (790, 485),
    (3, "per_player"): (250, 175),
}
#: Ranks from the bottom of a lottery row to its top; every row starts at the 8.
LADDER = RANKS[::-1]
TRUMP_ACTIONS = [f"trump:{s}" for s in SUITS]


def playable_cards(rows: dict[str, list[str] | None]) -> list[str]:
    """The lottery cards that may be played now: the 8 of each suit not yet
    opened, and the next card up and down from each suit's row."""
    cards = []
    for suit_ in SUITS:
        row = rows[suit_]
        if row is None:
            cards.append("8" + suit_)
            continue
        low, high = LADDER.index(row[0][0]), LADDER.index(row[1][0])
        if low > 0:
            cards.append(LADDER[low - 1] + suit_)
        if high < len(LADDER) - 1:
            cards.append(LADDER[high + 1] + suit_)
    return cards


def extend_row(rows: dict[str, list[str] | None], card: str) -> None:
    """Lay a playable ``card`` on its suit's row (an 8 opens the row)."""
    row = rows[card[1]]
    if row is None:
        rows[card[1]] = [card, card]
    elif LADDER.index(card[0]) > LADDER.index(row[1][0]):
        row[1] = card
    else:
        row[0] = card


def row_cards(row: list[str] | None) -> list[str]:
    """Every card lying in a lottery row, low to high."""
    if row is None:
        return []
    low, high = LADDER.index(row[0][0]), LADDER.index(row[1][0])
    return [rank_ + row[0][1] for rank_ in LADDER[low : high + 1]]


class King(Game):
    """One match of King: the negative deals, then the positive part."""

    id = "king"
    min_players = 3
    max_players = 4
    options_schema = (
        Option("king_forced", False, (False, True)),
        Option("last_tricks", "last", ("last", "last_two", "seventh_and_last")),
        Option("swap_3_4", False, (False, True)),
        Option("robber", False, (False, True)),
        Option("positive", TRUMP, (TRUMP, LOTTERY)),
        Option("lottery_rounds", "single", ("single", "per_player")),
    )

    contract: str
    penalty: dict[str, int] | None
    hands: list[list[str]]
    phase: str
    trumps: str | None
    trick: list[list[Any]]
    history: list[dict[str, Any]]
    tricks_won: list[int]
    deal_points: list[int]
    penalty_left: int
    rows: dict[str, list[str] | None]
    out: list[int]
    moves: list[list[Any]]

    # ----------------------------------------------------------------- dealing

    def deck_cards(self) -> list[str]:
        """52 cards for 4 players; 51 (no 2♣) for 3."""
        return deck_for(self.players)

    @property
    def prize(self) -> dict[str, int] | None:
        """What the positive deal pays: per trick, or the lottery's two prizes."""
        if self.contract == TRUMP:
            return {"trick": TRUMP_TRICK}
        if self.contract == LOTTERY:
            first, second = LOTTERY_PRIZES[self.players, self.options["lottery_rounds"]]
            return {"first": first, "second": second}
        return None

    def _deal(self, deck: list[str]) -> None:
        """Deal the whole deck one at a time from the dealer's left."""
        first = self._left_of(self.dealer)
        hands = deal_one_at_a_time(deck, self.players, 52 // self.players, first)
        self.hands = [sort_hand(hand) for hand in hands]
        self.contract = contract = contracts_for(self.players, self.options)[self.deal_no]
        self.penalty = penalty = penalty_for(contract, self.players, self.options["last_tricks"])
        self.phase = {TRUMP: "trump_choice", LOTTERY: "lottery"}.get(contract, "play")
        self.trumps = None
        self.trick = []
        self.history = []
        self.tricks_won = [0] * self.players
        self.deal_points = [0] * self.players
        self.penalty_left = penalty_total(penalty, self.players) if penalty else 0
        self.rows = {s: None for s in SUITS}
        self.out = []
        self.moves = []
        self.turn = first

    def _left_of(self, seat: int) -> int:
        return (seat + 1) % self.players

    # ----------------------------------------------------------------- choosing

    def legal_actions(self, seat: int) -> list[str]:
        """Every action ``seat`` may take now; empty when it is not its turn."""
        if self.result is not None or seat != self.turn:
            return []
        if self.phase == "trump_choice":
            return list(TRUMP_ACTIONS)
        if self.phase == "lottery":
            playable = playable_cards(self.rows)
            return [card for card in self.hands[seat] if card in playable] or ["pass"]
        return self._trick_cards(seat)

    def _trick_cards(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        if not self.trick:
            if self.contract in HEART_LEAD_BANNED:
                return [card for card in hand if card[1] != "H"] or list(hand)
            return list(hand)
        led = self.trick[0][1][1]
        cards = follow_suit(hand, led)
        if self._king_forced() and led != "H" and KING_OF_HEARTS in cards:
            return [KING_OF_HEARTS]
        return cards

    def _king_forced(self) -> bool:
        return king_forced(self.contract, self.options)

    def _why_illegal(self, seat: int, action: str) -> str:
        if action == "pass" and self.phase == "lottery":
            return "must_play"
        if not is_card(action):
            return "unknown_action"
        if self.phase == "trump_choice":
            return "must_name_trumps"
        if action not in self.hands[seat]:
            return "not_in_hand"
        if self.phase == "lottery":
            return "not_playable"
        if not self.trick:
            return "hearts_lead_banned"
        led = self.trick[0][1][1]
        if action[1] != led and any(card[1] == led for card in self.hands[seat]):
            return "must_follow_suit"
        return "must_play_king_of_hearts"

    # ----------------------------------------------------------------- playing

    def _apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == "trump_choice":
            return self._name_trumps(seat, action[-1])
        if self.phase == "lottery":
            return self._lottery_move(seat, action)
        self.hands[seat].remove(action)
        self.trick.append([seat, action])
        events: list[Event] = [{"type": "play", "seat": seat, "card": action}]
        if len(self.trick) < self.players:
            self.turn = self._left_of(seat)
            return events
        return events + self._take_trick()

    def _name_trumps(self, seat: int, trumps: str) -> list[Event]:
        self.trumps = trumps
        self.hands = [sort_hand(hand, trumps) for hand in self.hands]
        self.phase = "play"
        return [{"type": "trump", "seat": seat, "suit": trumps}]

    def _take_trick(self) -> list[Event]:
        winner = trick_winner(self.trick, self.trumps)
        done: dict[str, Any] = {"cards": self.trick, "winner": winner}
        self.history.append(done)
        self.tricks_won[winner] += 1
        self.trick = []
        self.turn = winner
        penalty = self.penalty
        if penalty is None:
            points = TRUMP_TRICK
        else:
            cards = [card for _, card in done["cards"]]
            points = -trick_penalty(penalty, len(self.history), cards)
            self.penalty_left += points
        self.deal_points[winner] += points
        event = {
            "type": "trick",
            "winner": winner,
            "cards": copy_state(done["cards"]),
            "points": points,
        }
        if not self.hands[winner] or (penalty is not None and self.penalty_left == 0):
            return [event, *self._end_deal()]
        return [event]

    def _lottery_move(self, seat: int, action: str) -> list[Event]:
        self.moves.append([seat, action])
        if action == "pass":
            self._pass_turn(seat)
            return [{"type": "pass", "seat": seat}]
        self.hands[seat].remove(action)
        extend_row(self.rows, action)
        events: list[Event] = [{"type": "play", "seat": seat, "card": action}]
        if not self.hands[seat]:
            self.out.append(seat)
            prizes = LOTTERY_PRIZES[self.players, self.options["lottery_rounds"]]
            prize = prizes[len(self.out) - 1]
            self.deal_points[seat] += prize
            events.append({"type": "out", "seat": seat, "place": len(self.out), "prize": prize})
            if len(self.out) == len(prizes):
                return events + self._end_deal()
        self._pass_turn(seat)
        return events

    def _pass_turn(self, seat: int) -> None:
        """The turn goes left to the next player still holding cards."""
        nxt = self._left_of(seat)
        while nxt in self.out:
            nxt = self._left_of(nxt)
        self.turn = nxt

    def _end_deal(self) -> list[Event]:
        self.scores = [
            total + gain for total, gain in zip(self.scores, self.deal_points, strict=True)
        ]
        events: list[Event] = [
            {
                "type": "deal_end",
                "contract": self.contract,
                "deal_scores": list(self.deal_points),
                "scores": list(self.scores),
            }
        ]
        if self.deal_no == len(contracts_for(self.players, self.options)) - 1:
            events.append(self._finish_best())
        else:
            self._next_deal()
        return events

    # ----------------------------------------------------------------- seeing

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know; see the module docstring for the keys."""
        view = self.base_view(seat)
        # one copy of every nested part: a copy has a fixed cost, and views are drawn often
        penalty, trick, history, rows, moves = copy_state(
            (self.penalty, self.trick, self.history, self.rows, self.moves)
        )
        last_trick = copy_state(history[-1]) if history else None
        view.update(
            phase=self.phase,
            contract=self.contract,
            contracts=contracts_for(self.players, self.options),
            penalty=penalty,
            penalty_left=self.penalty_left,
            prize=self.prize,
            deal_points=list(self.deal_points),
            hand=list(self.hands[seat]) if seat is not None else None,
            hand_sizes=[len(hand) for hand in self.hands],
            trumps=self.trumps,
            trick=trick,
            last_trick=last_trick,
            history=history,
            tricks_won=list(self.tricks_won),
            rows=rows,
            out=list(self.out),
            moves=moves,
        )
        return view

    def hidden_cards(self, seat: int | None) -> set[str]:
        """Every hand but the viewer's."""
        return other_hands(self.hands, seat)

    def card_zones(self) -> dict[str, list[str]]:
        """Hands, the trick, the taken tricks and the lottery rows."""
        zones = {f"hand{seat}": list(hand) for seat, hand in enumerate(self.hands)}
        zones["trick"] = [card for _, card in self.trick]
        zones["taken"] = [card for done in self.history for _, card in done["cards"]]
        zones["table"] = [card for row in self.rows.values() for card in row_cards(row)]
        return zones

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> King:
        """A full game matching ``view``, the other hands dealt at random.

        Respected: everything :func:`known_absent` reads from the public play.
        """
        seat = view["seat"]
        game = sampled_game(cls, view, rng)
        for key in ("contract", "phase", "trumps", "penalty_left"):
            setattr(game, key, view[key])
        game.penalty = copy_state(view["penalty"])
        for key in ("trick", "history", "tricks_won", "deal_points", "rows", "out", "moves"):
            setattr(game, key, copy_state(view[key]))
        game.hands = [[] for _ in range(game.players)]
        if seat is not None:  # the public view has no hand: every hand is sampled
            game.hands[seat] = list(view["hand"])
        seen = {card for cards in game.card_zones().values() for card in cards}
        unseen = [card for card in game.deck_cards() if card not in seen]
        known = known_absent(view, unseen)
        others = [s for s in range(game.players) if s != seat]
        dealt = deal_unseen(
            unseen, [view["hand_sizes"][s] for s in others], [known[s] for s in others], rng
        )
        for other, cards in zip(others, dealt, strict=True):
            game.hands[other] = sort_hand(cards, game.trumps)
        return game


def known_absent(view: View, unseen: list[str]) -> list[set[str]]:
    """Per seat, the ``unseen`` cards the public play in ``view`` shows it cannot hold.

    Voids shown by failing to follow suit; a heart led where that is banned
    shows the leader held only hearts; with ``king_forced`` in deal 5 a player
    who discarded another card while void does not hold the K♥; a lottery
    pass shows the seat held none of the cards playable at that moment.
    """
    players = int(view["players"])
    absent: list[set[str]] = [set() for _ in range(players)]
    if view["phase"] == "lottery":
        rows: dict[str, list[str] | None] = {s: None for s in SUITS}
        for who, move in view["moves"]:
            if move == "pass":
                absent[who].update(playable_cards(rows))
            else:
                extend_row(rows, move)
        return absent
    tricks = [done["cards"] for done in view["history"]] + [view["trick"]]
    voids = voids_known(players, tricks)
    if king_forced(view["contract"], view["options"]):
        for who, lacking in enumerate(voids):
            if lacking - {"H"}:  # discarded while void: he had no K♥ to play
                absent[who].add(KING_OF_HEARTS)
    if view["contract"] in HEART_LEAD_BANNED:
        for plays in tricks:
            if plays and plays[0][1][1] == "H":  # a banned lead: only hearts left
                voids[plays[0][0]].update("SDC")
    for who, lacking in enumerate(voids):
        absent[who].update(card for card in unseen if card[1] in lacking)
    return absent

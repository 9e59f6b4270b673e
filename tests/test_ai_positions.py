"""Positions for the computer-player tests (helpers, no tests): real games advanced by easy play."""

from __future__ import annotations

import random
from collections.abc import Callable

from games import REGISTRY, Game
from games.ai import choose

#: The table each game is tested at (players).
TABLE = {
    "eleven": 2,
    "two_ten_jack": 3,
    "fifteen": 2,
    "rummy": 2,
    "mau_mau": 3,
    "oh_hell": 4,
    "king": 4,
}
GAMES = sorted(TABLE)


def advanced(game_id: str, seed: int, moves: int) -> Game:
    """A fresh match advanced by up to ``moves`` easy moves, stopped at a real choice.

    The returned game always has a seat to move with at least two legal actions,
    unless the match ended first.
    """
    game = REGISTRY[game_id].new(TABLE[game_id], seed=seed)
    rng = random.Random(seed)
    for number in range(moves + 500):
        seat = game.to_move
        if seat is None:
            break
        legal = game.legal_actions(seat)
        if number >= moves and len(legal) > 1:
            break
        if rng.random() < 0.2:
            game.apply(seat, rng.choice(legal))
        else:
            game.apply(seat, choose(game_id, game.view(seat), "easy", number))
    return game


# ------------------------------------------------------------------ hand-built positions
#
# Positions where a decent player's move is clear, asserted for normal and strong
# with fixed seeds and playout budgets (easy too where the issue named its blunders).

from dataclasses import dataclass, field  # noqa: E402

import pytest  # noqa: E402

from games.ai import Budget  # noqa: E402

BUDGETS = {"normal": Budget(playouts=300), "strong": Budget(playouts=600)}


def position(
    game_id: str,
    players: int,
    *,
    dealer: int,
    hands: dict[int, list[str]],
    plays: tuple[str, ...] = (),
    deal_no: int = 0,
    trump_card: str | None = None,
    pile_top: str | None = None,
    options: dict[str, object] | None = None,
    seed: int = 1,
) -> Game:
    """A real deal with the named cards swapped into the named hands (and the
    trump card turned up), then ``plays`` made in turn by whoever is to move."""
    game = REGISTRY[game_id].new(players, options, seed=seed, dealer=dealer)
    if deal_no:
        game.deal_no = deal_no
        game._deal(game.shuffled_deck())
    state = game.__dict__  # the engines' state is plain data in attributes
    zones: list[list[str]] = [
        *state["hands"],
        *(state[name] for name in ("stock", "pile") if name in state),
    ]

    def place(card: str, into: list[str] | None) -> None:
        """Swap ``card`` with an unpinned card of ``into`` (None: the trump card's place)."""
        mine = set(hands.get(state["hands"].index(into), ())) if into is not None else set()
        give = state["trump_card"] if into is None else next(c for c in into if c not in mine)
        for zone in zones:
            if card in zone:
                zone[zone.index(card)] = give
                break
        else:
            assert state.get("trump_card") == card, card
            state["trump_card"] = give
        if into is None:
            state["trump_card"] = card
        else:
            into[into.index(give)] = card

    if trump_card is not None and state["trump_card"] != trump_card:
        place(trump_card, None)
    for seat, cards in hands.items():
        for card in cards:
            if card not in state["hands"][seat]:
                place(card, state["hands"][seat])
    if pile_top is not None and state["pile"][-1] != pile_top:
        pile = state["pile"]
        for zone in zones:
            if pile_top in zone and zone is not pile:
                zone[zone.index(pile_top)] = pile[-1]
        pile[-1] = pile_top
    for action in plays:
        seat = game.to_move
        assert seat is not None
        game.apply(seat, action)
    return game


@dataclass(frozen=True)
class Spot:
    """A position and the moves a decent player would make there."""

    name: str
    game: Callable[[], Game]
    good: frozenset[str]
    levels: tuple[str, ...] = ("normal", "strong")
    seeds: tuple[int, ...] = field(default=(1, 2))


def oh_hell(
    hands: dict[int, list[str]], plays: tuple[str, ...] = (), deal_no: int = 0, trump: str = "5H"
) -> Callable[[], Game]:
    return lambda: position(
        "oh_hell", 4, dealer=3, hands=hands, plays=plays, deal_no=deal_no, trump_card=trump
    )


def king(
    deal_no: int, hands: dict[int, list[str]], plays: tuple[str, ...] = ()
) -> Callable[[], Game]:
    return lambda: position("king", 4, dealer=3, hands=hands, plays=plays, deal_no=deal_no)


def eleven(hands: dict[int, list[str]], plays: tuple[str, ...] = ()) -> Callable[[], Game]:
    return lambda: position("eleven", 2, dealer=1, hands=hands, plays=plays)


def mau_mau(top: str, mine: list[str], opponent_cards: int) -> Callable[[], Game]:
    """Two players, seat 0 to move on ``top`` holding ``mine`` (5 cards); the
    opponent down to ``opponent_cards`` cards (the rest went to the stock)."""

    def build() -> Game:
        game = position("mau_mau", 2, dealer=1, hands={0: mine}, pile_top=top)
        state = game.__dict__
        state["suit"] = top[1]
        extra = state["hands"][1][opponent_cards:]
        state["hands"][1] = state["hands"][1][:opponent_cards]
        state["stock"].extend(extra)
        return game

    return build


def fifteen(hand: list[str], dealer: int = 1) -> Callable[[], Game]:
    """Seat 0 to decide holding ``hand`` (drawn so far; the opponent's hidden)."""

    def build() -> Game:
        game = position("fifteen", 2, dealer=dealer, hands={0: hand[:1]})
        state = game.__dict__
        for card in hand[1:]:
            state["stock"].remove(card)
            state["hands"][0].append(card)
        return game

    return build


def ttj(hands: dict[int, list[str]], plays: tuple[str, ...] = ()) -> Callable[[], Game]:
    return lambda: position("two_ten_jack", 3, dealer=2, hands=hands, plays=plays)


ALL = ("easy", "normal", "strong")
SPOTS = [
    # Oh Hell: four players, seat 0 bids and leads first; hearts are trumps.
    Spot(
        "oh_hell: bid 1 with the queen of trumps on lead",
        oh_hell({0: ["QH"]}),
        frozenset({"bid:1"}),
        ALL,
    ),
    Spot(
        "oh_hell: bid 0 with a lone off-suit ace, not on lead",
        oh_hell({0: ["7S"], 1: ["8D"], 2: ["AC"]}, ("bid:0", "bid:0")),
        frozenset({"bid:0"}),
        ALL,
    ),
    Spot(
        "oh_hell: bid 1 with the ace of trumps, last to bid",
        oh_hell({3: ["AH"]}, ("bid:0", "bid:0", "bid:0")),
        frozenset({"bid:1"}),
        ALL,
    ),
    Spot(
        "oh_hell: bid 2 with the two top trumps",
        oh_hell({0: ["AH", "KH"]}, deal_no=1),
        frozenset({"bid:2"}),
        ALL,
    ),
    Spot(
        "oh_hell: bid 0 with two low off-suit cards",
        oh_hell({0: ["2C", "3D"]}, deal_no=1),
        frozenset({"bid:0"}),
        ALL,
    ),
    Spot(
        "oh_hell: the bid is made, duck under the led card",
        oh_hell(
            {0: ["9C", "4S"], 1: ["AC", "5C"]},
            ("bid:0", "bid:0", "bid:0", "bid:0", "9C"),
            deal_no=1,
        ),
        frozenset({"5C"}),
    ),
    Spot(
        "oh_hell: bid 0, stay under the king with the queen",
        oh_hell(
            {0: ["KD", "2S"], 1: ["AD", "QD"]},
            ("bid:0", "bid:0", "bid:1", "bid:0", "KD"),
            deal_no=1,
        ),
        frozenset({"QD"}),
    ),
    Spot(
        "oh_hell: bid 0 on lead, lead the low card not the ace",
        oh_hell({0: ["2C", "AS"]}, ("bid:0", "bid:1", "bid:0", "bid:0"), deal_no=1),
        frozenset({"2C"}),
    ),
    Spot(
        "oh_hell: one trick short and last to play, take it with the queen",
        oh_hell(
            {0: ["9C", "4S"], 1: ["JC", "6S"], 2: ["3C", "7S"], 3: ["QC", "2C"]},
            ("bid:0", "bid:0", "bid:0", "bid:1", "9C", "JC", "3C"),
            deal_no=1,
        ),
        frozenset({"QC"}),
    ),
    # King: the programme's deals in order; seat 0 leads each (the dealer is seat 3).
    Spot(
        "king: no tricks, duck the led spade",
        king(0, {0: ["9S"], 1: ["TS", "8S"]}, ("9S",)),
        frozenset({"8S"}),
    ),
    Spot(
        "king: no hearts, void in the suit led, shed a heart",
        king(
            1,
            {
                0: ["4C"],
                1: ["2H", "AH", "KH", "5S", "6S", "7S", "8S", "9S", "2D", "3D", "4D", "5D", "6D"],
            },
            ("4C",),
        ),
        frozenset({"2H", "AH", "KH"}),
    ),
    Spot(
        "king: no queens, void, shed the queen",
        king(
            2,
            {
                0: ["4C"],
                1: ["QS", "QH", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "2H", "3H", "4H", "5H"],
            },
            ("4C",),
        ),
        frozenset({"QS", "QH"}),
    ),
    Spot(
        "king: no king of hearts, void, shed it",
        king(
            4,
            {
                0: ["4C"],
                1: ["KH", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "2D", "3D", "4D", "5D"],
            },
            ("4C",),
        ),
        frozenset({"KH"}),
    ),
    Spot(
        "king: name the long strong suit as trumps",
        king(
            6, {0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "2H", "3H", "4D", "5D", "6C", "7C"]}
        ),
        frozenset({"trump:S"}),
        ALL,
    ),
    Spot(
        "king: trumps, last to play, take with the cheapest winner",
        king(
            6,
            {
                0: ["TD", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S"],
                1: ["JD"],
                2: ["4D"],
                3: ["QD", "AD"],
            },
            ("trump:S", "TD", "JD", "4D"),
        ),
        frozenset({"QD"}),
    ),
    # Eleven: seat 0 leads (the dealer is seat 1); the stock is still full.
    Spot(
        "eleven: keep figures off a trick you cannot win",
        eleven({0: ["AS"], 1: ["KD", "QH", "7C", "8D", "JC", "TH"]}, ("AS",)),
        frozenset({"7C", "8D"}),
    ),
    Spot(
        "eleven: take the led jack with the cheapest winner",
        eleven({0: ["JS"], 1: ["QS", "AS", "7D", "8C", "9H", "7H"]}, ("JS",)),
        frozenset({"QS"}),
    ),
    Spot(
        "eleven: take a led ten with a jack",
        eleven({0: ["TH"], 1: ["JH", "7C", "8C", "9C", "7D", "8D"]}, ("TH",)),
        frozenset({"JH"}),
    ),
    # Two-Ten-Jack: three players, seat 0 leads; hearts are trumps.
    Spot(
        "two_ten_jack: last to a minus trick, duck under it",
        ttj({0: ["QS"], 1: ["5S"], 2: ["KS", "4S", "7C", "8C", "9C", "6D"]}, ("QS", "5S")),
        frozenset({"4S"}),
    ),
    Spot(
        "two_ten_jack: take the led ten of trumps with the queen",
        ttj({0: ["TH"], 1: ["3H"], 2: ["QH", "4H", "7C", "8C", "9C", "6D"]}, ("TH", "3H")),
        frozenset({"QH"}),
    ),
]


SPOTS += [
    Spot(
        "king: no kings or jacks, void, shed a king",
        king(
            3,
            {
                0: ["4C"],
                1: ["KH", "KS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "2D", "3D", "4D", "5D"],
            },
            ("4C",),
        ),
        frozenset({"KH", "KS"}),
    ),
    Spot(
        "eleven: take the led queen with the king, keep the ace",
        eleven({0: ["QD"], 1: ["KD", "AD", "7C", "8C", "9H", "7H"]}, ("QD",)),
        frozenset({"KD"}),
    ),
    Spot(
        "two_ten_jack: take the led two of trumps (+10)",
        ttj({0: ["2H"], 1: ["4H"], 2: ["5H", "3H", "9C", "7D", "8D", "6S"]}, ("2H", "4H")),
        frozenset({"5H"}),
    ),
    Spot(
        "eleven: under a led ace keep the king at home, throw a blank",
        eleven({0: ["AH"], 1: ["KH", "7H", "8C", "9D", "QS", "JD"]}, ("AH",)),
        frozenset({"7H", "8C", "9D"}),
    ),
    Spot(
        "two_ten_jack: take the led jack of trumps (+10) with the queen",
        ttj({0: ["JH"], 1: ["4H"], 2: ["QH", "3H", "9C", "7D", "8D", "6S"]}, ("JH", "4H")),
        frozenset({"QH"}),
    ),
    Spot(
        "mau_mau: the opponent has one card left, shed the ace",
        mau_mau("9H", ["AH", "7H", "8C", "KC", "QS"], 1),
        frozenset({"AH"}),
    ),
    Spot(
        "mau_mau: a plain card fits, keep the jack",
        mau_mau("9H", ["JD", "7H", "8C", "7C", "8S"], 3),
        frozenset({"7H"}),
    ),
    Spot(
        "mau_mau: only the jack fits, name the suit you hold",
        mau_mau("9H", ["JD", "7S", "8S", "QS", "KS"], 3),
        frozenset({"JD:S"}),
    ),
    Spot("fifteen: stand on fifteen", fifteen(["5S", "KH"]), frozenset({"stand"}), ALL),
    Spot(
        "fifteen: draw on five, no card can bust", fifteen(["2S", "3H"]), frozenset({"draw"}), ALL
    ),
]


@pytest.mark.parametrize("spot", SPOTS, ids=[s.name for s in SPOTS])
def test_a_decent_player_makes_the_clear_move(spot: Spot) -> None:
    game = spot.game()
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert spot.good <= set(view["legal"]) and set(view["legal"]) - spot.good
    for level in spot.levels:
        for seed in spot.seeds:
            chosen = choose(game.id, view, level, seed, BUDGETS.get(level))
            assert chosen in spot.good, f"{level} (seed {seed}) chose {chosen}"

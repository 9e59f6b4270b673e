"""The compact Oh Hell search state plays by the engine's rules, and samples fairly."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.ai import compact, compact_eleven, compact_king
from games.ai import compact_oh_hell as compact_oh
from games.ai import compact_two_ten_jack as compact_ttj
from games.ai import eleven as ai_eleven
from games.ai import king as ai_king
from games.ai import two_ten_jack as ai_two_ten_jack
from games.ai.compact import INDEX, NAMES, cards_of, mask_of
from games.ai.ismcts import Rollout, score_rewards
from games.base import Event, Game, View
from games.cards import make_deck
from games.eleven import Eleven
from games.king import King, known_absent
from games.king_contracts import contracts_for, deck_for
from games.oh_hell import OhHell
from games.two_ten_jack import TwoTenJack, _drawn_in_time, _fits, _voids
from tests.support.moves import random_move, seat_to_move


def play_phase(seed: int, deal_size: int) -> OhHell:
    """A 4-player match at the play of deal ``deal_size``, bids made at random."""
    game = OhHell.new(4, seed=seed, dealer=3)
    game.deal_no = deal_size - 1
    game._deal(game.shuffled_deck())
    rng = random.Random(seed)
    while game.phase == "bid":
        random_move(game, rng)
    return game


@pytest.mark.parametrize("seed", range(30))
def test_the_compact_state_follows_the_engine_move_for_move(seed: int) -> None:
    rng = random.Random(seed)
    game = play_phase(seed, 1 + seed % 12)
    for _ in range(rng.randrange(0, 8)):  # start anywhere in the deal
        random_move(game, rng)
        if game.phase != "play":
            return
    view = game.view(game.turn)
    state = compact_oh.from_view(view, game.hands)
    deal_no = game.deal_no
    while True:
        seat = seat_to_move(game)
        assert state.to_move == seat
        legal = game.legal_actions(seat)
        assert sorted(NAMES[c] for c in state.legal_actions(seat)) == sorted(legal)
        card = rng.choice(legal)
        events = game.apply(seat, card)
        compact_events = state._apply(seat, INDEX[card])
        if game.deal_no != deal_no or game.finished:
            end = next(e for e in events if e["type"] == "deal_end")
            assert state.to_move is None
            assert compact_events[0]["deal_scores"] == end["deal_scores"]
            return
        assert state.won == game.tricks_won
        clone = state.clone()
        assert clone.hands == state.hands and clone.hands is not state.hands
        state = clone


@pytest.mark.parametrize("seed", range(10))
def test_sampled_worlds_keep_the_seats_hand_and_the_voids_it_saw(seed: int) -> None:
    rng = random.Random(seed)
    game = play_phase(seed, 6)
    for _ in range(9):
        random_move(game, rng)
    seat = seat_to_move(game)
    view = game.view(seat)
    sampler = compact_oh.Sampler(view)
    tricks = [d["cards"] for d in view["history"]] + [view["trick"]]
    gone = {card for plays in tricks for _, card in plays} | {view["trump_card"]}
    from games.tricks import voids_known

    voids = voids_known(4, tricks)
    for _ in range(50):
        world = sampler.sample(rng)
        assert world.hands[seat] == mask_of(view["hand"])
        dealt = [set(NAMES[c] for c in cards_of(h)) for h in world.hands]
        assert [len(h) for h in dealt] == view["hand_sizes"]
        assert not set().union(*dealt) & gone
        for other, hand in enumerate(dealt):
            assert not {c for c in hand if c[1] in voids[other]}
        assert world.won == view["tricks_won"] and world.to_move == seat


def test_sampled_worlds_deal_every_unseen_card_alike() -> None:
    # Oh Hell draws only the hands' cards of the unseen ones (not the undealt
    # deck's order): every unseen card must still reach every hand alike.
    game = play_phase(3, 5)
    seat = game.turn
    view = game.view(seat)
    sampler = compact_oh.Sampler(view)
    unseen = [INDEX[c] for c in make_deck(52) if c not in view["hand"] and c != view["trump_card"]]
    rng = random.Random(5)
    held = {card: [0] * 4 for card in unseen}
    worlds = 3000
    for _ in range(worlds):
        world = sampler.sample(rng)
        for other in range(4):
            if other != seat:
                for card in cards_of(world.hands[other]):
                    held[card][other] += 1
    share = 5 / len(unseen)  # 5 cards a hand from 46 unseen: about 0.109
    for card in unseen:
        for other in range(4):
            if other != seat:
                assert abs(held[card][other] / worlds - share) < 0.035, (NAMES[card], other)


@pytest.mark.parametrize("seed", range(12))
def test_the_compact_state_bids_like_the_engine(seed: int) -> None:
    rng = random.Random(seed)
    game = OhHell.new(4, seed=seed, dealer=seed % 4, options={"hook": seed % 2 == 0})
    game.deal_no = seed % 6
    game._deal(game.shuffled_deck())
    state = compact_oh.from_view(game.view(game.turn), game.hands)
    while game.phase == "bid":
        seat = seat_to_move(game)
        legal = game.legal_actions(seat)
        assert [f"bid:{a - compact_oh.BID}" for a in state.legal_actions(seat)] == legal
        bid = rng.choice(legal)
        game.apply(seat, bid)
        state._apply(seat, compact_oh.BID + int(bid[4:]))
    assert state.bidding == 0 and state.to_move == game.turn
    assert state.bids == game.bids


# ------------------------------------------------------------------ shared side-by-side play

#: A compact action's name on the engine, given the state it is played in.
Decode = Callable[[Any, int], str]


def play_side_by_side(
    game: Game,
    state: Any,
    decode: Decode,
    rng: random.Random,
    check: Callable[[Game, Any], None],
    rollouts: tuple[Rollout, Rollout] | None = None,
) -> tuple[list[Event], list[Event], Any]:
    """Play the deal out on the engine and the compact state, the same cards.

    At every step both offer the same legal actions; after every move
    ``check`` compares them. With ``rollouts`` (engine, compact) the moves are
    the rollout policies' and must agree; else random. The compact side plays
    on in a clone after every move. Returns both sides' events of the deal's
    last move and the compact state at the end.
    """
    deal_no = game.deal_no
    while True:
        seat = seat_to_move(game)
        assert state.to_move == seat
        legal = game.legal_actions(seat)
        actions = state.legal_actions(seat)
        assert sorted(decode(state, a) for a in actions) == sorted(legal)
        if rollouts is None or len(legal) == 1:
            action = rng.choice(actions)
        else:
            action = rollouts[1](state, seat, actions, rng)
            assert decode(state, action) == rollouts[0](game, seat, legal, rng)
        events = game.apply(seat, decode(state, action))
        compact_events = state._apply(seat, action)
        if game.deal_no != deal_no or game.finished:
            assert state.to_move is None
            return events, compact_events, state
        check(game, state)
        clone = state.clone()
        assert clone.hands == state.hands and clone.hands is not state.hands
        state = clone  # play on in the copy: it must carry the whole state


def card_name(state: Any, action: int) -> str:
    """A card index's name (every action is a card)."""
    return NAMES[action]


def deal_end(events: list[Event]) -> Event:
    """The deal_end event among ``events``."""
    return next(e for e in events if e["type"] == "deal_end")


def random_moves(game: Game, rng: random.Random, count: int) -> None:
    """Up to ``count`` random moves, never past the deal."""
    deal_no = game.deal_no
    for _ in range(count):
        random_move(game, rng)
        if game.deal_no != deal_no or game.finished:
            raise AssertionError("the deal ended early")


def hand_names(mask: int) -> set[str]:
    """The card names in a bit set."""
    return {NAMES[c] for c in cards_of(mask)}


def checked_samples(
    sampler: compact.Sampler[Any], view: View, deck: list[str], seed: int
) -> Iterator[tuple[Any, list[set[str]]]]:
    """Forty worlds from ``sampler``, with their hands by name, each checked
    against ``view``: the seat's hand, every hand's size, the stock's size and
    every card of ``deck`` exactly once (in a hand, the stock or played)."""
    seat = view["seat"]
    played = compact.seen_cards(view) - set(view["hand"])
    rng = random.Random(seed)
    for _ in range(40):
        world = sampler.sample(rng)
        dealt = [hand_names(h) for h in world.hands]
        assert dealt[seat] == set(view["hand"])
        assert [len(h) for h in dealt] == view["hand_sizes"]
        stock = [NAMES[c] for c in getattr(world, "stock", [])]
        assert len(stock) == view.get("stock", 0)
        assert sorted([*set().union(*dealt), *stock, *played]) == sorted(deck)
        assert world.scores == view["deal_points"] and world.to_move == seat
        yield world, dealt


def check_hands_and_stock(game: Game, state: Any) -> None:
    """The compact state holds the engine's hands and what is left of its stock."""
    engine = vars(game)
    assert [hand_names(h) for h in state.hands] == [set(h) for h in engine["hands"]]
    assert state.stock[state.drawn :] == [INDEX[c] for c in engine["stock"]]


# ------------------------------------------------------------------ King

KING_OPTIONS: list[dict[str, object]] = [
    {},
    {"king_forced": True},
    {"last_tricks": "last_two", "robber": True},
    {"last_tricks": "seventh_and_last", "swap_3_4": True, "king_forced": True},
]


def king_trick_deal(seed: int) -> King:
    """A King match at one of its trick deals (trumps named at random), a few
    random moves in."""
    rng = random.Random(seed)
    players = 3 + seed % 2
    options = KING_OPTIONS[seed % len(KING_OPTIONS)]
    game = King.new(players, options, seed=seed, dealer=seed % players)
    programme = [i for i, c in enumerate(contracts_for(players, game.options)) if c != "lottery"]
    game.deal_no = programme[seed % len(programme)]
    game._deal(game.shuffled_deck())
    if game.phase == "trump_choice":
        random_move(game, rng)
    random_moves(game, rng, rng.randrange(0, 12))
    return game


def check_king(game: Game, state: Any) -> None:
    assert isinstance(game, King)
    assert state.scores == game.deal_points
    assert state.penalty_left == game.penalty_left
    assert state.tricks_done == len(game.history)


@pytest.mark.parametrize("seed", range(60))
def test_compact_king_follows_the_engine_move_for_move(seed: int) -> None:
    game = king_trick_deal(seed)
    start = game.clone()
    state = compact_king.from_view(game.view(game.turn), game.hands)
    events, compact_events, state = play_side_by_side(
        game, state, card_name, random.Random(seed), check_king
    )
    assert compact_events[0]["deal_scores"] == deal_end(events)["deal_scores"]
    assert compact.rewards(None, state, compact_events) == score_rewards(start, game, events)


@pytest.mark.parametrize("seed", range(40))
def test_compact_king_rollout_plays_the_easy_policy(seed: int) -> None:
    game = king_trick_deal(seed)
    state = compact_king.from_view(game.view(game.turn), game.hands)
    rollouts = (ai_king.PLAYBOOK.strong_rollout, compact_king.easy_rollout)
    events, compact_events, state = play_side_by_side(
        game, state, card_name, random.Random(seed), check_king, rollouts
    )
    assert compact_events[0]["deal_scores"] == deal_end(events)["deal_scores"]


@pytest.mark.parametrize("seed", range(24))
def test_compact_king_samples_keep_the_view_and_what_the_play_showed(seed: int) -> None:
    game = king_trick_deal(seed)
    random_moves(game, random.Random(seed), 5)
    seat = game.turn
    view = game.view(seat)
    deck = deck_for(game.players)
    absent = known_absent(view, [c for c in deck if c not in compact.seen_cards(view)])
    for _, dealt in checked_samples(compact_king.Sampler(view), view, deck, seed):
        for other, hand in enumerate(dealt):
            assert not hand & absent[other]


def test_compact_king_respects_a_forced_king_and_a_banned_heart_lead() -> None:
    game = King.new(4, {"king_forced": True}, seed=3, dealer=3)
    game.deal_no = 4  # no_king_of_hearts: hearts lead banned, K♥ forced
    game._deal(game.shuffled_deck())
    state = compact_king.from_view(game.view(0), game.hands)
    hearts_only = compact.mask_of([c for c in game.hands[0] if c[1] == "H"])
    state.hands[0] = hearts_only | compact.mask_of(["2S"])
    assert "2S" in {NAMES[c] for c in state.legal_actions(0)}
    assert all(NAMES[c][1] != "H" for c in state.legal_actions(0))
    state._apply(0, INDEX["2S"])
    state.hands[1] = compact.mask_of(["KH", "3D"])
    assert state.legal_actions(1) == [INDEX["KH"]]


# ------------------------------------------------------------------ Eleven


def eleven_deal(seed: int) -> Eleven:
    """An Eleven match some random moves into its first deal (in either phase)."""
    rng = random.Random(seed)
    game = Eleven.new(2, {"dealer_leads": seed % 3 == 0}, seed=seed, dealer=seed % 2)
    random_moves(game, rng, rng.randrange(0, 30))
    return game


def check_eleven(game: Game, state: Any) -> None:
    assert isinstance(game, Eleven)
    assert state.scores == game.figures
    check_hands_and_stock(game, state)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("by_rollout", [False, True])
def test_compact_eleven_follows_the_engine_move_for_move(seed: int, by_rollout: bool) -> None:
    game = eleven_deal(seed)
    game.draws_in_row = seed % 3  # a multiplier of 1, 2 or 4
    start = game.clone()
    state = compact_eleven.from_view(game.view(game.turn), game.hands, game.stock)
    rollouts = (ai_eleven.PLAYBOOK.strong_rollout, compact_eleven.easy_rollout)
    events, compact_events, state = play_side_by_side(
        game, state, card_name, random.Random(seed), check_eleven, rollouts if by_rollout else None
    )
    end = deal_end(events)
    assert compact_events[0]["deal_scores"] == end["deal_scores"]
    assert compact_events[0]["figures"] == end["figures"]
    expected = ai_eleven.rewards(start, game, events)
    assert ai_eleven.compact_rewards(None, state, compact_events) == expected


@pytest.mark.parametrize("seed", range(30))
def test_compact_eleven_samples_keep_the_view(seed: int) -> None:
    game = eleven_deal(seed)
    seat = game.turn
    view = game.view(seat)
    worlds = checked_samples(compact_eleven.Sampler(view), view, make_deck(32), seed)
    assert len(list(worlds)) == 40


# ------------------------------------------------------------------ Two-Ten-Jack


def two_ten_jack_deal(seed: int) -> TwoTenJack:
    """A 2-4 player match, stock face up or down, some random moves into its first deal."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    options = {"stock_face_up": seed % 4 != 3}
    game = TwoTenJack.new(players, options, seed=seed, dealer=seed % players)
    random_moves(game, rng, rng.randrange(0, 45))
    return game


def ttj_name(state: Any, action: int) -> str:
    """A compact Two-Ten-Jack action's name, as the seat to move would say it."""
    return compact_ttj.decoder(state.in_trick == 0)(action)


def check_two_ten_jack(game: Game, state: Any) -> None:
    assert isinstance(game, TwoTenJack)
    assert state.scores == game.points
    check_hands_and_stock(game, state)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("by_rollout", [False, True])
def test_compact_two_ten_jack_follows_the_engine_move_for_move(seed: int, by_rollout: bool) -> None:
    game = two_ten_jack_deal(seed)
    start = game.clone()
    state = compact_ttj.from_view(game.view(game.turn), game.hands, game.stock)
    rollouts = (ai_two_ten_jack.PLAYBOOK.strong_rollout, compact_ttj.easy_rollout)
    events, compact_events, state = play_side_by_side(
        game,
        state,
        ttj_name,
        random.Random(seed),
        check_two_ten_jack,
        rollouts if by_rollout else None,
    )
    assert compact_events[0]["deal_scores"] == deal_end(events)["deal_scores"]
    assert compact.rewards(None, state, compact_events) == score_rewards(start, game, events)


def test_compact_two_ten_jack_names_the_declared_speculation() -> None:
    assert compact_ttj.encode("AS:trump") == compact_ttj.AS_TRUMP
    assert compact_ttj.encode("AS:spade") == compact_ttj.encode("AS") == INDEX["AS"]
    assert compact_ttj.decoder(True)(INDEX["AS"]) == "AS:spade"
    assert compact_ttj.decoder(False)(INDEX["AS"]) == "AS"
    assert compact_ttj.decoder(False)(INDEX["TH"]) == "TH"


@pytest.mark.parametrize("seed", range(40))
def test_compact_two_ten_jack_samples_keep_the_view_and_the_voids(seed: int) -> None:
    game = two_ten_jack_deal(seed)
    seat = game.turn
    view = game.view(seat)
    lacking, since = _voids(view)
    sampler = compact_ttj.Sampler(view)
    for world, dealt in checked_samples(sampler, view, game.deck_cards(), seed):
        if view["stock_top"] is not None:
            assert world.stock[0] == INDEX[view["stock_top"]]
        for other, hand in enumerate(dealt):
            if other != seat:
                unknown = [c for c in hand if c not in view["known_cards"][other]]
                assert set(view["known_cards"][other]) <= hand
                assert all(_fits(card, lacking[other]) for card in unknown)
                assert _drawn_in_time(unknown, since[other])

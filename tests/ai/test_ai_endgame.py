"""Endings played exactly: the solver is exhaustive play, and no move it picks is dominated."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.ai import PLAYBOOKS, Budget, compact_two_ten_jack, decide, dominance, endgame
from games.ai import compact_oh_hell as compact
from games.ai.compact import INDEX, rewards
from games.ai.ismcts import relative
from games.base import Game
from games.oh_hell import OhHell
from games.two_ten_jack import TwoTenJack
from tests.support.moves import random_move, seat_to_move


def ending(seed: int, cards: int, size: int = 6) -> OhHell:
    """A 4-player Oh Hell deal of ``size`` cards, bid and played at random until
    the seat to move holds ``cards`` (maybe mid-trick)."""
    game = OhHell.new(4, {"hook": True}, seed=seed, dealer=3)
    game.deal_no = size - 1
    game.dealer = 3
    game._deal(game.shuffled_deck())
    rng = random.Random(seed)
    while game.phase == "bid" or len(game.hands[seat_to_move(game)]) > cards:
        random_move(game, rng)
    return game


def exhaustive(game: Game, deal_no: int, before: list[int]) -> list[float]:
    """The rules engine played out by every seat trying every card, each taking
    the one best for itself (the first on a tie): relative deal scores."""
    seat = game.to_move
    if seat is None or game.deal_no != deal_no:
        return relative([float(a - b) for a, b in zip(game.scores, before, strict=True)])
    best: list[float] | None = None
    for action in game.legal_actions(seat):
        after = game.clone()
        after._apply(seat, action)
        values = exhaustive(after, deal_no, before)
        if best is None or values[seat] > best[seat]:
            best = values
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(8))
def test_the_solver_agrees_with_exhaustive_play(seed: int) -> None:
    game = ending(seed, 2 + seed % 2)
    view = game.view(game.to_move)
    state = compact.from_view(view, [list(hand) for hand in game.hands])
    solved = endgame.solve(state, state.clone(), rewards, {})
    assert solved == pytest.approx(exhaustive(game, game.deal_no, list(game.scores)))


def test_each_move_is_worth_what_exhaustive_play_after_it_makes() -> None:
    game = ending(3, 3)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    state = compact.from_view(view, [list(hand) for hand in game.hands])
    legal = game.legal_actions(seat)
    values = endgame.move_values(state, seat, [INDEX[a] for a in legal], rewards)
    for action, value in zip(legal, values, strict=True):
        after = game.clone()
        after._apply(seat, action)
        assert value == pytest.approx(exhaustive(after, game.deal_no, list(game.scores))[seat])


def two_ten_jack_ending(seed: int, cards: int, players: int) -> TwoTenJack:
    """A Two-Ten-Jack deal played at random until the seat to move holds ``cards``
    (the stock is gone by then: hands stay at six while it lasts)."""
    game = TwoTenJack.new(players, {"target": 500}, seed=seed, dealer=0)
    rng = random.Random(seed)
    while len(game.hands[seat_to_move(game)]) > cards:
        random_move(game, rng)
    return game


@pytest.mark.parametrize("seed", range(9))
def test_the_solver_agrees_with_exhaustive_play_in_two_ten_jack(seed: int) -> None:
    game = two_ten_jack_ending(seed, 2 + seed % 2, players=2 + seed % 3)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert view["stock"] == 0
    state = compact_two_ten_jack.from_view(view, [list(hand) for hand in game.hands], [])
    solved = endgame.solve(state, state.clone(), rewards, {})
    assert solved == pytest.approx(exhaustive(game, game.deal_no, list(game.scores)))
    legal = game.legal_actions(seat)
    values = endgame.move_values(
        state, seat, [compact_two_ten_jack.encode(a) for a in legal], rewards
    )
    for action, value in zip(legal, values, strict=True):
        after = game.clone()
        after._apply(seat, action)
        assert value == pytest.approx(exhaustive(after, game.deal_no, list(game.scores))[seat])


def test_strong_solves_a_two_ten_jack_ending_once_the_stock_is_gone() -> None:
    game = two_ten_jack_ending(5, 4, players=3)
    view = game.view(game.to_move)
    calls: list[int] = []
    solve = endgame.play_ending

    def counted(*args: Any, **kwargs: Any) -> endgame.Ending:
        calls.append(1)
        return solve(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(endgame, "play_ending", counted)
        strong = decide("two_ten_jack", view, "strong", 1, Budget(playouts=20))
        assert calls and strong.action in view["legal"] and strong.samples <= 20
        early = two_ten_jack_ending(5, 6, players=3)  # six cards: the stock still lasts
        decide("two_ten_jack", early.view(early.to_move), "strong", 1, Budget(playouts=20))
    assert len(calls) == 1


def test_a_dominated_move_is_never_picked() -> None:
    table: dict[Any, list[float]] = {
        "a": [1.0, 2.0, 0.0],
        "b": [1.0, 3.0, 0.0],
        "c": [9.0, -9.0, 0.0],
    }
    assert endgame.pick(table) == "b"


@pytest.mark.parametrize("seed", range(12))
def test_no_dominated_move_in_generated_endings(seed: int) -> None:
    game = ending(100 + seed, 2 + seed % 2, size=4 + seed % 5)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    to_space = PLAYBOOKS["oh_hell"].compact
    assert to_space is not None
    space = to_space(view)
    assert space is not None
    found = endgame.play_ending(
        space.sample,
        seat,
        [space.encode(a) for a in view["legal"]],
        space.rewards,
        random.Random(seed),
        worlds=40,
    )
    assert found.action in dominance.undominated(found.table)
    means = {move: sum(values) / len(values) for move, values in found.table.items()}
    assert means[found.action] == max(means.values())


def test_strong_solves_the_ending_and_normal_searches() -> None:
    game = ending(7, 3)
    view = game.view(game.to_move)
    strong = decide("oh_hell", view, "strong", 1, Budget(playouts=30))
    assert strong.action in view["legal"]
    assert strong.samples <= 30
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(endgame, "play_ending", None)  # a call would fail
        normal = decide("oh_hell", view, "normal", 1, Budget(playouts=30))
    assert normal.action in view["legal"]

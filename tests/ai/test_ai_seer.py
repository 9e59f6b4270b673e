"""bench/seer.py: the seer's every world is the true deal.

``strong-seer`` of bench/computer.py measures what perfect information is
worth, so each world its search draws — compact worlds for Oh Hell's bids
and play and King's trick play, the engine's for King's trumps named — must
give every seat the hand it really holds; and strong itself must not.
"""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

import pytest

from games import REGISTRY
from games.ai import Budget, ismcts
from games.ai.compact import mask_of
from games.base import Game, View
from games.king import King
from tests.support.bench import bench_module, played_to


def real_masks(game: Game) -> list[int]:
    """Every seat's hand as really dealt, as compact bit sets."""
    return [mask_of(hand) for hand in getattr(game, "hands")]  # noqa: B009 - a trick game


def drawn_worlds(game_id: str, view: View, count: int = 8) -> list[Any]:
    """``count`` worlds the search levels draw at ``view`` (their compact sampler)."""
    from games.ai import PLAYBOOKS

    worlds = PLAYBOOKS[game_id].worlds
    assert worlds is not None
    sampler = worlds(view)
    assert sampler is not None
    rng = random.Random(3)
    return [sampler.sample(rng) for _ in range(count)]


@pytest.mark.parametrize(
    ("game_id", "seed", "phase", "moves"),
    [
        ("oh_hell", 10_003, "bid", 1),  # 8 cards each, one bid made
        ("oh_hell", 10_005, "play", 6),  # 10 cards, a trick and a half played
        ("king", 10_003, "play", 5),  # a negative deal
        ("king", 10_008, "play", 5),  # a trump deal
    ],
)
def test_the_seers_compact_worlds_are_the_true_deal(
    game_id: str, seed: int, phase: str, moves: int
) -> None:
    seer = bench_module("seer")
    game = played_to(game_id, seed, phase, moves)
    view = game.view(game.to_move)
    truth = real_masks(game)
    blind = drawn_worlds(game_id, view)
    assert any(world.hands != truth for world in blind)  # the view alone does not tell
    with seer.seeing(game_id, game, view):
        seen = drawn_worlds(game_id, view)
    assert all(world.hands == truth for world in seen)
    # Only the worlds change: the rest of the state is the view's.
    assert [world.to_move for world in seen] == [world.to_move for world in blind]
    assert drawn_worlds(game_id, view)[0].hands != truth  # and only within


def test_the_seers_engine_worlds_hold_the_true_hands() -> None:
    """King's trumps are named on the engine's worlds (``King.determinize``)."""
    seer = bench_module("seer")
    game = played_to("king", 10_006, "trump_choice")
    assert isinstance(game, King)
    view = game.view(game.to_move)
    hands = game.hands
    assert any(King.determinize(view, random.Random(n)).hands != hands for n in range(4))
    with seer.seeing("king", game, view):
        worlds = [King.determinize(view, random.Random(n)) for n in range(4)]
    assert all(world.hands == hands for world in worlds)
    assert all(world.phase == "trump_choice" for world in worlds)


def searched_hands(game_id: str, level: str, game: Game, seat: int) -> list[list[int]]:
    """The hands of every world the bench's agent at ``level`` searches for its move."""
    computer = bench_module("computer")
    searched: list[list[int]] = []
    iterate = ismcts._iterate

    def spy(root: Any, world: Any, *rest: Any) -> None:
        searched.append(list(world.hands))
        iterate(root, world, *rest)

    with mock.patch.object(ismcts, "_iterate", spy):
        move = computer.agent(level, game_id, {"strong": Budget(playouts=48)}, 0.0)(game, seat, 5)
    assert move in game.legal_actions(seat)
    return searched


@pytest.mark.parametrize("game_id", ["oh_hell", "king"])
def test_strong_seer_searches_the_true_deal_and_strong_does_not(game_id: str) -> None:
    """The bench's agent: every world strong-seer's tree search draws is the
    true deal; strong's are sampled."""
    game = played_to(game_id, 10_005 if game_id == "oh_hell" else 10_002, "play", 1)
    seat = game.to_move
    assert seat is not None and len(game.legal_actions(seat)) > 1
    truth = real_masks(game)
    seer = searched_hands(game_id, "strong-seer", game, seat)
    assert seer and all(hands == truth for hands in seer)
    strong = searched_hands(game_id, "strong", game, seat)
    assert strong and any(hands != truth for hands in strong)


def test_the_seer_refuses_a_game_it_does_not_play() -> None:
    seer = bench_module("seer")
    game = REGISTRY["eleven"].new(2, {}, seed=1, dealer=0)
    seat = game.to_move
    assert seat is not None
    with pytest.raises(ValueError, match="eleven"), seer.seeing("eleven", game, game.view(seat)):
        pass


@pytest.mark.parametrize(
    ("level", "phase", "sees"),
    [
        ("strong-seerplay", "bid", False),
        ("strong-seerplay", "play", True),
        ("strong-seer", "bid", True),
        ("strong-seer", "play", True),
    ],
)
def test_strong_seerplay_sees_in_the_card_play_only(level: str, phase: str, sees: bool) -> None:
    """The split of the seer's points: ``strong-seerplay`` bids blind and plays seeing."""
    computer = bench_module("computer")
    game = played_to("oh_hell", 10_005, phase, 1)
    seat = game.to_move
    assert seat is not None and len(game.legal_actions(seat)) > 1
    entered: list[str] = []
    seeing = computer.seeing

    def spy(game_id: str, seen: Game, view: View) -> Any:
        entered.append(view["phase"])
        return seeing(game_id, seen, view)

    with mock.patch.object(computer, "seeing", spy):
        move = computer.agent(level, "oh_hell", {"strong": Budget(playouts=48)}, 0.0)(game, seat, 5)
    assert move in game.legal_actions(seat)
    assert entered == ([phase] if sees else [])

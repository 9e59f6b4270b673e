"""The tree search's prior: how much the root favours the rule of thumb's move, per game."""

from __future__ import annotations

import random
from typing import Any

import pytest

import games.ai as ai
from games.ai import PLAYBOOKS, decide, ismcts
from tests.support.positions import advanced


class OneCard:
    """A one-seat deal of one move between two cards worth the same."""

    def __init__(self) -> None:
        self.to_move: int | None = 0
        self.deal_no = 0

    def legal_actions(self, seat: int) -> list[str]:
        return ["low", "high"]

    def _apply(self, seat: int, action: str) -> list[Any]:
        self.to_move = None
        return []

    def clone(self) -> OneCard:
        return OneCard()


def root_visits(prior_bonus: float) -> dict[str, int]:
    """The root's visits after 400 iterations favouring ``high``."""
    found = ismcts.search_worlds(
        lambda rng: OneCard(),
        0,
        ["low", "high"],
        lambda world, seat, legal, rng: legal[0],
        lambda start, end, events: [1.0],
        random.Random(0),
        iterations=400,
        stop_at=None,
        fallback="high",
        prior_bonus=prior_bonus,
    )
    return found.visits


def test_the_prior_bonus_draws_the_visits_to_the_favoured_move() -> None:
    visits = root_visits(ismcts.PRIOR_BONUS)
    assert visits["high"] > 2 * visits["low"]


def test_without_a_bonus_equal_moves_share_the_visits() -> None:
    visits = root_visits(0.0)
    assert abs(visits["high"] - visits["low"]) <= 1


@pytest.mark.parametrize(
    ("game_id", "level", "bonus"),
    [("eleven", "strong", 0.0), ("eleven", "normal", 0.8), ("king", "strong", 0.8)],
)
def test_the_search_gets_its_games_and_levels_prior_bonus(
    game_id: str, level: str, bonus: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[float] = []

    def recorded(*args: object, fallback: str, prior_bonus: float, **kwargs: object) -> Any:
        given.append(prior_bonus)
        return ismcts.Result(fallback, {}, 0)

    monkeypatch.setattr(ai.ismcts, "search", recorded)
    playbook = PLAYBOOKS[game_id]
    for moves in range(30):
        game = advanced(game_id, 1, moves)
        assert game.to_move is not None
        view = game.view(game.to_move)
        searched = len(view["legal"]) > 1 and len(view["hand"]) > playbook.endgame
        if searched and view.get("phase") != playbook.sampled_phase:
            decide(game_id, view, level, 0, ai.Budget(playouts=10))
            break
    assert given == [bonus]

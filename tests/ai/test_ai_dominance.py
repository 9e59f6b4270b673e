"""No dominated move: the flat searches (Rummy, Mau-Mau) never play a move that
another move still in the race matches in every sampled world and beats in one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import REGISTRY
from games.ai import PLAYBOOKS, dominance
from games.ai.estimate import DOMINANCE_EVIDENCE
from games.ai.search import MIN_WORLDS, Budget, Playout, search
from tests.support.positions import advanced


def test_dominance_is_at_least_as_good_everywhere_and_better_somewhere() -> None:
    table: dict[Any, list[float]] = {
        "a": [1.0, 2.0, 0.0],
        "b": [1.0, 3.0, 0.0],
        "c": [9.0, -9.0, 0.0],
    }
    assert dominance.undominated(table) == ["b", "c"]
    # equal everywhere: neither dominates the other
    assert dominance.undominated({"x": [1.0], "y": [1.0]}) == ["x", "y"]
    assert dominance.dominates([1.0, 2.0], [1.0, 1.0])
    assert not dominance.dominates([1.0, 2.0], [1.0, 2.0])
    assert not dominance.dominates([2.0, 0.0], [1.0, 1.0])
    # ahead in one world of three: dominated, but not on the evidence of two
    assert dominance.undominated({"a": [1.0, 1.0, 0.0], "b": [1.0, 2.0, 0.0]}) == ["b"]
    assert dominance.undominated({"a": [1.0, 1.0, 0.0], "b": [1.0, 2.0, 0.0]}, 2) == ["a", "b"]


# Real positions, advanced by easy play (seed, moves: 3 + seed % 40), raced over
# the fewest worlds a race settles at, where a rule of thumb's move level with
# the leader by the standard errors is most often dominated all the same (over
# these seeds without the filter: Rummy 123 and 135; over seeds 0-199, 2 of 73
# Rummy decisions with a choice and none of 200 in Mau-Mau).
GENERATED = [("rummy", seed) for seed in range(120, 140)] + [
    ("mau_mau", seed) for seed in range(80, 100)
]


@pytest.mark.parametrize(("game_id", "seed"), GENERATED)
def test_no_dominated_move_in_generated_positions(game_id: str, seed: int) -> None:
    game = advanced(game_id, seed, 3 + seed % 40)
    seat = game.to_move
    if seat is None:
        pytest.skip("the match ended")
    view = game.view(seat)
    playbook = PLAYBOOKS[game_id]
    prior = playbook.easy(view, random.Random(seed))
    candidates = playbook.shortlist(view, prior) if playbook.shortlist else list(view["legal"])
    playout = Playout(playbook.strong_rollout, playbook.outcome, playbook.max_moves)
    found = search(
        REGISTRY[game_id],
        view,
        candidates,
        playout,
        Budget(playouts=MIN_WORLDS),
        random.Random(seed),
        prior,
    )
    played_everywhere = {move: found.values[move] for move in found.live}
    assert found.choice in view["legal"]
    if len(candidates) > 1:
        assert found.worlds == MIN_WORLDS
        assert found.choice in dominance.undominated(played_everywhere, DOMINANCE_EVIDENCE)

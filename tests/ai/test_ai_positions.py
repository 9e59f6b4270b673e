"""Hand-built positions where a decent player's move is clear (tests.support.positions):
every level named plays a good move there."""

from __future__ import annotations

import pytest

from games.ai import choose
from tests.support.positions import GAMES, SPOTS, Spot, position_budget


@pytest.mark.parametrize("spot", SPOTS, ids=[s.name for s in SPOTS])
def test_a_decent_player_makes_the_clear_move(spot: Spot) -> None:
    """Every level named, at every seed, plays one of the position's good moves."""
    game = spot.game()
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert spot.good <= set(view["legal"]) and set(view["legal"]) - spot.good
    for level in spot.levels:
        for seed in spot.seeds:
            chosen = choose(game.id, view, level, seed, position_budget(game.id, level))
            assert chosen in spot.good, f"{level} (seed {seed}) chose {chosen}"


def test_every_game_has_a_dozen_positions() -> None:
    """Each game is tested on at least twelve positions, named after the game."""
    counts = {game_id: 0 for game_id in GAMES}
    for spot in SPOTS:
        counts[spot.name.split(":")[0]] += 1
    assert sorted(counts) == GAMES
    assert min(counts.values()) >= 12, counts


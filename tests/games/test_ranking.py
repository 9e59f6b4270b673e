"""Each game's own ranking of a finished match: ratings and result screens use it."""

from __future__ import annotations

from games import REGISTRY
from games.base import ranking


def test_winners_first_then_highest_total_ties_share_a_place() -> None:
    result = {"scores": [10, 30, 20, 20], "winners": [1]}
    assert REGISTRY["oh_hell"].ranking(result) == [3, 0, 1, 1]
    assert REGISTRY["king"].ranking({"scores": [5, 5], "winners": [0, 1]}) == [0, 0]


def test_mau_mau_ranks_the_lowest_penalties_first() -> None:
    assert REGISTRY["mau_mau"].lowest_wins
    assert REGISTRY["mau_mau"].ranking({"scores": [40, 101, 12, 60], "winners": [2]}) == [
        1, 3, 0, 2
    ]
    assert not any(REGISTRY[g].lowest_wins for g in REGISTRY if g != "mau_mau")


def test_a_winner_goes_first_whatever_the_total() -> None:
    # Two-Ten-Jack: a player reaching the target first wins though another's total is higher
    assert ranking({"scores": [26, 30], "winners": [0]}) == [0, 1]
    assert ranking({"scores": [], "winners": []}) == []

"""bench/inference_regret.py: its oracle values a move in the true deal.

The same view with two true deals behind it: the move the truth makes
better must get the higher value, whichever deal it is.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.ai import compact_oh_hell
from games.ai.compact import INDEX
from tests.support.bench import bench_module


def last_to_play(second_card: str) -> Any:
    """Oh Hell, 2 cards each, clubs trumps, seat 0 bid 1 (the others 0) and plays
    last to 6♥ 2♥ 3♥ holding 9♥ 5♥; seat 1, who led, holds ``second_card``."""
    view = {
        "players": 4,
        "trumps": "C",
        "to_move": 0,
        "bids": [1, 0, 0, 0],
        "phase": "play",
        "deal_size": 2,
        "dealer": 0,
        "options": {"hook": True},
        "tricks_won": [0, 0, 0, 0],
        "deal_no": 1,
        "history": [],
        "trick": [[1, "6H"], [2, "2H"], [3, "3H"]],
    }
    return compact_oh_hell.from_view(view, [["9H", "5H"], [second_card], ["7S"], ["8S"]])


@pytest.mark.parametrize(
    ("second_card", "better", "worse", "missed_by"),
    [
        # K♥ behind: take now with 9♥, then 5♥ loses to the K♥ — one trick, bid
        # made; ducking, seat 0 takes none. Seat 1 misses his 0 either way.
        ("KH", "9H", "5H", [1, 1]),
        # 4♥ behind: duck with 5♥; seat 1 then leads the 4♥ into the 9♥ — one
        # trick (seat 1 took the first: missed); taking now, seat 0 takes both.
        ("4H", "5H", "9H", [1, 0]),
    ],
)
def test_the_oracle_values_a_move_in_the_true_deal(
    second_card: str, better: str, worse: str, missed_by: list[int]
) -> None:
    regret = bench_module("inference_regret")
    truth = last_to_play(second_card)
    rollout = regret.rollout_of("oh_hell")
    value = {
        card: regret.oracle_value(truth, 0, INDEX[card], rollout, 50, 7) for card in (better, worse)
    }
    # The seat's deal score minus the others' mean: seats 2 and 3 make their 0
    # (10 each), seat 1 his 0 only where ``missed_by`` says he did not miss.
    others = [20 + 10 * (1 - missed) for missed in missed_by]
    assert value[better] == pytest.approx(11 - others[0] / 3)
    assert value[worse] == pytest.approx(0 - others[1] / 3)
    assert truth.hands[0] == (1 << INDEX["9H"]) | (1 << INDEX["5H"])  # the truth left as it is


@pytest.mark.parametrize(
    ("view", "kind"),
    [
        ({"phase": "bid"}, "bid"),
        ({"phase": "play", "trick": [], "hand": ["9H"]}, "lead"),
        ({"phase": "play", "trick": [[1, "6H"]], "hand": ["9H", "2S"]}, "follow"),
        ({"phase": "play", "trick": [[1, "6D"]], "hand": ["9H", "2S"]}, "discard"),
    ],
)
def test_decisions_are_told_apart_by_kind(view: dict[str, Any], kind: str) -> None:
    assert bench_module("inference_regret").kind_of(view) == kind

"""Time a 📈 review per deal: ``python bench/review.py --games oh_hell eleven --deals 4``.

Plays each deal of a match by the easy level (seed 0, 1, …), then reviews seat 0's
decisions with the default review budget (``games.ai.review.REVIEW_BUDGET``), in
this process, one decision after another, as one pool worker does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/games.py is not games/

from games import REGISTRY  # noqa: E402
from games.ai import choose  # noqa: E402
from games.ai.review import decision_points, grade, review_decision  # noqa: E402

PLAYERS = {"eleven": 2, "fifteen": 2, "two_ten_jack": 4, "rummy": 4, "mau_mau": 4,
           "oh_hell": 4, "king": 4}


def main() -> None:
    """Review ``--deals`` deals per game and print the time per deal and decision."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=["oh_hell", "eleven"])
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--deal-no", type=int, default=5, help="which deal of the match")
    args = parser.parse_args()
    for game_id in args.games:
        players = PLAYERS[game_id]
        per_deal, per_decision, found = [], [], 0
        for seed in range(args.deals):
            game = REGISTRY[game_id].new(players, {}, seed)
            moves: list[tuple[int, str]] = []
            while not game.finished and game.deal_no <= args.deal_no:
                seat = game.to_move
                assert seat is not None
                action = choose(game_id, game.view(seat), "easy", len(moves))
                moves.append((seat, action))
                game.apply(seat, action)
            deal_no = min(args.deal_no, game.deal_no - 1)
            points = decision_points(game_id, players, {}, seed, moves, deal_no, 0)
            started = time.perf_counter()
            for point in points:
                began = time.perf_counter()
                verdict = review_decision(game_id, point.view, point.chosen, seed + point.turn)
                per_decision.append(time.perf_counter() - began)
                found += grade(game_id, verdict) is not None
            per_deal.append(time.perf_counter() - started)
        print(
            f"{game_id}: {args.deals} deals, {len(per_decision)} decisions; per deal mean "
            f"{statistics.fmean(per_deal):.1f} s, max {max(per_deal):.1f} s; per decision "
            f"mean {statistics.fmean(per_decision) * 1000:.0f} ms, max "
            f"{max(per_decision) * 1000:.0f} ms; {found} mistakes or blunders (easy play)"
        )


if __name__ == "__main__":
    main()

"""How far Oh Hell bids stray from the hand's count of likely winners (the inference model).

On fresh 4-player deals of 1-12 cards (hook on), every seat bids either as
strong without inference or as OpenSpiel's ISMCTSBot (c = 1), alternately
per deal, with ``--think`` seconds a bid; prints bid - ``likely_tricks`` per
bidder and per deal size (1-3, 4-6, 7-9, 10-12 cards): mean and spread.
The first lean and spread of ``games.ai.oh_hell``'s bid model came from this;
the model now is fitted to strong's own bids (``bench/inference_check.py``).

    .venv/bin/python bench/bid_model.py --deals 96 --think 0.1
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.spiel_oh_hell import spiel_move
from games.ai import Budget, choose, inference
from games.ai.oh_hell import likely_tricks
from games.oh_hell import OhHell


def main() -> None:
    """Bid a number of fresh deals and print the residuals (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=96)
    parser.add_argument("--think", type=float, default=0.1)
    args = parser.parse_args()
    residuals: dict[tuple[str, str], list[float]] = {}
    for number in range(args.deals):
        size = 1 + number % 12
        game = OhHell.new(4, {"hook": True}, seed=500 + number, dealer=0)
        game.deal_no = size - 1
        game.dealer = number % 4
        game._deal(game.shuffled_deck())
        bidder = "ismcts" if number % 2 else "strong-blind"
        while game.phase == "bid":
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            salt = number * 10 + seat
            if bidder == "ismcts":
                bid = spiel_move(view, args.think, salt, 1.0)
            else:
                with mock.patch.object(inference, "ENABLED", False):
                    bid = choose("oh_hell", view, "strong", salt, Budget(seconds=args.think))
            gap = int(bid[4:]) - likely_tricks(view["hand"], view["trumps"], 4)
            sizes = f"{3 * ((size - 1) // 3) + 1}-{3 * ((size - 1) // 3) + 3}"
            for key in ((bidder, "all"), (bidder, sizes)):
                residuals.setdefault(key, []).append(gap)
            game.apply(seat, bid)
    print("| bidder | cards | bids | bid - count: mean | spread |")
    print("|---|---|---|---|---|")
    for (bidder, sizes), gaps in sorted(residuals.items()):
        print(
            f"| {bidder} | {sizes} | {len(gaps)} | {statistics.fmean(gaps):+.2f} "
            f"| {statistics.pstdev(gaps):.2f} |"
        )


if __name__ == "__main__":
    main()

"""Rules-engine speed: random legal play, one core.

Prints, per game, full matches per second, deals per second and decisions
(legal_actions + apply) per second, plus the reference workload for comparing
with other engines: a 4-player, 12-card Oh Hell deal.

    .venv/bin/python bench/games.py [--seconds 3] [--game eleven]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: this file must not shadow the games package
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from games import REGISTRY, Game


def play_match(game: Game, rng: random.Random) -> tuple[int, int]:
    """Random legal play to the end; returns (decisions, deals)."""
    decisions = 0
    first_deal = game.deal_no
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        decisions += 1
    return decisions, game.deal_no - first_deal + 1


def bench_game(game_id: str, players: int, seconds: float) -> dict[str, float]:
    """Play random matches of ``game_id`` for about ``seconds``."""
    cls = REGISTRY[game_id]
    rng = random.Random(1)
    matches = decisions = deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = cls.new(players, seed=rng.randrange(2**32))
        d, n = play_match(game, rng)
        matches += 1
        decisions += d
        deals += n
    elapsed = time.perf_counter() - start
    return {
        "matches/s": matches / elapsed,
        "deals/s": deals / elapsed,
        "decisions/s": decisions / elapsed,
        "matches": matches,
    }


def bench_oh_hell_12(seconds: float) -> float:
    """Deals per second of a 4-player, 12-card Oh Hell deal (bidding and play)."""
    cls = REGISTRY["oh_hell"]
    rng = random.Random(2)
    game = cls.new(4, seed=5)
    while len(game.view(game.to_move)["hand"]) != 12 or game.view(None).get("phase") != "bid":
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    start_deal = game.deal_no
    deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        copy = game.clone()
        while copy.deal_no == start_deal and not copy.finished:
            seat = copy.to_move
            assert seat is not None
            copy.apply(seat, rng.choice(copy.legal_actions(seat)))
        deals += 1
    return deals / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game")
    parser.add_argument("--game", choices=sorted(REGISTRY), help="only this game")
    args = parser.parse_args()
    setups = {
        "eleven": 2,
        "two_ten_jack": 4,
        "fifteen": 2,
        "rummy": 4,
        "mau_mau": 4,
        "oh_hell": 4,
        "king": 4,
    }
    print(f"{'game':<14}{'players':>8}{'matches/s':>12}{'deals/s':>12}{'decisions/s':>14}")
    for game_id, players in setups.items():
        if game_id not in REGISTRY or (args.game and args.game != game_id):
            continue
        r = bench_game(game_id, players, args.seconds)
        print(
            f"{game_id:<14}{players:>8}{r['matches/s']:>12.1f}"
            f"{r['deals/s']:>12.1f}{r['decisions/s']:>14.0f}"
        )
    if "oh_hell" in REGISTRY and args.game in (None, "oh_hell"):
        rate = bench_oh_hell_12(args.seconds)
        print(f"oh_hell reference: 4 players, 12-card deal: {rate:.0f} deals/s")


if __name__ == "__main__":
    main()

"""Strength benchmark of the computer players (docs/computer-players.md).

For every game it pits one player (the *hero*) against the others at the
table (the *field*): strong vs easy, normal vs easy, easy vs random. Deals are
played in duplicate: each seed is played once with the hero in every seat,
the same cards dealt each time, and the deal results are averaged over the
seatings before statistics are taken, so the luck of the cards cancels.

Matches are long, so the unit of comparison is the deal (each match is played
for ``--deals`` deals at most, with the match target raised so that it does not
end early). Per deal the hero's *margin* is its deal score minus the mean of
the field's (penalties count negative), and it *wins* a deal when it scores
strictly best (a tie with the best counts half). Both are reported with 95%
confidence intervals over the duplicate units, and the hero's think time per
decision (decisions with a real choice only) as mean and p95.

Normal and strong use playout budgets here so the run is reproducible
(``--normal-playouts``, ``--strong-playouts``); ``--timed`` uses the default
time budgets instead.

    .venv/bin/python bench/computer.py --scale 0.5 --games eleven king
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import REGISTRY
from games.ai import Budget, choose
from games.base import Game


@dataclass(frozen=True)
class Table:
    """How a game is benchmarked: players, options that keep the match going,
    deals per match and duplicate seeds per pairing (before ``--scale``)."""

    players: int
    options: dict[str, object]
    deals: int
    seeds: int
    lower_is_better: bool = False


TABLES: dict[str, Table] = {
    "eleven": Table(2, {"target": 50}, deals=2, seeds=10),
    "two_ten_jack": Table(3, {"target": 500}, deals=2, seeds=8),
    "fifteen": Table(2, {"chips": 100, "deals": 10}, deals=10, seeds=60),
    "rummy": Table(2, {"target": 1000}, deals=1, seeds=40),
    "mau_mau": Table(2, {"limit": 1000}, deals=2, seeds=280, lower_is_better=True),
    "oh_hell": Table(4, {}, deals=13, seeds=2),
    "king": Table(4, {}, deals=10, seeds=2),
}
#: Pairings without a search are cheap: they get this many times the seeds.
CHEAP_FACTOR = 4

PAIRS = (("strong", "easy"), ("normal", "easy"), ("easy", "random"))


@dataclass
class Unit:
    """One duplicate unit: a seed's deal, averaged over the hero's seatings."""

    margins: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)


@dataclass
class Seating:
    """What one match with the hero in one seat produced."""

    margins: list[float]
    wins: list[float]
    think: list[float]


def agent(
    level: str, game_id: str, budgets: dict[str, Budget | None]
) -> Callable[[Game, int, int], str]:
    """A move chooser: the random player or ``choose`` at ``level``, seeded per move."""

    def move(game: Game, seat: int, salt: int) -> str:
        view = game.view(seat)
        if level == "random":
            legal = view["legal"]
            return str(legal[random.Random(salt).randrange(len(legal))])
        return choose(game_id, view, level, salt, budgets.get(level))

    return move


def play_seating(
    game_id: str,
    seed: int,
    hero_seat: int,
    hero: str,
    field_: str,
    budgets: dict[str, Budget | None],
) -> Seating:
    """Play one match (up to the table's deal count) with the hero in ``hero_seat``."""
    table = TABLES[game_id]
    game = REGISTRY[game_id].new(table.players, dict(table.options), seed=seed, dealer=0)
    players = {hero: agent(hero, game_id, budgets), field_: agent(field_, game_id, budgets)}
    margins: list[float] = []
    wins: list[float] = []
    think: list[float] = []
    before = list(game.scores)
    deal_no = game.deal_no
    moves = 0
    while not game.finished and len(margins) < table.deals:
        seat = game.to_move
        assert seat is not None
        level = hero if seat == hero_seat else field_
        salt = seed * 1_000_003 + moves * 31 + seat
        started = time.perf_counter()
        choice = players[level](game, seat, salt)
        spent = time.perf_counter() - started
        if seat == hero_seat and len(game.legal_actions(seat)) > 1:
            think.append(spent)
        game.apply(seat, choice)
        moves += 1
        if game.finished or game.deal_no != deal_no:
            margin, win = _deal_result(before, game.scores, hero_seat, table.lower_is_better)
            margins.append(margin)
            wins.append(win)
            before = list(game.scores)
            deal_no = game.deal_no
    return Seating(margins, wins, think)


def _deal_result(
    before: list[float], after: list[float], hero: int, lower_is_better: bool
) -> tuple[float, float]:
    sign = -1.0 if lower_is_better else 1.0
    gains = [sign * (a - b) for a, b in zip(after, before, strict=True)]
    others = [g for s, g in enumerate(gains) if s != hero]
    margin = gains[hero] - sum(others) / len(others)
    best_other = max(others)
    win = 1.0 if gains[hero] > best_other else 0.5 if gains[hero] == best_other else 0.0
    return margin, win


def play_seed(
    game_id: str, seed: int, hero: str, field_: str, budgets: dict[str, Budget | None]
) -> tuple[list[Unit], list[float]]:
    """All seatings of one seed, folded into duplicate units per deal."""
    players = TABLES[game_id].players
    seatings = [play_seating(game_id, seed, s, hero, field_, budgets) for s in range(players)]
    deals = min(len(s.margins) for s in seatings)
    units = [
        Unit(
            margins=[s.margins[d] for s in seatings],
            wins=[s.wins[d] for s in seatings],
        )
        for d in range(deals)
    ]
    return units, [t for s in seatings for t in s.think]


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def run_pair(
    pool: ProcessPoolExecutor,
    game_id: str,
    hero: str,
    field_: str,
    seeds: int,
    budgets: dict[str, Budget | None],
) -> str:
    """Benchmark one pairing in one game; returns its table row."""
    futures = [
        pool.submit(play_seed, game_id, 10_000 + n, hero, field_, budgets) for n in range(seeds)
    ]
    units: list[Unit] = []
    think: list[float] = []
    for future in futures:
        seed_units, seed_think = future.result()
        units += seed_units
        think += seed_think
    margins = [statistics.fmean(u.margins) for u in units]
    wins = [statistics.fmean(u.wins) for u in units]
    margin, margin_ci = interval(margins)
    win, win_ci = interval(wins)
    verdict = "yes" if margin - margin_ci > 0 else "no"
    mean_ms = statistics.fmean(think) * 1000 if think else 0.0
    return (
        f"| {game_id} | {hero} vs {field_} | {len(units)} | {win:.1%} ± {win_ci:.1%} "
        f"| {margin:+.2f} ± {margin_ci:.2f} | {verdict} | {mean_ms:.1f} | {p95(think) * 1000:.1f} |"
    )


def main() -> None:
    """Parse the command line and print the strength table (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every game's duplicate seeds"
    )
    parser.add_argument("--games", nargs="*", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--pairs", nargs="*", default=[f"{h}:{f}" for h, f in PAIRS])
    parser.add_argument("--normal-playouts", type=int, default=200)
    parser.add_argument("--strong-playouts", type=int, default=300)
    parser.add_argument("--timed", action="store_true", help="use the default time budgets")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    budgets: dict[str, Budget | None] = (
        {"normal": None, "strong": None}
        if args.timed
        else {
            "normal": Budget(playouts=args.normal_playouts),
            "strong": Budget(playouts=args.strong_playouts),
        }
    )
    print(
        "| game | pairing | deals | hero wins | hero margin / deal | CI > 0 "
        "| think mean ms | think p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for game_id in args.games:
            for pair in args.pairs:
                hero, field_ = pair.split(":")
                seeds = TABLES[game_id].seeds * (CHEAP_FACTOR if hero == "easy" else 1)
                seeds = max(1, round(seeds * args.scale))
                print(run_pair(pool, game_id, hero, field_, seeds, budgets), flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s, budgets: {budgets}")


if __name__ == "__main__":
    main()

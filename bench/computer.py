"""Strength benchmark of the computer players (docs/computer-players.md).

For every game it pits one player (the *hero*) against the others at the
table (the *field*): strong vs a reference IS-MCTS that is not Koloda's own
policy (below), strong vs easy, normal vs easy, easy vs random. Deals are
played in duplicate: each seed is played once with the hero in every seat,
the same cards dealt each time, and the deal results are averaged over the
seatings before statistics are taken, so the luck of the cards cancels.

Matches are long, so the unit of comparison is the deal (each match is played
for ``--deals`` deals at most, with the match target raised so that it does not
end early). Per deal the hero's *margin* is its deal score minus the mean of
the field's (penalties count negative), and it *wins* a deal when it scores
strictly best (a tie with the best counts half). Both are reported with 95%
confidence intervals over the duplicate units, and the hero's think time per
decision (decisions with a real choice only) as mean and p95, and the
field's mean, measured in the same run.

Think time: strong and the reference get ``--think`` seconds per move (the
same for both), normal 0.3 of it and at most its game's samples (200, fewer
in Rummy and Mau-Mau; ``--normal N``: another cap). ``--playouts`` uses
playout budgets instead
(reproducible, for strong vs easy and normal vs easy only).

The reference is the yardstick each game is measured against. In Oh Hell
it is OpenSpiel's own ``ISMCTSBot`` on OpenSpiel's C++ ``oh_hell``
(bench/spiel_oh_hell.py; ``--install`` installs the ``bench`` extra first),
with the ``hook`` on so both engines offer the same bids and deals of 1–12
cards (OpenSpiel has no no-trump deal). Elsewhere it is the hand-written
IS-MCTS of bench/reference.py (``handmade`` names it in Oh Hell too). Both
get strong's think time; their UCT constant per game is :data:`REFERENCE_C`
(the best of a small grid in every game, docs/computer-players.md), on
rewards divided by the game's scale. A level ``name@c`` plays with UCT
constant ``c`` instead (``ismcts@0.5``, ``reference@3``), ``name@c/s`` also
with the scale ``s``.
``strong-blind`` and ``normal-blind`` are the levels without inference (their
worlds not weighted by the bids seen; ``games/ai/inference.py``),
``strong-rollout`` strong without its exact endings (``games/ai/endgame.py``),
``strong-blind-rollout`` without either, ``strong-dominated`` strong without
the dominated-move filter (``games/ai/dominance.py``: the flat searches and
the endings), ``strong-bidsonly`` strong inferring from the bids and trumps
only, not from the play (the cards played in Oh Hell, King, Eleven and
Two-Ten-Jack; Rummy's pile). ``strong-seer`` (Oh Hell and King) is strong
whose every sampled world is the true deal (bench/seer.py: it sees every
hidden hand, in its bids and trumps as in its play, and infers nothing):
what perfect information is worth, the most inference could win;
``strong-seerplay`` sees them in the card play only (its bids, trumps and
King's lottery blind): what they are worth where the play can infer them.
``strong-pimc`` is strong playing its cards by PIMC (``games/ai/pimc.py``:
each of its inferred worlds searched as the truth, the move best on average;
its bids, trumps, lottery and exact endings strong's), ``strong-pimc-blind``
the same without inference.

``--load`` measures the bot's waiting instead: 1, 10 and 20 tables whose
strong computers think at once through ``sessions/computer.py``'s pool, the time
from "computer to move" to the move (queueing included), p50 and p95.

    .venv/bin/python bench/computer.py --scale 0.5 --games eleven king
    .venv/bin/python bench/computer.py --pairs strong:reference --games oh_hell --think 0.25
    .venv/bin/python bench/computer.py --pairs strong:ismcts@0.5 strong:ismcts@3 --games oh_hell
    .venv/bin/python bench/computer.py --pairs strong:strong-blind --games king --starts 6 7 8 9
    .venv/bin/python bench/computer.py --pairs strong-seer:strong-blind --games oh_hell --think 0.1
    .venv/bin/python bench/computer.py --load
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import math
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.reference import SCALES, reference_move
from bench.seer import seeing
from bench.spiel_oh_hell import spiel_move
from games import REGISTRY
from games.ai import Budget, choose, dominance, endgame, inference, level_budget, pimc
from games.base import Event, Game


@dataclass(frozen=True)
class Table:
    """How a game is benchmarked: players, options that keep the match going,
    deals per match, duplicate seeds per pairing (before ``--scale``), and the
    deals a match may start at (the seed picks one; None: the first deal)."""

    players: int
    options: dict[str, object]
    deals: int
    seeds: int
    lower_is_better: bool = False
    starts: tuple[int, ...] | None = None


TABLES: dict[str, Table] = {
    "eleven": Table(2, {"target": 50}, deals=1, seeds=24),
    "two_ten_jack": Table(3, {"target": 500}, deals=1, seeds=16),
    "fifteen": Table(2, {"chips": 100, "deals": 10}, deals=10, seeds=60),
    "rummy": Table(2, {"target": 1000}, deals=1, seeds=40),
    "mau_mau": Table(2, {"limit": 1000}, deals=2, seeds=280, lower_is_better=True),
    # Every trump deal, 1-12 cards, the hook on: OpenSpiel's oh_hell offers the same bids.
    "oh_hell": Table(4, {"hook": True}, deals=1, seeds=48, starts=tuple(range(12))),
    # Every deal of the programme: six negative, four trump deals.
    "king": Table(4, {}, deals=1, seeds=20, starts=tuple(range(10))),
}
#: Pairings without a search are cheap: they get this many times the seeds.
CHEAP_FACTOR = 4

PAIRS = (("strong", "reference"), ("strong", "easy"), ("normal", "easy"), ("easy", "random"))
#: The reference's UCT constant per game, on rewards divided by the game's scale:
#: the best of the grid 0.5, 1, 1.5, 2, 3 (Eleven's 0.5, 1.5, 3; King's also 4, 6) —
#: strong's smallest margin at 0.1 s on the same seeds (docs/computer-players.md).
REFERENCE_C = {
    "eleven": 1.5,
    "two_ten_jack": 1.0,
    "fifteen": 0.5,
    "rummy": 2.0,
    "mau_mau": 2.0,
    "oh_hell": 1.0,
    "king": 3.0,
}


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
    #: The field's think time per decision with a real choice.
    field_think: list[float] = field(default_factory=list)
    #: Oh Hell: per deal, 1.0 if the hero made its bid; and the field's share.
    made: list[float] = field(default_factory=list)
    field_made: list[float] = field(default_factory=list)


# ---------------------------------------------------------------- playing


def agent(
    level: str, game_id: str, budgets: dict[str, Budget | None], think: float
) -> Callable[[Game, int, int], str]:
    """A move chooser: random, a reference or ``choose`` at ``level``, seeded per move
    (see the module docstring for the levels' names)."""
    name, _, tuning = level.partition("@")
    uct, _, scaled = tuning.partition("/")
    uct_c = float(uct) if uct else REFERENCE_C[game_id]
    scale = float(scaled) if scaled else SCALES[game_id]
    if name == "reference" and game_id == "oh_hell":
        name = "ismcts"
    name, *handicaps = name.split("-")
    switches = {
        "blind": (inference, "ENABLED", False),
        "bidsonly": (inference, "FROM_PLAY", False),
        "rollout": (endgame, "ENABLED", False),
        "dominated": (dominance, "ENABLED", False),
        # the seer sees every hand: with one world there is nothing to infer
        "seer": (inference, "ENABLED", False),
        "seerplay": (inference, "ENABLED", False),  # in the card play; bids and trumps blind
        "pimc": (pimc, "ENABLED", True),  # the card play by PIMC over its worlds
    }
    flipped = [switches[handicap] for handicap in handicaps]
    seer = "seer" in handicaps or "seerplay" in handicaps
    seen_in = ("play",) if "seerplay" in handicaps else None

    def move(game: Game, seat: int, salt: int) -> str:
        view = game.view(seat)
        if name == "random":
            legal = view["legal"]
            return str(legal[random.Random(salt).randrange(len(legal))])
        if name == "ismcts":
            return spiel_move(view, think, salt, uct_c, scale)
        if name in ("reference", "handmade"):
            lower = TABLES[game_id].lower_is_better
            return reference_move(game_id, view, think, salt, uct_c, scale, lower)
        with contextlib.ExitStack() as stack:
            for module, flag, value in flipped:
                stack.enter_context(mock.patch.object(module, flag, value))
            if seer and (seen_in is None or view["phase"] in seen_in):
                stack.enter_context(seeing(game_id, game, view))
            return choose(game_id, view, name, salt, budgets.get(name))

    return move


def start_game(game_id: str, seed: int) -> Game:
    """The seed's match, moved on to the deal it starts at (the same cards for every seating)."""
    table = TABLES[game_id]
    game = REGISTRY[game_id].new(table.players, dict(table.options), seed=seed, dealer=0)
    if table.starts:
        start = table.starts[seed % len(table.starts)]
        if start:
            game.deal_no = start
            game.dealer = start % table.players
            game._deal(game.shuffled_deck())
    return game


def play_seating(
    game_id: str,
    seed: int,
    hero_seat: int,
    hero: str,
    field_: str,
    budgets: dict[str, Budget | None],
    think_seconds: float,
) -> Seating:
    """Play one match (up to the table's deal count) with the hero in ``hero_seat``."""
    table = TABLES[game_id]
    game = start_game(game_id, seed)
    players = {
        hero: agent(hero, game_id, budgets, think_seconds),
        field_: agent(field_, game_id, budgets, think_seconds),
    }
    result = Seating([], [], [])
    before = list(game.scores)
    deal_no = game.deal_no
    moves = 0
    while not game.finished and len(result.margins) < table.deals:
        seat = game.to_move
        assert seat is not None
        level = hero if seat == hero_seat else field_
        salt = seed * 1_000_003 + moves * 31 + seat
        started = time.perf_counter()
        choice = players[level](game, seat, salt)
        spent = time.perf_counter() - started
        if len(game.legal_actions(seat)) > 1:
            (result.think if seat == hero_seat else result.field_think).append(spent)
        events = game.apply(seat, choice)
        moves += 1
        if game.finished or game.deal_no != deal_no:
            margin, win = _deal_result(before, game.scores, hero_seat, table.lower_is_better)
            result.margins.append(margin)
            result.wins.append(win)
            _note_bids(events, hero_seat, result)
            before = list(game.scores)
            deal_no = game.deal_no
    return result


def _note_bids(events: list[Event], hero: int, result: Seating) -> None:
    for event in events:
        if event["type"] == "deal_end" and "bids" in event:
            made = [b == t for b, t in zip(event["bids"], event["tricks_won"], strict=True)]
            result.made.append(float(made[hero]))
            others = [m for s, m in enumerate(made) if s != hero]
            result.field_made.append(sum(others) / len(others))


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
    game_id: str,
    seed: int,
    hero: str,
    field_: str,
    budgets: dict[str, Budget | None],
    think: float,
) -> tuple[list[Unit], Seating]:
    """All seatings of one seed, folded into duplicate units per deal, and
    their think times and bids made pooled (as one :class:`Seating`)."""
    players = TABLES[game_id].players
    seatings = [
        play_seating(game_id, seed, s, hero, field_, budgets, think) for s in range(players)
    ]
    deals = min(len(s.margins) for s in seatings)
    units = [
        Unit(
            margins=[s.margins[d] for s in seatings],
            wins=[s.wins[d] for s in seatings],
        )
        for d in range(deals)
    ]
    pooled = Seating([], [], [])
    for seating in seatings:
        pooled.think += seating.think
        pooled.field_think += seating.field_think
        pooled.made += seating.made
        pooled.field_made += seating.field_made
    return units, pooled


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def run_pair(
    pool: ProcessPoolExecutor,
    game_id: str,
    hero: str,
    field_: str,
    seeds: int,
    budgets: dict[str, Budget | None],
    think: float,
    first: int = 0,
) -> str:
    """Benchmark one pairing in one game over duplicate seeds ``first`` to
    ``first + seeds - 1``; returns its table row."""
    futures = [
        pool.submit(play_seed, game_id, 10_000 + n, hero, field_, budgets, think)
        for n in range(first, first + seeds)
    ]
    units: list[Unit] = []
    pooled = Seating([], [], [])
    for future in futures:
        seed_units, seed = future.result()
        units += seed_units
        pooled.think += seed.think
        pooled.field_think += seed.field_think
        pooled.made += seed.made
        pooled.field_made += seed.field_made
    times, made, field_made = pooled.think, pooled.made, pooled.field_made
    margins = [statistics.fmean(u.margins) for u in units]
    wins = [statistics.fmean(u.wins) for u in units]
    margin, margin_ci = interval(margins)
    win, win_ci = interval(wins)
    verdict = "yes" if margin - margin_ci > 0 else "no" if margin + margin_ci > 0 else "below"
    mean_ms = statistics.fmean(times) * 1000 if times else 0.0
    field_ms = statistics.fmean(pooled.field_think) * 1000 if pooled.field_think else 0.0
    bids = f"{statistics.fmean(made):.0%} / {statistics.fmean(field_made):.0%}" if made else "—"
    return (
        f"| {game_id} | {hero} vs {field_} | {len(units)} | {win:.1%} ± {win_ci:.1%} "
        f"| {margin:+.2f} ± {margin_ci:.2f} | {verdict} | {bids} | {mean_ms:.0f} "
        f"| {percentile(times, 0.95) * 1000:.0f} | {field_ms:.0f} |"
    )


# ---------------------------------------------------------------- waiting under load


async def _table_loop(
    computer: Any, game_id: str, seed: int, until: float, waits: list[float]
) -> None:
    """One table whose every seat is a strong computer: ask, wait, apply, repeat."""
    game = start_game(game_id, seed)
    move = 0
    while time.perf_counter() < until and not game.finished:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        started = time.perf_counter()
        action = await computer.choose(game_id, view, "strong", seed * 1000 + move)
        if len(view["legal"]) > 1:
            waits.append(time.perf_counter() - started)
        game.apply(seat, action)
        move += 1


async def _load(tables: int, game_id: str, seconds: float) -> tuple[list[float], dict[int, int]]:
    from sessions.computer import ComputerPlayer  # the bot's pool; imports only games

    computer = ComputerPlayer()
    try:
        # Start the workers before the clock runs.
        first = start_game(game_id, 1)
        await computer.choose(game_id, first.view(first.to_move), "strong", 0)
        waits: list[float] = []
        until = time.perf_counter() + seconds
        await asyncio.gather(
            *(_table_loop(computer, game_id, 100 + t, until, waits) for t in range(tables))
        )
        return waits, computer.worker_memory()
    finally:
        computer.close()


def run_load(game_id: str, seconds: float) -> None:
    """Print think time p50/p95 (queueing included) with 1, 10 and 20 tables at once."""
    print(f"\n| {game_id}: tables | moves | p50 ms | p95 ms | max ms | worker RSS MiB |")
    print("|---|---|---|---|---|---|")
    for tables in (1, 10, 20):
        waits, memory = asyncio.run(_load(tables, game_id, seconds))
        rss = ", ".join(f"{kib / 1024:.0f}" for kib in memory.values())
        print(
            f"| {tables} | {len(waits)} | {percentile(waits, 0.5) * 1000:.0f} "
            f"| {percentile(waits, 0.95) * 1000:.0f} | {max(waits) * 1000:.0f} | {rss} |",
            flush=True,
        )


def game_budgets(
    game_id: str, think: float, playouts: bool, normal_cap: int | None
) -> dict[str, Budget | None]:
    """The levels' budgets in ``game_id``: strong thinking ``think`` seconds,
    normal 0.3 of it and at most its game's samples (``level_budget``) or
    ``normal_cap``; or playout budgets (normal's samples, strong 300)."""
    normal = level_budget(game_id, "normal")
    assert normal is not None
    samples = normal_cap or normal.playouts
    if playouts:
        return {"normal": Budget(playouts=samples), "strong": Budget(playouts=300)}
    return {
        "normal": Budget(seconds=0.3 * think, playouts=samples),
        "strong": Budget(seconds=think),
    }


def main() -> None:
    """Parse the command line and print the strength table (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every game's duplicate seeds"
    )
    parser.add_argument("--games", nargs="*", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--pairs", nargs="*", default=[f"{h}:{f}" for h, f in PAIRS])
    parser.add_argument(
        "--think", type=float, default=1.0, help="strong's and the reference's seconds per move"
    )
    parser.add_argument(
        "--playouts", action="store_true", help="normal its samples, strong 300 playouts"
    )
    parser.add_argument(
        "--normal", type=int, metavar="N", help="cap normal at N samples (instead of its game's)"
    )
    parser.add_argument(
        "--first", type=int, default=0, help="skip this many seeds (a run that adds deals)"
    )
    parser.add_argument(
        "--starts", type=int, nargs="*", help="the deals a match may start at (King 6-9: trumps)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--install", action="store_true", help="install the bench extra (OpenSpiel) first"
    )
    parser.add_argument("--load", action="store_true", help="measure waiting under load")
    parser.add_argument("--load-seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.install:
        root = Path(__file__).resolve().parent.parent
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "-e", f"{root}[bench]"],
            check=True,
        )
    if args.load:
        for game_id in args.games if args.games != list(TABLES) else ["oh_hell"]:
            run_load(game_id, args.load_seconds)
        return
    print(
        "| game | pairing | deals | hero wins | hero margin / deal | CI > 0 "
        "| bids made hero / field | think mean ms | think p95 ms | field think mean ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    if args.starts:
        for game_id in args.games:
            TABLES[game_id] = dataclasses.replace(TABLES[game_id], starts=tuple(args.starts))
    with ProcessPoolExecutor(args.workers) as pool:
        for game_id in args.games:
            budgets = game_budgets(game_id, args.think, args.playouts, args.normal)
            for pair in args.pairs:
                hero, field_ = pair.split(":")
                seeds = TABLES[game_id].seeds * (CHEAP_FACTOR if hero == "easy" else 1)
                seeds = max(1, round(seeds * args.scale))
                row = run_pair(pool, game_id, hero, field_, seeds, budgets, args.think, args.first)
                print(row, flush=True)
            print(f"\n{game_id} budgets: {budgets}")
    print(f"\n{time.perf_counter() - started:.0f} s, think {args.think} s")


if __name__ == "__main__":
    main()

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
decision (decisions with a real choice only) as mean and p95.

Think time: strong and the reference get ``--think`` seconds per move (the
same for both), normal 0.3 of it and at most its game's samples (200, fewer
in Rummy and Mau-Mau; ``--normal N``: another cap). ``--playouts`` uses
playout budgets instead
(reproducible, for strong vs easy and normal vs easy only).

The reference (:func:`reference_move`) is a plain information-set MCTS in the
manner of OpenSpiel's Python ``ISMCTSBot``: UCT with c = 1.5 on the raw deal
score, uniformly random rollouts, a fresh sampled world per simulation, nodes
keyed by the mover's information (the public actions since the root and the
mover's own hand), the most visited root action chosen. In Oh Hell it runs on
the search's compact state, which is about as fast as OpenSpiel's C++ engine
driven from Python (the issue's reference ran on that engine); elsewhere on
the rules engine, as Koloda's search does.

``--load`` measures the bot's waiting instead: 1, 10 and 20 tables whose
strong computers think at once through ``sessions/computer.py``'s pool, the time
from "computer to move" to the move (queueing included), p50 and p95.

    .venv/bin/python bench/computer.py --scale 0.5 --games eleven king
    .venv/bin/python bench/computer.py --pairs strong:reference --games oh_hell --think 0.25
    .venv/bin/python bench/computer.py --load
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import REGISTRY
from games.ai import PLAYBOOKS, Budget, choose, level_budget
from games.ai import compact_oh_hell as compact
from games.ai.compact import INDEX, NAMES
from games.base import Event, Game, View


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
    # Trump deals of 1-8 cards (the 12-card deals cost most and say the same).
    "oh_hell": Table(4, {}, deals=1, seeds=40, starts=tuple(range(8))),
    # Every deal of the programme: six negative, four trump deals.
    "king": Table(4, {}, deals=1, seeds=20, starts=tuple(range(10))),
}
#: Pairings without a search are cheap: they get this many times the seeds.
CHEAP_FACTOR = 4

PAIRS = (("strong", "reference"), ("strong", "easy"), ("normal", "easy"), ("easy", "random"))
#: The reference's UCT constant and think time (per move, as strong's).
REFERENCE_C = 1.5


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
    #: Oh Hell: per deal, 1.0 if the hero made its bid; and the field's share.
    made: list[float] = field(default_factory=list)
    field_made: list[float] = field(default_factory=list)


# ---------------------------------------------------------------- the reference


class RefNode:
    """Statistics of one information set's actions (visits, summed returns)."""

    __slots__ = ("returns", "visits")

    def __init__(self) -> None:
        self.visits: dict[str, int] = {}
        self.returns: dict[str, float] = {}


def reference_move(game_id: str, view: View, seconds: float, seed: int) -> str:
    """A plain IS-MCTS move (OpenSpiel ``ISMCTSBot`` style, see the module docstring).

    It runs on the compact state where Koloda's search has one (as fast as
    OpenSpiel's C++ engine from Python in Oh Hell, bench/games.py, like the
    issue's reference), bidding included in Oh Hell; elsewhere on the rules
    engine, like Koloda's own search.
    """
    legal: list[str] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    rng = random.Random(seed)
    playbook = PLAYBOOKS[game_id]
    space = playbook.compact(view) if playbook.compact is not None else None
    if space is not None and game_id != "oh_hell":
        sample: Callable[[random.Random], Any] = space.sample
        encode, decode = space.encode, space.decode
    elif game_id == "oh_hell":
        sampler = compact.Sampler(view)
        sample = sampler.sample

        def encode(action: str) -> int:
            return compact.BID + int(action[4:]) if action[:4] == "bid:" else INDEX[action]

        def decode(action: int) -> str:
            return f"bid:{action - compact.BID}" if action >= compact.BID else NAMES[action]
    else:
        cls = REGISTRY[game_id]

        def sample(r: random.Random) -> Any:
            return cls.determinize(view, r)

        def encode(action: str) -> Any:
            return action

        decode = encode
    root_legal = [encode(a) for a in legal]
    nodes: dict[tuple[Any, ...], RefNode] = {}
    root: RefNode | None = None
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        root = _reference_simulation(sample(rng), root_legal, nodes, rng)
    if root is None:
        return legal[rng.randrange(len(legal))]
    return decode(max(root_legal, key=lambda a: root.visits.get(a, 0)))


def _info_key(world: Any, mover: int, actions: tuple[Any, ...]) -> tuple[Any, ...]:
    hand = world.hands[mover]
    return (mover, actions, hand if isinstance(hand, int) else tuple(sorted(hand)))


def _reference_simulation(
    world: Any,
    root_legal: list[Any],
    nodes: dict[tuple[Any, ...], RefNode],
    rng: random.Random,
) -> RefNode:
    """One simulation: select and expand by UCT over information sets, random
    rollout, back up raw deal gains; returns the root node."""
    before = list(world.scores)
    deal_no = world.deal_no
    actions: tuple[Any, ...] = ()
    path: list[tuple[RefNode, Any, int]] = []
    expanding = True
    while world.to_move is not None and world.deal_no == deal_no:
        mover = world.to_move
        legal = root_legal if not actions else world.legal_actions(mover)
        if expanding:
            key = _info_key(world, mover, actions)
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = RefNode()
                expanding = False  # expand one node, then roll out
            untried = [a for a in legal if a not in node.visits]
            if untried:
                action = untried[rng.randrange(len(untried))]
            else:
                total = sum(node.visits[a] for a in legal)
                action = max(
                    legal,
                    key=lambda a: (
                        node.returns[a] / node.visits[a]
                        + REFERENCE_C * math.sqrt(math.log(total) / node.visits[a])
                    ),
                )
            path.append((node, action, mover))
        else:
            action = legal[rng.randrange(len(legal))]
        world._apply(mover, action)
        actions = (*actions, action)
    gains = [float(a - b) for a, b in zip(world.scores, before, strict=True)]
    for node, action, mover in path:
        node.visits[action] = node.visits.get(action, 0) + 1
        node.returns[action] = node.returns.get(action, 0.0) + gains[mover]
    return path[0][0]


# ---------------------------------------------------------------- playing


def agent(
    level: str, game_id: str, budgets: dict[str, Budget | None], think: float
) -> Callable[[Game, int, int], str]:
    """A move chooser: random, the reference or ``choose`` at ``level``, seeded per move."""

    def move(game: Game, seat: int, salt: int) -> str:
        view = game.view(seat)
        if level == "random":
            legal = view["legal"]
            return str(legal[random.Random(salt).randrange(len(legal))])
        if level == "reference":
            return reference_move(game_id, view, think, salt)
        return choose(game_id, view, level, salt, budgets.get(level))

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
        if seat == hero_seat and len(game.legal_actions(seat)) > 1:
            result.think.append(spent)
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
) -> tuple[list[Unit], list[float], list[float], list[float]]:
    """All seatings of one seed, folded into duplicate units per deal."""
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
    made = [m for s in seatings for m in s.made]
    field_made = [m for s in seatings for m in s.field_made]
    return units, [t for s in seatings for t in s.think], made, field_made


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
    times: list[float] = []
    made: list[float] = []
    field_made: list[float] = []
    for future in futures:
        seed_units, seed_think, seed_made, seed_field = future.result()
        units += seed_units
        times += seed_think
        made += seed_made
        field_made += seed_field
    margins = [statistics.fmean(u.margins) for u in units]
    wins = [statistics.fmean(u.wins) for u in units]
    margin, margin_ci = interval(margins)
    win, win_ci = interval(wins)
    verdict = "yes" if margin - margin_ci > 0 else "no" if margin + margin_ci > 0 else "below"
    mean_ms = statistics.fmean(times) * 1000 if times else 0.0
    bids = f"{statistics.fmean(made):.0%} / {statistics.fmean(field_made):.0%}" if made else "—"
    return (
        f"| {game_id} | {hero} vs {field_} | {len(units)} | {win:.1%} ± {win_ci:.1%} "
        f"| {margin:+.2f} ± {margin_ci:.2f} | {verdict} | {bids} | {mean_ms:.0f} "
        f"| {percentile(times, 0.95) * 1000:.0f} |"
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
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--load", action="store_true", help="measure waiting under load")
    parser.add_argument("--load-seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.load:
        for game_id in args.games if args.games != list(TABLES) else ["oh_hell"]:
            run_load(game_id, args.load_seconds)
        return
    print(
        "| game | pairing | deals | hero wins | hero margin / deal | CI > 0 "
        "| bids made hero / field | think mean ms | think p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
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

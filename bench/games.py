"""Rules-engine speed: random legal play, one core.

Prints, per game, full matches per second, deals per second and decisions
(legal_actions + apply) per second, and what search lives on: the cost of
``clone()`` and of ``legal_actions()`` on mid-deal states. Then the same for
the compact search states of King, Eleven and Two-Ten-Jack next to their
engines, on the same deals and states. Then the reference
workload for comparing with other engines, a 4-player, 12-card Oh Hell deal
(bidding and play, uniformly random, driven from Python), side by side with
OpenSpiel's C++ ``oh_hell`` in the same run when ``pyspiel`` is installed
(``pip install -e '.[bench]'``; never needed by the bot or the tests).

    .venv/bin/python bench/games.py [--seconds 3] [--game eleven]

``--search`` instead measures strong's IS-MCTS iterations per second (its
1 s budget) on six mid-deal views per trick game.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

if __package__ in (None, ""):  # run as a script: this file must not shadow the games package
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from games import REGISTRY, Game, View


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


def mid_deal_states(game_id: str, players: int, count: int = 40) -> list[Game]:
    """States a few moves into a deal, from random play (what a search clones)."""
    cls = REGISTRY[game_id]
    rng = random.Random(3)
    states: list[Game] = []
    while len(states) < count:
        game = cls.new(players, seed=rng.randrange(2**32))
        for _ in range(rng.randrange(4, 20)):
            seat = game.to_move
            if seat is None:
                break
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.to_move is not None:
            states.append(game)
    return states


#: A state measured by :func:`per_call_us`: an engine's or a compact search state.
State = TypeVar("State")


def per_call_us(states: list[State], call: Callable[[State], object], seconds: float) -> float:
    """Microseconds per ``call`` over ``states``, for about ``seconds``."""
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state in states:
            call(state)
        calls += len(states)
    return (time.perf_counter() - start) / calls * 1e6


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


def bench_compact_12(seconds: float) -> tuple[float, float, float]:
    """The search's compact Oh Hell state on the same workload: deals/s (deal,
    bid, play at random), clone µs and legal-moves µs on mid-deal states."""
    from games.ai.compact_oh_hell import random_deal

    rng = random.Random(2)
    mids = []
    for _ in range(40):  # mid-deal states for the clone and legal-moves costs
        state = random_deal(4, 12, rng)
        for _ in range(rng.randrange(1, 40)):
            seat = state.turn
            assert seat is not None
            state._apply(seat, rng.choice(state.legal_actions(seat)))
        mids.append(state)
    deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = random_deal(4, 12, rng)
        state.bids = [rng.randrange(13) for _ in range(4)]
        turn = state.turn
        while turn is not None:
            legal = state.legal_actions(turn)
            state._apply(turn, legal[rng.randrange(len(legal))])
            turn = state.turn
        deals += 1
    rate = deals / (time.perf_counter() - start)
    clone = per_call_us(mids, lambda s: s.clone(), min(0.2, seconds))
    legal_us = per_call_us(mids, lambda s: s.legal_actions(s.turn), min(0.2, seconds))  # type: ignore[arg-type]
    return rate, clone, legal_us


def compact_states() -> dict[str, Callable[[Game], Any]]:
    """Per game with a compact search state: the engine state -> the compact one
    (reading every hand and the stock: for the bench only)."""
    from games.ai import compact_eleven, compact_king, compact_two_ten_jack

    def cards(game: Game) -> tuple[View, list[list[str]], list[str]]:
        state = vars(game)
        return game.view(game.to_move), state["hands"], state.get("stock", [])

    return {
        "eleven": lambda g: compact_eleven.from_view(*cards(g)),
        "two_ten_jack": lambda g: compact_two_ten_jack.from_view(*cards(g)),
        "king": lambda g: compact_king.from_view(*cards(g)[:2]),
    }


def deal_starts(game_id: str, players: int, count: int = 40) -> list[Game]:
    """Engine states at the first card of a deal (King: its trick deals, trumps
    named at random)."""
    cls = REGISTRY[game_id]
    rng = random.Random(4)
    starts: list[Game] = []
    for _ in range(count):
        game = cls.new(players, seed=rng.randrange(2**32))
        if game_id == "king":
            programme = game.view(None)["contracts"]
            game.deal_no = rng.choice([i for i, c in enumerate(programme) if c != "lottery"])
            game._deal(game.shuffled_deck())
            if game.view(None)["phase"] == "trump_choice":
                seat = game.to_move
                assert seat is not None
                game.apply(seat, rng.choice(game.legal_actions(seat)))
        starts.append(game)
    return starts


def deal_rate(starts: list[Any], seconds: float, rng: random.Random) -> float:
    """Deals per second of random play from ``starts`` to the deal's end (engine or compact)."""
    deals = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        for start in starts:
            state = start.clone()
            deal_no = state.deal_no
            seat = state.to_move
            while seat is not None and state.deal_no == deal_no:
                legal = state.legal_actions(seat)
                state._apply(seat, legal[rng.randrange(len(legal))])
                seat = state.to_move
        deals += len(starts)
    return deals / (time.perf_counter() - began)


def legal_now(state: Any) -> object:
    """The legal actions of the seat to move (engine or compact state)."""
    return state.legal_actions(state.to_move)


def bench_compact(game_id: str, players: int, seconds: float) -> dict[str, float]:
    """The engine and the compact search state on the same deals: random-play
    deals/s, clone µs and legal-moves µs (mid-deal), in interleaved slices."""
    convert = compact_states()[game_id]
    starts = deal_starts(game_id, players)
    compact_starts = [convert(g) for g in starts]
    mids = [g for g in mid_deal_states(game_id, players) if g.view(None).get("phase") == "play"]
    compact_mids = [convert(g) for g in mids]
    rng = random.Random(5)
    slices = 5
    figures: dict[str, list[float]] = {}
    for _ in range(slices):
        share = seconds / slices / 4
        for key, value in (
            ("engine deals/s", deal_rate(starts, share, rng)),
            ("compact deals/s", deal_rate(compact_starts, share, rng)),
            ("engine clone", per_call_us(mids, lambda g: g.clone(), share / 2)),
            ("compact clone", per_call_us(compact_mids, lambda s: s.clone(), share / 2)),
            ("engine legal", per_call_us(mids, legal_now, share / 2)),
            ("compact legal", per_call_us(compact_mids, legal_now, share / 2)),
        ):
            figures.setdefault(key, []).append(value)
    return {
        key: sum(values) / slices if "deals" in key else min(values)
        for key, values in figures.items()
    }


def search_views(game_id: str, players: int, count: int) -> list[View]:
    """Mid-deal views of the seat to move with a choice to make, from random play
    (King: across its trick deals)."""
    rng = random.Random(11)
    views: list[View] = []
    while len(views) < count:
        game = REGISTRY[game_id].new(players, seed=rng.randrange(2**31))
        if game_id == "king":
            game.deal_no = len(views) % 9
            game._deal(game.shuffled_deck())
        for _ in range(rng.randrange(2, 24)):
            seat = game.to_move
            if seat is None:
                break
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.to_move is None:
            continue
        view = game.view(game.to_move)
        if len(view["legal"]) > 1 and view.get("phase") == "play":
            views.append(view)
    return views


def bench_search(game_id: str, players: int, count: int = 6) -> list[float]:
    """Strong's IS-MCTS iterations per second at its 1 s budget on ``count``
    mid-deal views, sorted."""
    from games.ai import Budget, decide

    rates = []
    for number, view in enumerate(search_views(game_id, players, count)):
        decision = decide(game_id, view, "strong", number, Budget(seconds=1.0))
        rates.append(decision.samples / decision.seconds)
    return sorted(rates)


def bench_open_spiel_12(seconds: float) -> tuple[float, float] | None:
    """OpenSpiel's oh_hell, 4 players, 12 tricks: random deals/s from Python, clone µs."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})
    rng = random.Random(2)
    deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        deals += 1
    rate = deals / (time.perf_counter() - start)
    mid = game.new_initial_state()
    while mid.is_chance_node() or len(mid.legal_actions()) < 2 or rng.random() < 0.9:
        if mid.is_terminal():
            mid = game.new_initial_state()
        mid.apply_action(rng.choice(mid.legal_actions()))
    clone = per_call_us([mid], lambda s: s.clone(), min(0.2, seconds))
    return rate, clone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game")
    parser.add_argument("--game", choices=sorted(REGISTRY), help="only this game")
    parser.add_argument(
        "--search", action="store_true", help="strong's IS-MCTS iterations/s instead"
    )
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
    if args.search:
        print("strong's IS-MCTS iterations/s at 1 s, six mid-deal views: median (all)")
        for game_id in ("king", "eleven", "two_ten_jack", "oh_hell"):
            if args.game in (None, game_id):
                rates = bench_search(game_id, setups[game_id])
                listed = " ".join(f"{r:.0f}" for r in rates)
                print(f"{game_id:<14}{rates[len(rates) // 2]:>8.0f}  ({listed})")
        return
    print(
        f"{'game':<14}{'players':>8}{'matches/s':>12}{'deals/s':>12}{'decisions/s':>14}"
        f"{'clone µs':>10}{'legal µs':>10}"
    )
    for game_id, players in setups.items():
        if game_id not in REGISTRY or (args.game and args.game != game_id):
            continue
        r = bench_game(game_id, players, args.seconds)
        states = mid_deal_states(game_id, players)
        clone = per_call_us(states, lambda g: g.clone(), args.seconds / 3)
        legal = per_call_us(states, lambda g: g.legal_actions(g.to_move), args.seconds / 3)  # type: ignore[arg-type]
        print(
            f"{game_id:<14}{players:>8}{r['matches/s']:>12.1f}"
            f"{r['deals/s']:>12.1f}{r['decisions/s']:>14.0f}{clone:>10.1f}{legal:>10.1f}"
        )
    compact = [g for g in compact_states() if args.game in (None, g)]
    if compact:
        print(
            "\nsearch states: engine vs compact, random play of one deal from its first card"
            " (King: its trick deals); clone and legal moves mid-deal"
        )
        print(
            f"{'game':<14}{'players':>8}{'deals/s':>10}{'compact':>10}{'clone µs':>10}"
            f"{'compact':>9}{'legal µs':>10}{'compact':>9}"
        )
        for game_id in compact:
            players = setups[game_id]
            f = bench_compact(game_id, players, args.seconds)
            print(
                f"{game_id:<14}{players:>8}"
                f"{f['engine deals/s']:>10.0f}{f['compact deals/s']:>10.0f}"
                f"{f['engine clone']:>10.1f}{f['compact clone']:>9.1f}"
                f"{f['engine legal']:>10.1f}{f['compact legal']:>9.1f}"
            )
    if "oh_hell" in REGISTRY and args.game in (None, "oh_hell"):
        # Interleaved in short slices, so a change in the machine's load hits all three alike.
        slices = 10
        runs = [
            (
                bench_oh_hell_12(args.seconds / slices),
                bench_compact_12(args.seconds / slices),
                bench_open_spiel_12(args.seconds / slices),
            )
            for _ in range(slices)
        ]
        rate = sum(r[0] for r in runs) / slices
        fast = sum(r[1][0] for r in runs) / slices
        fast_clone = min(r[1][1] for r in runs)
        fast_legal = min(r[1][2] for r in runs)
        spiel_runs = [r[2] for r in runs if r[2] is not None]
        spiel = (
            (sum(x[0] for x in spiel_runs) / slices, min(x[1] for x in spiel_runs))
            if spiel_runs
            else None
        )
        print("\noh_hell reference workload: 4 players, one 12-card deal, random bids and play")
        print(f"  rules engine (games.oh_hell):       {rate:>7.0f} deals/s")
        print(
            f"  search state (compact_oh_hell):     {fast:>7.0f} deals/s, "
            f"clone {fast_clone:.1f} µs, legal moves {fast_legal:.1f} µs"
        )
        if spiel is None:
            print("  OpenSpiel not installed (pip install -e '.[bench]'): no side-by-side figure")
        else:
            print(
                f"  OpenSpiel C++ oh_hell from Python:  {spiel[0]:>7.0f} deals/s, clone "
                f"{spiel[1]:.1f} µs — engine {rate / spiel[0]:.2f}x, search state "
                f"{fast / spiel[0]:.2f}x OpenSpiel"
            )


if __name__ == "__main__":
    main()

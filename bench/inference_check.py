"""How much Oh Hell's inference from the bids and the play tells (docs/computer-players.md).

Deals 4-player hands of 2-12 cards (hook on, fixed seeds), has strong (with
and without inference, alternately per deal) bid them at ``--think``
seconds, and then, from the view of the seat that leads the first trick
(every opponent's bid seen):

- **the model against strong's bids**: bid - ``likely_tricks`` (mean,
  spread) and how far the opponent model's likeliest bid is from strong's;
- **the worlds**: for every opponent, how far his sampled hand's count of
  likely winners is from his real hand's (mean absolute error), blind and
  weighted, and his aces, kings and trumps (real, blind, weighted) split by
  a bid of 0 and a bid of half the cards or more; the effective sample
  size of the bids' weights over blind worlds (a share of them); how often
  the rejection sampler runs out of tries (the likeliest of them taken).

``--play N`` plays N deals out with strong (no inference) and prints how
often its card is the rule of thumb's (the play model), keeping every
position after the first trick in ``--positions``; with that file, the
opponents' real cards a world puts in place there, blind, by the bids, by
the bids and the play; ``--cost N``: strong's IS-MCTS iterations a second
at N of those positions, blind and inferring (``--reuse``: with these shares
of the samples copies of worlds kept, ``games.ai.inference.REUSE``).

    .venv/bin/python bench/inference_check.py --deals 264 --think 0.1 --cache bids.json
    .venv/bin/python bench/inference_check.py --deals 0 --play 24 --positions play.json
    .venv/bin/python bench/inference_check.py --deals 0 --positions play.json --cost 40
    .venv/bin/python bench/inference_check.py --deals 0 --positions play.json --cost 30 \
        --think 1 --reuse 0.75 0.9 0.95
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import Budget, choose, decide, inference
from games.ai import compact_oh_hell as compact
from games.ai import oh_hell as ai
from games.ai.compact import INDEX, SUIT_MASKS, mask_of
from games.ai.compact_oh_hell import Sampler
from games.cards import SUITS
from games.oh_hell import OhHell

HIGH = sum(1 << c for c in range(52) if c % 13 >= 11)


def high_cards(hand: int, trump: int) -> int:
    """Aces, kings and trumps in a compact hand."""
    return (hand & HIGH).bit_count() + (hand & SUIT_MASKS[trump] & ~HIGH).bit_count()


def dealt(number: int) -> OhHell:
    """Deal ``number`` dealt, not yet bid: 4 players, the hook on, 2-12 cards
    (2 + number mod 11), the dealer ``number`` mod 4, fixed seeds."""
    game = OhHell.new(4, {"hook": True}, seed=900 + number, dealer=0)
    game.deal_no = 1 + number % 11
    game.dealer = number % 4
    game._deal(game.shuffled_deck())
    return game


def bid_deal(number: int, think: float) -> OhHell:
    """Deal ``number`` bid by strong (with inference on odd deals) at ``think`` s."""
    game = dealt(number)
    while game.phase == "bid":
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        with mock.patch.object(inference, "ENABLED", number % 2 == 1):
            bid = choose("oh_hell", view, "strong", number * 10 + seat, Budget(seconds=think))
        game.apply(seat, bid)
    return game


def deals(count: int, think: float, cache: Path | None) -> list[dict[str, Any]]:
    """The bid deals as records (read from ``cache`` when it holds them)."""
    if cache is not None and cache.exists():
        records: list[dict[str, Any]] = json.loads(cache.read_text())
        if len(records) >= count:
            return records[:count]
    records = []
    for number in range(count):
        game = bid_deal(number, think)
        records.append({"number": number, "think": think, "view": game.view(game.to_move)})
        print(f"bid deal {number}", file=sys.stderr, flush=True)
    if cache is not None:
        cache.write_text(json.dumps(records))
    return records


def real_game(record: dict[str, Any]) -> OhHell:
    """The record's deal dealt again (the real hands)."""
    return dealt(int(record["number"]))


def model_rows(records: list[dict[str, Any]]) -> None:
    """Strong's bids against the count and the opponent model (``model_bid``)."""
    gaps: dict[str, list[float]] = {}
    misses: dict[str, list[float]] = {}
    for record in records:
        view = record["view"]
        game = real_game(record)
        size = int(view["deal_size"])
        trump = SUITS.index(view["trumps"])
        band = f"{3 * ((size - 1) // 3) + 1}-{3 * ((size - 1) // 3) + 3}"
        for seat, bid in enumerate(view["bids"]):
            hand = mask_of(game.hands[seat])
            count = ai.likely_tricks_mask(hand, trump, 4)
            for key in (band, "all"):
                gaps.setdefault(key, []).append(bid - count)
                misses.setdefault(key, []).append(bid - ai.model_bid(hand, trump, 4))
    print("| cards | bids | bid - count: mean | spread | bid - model: mean | spread | exact |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(gaps, key=lambda k: (k == "all", len(k), k)):
        miss = misses[key]
        print(
            f"| {key} | {len(gaps[key])} | {statistics.fmean(gaps[key]):+.2f} "
            f"| {statistics.pstdev(gaps[key]):.2f} | {statistics.fmean(miss):+.2f} "
            f"| {statistics.pstdev(miss):.2f} "
            f"| {sum(1 for m in miss if abs(m) < 0.5) / len(miss):.0%} |"
        )


def world_rows(records: list[dict[str, Any]], worlds: int) -> None:
    """The worlds blind and weighted, against the real hands."""
    error: dict[str, list[float]] = {"blind": [], "weighted": []}
    placed: dict[str, list[float]] = {"blind": [], "weighted": []}
    high: dict[tuple[str, str], list[float]] = {}
    ess: list[float] = []
    ran_out: list[float] = []
    kept: list[float] = []
    for record in records:
        view = record["view"]
        game = real_game(record)
        seat = int(view["seat"])
        trump = SUITS.index(view["trumps"])
        size = int(view["deal_size"])
        sampler = Sampler(view)
        weight = ai.bid_weight(view)
        weighted = inference.Weighted(sampler.sample, weight, tries=ai.BID_TRIES, reuse=0.0)
        rng = random.Random(int(record["number"]))
        blind_worlds = [sampler.sample(rng) for _ in range(worlds)]
        weights = [weight(w) for w in blind_worlds]
        total = sum(weights)
        ess.append(total * total / sum(w * w for w in weights) / worlds if total else 0.0)
        before = weighted.kept
        weighted_worlds = [weighted.fresh(rng) for _ in range(worlds)]
        kept.append(weighted.kept / max(1, weighted.drawn))
        ran_out.append(1 - (weighted.kept - before) / worlds)
        for other in range(4):
            if other == seat:
                continue
            bid = int(view["bids"][other])
            real = mask_of(game.hands[other])
            real_count = ai.likely_tricks_mask(real, trump, 4)
            kind = "bid 0" if bid == 0 else "bid ≥ half" if 2 * bid >= size else "other"
            for name, sample in (("blind", blind_worlds), ("weighted", weighted_worlds)):
                counts = [ai.likely_tricks_mask(w.hands[other], trump, 4) for w in sample]
                error[name].append(abs(statistics.fmean(counts) - real_count))
                placed[name].append(
                    statistics.fmean((w.hands[other] & real).bit_count() for w in sample)
                )
                high.setdefault((kind, name), []).append(
                    statistics.fmean(high_cards(w.hands[other], trump) for w in sample)
                )
            high.setdefault((kind, "real"), []).append(high_cards(real, trump))
    print(f"\n{len(records)} views, {worlds} worlds each")
    for name, values in error.items():
        print(f"- |sampled count - real count|, {name}: {statistics.fmean(values):.3f}")
    for name, values in placed.items():
        print(
            f"- an opponent's real cards in his sampled hand, {name}: "
            f"{statistics.fmean(values):.3f}"
        )
    print(f"- effective sample size of the bid weights: {statistics.fmean(ess):.0%} of the worlds")
    print(f"- worlds kept per draw: {statistics.fmean(kept):.0%}")
    print(f"- samples where the tries ran out: {statistics.fmean(ran_out):.0%}")
    print("\n| opponent | n | high cards real | blind | weighted |")
    print("|---|---|---|---|---|")
    for kind in ("bid 0", "other", "bid ≥ half"):
        columns = {name: high.get((kind, name), []) for name in ("real", "blind", "weighted")}
        if columns["real"]:
            print(
                f"| {kind} | {len(columns['real'])} | "
                + " | ".join(f"{statistics.fmean(v):.2f}" for v in columns.values())
                + " |"
            )


def play_rows(count: int, think: float, cache: Path | None) -> None:
    """How often strong (no inference) plays the rule of thumb's card, by the
    number of legal cards (the play model, ``games.ai.play_inference``); the
    positions after the first trick kept in ``cache`` (for :func:`placed_rows`)."""
    agree: dict[int, list[float]] = {}
    positions: list[dict[str, Any]] = []
    for number in range(count):
        game = bid_deal(number, think)
        while game.phase == "play":
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            with mock.patch.object(inference, "ENABLED", False):
                card = choose("oh_hell", view, "strong", number * 100 + seat, Budget(seconds=think))
            legal = view["legal"]
            if len(legal) > 1 and view["history"]:
                positions.append({"view": view, "hands": [list(hand) for hand in game.hands]})
            if len(legal) > 1:
                state = compact.from_view(view, [list(hand) for hand in game.hands])
                actions = state.legal_actions(seat)
                rule = compact.easy_rollout(state, seat, actions, random.Random(0))
                agree.setdefault(min(len(legal), 5), []).append(float(rule == INDEX[card]))
            game.apply(seat, card)
        print(f"played deal {number}", file=sys.stderr, flush=True)
    print("\n| legal cards | plays | strong plays the rule of thumb's card |")
    print("|---|---|---|")
    for legal_count in sorted(agree):
        values = agree[legal_count]
        print(f"| {legal_count} | {len(values)} | {statistics.fmean(values):.0%} |")
    every = [v for values in agree.values() for v in values]
    print(f"| all | {len(every)} | {statistics.fmean(every):.0%} |")
    if cache is not None:
        cache.write_text(json.dumps(positions))


def placed_rows(positions: list[dict[str, Any]], worlds: int) -> None:
    """At positions of play: the opponents' real cards a world gives them, and
    their real aces, kings and trumps, blind, by the bids, by the bids and the play."""
    placed: dict[str, list[float]] = {}
    for number, position in enumerate(positions):
        view = position["view"]
        seat = int(view["seat"])
        real = [mask_of(hand) for hand in position["hands"]]
        trump = SUITS.index(view["trumps"])
        for name in ("blind", "bids", "bids and play"):
            with mock.patch.object(inference, "FROM_PLAY", name != "bids"):
                sampler = ai.world_sampler(view, name != "blind")
            draw = sampler.fresh if isinstance(sampler, inference.Weighted) else sampler.sample
            rng = random.Random(number)
            drawn = [draw(rng) for _ in range(worlds)]
            placed.setdefault(name, []).append(
                statistics.fmean(
                    sum((w.hands[o] & real[o]).bit_count() for o in range(4) if o != seat)
                    for w in drawn
                )
            )
            placed.setdefault(f"{name}: high", []).append(
                statistics.fmean(
                    sum(
                        (w.hands[o] & real[o] & (HIGH | SUIT_MASKS[trump])).bit_count()
                        for o in range(4)
                        if o != seat
                    )
                    for w in drawn
                )
            )
    print(f"\n{len(positions)} positions of play, {worlds} worlds each")
    for name, values in placed.items():
        print(f"- the opponents' real cards in place, {name}: {statistics.fmean(values):.3f}")


def cost_rows(
    positions: list[dict[str, Any]], count: int, think: float, reuses: list[float]
) -> None:
    """Strong's IS-MCTS iterations a second at ``think`` seconds, blind and
    inferring (with each share of copied worlds in ``reuses``, ``inference.REUSE``),
    at ``count`` positions of play with more than 3 cards in hand."""
    chosen = [p["view"] for p in positions if len(p["view"]["hand"]) > 3][:count]
    runs = [("blind", False, inference.REUSE)]
    runs += [(f"inferring, reuse {reuse:g}", True, reuse) for reuse in reuses]
    for name, on, reuse in runs:
        rates = []
        for number, view in enumerate(chosen):
            with mock.patch.object(inference, "ENABLED", on), \
                    mock.patch.object(inference, "REUSE", reuse):
                made = decide("oh_hell", view, "strong", number, Budget(seconds=think))
            rates.append(made.samples / max(made.seconds, 1e-6))
        print(f"- strong's iterations a second, {name}: {statistics.fmean(rates):.0f}")


def main() -> None:
    """Bid the deals (or read them from ``--cache``) and print the diagnosis."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=96)
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--cache", type=Path, help="a JSON file keeping the bid deals")
    parser.add_argument("--spread", type=float, help="BID_SPREAD to weigh the worlds by")
    parser.add_argument("--tries", type=int, help="MAX_TRIES for a weighted world")
    parser.add_argument("--play", type=int, default=0, help="also play this many deals out")
    parser.add_argument("--positions", type=Path, help="a JSON file keeping the positions of play")
    parser.add_argument("--cost", type=int, default=0, help="time strong at this many positions")
    parser.add_argument("--reuse", type=float, nargs="+", default=[inference.REUSE],
                        help="with --cost: the shares of copied worlds to time inferring")
    args = parser.parse_args()
    if args.spread:
        ai.BID_SPREAD = args.spread
    if args.tries:
        ai.BID_TRIES = args.tries
    records = deals(args.deals, args.think, args.cache)
    if records:
        model_rows(records)
        world_rows(records, args.worlds)
    if args.play:
        play_rows(args.play, args.think, args.positions)
    if args.positions is not None and args.positions.exists():
        positions = json.loads(args.positions.read_text())
        placed_rows(positions, args.worlds)
        if args.cost:
            cost_rows(positions, args.cost, args.think, args.reuse)


if __name__ == "__main__":
    main()

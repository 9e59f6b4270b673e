"""What inference from the play costs Eleven and Two-Ten-Jack (docs/computer-players.md).

On six views per kind where the play is weighed (the positions of
tests/ai/test_ai_inference.py: an Eleven seat answering the opponent's lead;
a Two-Ten-Jack seat third to a trick the second player ducked, 3 players;
one following after the stock is gone, 4 players, 3 cards or fewer — strong
solves those endings), prints fresh worlds per CPU second, blind and
weighed, and strong's samples per second at ``--think`` seconds (IS-MCTS
iterations, or worlds of an ending solved) without and with the play
weighed, each view decided twice.

    .venv/bin/python bench/inference_cost.py [--think 0.3] [--only eleven]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import Budget, compact_eleven, decide, inference
from games.ai import compact_two_ten_jack as compact_ttj
from games.ai import eleven as ai_eleven
from games.ai import two_ten_jack as ai_ttj
from games.base import View
from tests.support.inference_deals import ducked, eleven_led_to, two_ten_jack_after_the_stock

#: Per kind of view: the game, the blind sampler, the weighed worlds.
KINDS: dict[str, tuple[str, Callable[[View], Any], Callable[[View], Any]]] = {
    "eleven, answering a lead": ("eleven", compact_eleven.Sampler, ai_eleven.search_worlds),
    "two_ten_jack 3p, after a duck": ("two_ten_jack", compact_ttj.Sampler, ai_ttj.search_worlds),
    "two_ten_jack 4p, after the stock": (
        "two_ten_jack",
        compact_ttj.Sampler,
        ai_ttj.search_worlds,
    ),
}


def views(kind: str, count: int = 6) -> list[View]:
    """``count`` views of ``kind`` with a real choice to make."""
    found: list[View] = []
    for seed in range(200):
        if kind.startswith("eleven"):
            game: Any = eleven_led_to(seed)
        elif "duck" in kind:
            game = ducked(seed)
        else:
            game = two_ten_jack_after_the_stock(seed)
        if game is not None and len(game.legal_actions(game.to_move)) > 1:
            found.append(game.view(game.to_move))
        if len(found) == count:
            break
    return found


def per_cpu_second(draw: Callable[[random.Random], Any], seconds: float = 0.5) -> float:
    """Worlds ``draw`` makes per CPU second."""
    rng = random.Random(1)
    made = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        draw(rng)
        made += 1
    return made / (time.process_time() - started)


def samples_per_second(game_id: str, seen: list[View], think: float, play: bool) -> float:
    """Strong's mean samples per second over the views, each decided twice."""
    rates = []
    with mock.patch.object(inference, "FROM_PLAY", play):
        for round_ in range(2):
            for number, view in enumerate(seen):
                decision = decide(game_id, view, "strong", 100 * round_ + number, Budget(think))
                if decision.seconds > 0:
                    rates.append(decision.samples / decision.seconds)
    return sum(rates) / len(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--think", type=float, default=0.3, help="strong's seconds a decision")
    parser.add_argument("--only", help="only the kinds of view starting with this")
    args = parser.parse_args()
    for kind, (game_id, blind, weighed) in KINDS.items():
        if args.only and not kind.startswith(args.only):
            continue
        seen = views(kind)
        plain = sum(per_cpu_second(blind(v).sample) for v in seen) / len(seen)
        fresh = sum(per_cpu_second(weighed(v).fresh) for v in seen) / len(seen)
        without = samples_per_second(game_id, seen, args.think, play=False)
        with_play = samples_per_second(game_id, seen, args.think, play=True)
        print(
            f"{kind} ({len(seen)} views): fresh worlds/s blind {plain:.0f}, weighed "
            f"{fresh:.0f}; strong's samples/s at {args.think} s without the play "
            f"{without:.0f}, with it {with_play:.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

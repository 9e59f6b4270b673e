"""What inference changes, decision by decision, and what those changes are worth
(docs/computer-players.md).

Plays deals of strong self-play (Oh Hell: deals of 2-12 cards, the hook on,
as ``bench/inference_check.py`` deals them; King: the bench's deals, any of
the ten) and at every decision with a real choice asks strong **with**
inference and strong **without** (``strong-blind``, bench/computer.py's
agents: the same view, the same salt, ``--think`` seconds each) for its
move; the deal goes on with strong's. ``--control`` also asks strong
without inference under another salt: how often the search's own noise
alone changes the move.

Where the two differ, each move is valued **in the true deal** by an oracle
that sees every hand: the same tree search (IS-MCTS on the game's compact
state, the rule of thumb below the tree) with the true deal as its only
world, ``--oracle`` iterations with the root fixed to that move, every
later bid and card chosen by the tree for its own seat, all seats seeing
all cards (double dummy). A move's value is the seat's deal score minus the
others' mean, the bench's margin; gain = value(the move with inference) -
value(the move without), both searched with the same random numbers.

King's trumps and lottery are asked once: inference does not touch them
(naming trumps samples ``King.determinize`` before anything is seen; the
lottery searches on the engine, blind), so the moves are the same.

    .venv/bin/python bench/inference_regret.py --game oh_hell --deals 88 --think 0.1
    .venv/bin/python bench/inference_regret.py --game king --deals 20 --think 0.1
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.computer import agent, game_budgets, interval, start_game
from bench.inference_check import dealt
from bench.seer import true_state
from games.ai import compact_king, compact_oh_hell, ismcts
from games.ai.compact import INDEX, rewards
from games.ai.oh_hell import likely_tricks_mask
from games.base import Game, View

#: The per-deal margin's spread between strong and strong-blind at 1 s
#: (docs/computer-players.md: Oh Hell ± 0.44 over 144 deals, King ± 10.59 over 16).
MARGIN_SD = {"oh_hell": 2.7, "king": 21.0}
#: Two oracle values closer than this (points) count as the same.
SAME = 0.5
#: Normal quantiles: a two-sided 95 % interval, and 80 % power.
Z95 = 1.96
Z80 = 0.84


@dataclass
class Asked:
    """One decision with a real choice: where it was and what each player chose."""

    deal: int
    size: str
    kind: str
    seat: int
    inferring: str
    blind: str
    control: str | None = None
    #: oracle value(inferring) - oracle value(blind); 0 where they agree.
    gain: float = 0.0
    #: Where they differ: the blind move's value searched again under another
    #: seed, minus its first value (the oracle's own noise).
    repeat: float = 0.0


@dataclass
class Tally:
    """Every decision asked, and how many deals."""

    asked: list[Asked] = field(default_factory=list)
    deals: int = 0


def kind_of(view: View) -> str:
    """bid / trumps / lottery / lead / follow / discard (void in the suit led)."""
    phase = view.get("phase")
    if phase == "bid":
        return "bid"
    if phase in ("trump_choice", "lottery"):
        return "trumps" if phase == "trump_choice" else "lottery"
    if not view["trick"]:
        return "lead"
    led = view["trick"][0][1][1]
    return "follow" if any(card[1] == led for card in view["hand"]) else "discard"


def encode(action: str) -> int:
    """A view's action as the compact state's: a card's index, a bid BID + n."""
    if action.startswith("bid:"):
        return compact_oh_hell.BID + int(action[4:])
    return INDEX[action]


def oracle_value(
    truth: Any,
    seat: int,
    action: int,
    rollout: ismcts.Rollout,
    iterations: int,
    seed: int,
) -> float:
    """The seat's value of ``action`` in the true deal ``truth`` (a compact
    state, left as it is): the mean reward over ``iterations`` of IS-MCTS whose
    only world is the truth and whose root plays ``action`` (double dummy)."""
    root = ismcts.Node()
    scale = [0.0, 0.0]
    rng = random.Random(seed)
    for _ in range(iterations):
        # The search's own iteration, its root fixed to the one move.
        ismcts._iterate(
            root,
            truth.clone(),
            truth,
            seat,
            [action],
            rollout,
            rewards,
            rng,
            scale,
            400,
            (None, 0.0),
        )
    return root.total[action] / root.visits[action]


def oh_hell_rollout(state: Any, seat: int, legal: list[int], rng: random.Random) -> int:
    """Below the oracle's tree in Oh Hell: a bid still to make the legal one
    nearest the hand's count of likely winners (as strong's bid estimates
    have the later seats bid), a card the rule of thumb's."""
    if not state.bidding:
        return compact_oh_hell.easy_rollout(state, seat, legal, rng)
    count = likely_tricks_mask(state.hands[seat], state.trump, state.players)
    return min(legal, key=lambda bid: (abs(bid - compact_oh_hell.BID - count), bid))


def rollout_of(game_id: str) -> ismcts.Rollout:
    """The rule of thumb below the oracle's tree in ``game_id`` (strong's own)."""
    return oh_hell_rollout if game_id == "oh_hell" else compact_king.easy_rollout


def new_deal(game_id: str, number: int) -> tuple[Game, str]:
    """Deal ``number`` of ``game_id`` and its label (Oh Hell: cards; King: the deal)."""
    if game_id == "oh_hell":
        game: Game = dealt(number)
        return game, str(getattr(game, "deal_size"))  # noqa: B009 - an Oh Hell deal
    game = start_game(game_id, 10_000 + number)
    return game, getattr(game, "contract")  # noqa: B009 - a King deal's name


def play_deal(
    game_id: str,
    number: int,
    players: dict[str, Callable[[Game, int, int], str]],
    iterations: int,
    tally: Tally,
) -> None:
    """Play deal ``number`` with strong, asking both players at every real choice
    and valuing the moves that differ by the oracle."""
    game, size = new_deal(game_id, number)
    deal_no = game.deal_no
    moves = 0
    rollout = rollout_of(game_id)
    while not game.finished and game.deal_no == deal_no:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        salt = number * 1_000_003 + moves * 31 + seat
        choice = players["strong"](game, seat, salt)
        kind = kind_of(view)
        if len(view["legal"]) > 1 and kind not in ("trumps", "lottery"):
            blind = players["strong-blind"](game, seat, salt)
            asked = Asked(number, size, kind, seat, choice, blind)
            if "control" in players:
                asked.control = players["control"](game, seat, salt + 17)
            if asked.blind != choice:
                truth = true_state(game_id, game, view)
                value = {
                    move: oracle_value(truth, seat, encode(move), rollout, iterations, salt)
                    for move in (choice, asked.blind)
                }
                asked.gain = value[choice] - value[asked.blind]
                again = oracle_value(truth, seat, encode(asked.blind), rollout, iterations, ~salt)
                asked.repeat = again - value[asked.blind]
            tally.asked.append(asked)
        game.apply(seat, choice)
        moves += 1
    tally.deals += 1


def deals_needed(gain: float, sd: float) -> tuple[float, float]:
    """Duplicate deals for a margin of spread ``sd`` per deal to show ``gain``:
    its 95 % interval's half-width down to the gain, and 80 % power."""
    if gain <= 0:
        return math.inf, math.inf
    return (Z95 * sd / gain) ** 2, ((Z95 + Z80) * sd / gain) ** 2


def report(game_id: str, tally: Tally, players: int, think: float, iterations: int) -> None:
    """Print the decisions, the share that differ, the gains and the deals a match needs."""
    asked = tally.asked
    differ = [a for a in asked if a.blind != a.inferring]
    print(f"\n{game_id}: {tally.deals} deals at {think} s, oracle {iterations} iterations a move")
    print("\n| decisions | kind / size | differ | mean gain per differing ± 95 % |")
    print("|---|---|---|---|")
    groups: dict[str, list[Asked]] = {"all": asked}
    kinds = ("bid", "lead", "follow", "discard")
    for a in sorted(asked, key=lambda a: kinds.index(a.kind)):
        groups.setdefault(a.kind, []).append(a)
    for a in sorted(asked, key=lambda a: (len(a.size), a.size)):
        groups.setdefault(f"{a.size} cards" if game_id == "oh_hell" else a.size, []).append(a)
    for name, members in groups.items():
        changed = [a.gain for a in members if a.blind != a.inferring]
        mean, half = interval(changed) if changed else (0.0, math.inf)
        print(
            f"| {len(members)} | {name} | {len(changed)} ({len(changed) / len(members):.0%}) "
            f"| {mean:+.3f} ± {half:.3f} |"
        )
    if any(a.control is not None for a in asked):
        noisy = sum(1 for a in asked if a.control != a.blind)
        print(
            f"\n- control: strong without inference under another salt differs {noisy} "
            f"times ({noisy / len(asked):.0%} of the decisions)"
        )
        for steady, name in ((True, "the same"), (False, "another")):
            some = [a.gain for a in differ if (a.control == a.blind) == steady]
            mean, half = interval(some) if len(some) > 1 else (0.0, math.inf)
            print(
                f"- differing where the control plays {name} move as blind: {len(some)}, "
                f"mean gain {mean:+.3f} ± {half:.3f}"
            )
    gains = [a.gain for a in differ]
    mean, half = interval(gains) if len(gains) > 1 else (0.0, math.inf)
    per_seat = len(differ) / tally.deals / players
    if len(differ) > 1:
        noise = statistics.stdev(a.repeat for a in differ) / math.sqrt(2)
        print(f"- the oracle's own noise: a move's value searched twice, sd {noise:.3f} points")
    print(f"\n- decisions {len(asked)}, differing {len(differ)} ({len(differ) / len(asked):.0%})")
    print(f"- mean gain per differing decision: {mean:+.3f} ± {half:.3f}")
    better = sum(1 for g in gains if g > SAME)
    worse = sum(1 for g in gains if g < -SAME)
    print(
        f"- the move with inference better by more than {SAME} points {better} times, "
        f"worse {worse}, within it {len(gains) - better - worse}"
    )
    print(
        f"- differing decisions per deal: {len(differ) / tally.deals:.2f} "
        f"({per_seat:.2f} per seat: a hero's share in a duplicate unit)"
    )
    print(
        f"- implied gain per deal (mean gain × differing per seat): "
        f"{mean * per_seat:+.3f} ± {half * per_seat:.3f}"
    )
    per_deal = [
        math.fsum(a.gain for a in differ if a.deal == number) / players
        for number in sorted({a.deal for a in asked})
    ]
    direct, direct_half = interval(per_deal)
    print(f"- the same summed per deal (per seat): {direct:+.3f} ± {direct_half:.3f}")
    sd = MARGIN_SD[game_id]
    clear, powered = deals_needed(mean * per_seat, sd)
    print(
        f"- a 1 s match (margin sd {sd} a deal) shows that gain clear of zero after "
        f"{clear:.0f} duplicate deals (95 % half-width = gain), {powered:.0f} for 80 % power"
    )


def main() -> None:
    """Play the deals and print the diagnosis."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=["oh_hell", "king"], default="oh_hell")
    parser.add_argument("--deals", type=int, default=22)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--oracle", type=int, default=3000, help="oracle iterations a move")
    parser.add_argument("--control", action="store_true", help="also ask blind, salted anew")
    parser.add_argument("--save", type=Path, help="a JSON file for every decision asked")
    args = parser.parse_args()
    budgets = game_budgets(args.game, args.think, False, None)
    players = {
        level: agent(level, args.game, budgets, args.think) for level in ("strong", "strong-blind")
    }
    if args.control:
        players["control"] = players["strong-blind"]
    tally = Tally()
    started = time.perf_counter()
    for number in range(args.first, args.first + args.deals):
        play_deal(args.game, number, players, args.oracle, tally)
        print(f"deal {number}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    report(args.game, tally, 4, args.think, args.oracle)
    if args.save is not None:
        args.save.write_text(json.dumps([dataclasses.asdict(a) for a in tally.asked]))
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

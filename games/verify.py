"""Deals anyone can check: the seed's commitment, and the cards dealt from a seed.

Every match is dealt from a seed drawn from :mod:`secrets` before the first card.
The table shows :func:`short_hash` of it (the commitment); the deal record shows
the seed itself once the match is over. Anyone can then run::

    python -m games.verify <game> <seed> [--players N] [--option name=value ...] [--deal K]

which prints the full and the short hash of the seed (compare it with what the
table showed) and the cards dealt from it, so the hands in the record can be
checked against the project's own shuffle (:func:`games.cards.shuffled`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from typing import Any

from games import REGISTRY, BadOptions
from games.base import Game
from games.cards import shuffled

#: Hex digits of the seed's hash the table shows.
SHORT = 8


def seed_string(seed: int) -> str:
    """The canonical text of a seed, the one that is hashed: ``koloda:<seed>``."""
    return f"koloda:{int(seed)}"


def seed_hash(seed: int) -> str:
    """The SHA-256 of :func:`seed_string`, in hex."""
    return hashlib.sha256(seed_string(seed).encode("ascii")).hexdigest()


def short_hash(seed: int) -> str:
    """The first :data:`SHORT` hex digits of :func:`seed_hash`: what a table shows."""
    return seed_hash(seed)[:SHORT]


def first_deal(
    game_id: str, players: int, options: dict[str, Any], seed: int
) -> tuple[int, list[list[str]]]:
    """The first dealer and every seat's hand of the match's first deal from ``seed``."""
    game: Game = REGISTRY[game_id].new(players, options, seed)
    hands: list[list[str]] = [list(hand) for hand in getattr(game, "hands", [])]
    return game.dealer, hands


def deck_order(
    game_id: str, players: int, options: dict[str, Any], seed: int, deal_no: int
) -> list[str]:
    """Deal ``deal_no``'s (0 first) shuffled deck, top card first."""
    game: Game = REGISTRY[game_id].new(players, options, seed)
    return shuffled(game.deck_cards(), seed, deal_no)


def command(game_id: str, players: int, options: dict[str, Any], seed: int) -> str:
    """The ``python -m games.verify`` line that re-deals this match (options left at
    their defaults are left out)."""
    defaults = {opt.name: opt.default for opt in REGISTRY[game_id].options_schema}
    parts = ["python -m games.verify", game_id, str(int(seed)), f"--players {players}"]
    for name, value in sorted(options.items()):
        if defaults.get(name, object()) != value:
            parts.append(f"--option {name}={json.dumps(value, separators=(',', ':'))}")
    return " ".join(parts)


def _option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"an option is name=value, not {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: print the seed's hashes and the cards dealt from it."""
    parser = argparse.ArgumentParser(
        prog="python -m games.verify", description="Re-deal a Koloda deal from its seed."
    )
    parser.add_argument("game", choices=sorted(REGISTRY))
    parser.add_argument("seed", type=int)
    parser.add_argument("--players", type=int, default=None, help="seats (default: the fewest)")
    parser.add_argument("--option", type=_option, action="append", default=[],
                        help="a table option as name=value (as the lobby showed it)")
    parser.add_argument("--deal", type=int, default=None,
                        help="also print this deal's (1 first) shuffled deck, top first")
    args = parser.parse_args(argv)
    rules = REGISTRY[args.game]
    players = args.players if args.players is not None else rules.min_players
    options = dict(args.option)
    try:
        dealer, hands = first_deal(args.game, players, options, args.seed)
    except BadOptions as error:
        print(f"bad table: {error}", file=sys.stderr)
        return 2
    print(f"seed:      {seed_string(args.seed)}")
    print(f"sha256:    {seed_hash(args.seed)}")
    print(f"table:     {short_hash(args.seed)}")
    table = json.dumps(rules.validate_options(players, options), sort_keys=True)
    print(f"game:      {args.game}, {players} players, options {table}")
    print(f"deal 1:    dealer seat {dealer + 1}")
    for seat, hand in enumerate(hands):
        print(f"  seat {seat + 1}: {' '.join(hand)}")
    if args.deal is not None:
        if args.deal < 1:
            print("--deal counts from 1", file=sys.stderr)
            return 2
        deck = deck_order(args.game, players, options, args.seed, args.deal - 1)
        print(f"deal {args.deal} deck, top first: {' '.join(deck)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

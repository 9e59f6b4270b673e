"""Golden transcripts: readable playthroughs of one seeded match per game.

Each transcript shows the deal (every hand, and what the table shows), then
every decision — the seat, its legal actions and the one taken — with the
events it caused, for the first :data:`DECISIONS` decisions or until the match
ends; then the scores. A fixed policy (a seeded random choice among the legal
actions) makes it deterministic, so any change in the rules shows up as a
readable diff against ``tests/games/golden/<id>.txt`` (``tests/games/test_golden.py``).

Regenerate after an intended rules change, and read the diff before committing::

    .venv/bin/python -m tests.support.golden_transcripts --update
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games import REGISTRY, Game
from games.cards import SUIT_SYMBOLS, display, is_card

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "games" / "golden"
#: Decisions shown per transcript (the first deal of most games, several of Fifteen).
DECISIONS = 60
#: Public table keys worth showing when a deal starts, in this order.
TABLE_KEYS = (
    "contract",
    "trumps",
    "trump_card",
    "stock",
    "stock_top",
    "discard_top",
    "suit",
    "pot",
    "chips",
)


@dataclass(frozen=True)
class Table:
    """One golden match: who plays, with which options, from which seed."""

    game: str
    players: int
    seed: int
    dealer: int = 0
    options: dict[str, Any] = field(default_factory=dict)


#: One match per game; a player count other than the minimum where it matters.
TABLES = {
    "eleven": Table("eleven", 2, seed=1),
    "two_ten_jack": Table("two_ten_jack", 3, seed=2),
    "fifteen": Table("fifteen", 2, seed=3),
    "rummy": Table("rummy", 3, seed=4),
    "mau_mau": Table("mau_mau", 3, seed=5, options={"seven_draws": True, "eight_skips": True}),
    "oh_hell": Table("oh_hell", 4, seed=6),
    "king": Table("king", 4, seed=7),
}


def show(value: Any) -> str:
    """Compact text for event data: cards as ``Q♠``, suits as ``♠``, plays as ``seat:card``."""
    if isinstance(value, str):
        if ":" in value:  # an action with parts: "JC:H", "AS:trump", "lay:9D:0"
            return ":".join(show(part) for part in value.split(":"))
        if is_card(value):
            return display(value)
        return SUIT_SYMBOLS.get(value, value)
    if isinstance(value, list):
        if len(value) == 2 and isinstance(value[0], int) and isinstance(value[1], str):
            return f"{value[0]}:{show(value[1])}"
        return "[" + " ".join(show(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}={show(item)}" for key, item in value.items()) + "}"
    return str(value)


def show_event(event: dict[str, Any]) -> str:
    """One event as ``type key=value …``."""
    details = " ".join(f"{key}={show(item)}" for key, item in event.items() if key != "type")
    return f"{event['type']} {details}".rstrip()


def deal_lines(game: Game) -> list[str]:
    """The header of a deal: dealer, every hand, and the public table."""
    public = game.view(None)
    lines = [f"== deal {game.deal_no}, dealer {game.dealer}, scores {show(game.scores)}"]
    for seat in range(game.players):
        lines.append(f"   hand {seat}: {show(game.view(seat)['hand'])}")
    shown = [f"{key}={show(public[key])}" for key in TABLE_KEYS if public.get(key) is not None]
    if shown:
        lines.append("   table: " + " ".join(shown))
    return lines


def transcript(table: Table, decisions: int = DECISIONS) -> str:
    """The golden transcript of ``table``'s match, as text."""
    game = REGISTRY[table.game].new(
        table.players, table.options, seed=table.seed, dealer=table.dealer
    )
    policy = random.Random(f"golden:{table.game}:{table.seed}")
    lines = [
        f"# {table.game}: {table.players} players, seed {table.seed}, dealer {table.dealer}",
        f"# options {show(game.options)}",
        *deal_lines(game),
    ]
    for step in range(1, decisions + 1):
        seat = game.to_move
        if seat is None:
            break
        legal = game.legal_actions(seat)
        action = policy.choice(legal)
        deal_no = game.deal_no
        lines.append(f"{step:3}. seat {seat} {show(action)}    legal: {show(legal)}")
        lines += [f"       {show_event(event)}" for event in game.apply(seat, action)]
        if game.deal_no != deal_no and not game.finished:
            lines += deal_lines(game)
    lines.append(f"== scores {show(game.scores)}, finished {game.finished}")
    if game.result is not None:
        lines.append(f"   winners {show(game.result['winners'])}")
    return "\n".join(lines) + "\n"


def golden_path(game_id: str) -> Path:
    """Where the golden transcript of ``game_id`` lives."""
    return GOLDEN_DIR / f"{game_id}.txt"


def diff(game_id: str) -> str:
    """A unified diff from the stored transcript to the current one ('' if equal)."""
    path = golden_path(game_id)
    stored = path.read_text(encoding="utf-8") if path.exists() else ""
    current = transcript(TABLES[game_id])
    return "".join(
        difflib.unified_diff(
            stored.splitlines(keepends=True),
            current.splitlines(keepends=True),
            fromfile=f"tests/games/golden/{game_id}.txt (stored)",
            tofile=f"tests/games/golden/{game_id}.txt (current rules)",
        )
    )


def main(argv: list[str] | None = None) -> int:
    """Print the diffs (exit 1 if any), or rewrite the golden files with ``--update``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite tests/games/golden/*.txt")
    parser.add_argument("games", nargs="*", default=sorted(TABLES), help="game ids")
    args = parser.parse_args(argv)
    changed = 0
    for game_id in args.games:
        if args.update:
            GOLDEN_DIR.mkdir(exist_ok=True)
            golden_path(game_id).write_text(transcript(TABLES[game_id]), encoding="utf-8")
            print(f"wrote {golden_path(game_id)}")
        elif text := diff(game_id):
            print(text)
            changed += 1
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The golden screens of the bot: where they are stored, the seats, the text form."""

from __future__ import annotations

from pathlib import Path

from bot.render.common import Screen
from sessions import Player

GOLDEN = Path(__file__).resolve().parents[1] / "bot" / "golden"

SEATS = [
    Player(11, "Алиса", None),
    Player(12, "Bob & <Co>", None),
    Player(None, "Computer (easy)", "easy"),
    Player(None, "Computer (strong)", "strong"),
]


def snapshot(screen: Screen) -> str:
    """The screen as plain text: message, then ``[label → data]`` per row."""
    rows = [" ".join(f"[{b.label} → {b.data or b.url}]" for b in row) for row in screen.rows]
    return "\n".join([screen.text, "---", *rows]) + "\n"
